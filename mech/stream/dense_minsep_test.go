package stream

import (
	"context"
	"math"
	"testing"
)

// TestDenseMinSep: the column-generation optimum under minimum separation
// is certified (its sensitivity recomputed by brute force over every
// pattern and sign), lies above the fixed-epochs optimum (whose patterns
// are a subset when n = k·b) and below the banded Toeplitz and BLT
// strategies and the square root, all with exact sensitivities; the dual
// bound recomputed from the returned multipliers (an n×n
// eigendecomposition of Λ^{1/2} G Λ^{1/2}, the other route of §19.2)
// matches.
func TestDenseMinSep(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ n, k, b int }{{12, 2, 3}, {16, 3, 4}, {20, 2, 7}} {
		s := MinSeparation(c.k, c.b)
		r, err := OptimizeDense(ctx, c.n, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.RelGap > 1e-6 || r.Dual > r.Primal {
			t.Errorf("%v n=%d: gap %v", s, c.n, r.RelGap)
		}
		if got, want := minSepConstraints(c.n, s, 1<<30), len(r.Multipliers); got != want {
			t.Errorf("%v n=%d: counted %d constraints, listed %d", s, c.n, got, want)
		}
		if bf := bruteSens(r.X, s); math.Abs(bf-1) > 1e-9 {
			t.Errorf("%v n=%d: brute-force sens² %v", s, c.n, bf)
		}
		if d := dualFromMultipliers(t, c.n, r.Multipliers); math.Abs(d-r.Dual) > 1e-8*r.Dual {
			t.Errorf("%v n=%d: dual recomputed %v, reported %v", s, c.n, d, r.Dual)
		}
		if c.n%c.b == 0 && c.n/c.b <= c.k {
			e, err := OptimizeDense(ctx, c.n, FixedEpochs(c.n/c.b, c.b), &DenseOptions{RelGap: 1e-8})
			if err != nil {
				t.Fatal(err)
			}
			if e.Errors.Total > r.Errors.Total*(1+1e-6) {
				t.Errorf("%v n=%d: epochs optimum %v above the minsep optimum %v", s, c.n, e.Errors.Total, r.Errors.Total)
			}
		}
		tp, err := OptimizeToeplitz(ctx, c.n, c.b, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		bl, err := OptimizeBLT(ctx, c.n, 2, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		sq := &Toeplitz{N: c.n, Coef: SqrtCoef(c.n)}
		sqs, err := ToeplitzSensitivity(ctx, sq, s)
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range map[string]float64{"banded": tp.Errors.Total, "blt": bl.Errors.Total, "sqrt": ToeplitzErrors(sq, sqs.Sens2).Total} {
			if v < r.Dual*(1-1e-9) {
				t.Errorf("%v n=%d: %s %v below the dual bound %v", s, c.n, name, v, r.Dual)
			}
		}
		t.Logf("%v n=%d: dense %.6g (dual %.6g, %d constraints), banded %.6g, blt %.6g", s, c.n, r.Errors.Total, r.Dual, len(r.Multipliers), tp.Errors.Total, bl.Errors.Total)
	}
}

// dualFromMultipliers returns (tr (Λ^{1/2} G Λ^{1/2})^{1/2})²/Σλ with Λ
// formed from the multipliers and G = AᵀA.
func dualFromMultipliers(t *testing.T, n int, ms []Multiplier) float64 {
	lam := make([][]float64, n)
	for i := range lam {
		lam[i] = make([]float64, n)
	}
	sum := 0.0
	for _, m := range ms {
		sum += m.Lambda
		for a, i := range m.Pattern {
			for b, j := range m.Pattern {
				lam[i][j] += m.Lambda * float64(m.Signs[a]*m.Signs[b])
			}
		}
	}
	flat := make([]float64, 0, n*n)
	for _, r := range lam {
		flat = append(flat, r...)
	}
	half, err := symPow(flat, n, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	g := PrefixGram(n)
	m := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := 0.0
			for a := 0; a < n; a++ {
				for b := 0; b < n; b++ {
					v += half[i*n+a] * g.At(a, b) * half[b*n+j]
				}
			}
			m[i*n+j] = v
		}
	}
	root, err := symPow(m, n, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	tr := 0.0
	for i := 0; i < n; i++ {
		tr += root[i*n+i]
	}
	return tr * tr / sum
}

// TestMinSepConstraintsCap: the count stops past the limit without
// overflowing (many participations, 32-bit int included).
func TestMinSepConstraintsCap(t *testing.T) {
	if got := minSepConstraints(200, MinSeparation(60, 1), 1000); got != 1001 {
		t.Errorf("capped count %d, want 1001", got)
	}
	// n = 5, k = 2, b = 2: 5 singletons + 6 pairs × 2 signs = 17.
	if got := minSepConstraints(5, MinSeparation(2, 2), 1000); got != 17 {
		t.Errorf("count %d, want 17", got)
	}
}

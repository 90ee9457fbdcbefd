package stream

import (
	"context"
	"math"
	"math/bits"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// treeMatrix builds the binary tree strategy explicitly: one row per
// dyadic interval of [0, N) (N = 2^L >= n) that meets [0, n), restricted
// to the columns [0, n).
func treeMatrix(n int) *mat.Dense {
	N := 1
	for N < n {
		N *= 2
	}
	var rows [][]float64
	for size := 1; size <= N; size *= 2 {
		for start := 0; start < n; start += size {
			row := make([]float64, n)
			for i := start; i < start+size && i < n; i++ {
				row[i] = 1
			}
			rows = append(rows, row)
		}
	}
	c := mat.NewDense(len(rows), n, nil)
	for i, r := range rows {
		c.SetRow(i, r)
	}
	return c
}

// TestBaselinesIndependent: the closed forms of the baselines against
// explicit matrices: the tree Gram from the explicit tree, the online
// estimator's node count from the greedy dyadic decomposition of [0, t],
// Honaker's errors from the least-squares B = A (CᵀC)⁻¹ Cᵀ formed
// explicitly, the identity's from ‖A‖²_F.
func TestBaselinesIndependent(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{5, 8, 13} {
		c := treeMatrix(n)
		x := mat.NewSymDense(n, nil)
		x.SymOuterK(1, c.T())
		tg := newTreeGram(n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if x.At(i, j) != tg.At(i, j) {
					t.Fatalf("n=%d: tree Gram (%d,%d) = %v, explicit %v", n, i, j, tg.At(i, j), x.At(i, j))
				}
			}
		}
		// Greedy decomposition of [0, t] into aligned dyadic blocks.
		sum, mx := 0.0, 0.0
		for tt := 0; tt < n; tt++ {
			nodes := 0
			for start := 0; start <= tt; {
				size := 1
				for start%(2*size) == 0 && start+2*size-1 <= tt {
					size *= 2
				}
				start += size
				nodes++
			}
			if nodes != bits.OnesCount(uint(tt+1)) {
				t.Fatalf("t=%d: %d nodes, popcount %d", tt, nodes, bits.OnesCount(uint(tt+1)))
			}
			sum += float64(nodes)
			mx = math.Max(mx, float64(nodes))
		}
		// Honaker: B = A X⁻¹ Cᵀ explicitly.
		a := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				a.Set(i, j, 1)
			}
		}
		var xi mat.Dense
		if err := xi.Inverse(x); err != nil {
			t.Fatal(err)
		}
		var b, bt mat.Dense
		b.Mul(a, &xi)
		bt.Mul(&b, c.T())
		hTot, hMax := 0.0, 0.0
		for i := 0; i < n; i++ {
			row := mat.Row(nil, i, &bt)
			s := 0.0
			for _, v := range row {
				s += v * v
			}
			hTot += s
			hMax = math.Max(hMax, s)
		}
		for _, s := range []Schema{SingleParticipation(), FixedEpochs(2, (n+1)/2), MinSeparation(2, 3)} {
			reps, err := Baselines(ctx, n, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			sens := bruteSens(x, s)
			idSens := bruteSens(identityGram2(n), s)
			want := map[string][2]float64{
				"identity":    {idSens * float64(n*(n+1)/2), idSens * float64(n)},
				"binary tree": {sens * sum, sens * mx},
				"honaker":     {sens * hTot, sens * hMax},
			}
			for _, r := range reps {
				w, ok := want[r.Name]
				if !ok {
					continue
				}
				if math.Abs(r.Total-w[0]) > 1e-9*w[0] || math.Abs(r.Max-w[1]) > 1e-9*w[1] {
					t.Errorf("n=%d %v %s: total %v max %v, want %v %v", n, s, r.Name, r.Total, r.Max, w[0], w[1])
				}
			}
		}
	}
}

func identityGram2(n int) *mat.SymDense {
	x := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		x.SetSym(i, i, 1)
	}
	return x
}

// TestBounds: the closed-form singular values of A against an SVD, the
// bounds on Σ r_t², and the sandwich of the optimum around ln(n)/π.
func TestBounds(t *testing.T) {
	n := 50
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			a.Set(i, j, 1)
		}
	}
	var svd mat.SVD
	svd.Factorize(a, mat.SVDNone)
	nuc := 0.0
	for _, v := range svd.Values(nil) {
		nuc += v
	}
	if b := Bounds(n); math.Abs(b.Nuclear-nuc) > 1e-12*nuc {
		t.Errorf("nuclear norm %v, SVD %v", b.Nuclear, nuc)
	}
	for _, m := range []int{2, 16, 1024, 1 << 16} {
		b := Bounds(m)
		s := math.Sqrt(b.SqrtMax)
		lo, hi := 1+math.Log(float64(2*m+1)/3)/math.Pi, 1+(1+math.Log(float64(m-1)))/math.Pi
		if s < lo || s > hi {
			t.Errorf("n=%d: Σ r² = %v outside [%v, %v]", m, s, lo, hi)
		}
		l := math.Sqrt(b.MaxLower)
		if l > s || math.Abs(l-b.LogOverPi) > 1.5 || math.Abs(s-b.LogOverPi) > 1.5 {
			t.Errorf("n=%d: sandwich %v <= %v around ln n/π = %v", m, l, s, b.LogOverPi)
		}
	}
	// The optimised factorisations lie inside: total between the SVD bound
	// and the square root, max variance between (‖A‖_*/n)² and (Σ r²)².
	ctx := context.Background()
	n = 128
	b := Bounds(n)
	d, err := OptimizeDense(ctx, n, SingleParticipation(), nil)
	if err != nil {
		t.Fatal(err)
	}
	mx, err := OptimizeToeplitz(ctx, n, n, SingleParticipation(), &ToeplitzOptions{Loss: MaxVariance})
	if err != nil {
		t.Fatal(err)
	}
	if d.Primal < b.TotalLower || d.Primal > SqrtErrors(n, sqrtSens2(n)).Total {
		t.Errorf("dense optimum %v outside [%v, sqrt]", d.Primal, b.TotalLower)
	}
	if mx.Errors.Max < b.MaxLower || mx.Errors.Max > b.SqrtMax*(1+1e-12) {
		t.Errorf("max-variance Toeplitz %v outside [%v, %v]", mx.Errors.Max, b.MaxLower, b.SqrtMax)
	}
	t.Logf("n=%d: max variance %v in [%v, %v]; ln n/π = %v", n, mx.Errors.Max, b.MaxLower, b.SqrtMax, b.LogOverPi)
}

// TestBaselinesSqrtBeyondDenseLimit: above the dense limit the tree
// baselines are skipped under minimum separation, but the square root is
// still reported, with the sensitivity of the brute-force enumeration over
// every pattern and sign on its explicit Gram (CᵀC, C = A^{1/2} formed
// entry by entry from SqrtCoef), under every schema.
func TestBaselinesSqrtBeyondDenseLimit(t *testing.T) {
	ctx := context.Background()
	n := 14
	coef := SqrtCoef(n)
	c := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			c.Set(i, j, coef[i-j])
		}
	}
	x := mat.NewSymDense(n, nil)
	x.SymOuterK(1, c.T())
	for _, s := range []Schema{{Kind: MinSep, K: 3, B: 4}, {Kind: Epochs, K: 3, B: 4}, {Kind: MinSep, K: 2, B: 5}} {
		reps, err := Baselines(ctx, n, s, &BaselineOptions{DenseLimit: 8})
		if err != nil {
			t.Fatalf("%v: %v", s, err)
		}
		var sq *Report
		for i := range reps {
			if reps[i].Name == "sqrt" {
				sq = &reps[i]
			}
		}
		if sq == nil || math.IsNaN(sq.Sens2) {
			t.Fatalf("%v: no sqrt baseline in %+v", s, reps)
		}
		want := bruteSens(x, s)
		if math.Abs(sq.Sens2-want) > 1e-12*want {
			t.Errorf("%v: sqrt sens² %v, brute force %v", s, sq.Sens2, want)
		}
	}
}

package stream

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// TestDenseSingleTwoAlgorithms: the dual L-BFGS method and sdp's Newton
// method (two independent algorithms) agree on single participation.
func TestDenseSingleTwoAlgorithms(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{8, 32} {
		a, err := OptimizeDense(ctx, n, SingleParticipation(), nil)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		b, err := OptimizeDense(ctx, n, SingleParticipation(), &DenseOptions{Dual: true, RelGap: 1e-9, Settings: run.Settings{Progress: func(p run.Progress) {}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("n=%d newton %v (gap %.2g), dual %v (gap %.2g, %d iterations, %v)", n, a.Primal, a.RelGap, b.Primal, b.RelGap, b.Iterations, time.Since(start))
		if math.Abs(a.Primal-b.Primal) > 2e-9*a.Primal || b.Dual > a.Primal*(1+1e-12) || a.Dual > b.Primal*(1+1e-12) {
			t.Errorf("n=%d: newton %v [%v], dual method %v [%v]", n, a.Primal, a.Dual, b.Primal, b.Dual)
		}
	}
}

func TestDenseEpochs(t *testing.T) {
	ctx := context.Background()
	n, k, b := 24, 3, 8
	s := FixedEpochs(k, b)
	start := time.Now()
	r, err := OptimizeDense(ctx, n, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("n=%d %v: primal %v dual %v gap %.2g, %d iterations, %v", n, s, r.Primal, r.Dual, r.RelGap, r.Iterations, time.Since(start))
	// The b patterns {j, j+b, ...} and all 2^k sign vectors, directly.
	want := 0.0
	for j := 0; j < b; j++ {
		for sg := 0; sg < 1<<k; sg++ {
			v := 0.0
			for e := 0; e < k; e++ {
				for f := 0; f < k; f++ {
					se, sf := 1-2*float64(sg>>e&1), 1-2*float64(sg>>f&1)
					v += se * sf * r.X.At(j+e*b, j+f*b)
				}
			}
			want = math.Max(want, v)
		}
	}
	if math.Abs(want-1) > 1e-9 {
		t.Errorf("sensitivity by brute force %v, want 1", want)
	}
}

func TestDenseBadInput(t *testing.T) {
	ctx := context.Background()
	if _, err := OptimizeDense(ctx, 12, FixedEpochs(2, 4), nil); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("epochs:k=2,b=4 on n = 12: %v, want ErrBadInput", err)
	}
	// Minimum separation with too many patterns to list.
	if _, err := OptimizeDense(ctx, 400, MinSeparation(4, 2), nil); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("minsep:k=4,b=2 on n = 400: %v, want ErrTooLarge", err)
	}
	if _, err := OptimizeDense(ctx, 64, FixedEpochs(2, 32), &DenseOptions{Settings: run.Settings{Budget: 1000}}); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("tiny budget: %v, want ErrTooLarge", err)
	}
}

// recheckDual recomputes the dual bound from the multipliers alone by a
// different route: Λ = Σ λ v vᵀ formed explicitly, Φ = Σ_i sqrt(μ_i) for
// the eigenvalues μ of A Λ Aᵀ (similar to Λ^{1/2} AᵀA Λ^{1/2}).
func recheckDual(t *testing.T, n int, ms []Multiplier) float64 {
	lam := mat.NewSymDense(n, nil)
	sum := 0.0
	for _, m := range ms {
		sum += m.Lambda
		for a, i := range m.Pattern {
			for b, j := range m.Pattern {
				if i <= j {
					lam.SetSym(i, j, lam.At(i, j)+m.Lambda*float64(m.Signs[a]*m.Signs[b]))
				}
			}
		}
	}
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			a.Set(i, j, 1)
		}
	}
	var al mat.Dense
	al.Mul(a, lam)
	m := mat.NewSymDense(n, nil)
	var full mat.Dense
	full.Mul(&al, a.T())
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			m.SetSym(i, j, (full.At(i, j)+full.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(m, false) {
		t.Fatal("eigendecomposition failed")
	}
	phi := 0.0
	for _, v := range eig.Values(nil) {
		phi += math.Sqrt(math.Max(v, 0))
	}
	return phi * phi / sum
}

// TestDenseCertificate: the reported dual bound, recomputed from the
// multipliers by another formula, is below the primal and within the gap.
func TestDenseCertificate(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		n int
		s Schema
	}{{16, SingleParticipation()}, {24, FixedEpochs(3, 8)}, {32, FixedEpochs(2, 16)}} {
		r, err := OptimizeDense(ctx, c.n, c.s, nil)
		if err != nil {
			t.Fatal(err)
		}
		d := recheckDual(t, c.n, r.Multipliers)
		if math.Abs(d-r.Dual) > 1e-9*r.Dual || d > r.Primal*(1+1e-12) {
			t.Errorf("n=%d %v: dual recomputed %v, reported %v, primal %v", c.n, c.s, d, r.Dual, r.Primal)
		}
	}
}

package tight

import (
	"context"
	"math"
	"math/big"
	"testing"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// ratMinZ solves Phi z = 1 exactly, by Gaussian elimination over the
// rationals (math/big.Rat), for Phi's entries e^{-eps·d(i,k)} rounded to
// float64 (each converted exactly to a rational), and returns min z rounded
// to float64. It shares no code with the solvers: the only error is that of
// the rounded entries, which Solve's error bound ZErr covers.
func ratMinZ(t *testing.T, m metric.Metric, eps float64) float64 {
	t.Helper()
	n := m.Len()
	a := make([][]*big.Rat, n)
	for i := range a {
		a[i] = make([]*big.Rat, n+1)
		for k := 0; k < n; k++ {
			a[i][k] = new(big.Rat).SetFloat64(math.Exp(-eps * m.Dist(i, k)))
		}
		a[i][n] = big.NewRat(1, 1)
	}
	var f, tmp big.Rat
	for c := 0; c < n; c++ {
		p := c
		for p < n && a[p][c].Sign() == 0 {
			p++
		}
		if p == n {
			t.Fatalf("ratMinZ: Phi of %s at eps %v is singular", m, eps)
		}
		a[c], a[p] = a[p], a[c]
		for r := c + 1; r < n; r++ {
			if a[r][c].Sign() == 0 {
				continue
			}
			f.Quo(a[r][c], a[c][c])
			for j := c; j <= n; j++ {
				a[r][j].Sub(a[r][j], tmp.Mul(&f, a[c][j]))
			}
		}
	}
	z := make([]*big.Rat, n)
	mz := math.Inf(1)
	for i := n - 1; i >= 0; i-- {
		s := new(big.Rat).Set(a[i][n])
		for j := i + 1; j < n; j++ {
			s.Sub(s, tmp.Mul(a[i][j], z[j]))
		}
		z[i] = s.Quo(s, a[i][i])
		v, _ := z[i].Float64()
		mz = min(mz, v)
	}
	return mz
}

// TestTinyEpsExactMinZ: on a 5x5 grid (step 0.3) at eps = 1e-4, Phi is
// within 1e-4 of the all-ones matrix and badly conditioned; Solve's min z
// must agree with the exact rational solve within its own error bound
// ZErr, and the exact value must be clearly negative (the verdict "no").
func TestTinyEpsExactMinZ(t *testing.T) {
	g, _ := metric.Grid(5, 5, 0.3, metric.Euclid)
	const eps = 1e-4
	exact := ratMinZ(t, g, eps)
	r := mustTight(t, g, eps, &Options{Solver: SolverDense, NoMechanism: true})
	if !(r.ZErr > 0) || r.ZErr > 1e-3 || math.Abs(r.MinZ-exact) > r.ZErr {
		t.Errorf("grid 1e-4: min z %v ± %v, exact %v (difference %v)", r.MinZ, r.ZErr, exact, math.Abs(r.MinZ-exact))
	}
	if r.Exists != No || !(exact < -r.ZErr) {
		t.Errorf("grid 1e-4: verdict %v, exact min z %v, want no", r.Exists, exact)
	}
	// The same check where the mechanism exists: eps = 8 (2.4 per step of
	// the grid), min z > 0.
	exact = ratMinZ(t, g, 8)
	r = mustTight(t, g, 8, &Options{Solver: SolverDense, NoMechanism: true})
	if r.Exists != Yes || !(exact > 0) || math.Abs(r.MinZ-exact) > r.ZErr {
		t.Errorf("grid 8: %v min z %v ± %v, exact %v", r.Exists, r.MinZ, r.ZErr, exact)
	}
}

// checkBracket checks a threshold found by Threshold against an
// independent computation: the textbook Gaussian elimination of gaussMinZ
// (residual checked) must find min z clearly < 0 at 1e-6 below the bracket
// and clearly > 0 at 1e-6 above it, so a sign change lies within 1e-6 of
// [Lo, Hi]; the bracket itself is at most tol wide.
func checkBracket(t *testing.T, m metric.Metric, r *ThresholdResult, tol float64) {
	t.Helper()
	if !r.Bracketed || r.Hi-r.Lo > tol || r.EpsStar != r.Hi {
		t.Fatalf("%s: threshold %+v", m, r)
	}
	below, above := gaussMinZ(t, m, r.Lo-1e-6), gaussMinZ(t, m, r.Hi+1e-6)
	if !(below < -1e-9) || !(above > 1e-9) {
		t.Errorf("%s: eps* = %v not bracketed by an independent solve: min z %v at %v, %v at %v", m, r.EpsStar, below, r.Lo-1e-6, above, r.Hi+1e-6)
	}
}

// TestThresholdToeplitzIndependent: the threshold of the 2-count query
// u=30 on the Toeplitz path (the dense path refused by the memory budget),
// confirmed by checkBracket's independent dense solves on both sides
// (TestThresholdPaperCaseStudies checks the dense path the same way).
func TestThresholdToeplitzIndependent(t *testing.T) {
	if testing.Short() {
		t.Skip("dense solves of n = 961")
	}
	kc, _ := metric.KCount(30, 2)
	r, err := Threshold(context.Background(), kc, &ThresholdOptions{Lo: 0.5, Hi: 2, Steps: 6, Settings: run.Settings{Budget: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Solver != "toeplitz" {
		t.Errorf("solver %q, want toeplitz", r.Solver)
	}
	checkBracket(t, kc, r, 1e-6)
}

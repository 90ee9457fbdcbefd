package lp

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"gonum.org/v1/gonum/mat"
)

// manhattanLossProblem is the location-privacy LP on a w×w grid with unit
// cells (row y·w+x is cell (x,y)): gain -prior_i·(|dx|+|dy|) and the
// 4-neighbour edges at ratio e^eps. hot selects a prior of two Gaussian hot
// spots on a floor, otherwise uniform.
func manhattanLossProblem(w int, eps float64, hot bool) *Problem {
	n := w * w
	prior := make([]float64, n)
	var sum float64
	fw := float64(w)
	for i := range prior {
		x, y := float64(i%w), float64(i/w)
		v := 1.0
		if hot {
			v = 0.02 + math.Exp(-((x-0.3*fw)*(x-0.3*fw)+(y-0.3*fw)*(y-0.3*fw))/(fw*fw/50)) +
				0.6*math.Exp(-((x-0.7*fw)*(x-0.7*fw)+(y-0.4*fw)*(y-0.4*fw))/(fw*fw/32))
		}
		prior[i] = v
		sum += v
	}
	c := make([]float64, n*n)
	for i := range n {
		for o := range n {
			d := math.Abs(float64(i%w-o%w)) + math.Abs(float64(i/w-o/w))
			c[i*n+o] = -prior[i] / sum * d
		}
	}
	ps := rectEdgePairs(w, w, math.Exp(eps))
	return &Problem{N: n, M: n, C: c, Pairs: ps}
}

// TestLazySchurMatchesDirect: the lazy Schur complement (an earlier
// factor of S preconditioning conjugate gradients on the exact S, forced
// on at every iteration after the first) and the direct assembly at every
// iteration are two ways to compute the Newton directions; both results
// are certified, so their brackets [Primal, Dual] must overlap and both
// gaps meet the tolerance. The lazy run must really have skipped
// assemblies and run conjugate gradients, and its repaired mechanism
// passes the exact audit (mech.Audit) of the Manhattan grid at eps.
func TestLazySchurMatchesDirect(t *testing.T) {
	const eps, tol = 0.5, 1e-7
	for _, w := range []int{5, 7, 10} {
		for _, hot := range []bool{false, true} {
			name := fmt.Sprintf("%dx%d hot=%v", w, w, hot)
			p := manhattanLossProblem(w, eps, hot)
			direct, err := Solve(context.Background(), p, &Options{Tol: tol, DirectSchur: true})
			if err != nil {
				t.Fatalf("%s direct: %v", name, err)
			}
			lazy, err := Solve(context.Background(), p, &Options{Tol: tol, schurMode: 1})
			if err != nil {
				t.Fatalf("%s lazy: %v", name, err)
			}
			t.Logf("%s: direct [%.12g, %.12g] %d iters; lazy [%.12g, %.12g] %d iters, %d assemblies, %d CG",
				name, direct.Primal, direct.Dual, direct.Iterations, lazy.Primal, lazy.Dual, lazy.Iterations, lazy.SchurAssemblies, lazy.SchurCG)
			if lazy.Gap > tol || direct.Gap > tol {
				t.Errorf("%s: gaps %g (lazy), %g (direct) above %g", name, lazy.Gap, direct.Gap, tol)
			}
			scale := math.Abs(direct.Dual)
			if lazy.Primal > direct.Dual+1e-12*scale || direct.Primal > lazy.Dual+1e-12*scale {
				t.Errorf("%s: brackets [%v, %v] and [%v, %v] are disjoint", name, lazy.Primal, lazy.Dual, direct.Primal, direct.Dual)
			}
			if lazy.SchurCG == 0 || lazy.SchurAssemblies >= lazy.Iterations {
				t.Errorf("%s: lazy path not exercised: %d assemblies in %d iterations, %d CG", name, lazy.SchurAssemblies, lazy.Iterations, lazy.SchurCG)
			}
			if direct.SchurCG != 0 || direct.SchurAssemblies < direct.Iterations {
				t.Errorf("%s: direct path ran %d CG iterations, %d assemblies in %d iterations", name, direct.SchurCG, direct.SchurAssemblies, direct.Iterations)
			}
			// The automatic rule (timed, so its choices vary between runs)
			// must give a certified answer in the same bracket too.
			auto, err := Solve(context.Background(), p, &Options{Tol: tol, schurMode: 2})
			if err != nil {
				t.Fatalf("%s auto: %v", name, err)
			}
			if auto.Gap > tol || auto.Primal > direct.Dual+1e-12*scale || direct.Primal > auto.Dual+1e-12*scale {
				t.Errorf("%s: automatic rule [%v, %v] (gap %g) against direct [%v, %v]", name, auto.Primal, auto.Dual, auto.Gap, direct.Primal, direct.Dual)
			}
			g, err := metric.Grid(w, w, 1, metric.Manhattan)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := mech.Audit(mat.NewDense(p.N, p.M, lazy.X), g, eps)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Private {
				t.Errorf("%s: the lazy path's mechanism fails the exact audit: level %v > %v", name, rep.Eps, eps)
			}
		}
	}
}

// TestLazySchurLine: on a line the optimum is the truncated geometric
// mechanism's remapped utility (docs/MATH.md §8.1), also when every Newton
// direction after the first comes from conjugate gradients.
func TestLazySchurLine(t *testing.T) {
	for _, c := range []struct {
		n   int
		eps float64
	}{{20, 0.7}, {60, 0.3}} {
		prior := uniformPrior(c.n)
		for i := range prior {
			prior[i] = (1 + math.Sin(float64(i))*0.5) / float64(c.n)
		}
		var s float64
		for _, v := range prior {
			s += v
		}
		for i := range prior {
			prior[i] /= s
		}
		res, err := Solve(context.Background(), binaryProblem(prior, bandPairs(c.n, 1, c.eps)), &Options{schurMode: 1})
		if err != nil {
			t.Fatalf("n=%d: %v", c.n, err)
		}
		want := geometricUtility(prior, c.eps, 1)
		t.Logf("n=%d: primal %.12f dual %.12f geometric %.12f, %d iters, %d assemblies, %d CG", c.n, res.Primal, res.Dual, want, res.Iterations, res.SchurAssemblies, res.SchurCG)
		if res.Primal > want*(1+1e-12) || res.Dual < want*(1-1e-12) {
			t.Errorf("n=%d: bounds [%v, %v] do not bracket the optimum %v", c.n, res.Primal, res.Dual, want)
		}
		if math.Abs(res.Primal-want) > 1e-7*want {
			t.Errorf("n=%d: primal %v, want %v", c.n, res.Primal, want)
		}
		if res.SchurCG == 0 {
			t.Errorf("n=%d: no conjugate-gradient iterations", c.n)
		}
	}
}

package lp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/optdp/optdp/lp/internal/kernel"
	"github.com/optdp/optdp/lp/internal/schur"
	"github.com/optdp/optdp/lp/ldl"
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
			direct, lazy := directAndLazy(t, name, p, tol)
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
			// Single precision in the sparse mode's lazy assemblies: 10×10
			// (5×5 is banded; 7×7 needs no assembly, the mean of the H_o
			// preconditions it well enough).
			if countsOf(lazy).schurSingle > lazy.SchurAssemblies || countsOf(direct).schurSingle != 0 || w == 10 && (countsOf(lazy).schurSingle == 0 || countsOf(lazy).schurSingle != lazy.SchurAssemblies) {
				t.Errorf("%s: %d of %d lazy assemblies, %d direct ones in single precision", name, countsOf(lazy).schurSingle, lazy.SchurAssemblies, countsOf(direct).schurSingle)
			}
			// The lazy path with its assemblies in double precision (the
			// preconditioner then also solves the assembling iteration
			// directly), and falling back to it after a single-precision S
			// out of range.
			for _, h := range []testHooks{{schurMode: 1, schurDouble: true}, {schurMode: 1, schurSingleFail: true}} {
				r, err := solveWith(context.Background(), p, &Options{Tol: tol}, func(c *config) { c.test = h })
				if err != nil {
					t.Fatalf("%s double=%v fail=%v: %v", name, h.schurDouble, h.schurSingleFail, err)
				}
				if r.Gap > tol || r.Primal > direct.Dual+1e-12*scale || direct.Primal > r.Dual+1e-12*scale {
					t.Errorf("%s double=%v fail=%v: [%v, %v] (gap %g) against direct [%v, %v]", name, h.schurDouble, h.schurSingleFail, r.Primal, r.Dual, r.Gap, direct.Primal, direct.Dual)
				}
				if w == 10 && r.SchurAssemblies == 0 || countsOf(r).schurSingle != 0 {
					t.Errorf("%s double=%v fail=%v: %d assemblies, %d in single precision", name, h.schurDouble, h.schurSingleFail, r.SchurAssemblies, countsOf(r).schurSingle)
				}
			}
			if direct.SchurCG != 0 || direct.SchurAssemblies < direct.Iterations {
				t.Errorf("%s: direct path ran %d CG iterations, %d assemblies in %d iterations", name, direct.SchurCG, direct.SchurAssemblies, direct.Iterations)
			}
			// The automatic rule (timed, so its choices vary between runs)
			// must give a certified answer in the same bracket too.
			auto, err := solveWith(context.Background(), p, &Options{Tol: tol}, func(c *config) { c.test.schurMode = 2 })
			if err != nil {
				t.Fatalf("%s auto: %v", name, err)
			}
			if auto.Gap > tol || auto.Primal > direct.Dual+1e-12*scale || direct.Primal > auto.Dual+1e-12*scale {
				t.Errorf("%s: automatic rule [%v, %v] (gap %g) against direct [%v, %v]", name, auto.Primal, auto.Dual, auto.Gap, direct.Primal, direct.Dual)
			}
			auditManhattan(t, name, lazy.X, w, eps)
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
		res, err := solveWith(context.Background(), binaryProblem(prior, bandPairs(c.n, 1, c.eps)), nil, func(c *config) { c.test.schurMode = 1 })
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

// directAndLazy solves p to tol with S assembled at every iteration
// (DirectSchur) and with the lazy path forced on (schurMode 1).
func directAndLazy(t *testing.T, name string, p *Problem, tol float64) (direct, lazy *Result) {
	t.Helper()
	direct, err := solveWith(context.Background(), p, &Options{Tol: tol, DirectSchur: true}, func(*config) {})
	if err != nil {
		t.Fatalf("%s direct: %v", name, err)
	}
	lazy, err = solveWith(context.Background(), p, &Options{Tol: tol}, func(c *config) { c.test.schurMode = 1 })
	if err != nil {
		t.Fatalf("%s lazy: %v", name, err)
	}
	return direct, lazy
}

// auditManhattan fails the test unless x (w²×w², row-major) passes the
// exact audit (mech.Audit) of the w×w Manhattan grid at eps.
func auditManhattan(t *testing.T, name string, x []float64, w int, eps float64) {
	t.Helper()
	g, err := metric.Grid(w, w, 1, metric.Manhattan)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := mech.Audit(mat.NewDense(w*w, w*w, x), g, eps)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Private {
		t.Errorf("%s: the mechanism fails the exact audit: level %v > %v", name, rep.Eps, eps)
	}
}

// TestLazySchurSingleProducts: solved to a relative gap of 1e-3, the lazy
// path's products read L in single precision (solve4F32), and the answer
// is certified in the direct path's bracket; its repaired mechanism
// passes the exact audit. To 1e-6 no product does (pcgSingleTol).
func TestLazySchurSingleProducts(t *testing.T) {
	const eps = 0.5
	for _, hot := range []bool{false, true} {
		p := manhattanLossProblem(10, eps, hot)
		for _, tol := range []float64{1e-3, 1e-6} {
			name := fmt.Sprintf("10x10 hot=%v tol=%g", hot, tol)
			direct, lazy := directAndLazy(t, name, p, tol)
			if want := tol >= 1e-3; (countsOf(lazy).schurF32 > 0) != want || countsOf(lazy).schurF32 > lazy.SchurCG {
				t.Fatalf("%s: %d of %d products in single precision", name, countsOf(lazy).schurF32, lazy.SchurCG)
			}
			scale := math.Abs(direct.Dual)
			if lazy.Gap > tol || lazy.Primal > direct.Dual+1e-12*scale || direct.Primal > lazy.Dual+1e-12*scale {
				t.Errorf("%s: lazy [%v, %v] (gap %g) against direct [%v, %v]", name, lazy.Primal, lazy.Dual, lazy.Gap, direct.Primal, direct.Dual)
			}
			auditManhattan(t, name, lazy.X, 10, eps)
		}
	}
}

// sparseTestIPM is the sparse-mode solver of p (minimum-degree order) with
// the lazy Schur complement forced on, its iterate moved off the uniform
// start by a seeded random factor per entry, 10^U(-2,2) (so that the
// columns differ, and S is far from the start's), and factored.
func sparseTestIPM(t *testing.T, p *Problem, workers int, seed uint64) *ipm {
	t.Helper()
	return sparseTestIPMTol(t, p, workers, seed, 1e-9)
}

// sparseTestIPMTol is sparseTestIPM for a solve to tol: from 1e-3 its
// products read L in single precision (singleProducts).
func sparseTestIPMTol(t *testing.T, p *Problem, workers int, seed uint64, tol float64) *ipm {
	t.Helper()
	perm, sym := ldl.MinimumDegree(p.graph())
	o := (&Options{Tol: tol, Workers: workers}).withDefaults()
	o.test.schurMode = 1
	s := sparseIPM(p, perm, sym, workers)
	s.pcg = s.newSchurPCG(o)
	s.start()
	rx := rand.New(rand.NewPCG(seed, seed+1))
	for k := range s.x {
		s.x[k] *= math.Pow(10, 4*rx.Float64()-2)
	}
	if err := s.factor(); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSchurApplyChunks: the product S v = sum_o H_o^{-1} v of the conjugate
// gradients, whose columns go to whichever worker is free in chunks, equals
// the plain sum of the columns' solves, and is the same to the last bit
// for 1, 2 and 3 workers (each chunk is summed apart, the chunks in order).
// The lazy path's products read L in single precision (solve4F32): their
// plain sum is then of solves with each column's L rounded to single
// precision (the last column, outside a block of four, with its own);
// in a solve to a tighter gap, without the copy, of solves with the
// factors themselves.
func TestSchurApplyChunks(t *testing.T) {
	p := manhattanLossProblem(7, 0.5, true) // 49 columns: chunks of 16, 16, 16, 1
	rng := rand.New(rand.NewPCG(5, 6))
	v := make([]float64, p.N)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	for _, single := range []bool{true, false} {
		var first []float64
		for _, workers := range []int{1, 2, 3} {
			tol := 1e-9 // CG to 1e-10: the products in double precision
			if single {
				tol = 1e-3
			}
			s := sparseTestIPMTol(t, p, workers, 7, tol)
			if (s.l32 != nil) != single {
				t.Fatalf("tol %g: single-precision copy of L %v, want %v", tol, s.l32 != nil, single)
			}
			got := make([]float64, p.N)
			s.pcg.Op.Apply(got, v)
			want := make([]float64, p.N)
			u := make([]float64, p.N)
			for o := range s.m {
				copy(u, v)
				if single && o < s.m/4*4 {
					f := s.sf[o]
					nz := f.Sym.NNZ()
					l := make([]float64, nz)
					for q := range l {
						l[q] = float64(float32(f.L[4*q]))
					}
					r := ldl.LDL{Sym: f.Sym, D: f.D, L: l, St: 1}
					r.Solve(u)
				} else {
					s.colSolve(o, 0, u)
				}
				kernel.Axpy(want, 1, u)
			}
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
					t.Fatalf("single %v, %d workers: (S v)[%d] = %v, plain sum %v", single, workers, i, got[i], want[i])
				}
			}
			if first == nil {
				first = got
				continue
			}
			for i := range got {
				if got[i] != first[i] {
					t.Fatalf("single %v, %d workers: (S v)[%d] = %v, with 1 worker %v", single, workers, i, got[i], first[i])
				}
			}
		}
	}
}

// TestSchurRecycling: the CG directions kept from a solve form an
// S-orthonormal basis (PᵀSP = I), and a second solve with the same S that
// starts from the Galerkin solution in their span reaches the tolerance
// on the true residual, for a right-hand side near the first (as the
// corrector's is near the predictor's), in fewer iterations than a solve
// from zero.
func TestSchurRecycling(t *testing.T) {
	p := manhattanLossProblem(7, 0.5, true)
	s := sparseTestIPM(t, p, 2, 9)
	rx := rand.New(rand.NewPCG(11, 12))
	pc := s.pcg
	n := p.N
	b1, b2 := make([]float64, n), make([]float64, n)
	for i := range b1 {
		b1[i] = rx.NormFloat64()
		b2[i] = b1[i] + 0.01*rx.NormFloat64()
	}
	if !pc.Solve(slices.Clone(b1)) {
		t.Fatal("first solve did not converge")
	}
	rp, rq := pc.Basis()
	k := len(rp)
	if k == 0 {
		t.Fatal("no direction kept")
	}
	for i := range k {
		for j := range k {
			want := 0.0
			if i == j {
				want = 1
			}
			if got := kernel.Dot(rp[i], rq[j]); math.Abs(got-want) > 1e-8 {
				t.Fatalf("(PᵀSP)[%d][%d] = %v, want %v", i, j, got, want)
			}
		}
	}
	check := func(name string, x, b []float64) {
		if rel := trueResidual(pc, x, b); rel > 10*pc.Tol {
			t.Errorf("%s: true relative residual %v", name, rel)
		}
	}
	its0 := pc.Its
	x := slices.Clone(b2)
	if !pc.Solve(x) {
		t.Fatal("recycled solve did not converge")
	}
	recycled := pc.Its - its0
	check("recycled", x, b2)
	pc.Forget()
	its0 = pc.Its
	x = slices.Clone(b2)
	if !pc.Solve(x) {
		t.Fatal("plain solve did not converge")
	}
	plain := pc.Its - its0
	check("plain", x, b2)
	t.Logf("%d directions kept; second solve %d CG iterations recycled, %d from zero", k, recycled, plain)
	if recycled >= plain {
		t.Errorf("recycling cost %d iterations against %d", recycled, plain)
	}
}

// TestEndgameTol: in the end game (nearOptimum) the CG solves go to schur.CGTol
// even when the LP's own tolerance allows a looser corrector (corrTol): the
// true residual of a solve, from the operator itself, is at that level.
func TestEndgameTol(t *testing.T) {
	p := manhattanLossProblem(7, 0.5, true)
	s := sparseTestIPM(t, p, 2, 9)
	pc := s.pcg
	pc.Tol = schur.CorrTol(1e-3)
	pc.Endgame = true
	n := p.N
	rx := rand.New(rand.NewPCG(13, 14))
	b := make([]float64, n)
	for i := range b {
		b[i] = rx.NormFloat64()
	}
	x := slices.Clone(b)
	if !pc.Solve(x) {
		t.Fatal("end-game solve did not converge")
	}
	if rel := trueResidual(pc, x, b); rel > 10*schur.CGTol {
		t.Errorf("end-game relative residual %v with the corrector's tolerance %v, want <= %v", rel, pc.Tol, 10*schur.CGTol)
	}
}

// trueResidual is ‖b − S x‖/‖b‖ with S x from the exact product (apply),
// not the residual that conjugate gradients carried.
func trueResidual(pc *schur.Lazy, x, b []float64) float64 {
	sx := make([]float64, len(b))
	pc.Op.Apply(sx, x)
	var r, bn float64
	for i := range b {
		r += (b[i] - sx[i]) * (b[i] - sx[i])
		bn += b[i] * b[i]
	}
	return math.Sqrt(r / bn)
}

// TestL32Estimate: the lazy path's single-precision copy of L (ipm.l32)
// is allocated exactly when the lazy path runs to a Tol of 1e-3 or looser
// (CG to pcgSingleTol), not with assemblies in double precision, and
// takes the bytes that solveAs counts before the
// solve (l32Bytes), whose prediction of the lazy path (lazyOn at
// pcgRatio) is newSchurPCG's own decision.
func TestL32Estimate(t *testing.T) {
	p := manhattanLossProblem(7, 0.5, true) // 49 columns: 12 blocks and one column
	for _, c := range []struct {
		mode   int
		tol    float64
		double bool
		want   bool
	}{{1, 1e-3, false, true}, {2, 1e-2, false, true}, {1, 9e-4, false, false}, {1, 1e-6, false, false},
		{-1, 1e-3, false, false}, {1, 1e-3, true, false}, {0, 1e-3, false, false}} {
		perm, sym := ldl.MinimumDegree(p.graph())
		s := sparseIPM(p, perm, sym, 2)
		o := (&Options{Tol: c.tol}).withDefaults()
		o.test.schurMode, o.test.schurDouble = c.mode, c.double
		s.pcg = s.newSchurPCG(o)
		if got := lazyOn(o, pcgRatio(sym, 0, p.N, p.M)); got != s.pcg.On {
			t.Fatalf("mode %d: predicted lazy %v, newSchurPCG %v", c.mode, got, s.pcg.On)
		}
		if (s.l32 != nil) != c.want {
			t.Fatalf("mode %d tol %g double %v: copy allocated %v, want %v", c.mode, c.tol, c.double, s.l32 != nil, c.want)
		}
		if s.l32 == nil {
			continue
		}
		if got, want := 4*float64(len(s.l32))+float64(len(s.l32ok)), l32Bytes(sym, p.M); got != want {
			t.Fatalf("mode %d: copy of %g bytes, estimate %g", c.mode, got, want)
		}
		if len(s.l32) != 13*4*sym.NNZ() {
			t.Fatalf("mode %d: %d values, want 13 blocks of 4·%d", c.mode, len(s.l32), sym.NNZ())
		}
	}
}

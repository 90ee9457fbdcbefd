package tight

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"github.com/optdp/optdp/solve"
	"gonum.org/v1/gonum/mat"
)

// denseAdvice is what to do instead when dense matrices are over the budget.
const denseAdvice = "use a structured solver (toeplitz, kron or banded, where the metric allows) or raise the budget"

// Solver names a tight-constraints solver: the one Options.Solver asks for
// and the method a Result reports.
type Solver string

// The solvers Options.Solver accepts (see Solvers).
const (
	SolverAuto       Solver = "auto"
	SolverClosedForm Solver = "closed-form"
	SolverKron       Solver = "kron"
	SolverToeplitz   Solver = "toeplitz"
	// SolverBanded is the banded solver for graph metrics whose vertex
	// order has a small bandwidth (every edge joins i and j with
	// |i-j| <= b).
	SolverBanded Solver = "banded"
	SolverDense  Solver = "dense"
)

// The methods a Result reports, besides SolverKron and the names of
// package solve's Toeplitz and banded solvers (solve.Solver, e.g.
// "toeplitz-pcg-strang", "banded-cholesky").
const (
	// SolverClosedFormLine is the truncated geometric mechanism of a line.
	SolverClosedFormLine          Solver = "closed-form-line"
	SolverClosedFormBallSymmetric Solver = "closed-form-ball-symmetric"
	// The dense solves, by factorisation (backend.Method); SolverDenseNNLS
	// for a singular Phi.
	SolverDenseCholesky     Solver = "dense-cholesky"
	SolverDenseBunchKaufman Solver = "dense-bunch-kaufman"
	SolverDenseLU           Solver = "dense-lu"
	SolverDenseNNLS         Solver = "dense-nnls"
)

// String returns the solver's name.
func (s Solver) String() string { return string(s) }

// denseSolver is the name of a dense solve whose factorisation was method
// (solve.NonnegResult.Method).
func denseSolver(method string) Solver { return Solver("dense-" + method) }

// tightSolver is one way of computing the tight-constraints mechanism. To add
// a structured solver (Toeplitz, Kronecker, ...): append an entry to
// tightSolvers in the position "auto" should try it; applies must be cheap
// and say whether the metric has the structure; run fills Exists, Z (or nil
// with ConstantZ), MinZ, ZErr, Unique, Solver, RCond, Certificate and
// Utility. Solve then builds and audits X.
type tightSolver struct {
	name    Solver
	applies func(m metric.Metric) bool
	// auto, when not nil, further restricts when "auto" picks the solver.
	auto func(m metric.Metric, o *Options) bool
	run  func(ctx context.Context, m metric.Metric, eps float64, o *Options) (*Result, error)
}

// tightSolvers lists the solvers in the order "auto" tries them: closed
// forms (lines, ball-symmetric metrics), Kronecker (separable metrics),
// Toeplitz (lattices with n > autoToeplitzN or too large for dense; see
// structured.go), dense.
func tightSolvers() []tightSolver {
	return []tightSolver{
		{name: SolverClosedForm, applies: func(m metric.Metric) bool { return metric.PathStep(m) > 0 || metric.BallSizesOf(m) != nil }, run: tightClosedForm},
		{name: SolverKron, applies: func(m metric.Metric) bool { return separableFactors(m) != nil }, run: tightKron},
		{name: SolverToeplitz, applies: func(m metric.Metric) bool { _, ok := symmetricLattice(m); return ok },
			auto: func(m metric.Metric, o *Options) bool {
				return m.Len() > autoToeplitzN || o.Budget.CheckDense("", m.Len(), 2, denseAdvice) != nil
			},
			run: tightToeplitz},
		{name: SolverBanded, applies: bandedApplies, auto: func(m metric.Metric, o *Options) bool { return m.Len() > autoBandedN }, run: tightBanded},
		{name: SolverDense, applies: func(metric.Metric) bool { return true }, run: tightDense},
	}
}

// Solvers returns the solver names Options.Solver accepts.
func Solvers() []Solver {
	names := []Solver{SolverAuto}
	for _, s := range tightSolvers() {
		names = append(names, s.name)
	}
	return names
}

// selectTightSolver picks the solver named name ("auto": the first that
// applies), or says why the named one does not apply.
func selectTightSolver(m metric.Metric, name Solver, o *Options) (tightSolver, error) {
	for _, s := range tightSolvers() {
		if name == SolverAuto && s.applies(m) && (s.auto == nil || s.auto(m, o)) {
			return s, nil
		}
		if name == s.name {
			if !s.applies(m) {
				return tightSolver{}, fmt.Errorf("tight: solver %q does not apply to this metric", name)
			}
			return s, nil
		}
	}
	return tightSolver{}, run.BadInputf("unknown solver %q (want one of %s)", name, solverList())
}

// solverList is Solvers joined by ", ".
func solverList() string {
	var b strings.Builder
	for i, s := range Solvers() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(s))
	}
	return b.String()
}

// tightDense solves Phi z = 1 with a dense factorisation (solve.DenseSystem).
func tightDense(ctx context.Context, m metric.Metric, eps float64, o *Options) (*Result, error) {
	n := m.Len()
	copies := 2 // Phi and its factorisation
	if !o.NoMechanism && n <= o.MaxMechanismN {
		copies++
	}
	if err := o.Budget.CheckDense("dense tight-constraints solve", n, copies, denseAdvice); err != nil {
		return nil, err
	}
	phi := mat.NewSymDense(n, nil)
	if err := metric.PhiToContext(ctx, phi, m, eps); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var sys solve.DenseSystem
	if err := sys.FactorizeContext(ctx, phi); err != nil {
		return nil, err
	}
	return denseTightResult(ctx, &sys, n)
}

// denseTightResult solves Phi z = 1 on a factorised system.
func denseTightResult(ctx context.Context, sys *solve.DenseSystem, n int) (*Result, error) {
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	s, err := sys.SolveNonneg(ctx, ones)
	if err != nil {
		return nil, err
	}
	return &Result{
		Exists: s.Verdict, Z: s.X, MinZ: s.Min, ZErr: s.Err, Unique: s.Unique,
		Solver: denseSolver(s.Method), RCond: s.RCond, Certificate: s.Certificate,
		Utility: meanOf(s.X), Note: s.Note,
	}, nil
}

// tightClosedForm is the closed form of a line (the truncated geometric
// mechanism, docs/MATH.md §8.1) or of a ball-symmetric space,
// z = 1/Σ_r n_r e^{-eps r} (docs/MATH.md §3.5).
func tightClosedForm(ctx context.Context, m metric.Metric, eps float64, o *Options) (*Result, error) {
	if step := metric.PathStep(m); step > 0 {
		return tightLine(m.Len(), eps*step), nil
	}
	sizes := metric.BallSizesOf(m)
	if sizes == nil {
		return nil, fmt.Errorf("tight: closed form: %s is not ball-symmetric", m)
	}
	z, zerr := BallTightZ(sizes, eps)
	r := &Result{
		Exists: Yes, ConstantZ: true, MinZ: z, ZErr: zerr, Utility: z,
		Solver: SolverClosedFormBallSymmetric, Certificate: "closed-form",
	}
	if n := m.Len(); n <= MaxVectorN {
		r.Z = make([]float64, n)
		for k := range r.Z {
			r.Z[k] = z
		}
	}
	unique, rcond, err := phiNonsingular(ctx, m, eps, o)
	if err != nil {
		return nil, err
	}
	r.Unique, r.RCond = unique, rcond
	if !unique && rcond == 0 {
		r.Note = "uniqueness not established: Phi too large to factorise densely"
	}
	return r, nil
}

// phiNonsingular reports whether Phi is nonsingular. Ring, clique, Hamming,
// line and Manhattan/Euclidean grid metrics are l1-embeddable (or
// Euclidean), hence of negative type, so exp(-eps·d) is positive definite
// for every eps > 0 (Schoenberg's theorem): no computation is needed
// (rcond reported as 1 meaning "not computed, PD"). Other metrics are
// factorised densely when that fits the memory limit; otherwise the answer
// is false with rcond 0 (unknown).
func phiNonsingular(ctx context.Context, m metric.Metric, eps float64, o *Options) (bool, float64, error) {
	if metric.PhiPositiveDefinite(m) {
		return true, 1, nil
	}
	n := m.Len()
	if o.Budget.CheckDense("", n, 2, denseAdvice) != nil {
		return false, 0, nil
	}
	if err := ctx.Err(); err != nil {
		return false, 0, err
	}
	phi := mat.NewSymDense(n, nil)
	if err := metric.PhiToContext(ctx, phi, m, eps); err != nil {
		return false, 0, err
	}
	var sys solve.DenseSystem
	if err := sys.FactorizeContext(ctx, phi); err != nil {
		return false, 0, err
	}
	rc := sys.Info().RCond
	if math.IsNaN(rc) {
		rc = 0
	}
	return !sys.Singular(), rc, nil
}

// tightLine is the tight-constraints mechanism of a path with n points and
// per-step level e: the truncated geometric mechanism, a = e^-e,
// z_0 = z_{n-1} = 1/(1+a), z_k = (1-a)/(1+a) inside (docs/MATH.md §3.5), with
// 1-a = -expm1(-e) computed without cancellation so that z stays accurate
// (and positive) for tiny eps. Phi (Kac–Murdock–Szegő) is positive
// definite, so the mechanism is unique.
func tightLine(n int, e float64) *Result {
	a := math.Exp(-e)
	end, mid := 1/(1+a), -math.Expm1(-e)/(1+a)
	if n == 1 {
		end = 1
	}
	r := &Result{
		Exists: Yes, MinZ: min(end, mid), ZErr: 8 * 0x1p-53 * end,
		Unique: true, RCond: 1, Solver: SolverClosedFormLine, Certificate: "closed-form",
	}
	if n <= 2 {
		r.MinZ = end
	}
	sum := 0.0
	if n <= MaxVectorN {
		r.Z = make([]float64, n)
		for k := range r.Z {
			r.Z[k] = mid
			if k == 0 || k == n-1 {
				r.Z[k] = end
			}
			sum += r.Z[k]
		}
		r.Utility = sum / float64(n)
	} else {
		r.Utility = (2*end + float64(n-2)*mid) / float64(n)
	}
	return r
}

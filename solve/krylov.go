package solve

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/run"
)

// DefaultTol is the default target for the relative residual
// ||b - A z||_2 / ||b||_2 of the iterative solvers. It is reachable for the
// privacy-constraints matrices of this package (their FFT products are
// accurate to about 1e-15 relative) and makes z accurate to about
// cond(A) * DefaultTol.
const DefaultTol = 1e-12

// DefaultMaxIter is the default iteration limit of the iterative solvers.
const DefaultMaxIter = 2000

// Options controls the iterative solvers. A nil pointer or the zero value
// gives the defaults.
type Options struct {
	// Tol is the target relative residual ||b - A z||_2 / ||b||_2
	// (default DefaultTol).
	Tol float64
	// MaxIter is the iteration limit (default DefaultMaxIter).
	MaxIter int
	// Precond selects the circulant preconditioner of Toeplitz solves
	// (default PrecondStrang).
	Precond Precond
	// Method forces a Krylov method for Toeplitz solves (default MethodAuto).
	Method Method
	// Settings: Progress, if not nil, receives a run.Progress after every
	// iteration with Iter and Gap = the recurrence's estimate of the
	// relative residual (for progress bars; keep it cheap). Budget is not
	// used by the Krylov solvers (their memory is O(n)).
	run.Settings
}

// Method selects the Krylov method of a Toeplitz solve.
type Method int

const (
	// MethodAuto uses PCG when the matrix is certified positive definite
	// (SymbolBounds) and MINRES otherwise.
	MethodAuto Method = iota
	// MethodPCG is preconditioned conjugate gradients (SPD matrices only).
	MethodPCG
	// MethodMINRES is preconditioned MINRES (any symmetric matrix).
	MethodMINRES
)

func (o Options) tol() float64 {
	if o.Tol > 0 {
		return o.Tol
	}
	return DefaultTol
}

// value returns the options a nil pointer stands for (the zero value) or a
// copy of *o.
func (o *Options) value() Options {
	if o == nil {
		return Options{}
	}
	return *o
}

// report sends the progress of iteration it with estimated relative residual
// rel.
func (o Options) report(stage run.Stage, it int, rel float64) {
	if o.Progress == nil {
		return
	}
	p := run.NewProgress(stage)
	p.Iter, p.MaxIter, p.Gap = it, o.maxIter(), rel
	o.Progress(p)
}

func (o Options) maxIter() int {
	if o.MaxIter > 0 {
		return o.MaxIter
	}
	return DefaultMaxIter
}

// Result is the outcome of a solve of A z = b.
type Result struct {
	// Z is the computed solution.
	Z []float64
	// Iterations is the number of Krylov iterations (0 for direct and
	// closed-form solvers).
	Iterations int
	// Residual is the true relative residual ||b - A Z||_2 / ||b||_2,
	// recomputed from Z at the end (not the recurrence's estimate).
	Residual float64
	// Solver names the method, e.g. SolverToeplitzPCGStrang, SolverKron.
	Solver Solver
	// Converged reports whether Residual reached the target.
	Converged bool
}

// trueResidual returns ||b - A z||_2 / ||b||_2, using r as workspace.
func trueResidual(a Operator, b, z, r []float64) float64 {
	a.MulVec(r, z)
	for i := range r {
		r[i] = b[i] - r[i]
	}
	nb := norm2(b)
	if nb == 0 {
		return norm2(r)
	}
	return norm2(r) / nb
}

// checkSystem validates the sizes of a Krylov solve.
func checkSystem(a Operator, m Operator, b []float64) error {
	if err := checkLen("right-hand side", b, a.Len()); err != nil {
		return err
	}
	if m != nil && m.Len() != a.Len() {
		return fmt.Errorf("solve: preconditioner has size %d, operator %d: %w", m.Len(), a.Len(), ErrShape)
	}
	for _, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("solve: right-hand side entry %v: %w", v, ErrNotFinite)
		}
	}
	return nil
}

// PCG solves A z = b by preconditioned conjugate gradients, for a symmetric
// positive definite A. minv applies the preconditioner's inverse M^{-1}
// (symmetric positive definite) or is nil for none. The iteration stops when
// the true relative residual is at most opt.Tol (the recurrence residual is
// used to decide when to check it), after opt.MaxIter iterations
// (run.ErrNotConverged), or when ctx is done (ctx.Err()); in those cases the
// Result still holds the last iterate. A non-positive curvature p·Ap <= 0,
// which proves A is not positive definite, stops it with ErrBreakdown.
func PCG(ctx context.Context, a, minv Operator, b []float64, opts *Options) (Result, error) {
	opt := opts.value()
	if err := checkSystem(a, minv, b); err != nil {
		return Result{}, err
	}
	n := a.Len()
	res := Result{Z: make([]float64, n), Solver: SolverPCG}
	nb := norm2(b)
	if nb == 0 {
		res.Converged = true
		return res, nil
	}
	tol, maxIter := opt.tol(), opt.maxIter()
	z := res.Z
	r := append([]float64(nil), b...)
	y := make([]float64, n) // M^{-1} r
	p := make([]float64, n)
	q := make([]float64, n) // A p
	precond := func() {
		if minv == nil {
			copy(y, r)
		} else {
			minv.MulVec(y, r)
		}
	}
	precond()
	copy(p, y)
	rho := dot(r, y)
	target := tol // recurrence target, tightened if the true residual lags
	for it := 1; it <= maxIter; it++ {
		if err := ctx.Err(); err != nil {
			res.Residual = trueResidual(a, b, z, q)
			return res, fmt.Errorf("pcg stopped after %d iterations: %w", res.Iterations, err)
		}
		a.MulVec(q, p)
		pq := dot(p, q)
		if !(pq > 0) {
			res.Residual = trueResidual(a, b, z, q)
			return res, fmt.Errorf("solve: pcg iteration %d: curvature p·Ap = %.3g, matrix not positive definite: %w", it, pq, ErrBreakdown)
		}
		alpha := rho / pq
		for i := range z {
			z[i] += alpha * p[i]
			r[i] -= alpha * q[i]
		}
		res.Iterations = it
		est := norm2(r) / nb
		opt.report(run.StagePCG, it, est)
		if est <= target {
			res.Residual = trueResidual(a, b, z, q)
			if res.Residual <= tol {
				res.Converged = true
				return res, nil
			}
			// Restart the recurrence from the true residual.
			for i := range r {
				r[i] = q[i]
			}
			target = min(target, est) * 0.5
		}
		precond()
		rhoNew := dot(r, y)
		beta := rhoNew / rho
		rho = rhoNew
		for i := range p {
			p[i] = y[i] + beta*p[i]
		}
	}
	res.Residual = trueResidual(a, b, z, q)
	if res.Residual <= tol {
		res.Converged = true
		return res, nil
	}
	return res, fmt.Errorf("solve: pcg: relative residual %.3g after %d iterations (target %.3g): %w", res.Residual, res.Iterations, tol, run.ErrNotConverged)
}

// MINRES solves A z = b for a symmetric, possibly indefinite, A by the
// minimum residual method of Paige and Saunders (1975), in the preconditioned
// form of Choi (2006) / SciPy. minv applies M^{-1}, which must be symmetric
// positive definite (nil for none). Stopping and the Result are as for PCG;
// MINRES does not break down on indefinite matrices, and a singular A shows
// up as a residual that stalls (run.ErrNotConverged) or as ErrBreakdown.
func MINRES(ctx context.Context, a, minv Operator, b []float64, opts *Options) (Result, error) {
	opt := opts.value()
	if err := checkSystem(a, minv, b); err != nil {
		return Result{}, err
	}
	n := a.Len()
	res := Result{Z: make([]float64, n), Solver: SolverMINRES}
	nb := norm2(b)
	if nb == 0 {
		res.Converged = true
		return res, nil
	}
	tol, maxIter := opt.tol(), opt.maxIter()
	x := res.Z
	applyM := func(dst, src []float64) {
		if minv == nil {
			copy(dst, src)
		} else {
			minv.MulVec(dst, src)
		}
	}
	r1 := append([]float64(nil), b...)
	r2 := append([]float64(nil), b...)
	y := make([]float64, n)
	v := make([]float64, n)
	w := make([]float64, n)
	w1 := make([]float64, n)
	w2 := make([]float64, n)
	applyM(y, r1)
	beta1 := dot(r1, y)
	if !(beta1 > 0) {
		return res, fmt.Errorf("solve: minres: preconditioner not positive definite (b·M^{-1}b = %.3g): %w", beta1, ErrBreakdown)
	}
	beta1 = math.Sqrt(beta1)
	var oldb, dbar, epsln, rhs2 float64
	beta, phibar, rhs1 := beta1, beta1, beta1
	cs, sn := -1.0, 0.0
	// The recurrence tracks ||r||_{M^{-1}}; its ratio to ||r||_2 is unknown,
	// so we check the true residual when the estimate reaches the target and
	// tighten the target if needed.
	target := tol
	for it := 1; it <= maxIter; it++ {
		if err := ctx.Err(); err != nil {
			res.Residual = trueResidual(a, b, x, y)
			return res, fmt.Errorf("minres stopped after %d iterations: %w", res.Iterations, err)
		}
		s := 1 / beta
		for i := range v {
			v[i] = s * y[i]
		}
		a.MulVec(y, v)
		if it >= 2 {
			f := beta / oldb
			for i := range y {
				y[i] -= f * r1[i]
			}
		}
		alfa := dot(v, y)
		f := alfa / beta
		for i := range y {
			y[i] -= f * r2[i]
		}
		r1, r2 = r2, r1
		copy(r2, y)
		applyM(y, r2)
		oldb = beta
		bb := dot(r2, y)
		if bb < 0 {
			res.Residual = trueResidual(a, b, x, y)
			return res, fmt.Errorf("solve: minres: preconditioner not positive definite: %w", ErrBreakdown)
		}
		beta = math.Sqrt(bb)
		// Apply the previous rotation, then compute the next one.
		oldeps := epsln
		delta := cs*dbar + sn*alfa
		gbar := sn*dbar - cs*alfa
		epsln = sn * beta
		dbar = -cs * beta
		gamma := math.Hypot(gbar, beta)
		if gamma == 0 {
			res.Residual = trueResidual(a, b, x, y)
			return res, fmt.Errorf("solve: minres iteration %d: singular operator: %w", it, ErrBreakdown)
		}
		cs, sn = gbar/gamma, beta/gamma
		phi := cs * phibar
		phibar = sn * phibar
		// Update the search direction and the iterate.
		w1, w2, w = w2, w, w1
		for i := range w {
			w[i] = (v[i] - oldeps*w1[i] - delta*w2[i]) / gamma
			x[i] += phi * w[i]
		}
		zz := rhs1 / gamma
		rhs1 = rhs2 - delta*zz
		rhs2 = -epsln * zz
		res.Iterations = it
		est := phibar / beta1
		opt.report(run.StageMINRES, it, est)
		if est <= target || beta == 0 {
			res.Residual = trueResidual(a, b, x, w1) // w1 is dead until the next rotation
			if res.Residual <= tol {
				res.Converged = true
				return res, nil
			}
			if beta == 0 {
				break
			}
			target = min(target, est) * 0.1
		}
	}
	res.Residual = trueResidual(a, b, x, y)
	if res.Residual <= tol {
		res.Converged = true
		return res, nil
	}
	return res, fmt.Errorf("solve: minres: relative residual %.3g after %d iterations (target %.3g): %w", res.Residual, res.Iterations, tol, run.ErrNotConverged)
}

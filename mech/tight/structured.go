package tight

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"github.com/optdp/optdp/solve"
)

// Structured tight-constraints solvers (docs/MATH.md §12): Toeplitz/BTTB systems
// for translation-invariant lattice metrics, solved by FFT-based Krylov
// methods with an a-posteriori certificate of the sign of min z, and
// Kronecker products for separable metrics, solved factor-wise without ever
// forming the product.

// autoToeplitzN is the size above which "auto" prefers the Toeplitz solver
// to the dense one on lattice metrics (below it a dense solve takes well
// under a second and gives the sharper dense certificate).
const autoToeplitzN = 2000

// denseEigenN is the largest n for which an uncertified Toeplitz solution
// (indefinite or nearly singular Phi, no usable symbol bound) is certified
// by a dense eigenvalue bound instead.
const denseEigenN = 2048

// symmetricLattice returns m as a Lattice (whose contract includes that
// Offset depends only on the absolute value of each coordinate difference,
// the property both the Toeplitz solver and the offset sampler rely on).
func symmetricLattice(m metric.Metric) (metric.Lattice, bool) {
	lat, ok := m.(metric.Lattice)
	return lat, ok
}

// separableFactors returns the factors of a separable metric, or nil.
func separableFactors(m metric.Metric) []metric.Metric {
	if s, ok := m.(metric.Separable); ok {
		if f := s.Factors(); len(f) >= 2 {
			return f
		}
	}
	return nil
}

// reversed returns a reversed copy of s.
func reversed(s []int) []int {
	r := make([]int, len(s))
	for i, v := range s {
		r[len(s)-1-i] = v
	}
	return r
}

// latticeToeplitz builds Phi of a lattice metric as a solve.Toeplitz. The
// lattice lists its dims slowest first while solve numbers coordinate 0
// fastest, so dims and offsets are reversed; the point indices then agree.
func latticeToeplitz(lat metric.Lattice, eps float64) (*solve.Toeplitz, error) {
	bdims := lat.Dims()
	k := len(bdims)
	delta := make([]int, k)
	return solve.NewToeplitz(reversed(bdims), func(off []int) float64 {
		for j := range delta {
			delta[j] = off[k-1-j]
		}
		return math.Exp(-eps * lat.Offset(delta))
	})
}

// latticeSolve solves Phi z = 1 for a lattice metric by solve.SolveToeplitz
// and certifies the sign of min z (see tightToeplitz). A solve that stops
// short of its residual target is still certified: the certificate measures
// the residual it actually has.
func latticeSolve(ctx context.Context, lat metric.Lattice, eps float64, progress func(run.Progress)) (solve.Result, solve.Certificate, string, error) {
	t, err := latticeToeplitz(lat, eps)
	if err != nil {
		return solve.Result{}, solve.Certificate{}, "", err
	}
	n := lat.Len()
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	res, err := solve.SolveToeplitz(ctx, t, ones, &solve.Options{Settings: run.Settings{Progress: progress}})
	if err != nil && !errors.Is(err, run.ErrNotConverged) {
		return res, solve.Certificate{}, "", err
	}
	hint, name := metric.PhiLambdaMin(lat, eps)
	cert, err := solve.CertifyToeplitz(t, ones, res.Z, hint)
	if err != nil {
		return res, cert, "", err
	}
	if hint <= 0 {
		name = "symbol"
	}
	if !cert.Certified && n <= denseEigenN {
		// Small and indefinite (e.g. a sum query): a dense eigenvalue
		// bound, which includes the eigensolver's backward error.
		phi, err := metric.PhiLimitContext(ctx, lat, eps, 0)
		if err != nil {
			return res, cert, "", err
		}
		lam, err := solve.KronLambdaMin(phi)
		if err != nil {
			return res, cert, "", err
		}
		if c2, err := solve.Certify(solve.Dense{A: phi}, ones, res.Z, lam, "dense-eigen"); err == nil && c2.Certified {
			cert, name = c2, "dense-eigen"
		}
	}
	if !cert.Certified {
		name = "none"
	}
	return res, cert, name, nil
}

// tightToeplitz solves Phi z = 1 for a lattice metric (Line, Sum, KCount,
// Grid) with O(n log n) work per Krylov iteration and no n×n storage.
//
// Certification (docs/MATH.md §3.6, §12.3): with r = 1 - Phi z the measured
// residual (plus an FFT rounding allowance) and lambda a rigorous lower bound
// on Phi's smallest eigenvalue magnitude, every |z_k - z*_k| <= ||r||/lambda =
// ZErr. lambda is solve's kernel bound where one is known (line: (1-a)/(1+a);
// Euclidean and Chebyshev grids and the 2-count query: Poisson-summation
// bounds; Manhattan grids: the line's squared), else the rigorous bound from
// the Toeplitz symbol, else (n <= 2048) a dense eigenvalue bound. Exists is Yes
// or No only when min z is farther than ZErr from 0; otherwise, or when no
// bound is available (an indefinite Phi on a large lattice), it is Borderline
// with ZErr = +Inf and the heuristic error estimate in Note.
func tightToeplitz(ctx context.Context, m metric.Metric, eps float64, o *Options) (*Result, error) {
	lat, ok := symmetricLattice(m)
	if !ok {
		return nil, fmt.Errorf("tight: toeplitz: %s is not a lattice metric", m)
	}
	res, cert, bound, err := latticeSolve(ctx, lat, eps, o.Progress)
	if err != nil {
		return nil, fmt.Errorf("toeplitz solve: %w", err)
	}
	minZ := math.Inf(1)
	for _, v := range res.Z {
		minZ = min(minZ, v)
	}
	_, knownPD := metric.PhiLambdaMin(m, eps)
	r := &Result{
		Exists: cert.Verdict(minZ), Z: res.Z, MinZ: minZ, ZErr: cert.ErrBound,
		Unique:      cert.Certified || knownPD != "",
		Solver:      Solver(res.Solver),
		Certificate: "residual-bound/" + bound,
		Utility:     meanOf(res.Z),
		Iterations:  res.Iterations,
		Residual:    res.Residual,
	}
	if !res.Converged {
		r.Note = fmt.Sprintf("the Krylov solve stopped at relative residual %.3g after %d iterations; the verdict uses the residual reached", res.Residual, res.Iterations)
	}
	if !cert.Certified {
		r.Note = joinNote(r.Note, fmt.Sprintf("no rigorous eigenvalue bound for Phi (it may be indefinite): the sign of min z is not certified (heuristic error estimate %.3g)", cert.Estimate))
	}
	return r, nil
}

// joinNote appends b to a with "; ".
func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// kronFactor is the tight-constraints solution of one factor of a separable
// metric: Phi_f z_f = 1 with every |z_f[k] - z*_f[k]| <= err.
type kronFactor struct {
	m      metric.Metric
	z      []float64
	err    float64
	unique bool
}

// kronFactors solves Phi_f z_f = 1 for every factor of a separable metric:
// lines (one-dimensional grids) by the truncated-geometric closed form,
// ball-symmetric factors (cliques) by BallTightZ, others densely
// (solve.KronOnes) with a residual certificate from solve.KronLambdaMin.
func kronFactors(m metric.Metric, eps float64, budget run.Budget) ([]kronFactor, error) {
	facs := separableFactors(m)
	if facs == nil {
		return nil, fmt.Errorf("tight: kronecker: %s is not separable", m)
	}
	out := make([]kronFactor, len(facs))
	for f, fm := range facs {
		nf := fm.Len()
		kf := kronFactor{m: fm}
		switch step := metric.PathStep(fm); {
		case step > 0:
			r := tightLine(nf, eps*step)
			kf.z, kf.err, kf.unique = r.Z, r.ZErr, true
		case metric.BallSizesOf(fm) != nil:
			zc, zerr := BallTightZ(metric.BallSizesOf(fm), eps)
			kf.z = make([]float64, nf)
			for k := range kf.z {
				kf.z[k] = zc
			}
			kf.err, kf.unique = zerr, true
		default:
			if err := budget.CheckDense(fmt.Sprintf("kronecker factor %d (%s)", f, fm), nf, 2, denseAdvice); err != nil {
				return nil, err
			}
			phi, err := metric.PhiLimit(fm, eps, math.MaxInt64)
			if err != nil {
				return nil, err
			}
			zs, err := solve.KronOnes(phi)
			if err != nil {
				return nil, fmt.Errorf("kronecker factor %d: %w", f, err)
			}
			lam, err := solve.KronLambdaMin(phi)
			if err != nil {
				return nil, fmt.Errorf("kronecker factor %d: %w", f, err)
			}
			ones := make([]float64, nf)
			for k := range ones {
				ones[k] = 1
			}
			cert, err := solve.Certify(solve.Dense{A: phi}, ones, zs[0], lam, "kron")
			if err != nil {
				return nil, fmt.Errorf("kronecker factor %d: %w", f, err)
			}
			kf.z, kf.err, kf.unique = zs[0], cert.ErrBound, lam > 0
		}
		if len(kf.z) != nf {
			return nil, fmt.Errorf("tight: kronecker factor %d (%s): no z vector", f, fm)
		}
		out[f] = kf
	}
	return out, nil
}

// kronVerdict decides the sign of the exact min_k z*_k of z* = ⊗ z*_f from
// the factors' computed z_f and error bounds e_f. Each exact entry
// z*_f[k] lies in [z_f[k]-e_f, z_f[k]+e_f], and a product of independent
// intervals is extreme at a vertex (it is multilinear), so solve.MinProduct
// over the factors' interval ends gives a lower bound lo on min z*, and the
// largest vertex product at the computed argmin an upper bound hi on it.
// Both are widened by the relative rounding of a product of F numbers
// ((F+1)u). Yes when lo > 0, No when hi < 0, else Borderline; zerr is
// max(minZ-lo, hi-minZ).
func kronVerdict(fs []kronFactor) (v Verdict, minZ, zerr float64) {
	vals := make([][]float64, len(fs))
	ends := make([][]float64, len(fs))
	for f, kf := range fs {
		vals[f] = kf.z
		for _, x := range kf.z {
			ends[f] = append(ends[f], x-kf.err, x+kf.err)
		}
	}
	minZ, idx := solve.MinProduct(vals)
	lo, _ := solve.MinProduct(ends)
	// Largest vertex product at idx: -min over vertices of (-product).
	at := make([][]float64, len(fs))
	for f, kf := range fs {
		x := kf.z[idx[f]]
		at[f] = []float64{x - kf.err, x + kf.err}
	}
	at[0] = []float64{-at[0][0], -at[0][1]}
	negHi, _ := solve.MinProduct(at)
	hi := -negHi
	rel := float64(len(fs)+1) * 0x1p-53
	lo -= math.Abs(lo) * rel
	hi += math.Abs(hi) * rel
	zerr = max(minZ-lo, hi-minZ)
	switch {
	case lo > 0:
		return Yes, minZ, zerr
	case hi < 0:
		return No, minZ, zerr
	}
	return Borderline, minZ, zerr
}

// tightKron is the tight-constraints mechanism of a separable metric
// (Manhattan grids, Hamming spaces): Phi = ⊗ Phi_f, so z = ⊗ z_f with
// Phi_f z_f = 1 (docs/MATH.md §7.5, §12.4). The product is never formed beyond
// MaxVectorN entries: min z comes from solve.MinProduct with an exact sign
// (see kronVerdict) and the uniform utility is the product of the factors'
// mean z (the mean of a Kronecker product of vectors is the product of
// their means).
func tightKron(ctx context.Context, m metric.Metric, eps float64, o *Options) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fs, err := kronFactors(m, eps, o.Budget)
	if err != nil {
		return nil, err
	}
	v, minZ, zerr := kronVerdict(fs)
	r := &Result{
		Exists: v, MinZ: minZ, ZErr: zerr, Unique: true,
		Solver: SolverKron, Certificate: "kron-factor-bounds", Utility: 1, RCond: 0,
		kron: fs,
	}
	for _, kf := range fs {
		r.Utility *= meanOf(kf.z)
		r.Unique = r.Unique && kf.unique
	}
	if n := m.Len(); n <= MaxVectorN {
		r.Z = kronExpand(fs)
	}
	return r, nil
}

// kronExpand returns ⊗ z_f (first factor slowest).
func kronExpand(fs []kronFactor) []float64 {
	z := []float64{1}
	for _, kf := range fs {
		next := make([]float64, 0, len(z)*len(kf.z))
		for _, a := range z {
			for _, b := range kf.z {
				next = append(next, a*b)
			}
		}
		z = next
	}
	return z
}

// latticeEval is one certified Toeplitz solve of Phi z = 1 for Threshold on
// a large lattice: min z and its verdict (Borderline when not certified).
func latticeEval(ctx context.Context, lat metric.Lattice, eps float64) (solve.NonnegResult, error) {
	res, cert, bound, err := latticeSolve(ctx, lat, eps, nil)
	if err != nil {
		return solve.NonnegResult{}, fmt.Errorf("toeplitz solve at eps=%v: %w", eps, err)
	}
	minZ := math.Inf(1)
	for _, v := range res.Z {
		minZ = min(minZ, v)
	}
	return solve.NonnegResult{
		Verdict: cert.Verdict(minZ), Min: minZ, Err: cert.ErrBound, Unique: cert.Certified,
		Method: string(res.Solver), Residual: res.Residual, Certificate: "residual-bound/" + bound,
	}, nil
}

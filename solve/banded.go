package solve

import (
	"errors"
	"fmt"
	"math"

	"github.com/optdp/optdp/run"

	"github.com/optdp/optdp/backend"
	"gonum.org/v1/gonum/mat"
)

// ErrBandedNotPD is wrapped by SolveBanded's error when the banded matrix is
// not (numerically) positive definite: the band Cholesky factorisation
// failed or its reciprocal condition is below SingularRCond. Callers fall
// back to a dense (indefinite or singular) solve. It wraps none of run's
// classes: the input is valid, only this solver does not apply.
var ErrBandedNotPD = errors.New("solve: banded matrix is not numerically positive definite")

// ErrBandedTooLarge is wrapped by SolveBanded's error when the band storage
// would exceed the memory limit; nothing was allocated.
var ErrBandedTooLarge = fmt.Errorf("solve: banded matrix too large for the memory budget: %w", run.ErrTooLarge)

// BandedResult is the solution of a symmetric banded system A z = b.
type BandedResult struct {
	// Z is the computed solution.
	Z []float64
	// Residual is the relative residual ||b - A Z||_inf / ||b||_inf of the
	// banded system, as computed.
	Residual float64
	// ResidualAbs is ||b - A Z||_inf, and AbsMax is
	// max_i (|A||Z| + |b|)_i, which bounds the rounding of that residual.
	ResidualAbs, AbsMax float64
	// Norm is ||A||_inf (= ||A||_1) and OffDiag is
	// max_i Σ_{j≠i} |A_ij|.
	Norm, OffDiag float64
	// UnitNonneg reports that A >= 0 entrywise with unit diagonal.
	UnitNonneg bool
	// RCond is the reciprocal condition estimate of A in the 1-norm (from
	// LAPACK's dpbcon: an estimate, usually within a factor 3, see
	// ErrorSafety).
	RCond float64
	// Solver is SolverBandedCholesky.
	Solver Solver
}

// BandedBytes is the memory SolveBanded needs for an n×n matrix of
// half-bandwidth bw: the band storage and its Cholesky factor,
// 2·n·(bw+1)·8 bytes.
func BandedBytes(n, bw int) float64 { return 2 * 8 * float64(n) * float64(bw+1) }

// SolveBanded solves the symmetric system A z = b where A is n×n with
// half-bandwidth bw (A_ij = 0 for |i-j| > bw), by a band Cholesky
// factorisation (LAPACK dpbtrf through gonum's mat.BandCholesky) in
// O(n·bw²) time and O(n·bw) memory. entry(i, j) gives A_ij; SolveBanded
// calls it exactly once for every i in 0..n-1 and j in i..min(i+bw, n-1), in
// increasing order of i and then j, so entry may compute a row's values
// lazily (as a breadth-first search from i does).
//
// Errors: bad sizes, NaN or Inf entries (backend.ErrNotFinite), band storage
// over budget (ErrBandedTooLarge, checked before allocating; 0 means
// run.DefaultBudget, run.Unlimited no limit; a negative budget is
// run.ErrBadInput), and A not numerically positive
// definite (ErrBandedNotPD).
func SolveBanded(n, bw int, entry func(i, j int) float64, b []float64, budget run.Budget) (BandedResult, error) {
	if n < 1 || bw < 0 || bw > n-1 {
		return BandedResult{}, fmt.Errorf("solve banded: need n >= 1 and 0 <= bw <= n-1, got n=%d bw=%d: %w", n, bw, backend.ErrShape)
	}
	if len(b) != n {
		return BandedResult{}, fmt.Errorf("solve banded: right-hand side has length %d, want %d: %w", len(b), n, backend.ErrShape)
	}
	if err := budget.Validate(); err != nil {
		return BandedResult{}, fmt.Errorf("solve banded: %w", err)
	}
	if need := BandedBytes(n, bw); !budget.Fits(need) {
		return BandedResult{}, fmt.Errorf("solve banded: n=%d, bandwidth %d needs %.4g bytes, above the limit of %d: %w", n, bw, need, budget.Bytes(), ErrBandedTooLarge)
	}
	bmax := 0.0
	for i, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return BandedResult{}, fmt.Errorf("solve banded: b[%d] = %v: %w", i, v, backend.ErrNotFinite)
		}
		bmax = max(bmax, math.Abs(v))
	}
	// Upper band storage: row i holds A[i][i..i+bw] (gonum's SymBandDense).
	stride := bw + 1
	data := make([]float64, n*stride)
	r := BandedResult{UnitNonneg: true, Solver: SolverBandedCholesky}
	for i := 0; i < n; i++ {
		for j := i; j <= min(i+bw, n-1); j++ {
			a := entry(i, j)
			if math.IsNaN(a) || math.IsInf(a, 0) {
				return BandedResult{}, fmt.Errorf("solve banded: A[%d][%d] = %v: %w", i, j, a, backend.ErrNotFinite)
			}
			if a < 0 || (i == j && a != 1) {
				r.UnitNonneg = false
			}
			data[i*stride+j-i] = a
		}
	}
	a := mat.NewSymBandDense(n, bw, data)
	// Row sums of |A| and of its off-diagonal part.
	rowAbs := make([]float64, n)
	off := make([]float64, n)
	for i := 0; i < n; i++ {
		rowAbs[i] += math.Abs(data[i*stride])
		for j := i + 1; j <= min(i+bw, n-1); j++ {
			v := math.Abs(data[i*stride+j-i])
			rowAbs[i] += v
			rowAbs[j] += v
			off[i] += v
			off[j] += v
		}
	}
	for i := 0; i < n; i++ {
		r.Norm = max(r.Norm, rowAbs[i])
		r.OffDiag = max(r.OffDiag, off[i])
	}
	var ch mat.BandCholesky
	if !ch.Factorize(a) {
		return BandedResult{}, fmt.Errorf("solve banded: %d×%d, bandwidth %d: Cholesky failed: %w", n, n, bw, ErrBandedNotPD)
	}
	r.RCond = 1 / ch.Cond()
	if !(r.RCond >= SingularRCond(n)) {
		return BandedResult{}, fmt.Errorf("solve banded: %d×%d, bandwidth %d: reciprocal condition %.3g below %.3g: %w", n, n, bw, r.RCond, SingularRCond(n), ErrBandedNotPD)
	}
	var z mat.VecDense
	if err := ch.SolveVecTo(&z, mat.NewVecDense(n, append([]float64(nil), b...))); err != nil {
		var c mat.Condition
		if !errors.As(err, &c) {
			return BandedResult{}, fmt.Errorf("solve banded: %w", err)
		}
		// Ill-conditioning is reported through RCond, checked above.
	}
	r.Z = make([]float64, n)
	copy(r.Z, z.RawVector().Data[:n])
	// Residual b - A z and |A||z| + |b|, over the band.
	az := make([]float64, n)
	absAZ := make([]float64, n)
	for i := 0; i < n; i++ {
		v := data[i*stride] * r.Z[i]
		az[i] += v
		absAZ[i] += math.Abs(v)
		for j := i + 1; j <= min(i+bw, n-1); j++ {
			aij := data[i*stride+j-i]
			az[i] += aij * r.Z[j]
			az[j] += aij * r.Z[i]
			absAZ[i] += math.Abs(aij * r.Z[j])
			absAZ[j] += math.Abs(aij * r.Z[i])
		}
	}
	for i := 0; i < n; i++ {
		r.ResidualAbs = max(r.ResidualAbs, math.Abs(b[i]-az[i]))
		r.AbsMax = max(r.AbsMax, absAZ[i]+math.Abs(b[i]))
	}
	if bmax > 0 {
		r.Residual = r.ResidualAbs / bmax
	} else {
		r.Residual = r.ResidualAbs
	}
	return r, nil
}

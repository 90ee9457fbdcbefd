package solve

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// ErrorSafety multiplies the forward error bound of a dense solve: the
// condition number comes from LAPACK's 1-norm estimator, which is a lower
// bound that is rarely off by more than a factor of 3 (Higham, Accuracy and
// Stability, §15.3); 10 leaves room.
const ErrorSafety = 10

// SingularRCond is the reciprocal condition number below which an n×n Phi is
// treated as singular: the forward error bound of a solve, about
// n·u/rcond relative, would then exceed 1/64, so no sign could be trusted
// and the system is handled as the feasibility problem it is.
func SingularRCond(n int) float64 { return 64 * float64(max(n, 1)) * 0x1p-53 }

// NonnegResult is the solution of Phi x = b with its sign verdict.
type NonnegResult struct {
	// X is the computed solution (for a singular Phi: one non-negative
	// solution when Verdict is Yes, the NNLS minimiser otherwise).
	X []float64
	// Verdict says whether some x >= 0 solves the system.
	Verdict run.Verdict
	// Min is min_k X[k].
	Min float64
	// Err bounds |X[k] - x_k| for the exact solution x (+Inf for a singular
	// Phi, where the solution is not unique).
	Err float64
	// Unique reports that Phi is (numerically) nonsingular.
	Unique bool
	// Method is "cholesky", "bunch-kaufman", "lu" or "nnls".
	Method string
	// RCond is the reciprocal 1-norm condition estimate of Phi.
	RCond float64
	// Residual is ||b - Phi X||_inf as computed.
	Residual float64
	// Certificate names what settled the verdict: "error-bound",
	// "diagonal-dominance", "nnls-residual", "farkas" or "" (borderline).
	Certificate string
	// Note explains a borderline verdict of the singular path.
	Note string
}

// NearConstant is how close to 1 every entry of a singular Phi may be before
// the feasibility test's "yes" is downgraded to Borderline: such a Phi (eps·d
// tiny for every pair) is the all-ones matrix up to rounding, which is
// feasible, while the exact Phi it rounds may not be; float64 cannot tell.
const NearConstant = 1e-6

// DenseSystem solves systems with one dense symmetric Phi: Factorize once,
// then SolveNonneg for each right-hand side. Phi is retained (not copied)
// between Factorize and the last solve and must not be modified meanwhile.
// The zero value is ready for Factorize; reusing a DenseSystem reuses its
// factorisation storage (as a bisection over eps does).
type DenseSystem struct {
	phi      *mat.SymDense
	f        backend.SymFactor
	info     backend.SolveInfo
	singular bool
	norm1    float64 // ||Phi||_1 = ||Phi||_inf
	offSum   float64 // max_i Σ_{j≠i} |Phi_ij|
	nonneg   bool    // Phi >= 0 entrywise with unit diagonal
	minEntry float64 // smallest entry of Phi
	x        mat.VecDense
}

// Factorize factorises phi. A numerically singular phi is not an error: it is
// recorded (Singular) and later solves decide feasibility instead. Errors are
// returned for NaN/Inf entries.
func (s *DenseSystem) Factorize(phi *mat.SymDense) error {
	return s.FactorizeContext(context.Background(), phi)
}

// FactorizeContext is Factorize stopped by ctx: the Cholesky
// factorisation gives up within a panel once ctx is cancelled
// (backend.SymFactor.FactorizeContext) and ctx's error is returned.
func (s *DenseSystem) FactorizeContext(ctx context.Context, phi *mat.SymDense) error {
	n := phi.SymmetricDim()
	s.phi = phi
	s.norm1, s.offSum, s.nonneg, s.minEntry = 0, 0, true, math.Inf(1)
	raw := phi.RawSymmetric()
	for i := 0; i < n; i++ {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("solve: factorize: %w", err)
			}
		}
		var row, off float64
		for j := 0; j < n; j++ {
			var a float64
			if j >= i {
				a = raw.Data[i*raw.Stride+j]
			} else {
				a = raw.Data[j*raw.Stride+i]
			}
			if math.IsNaN(a) || math.IsInf(a, 0) {
				return fmt.Errorf("solve: factorize: Phi[%d][%d] = %v: %w", i, j, a, backend.ErrNotFinite)
			}
			if a < 0 || (i == j && a != 1) {
				s.nonneg = false
			}
			row += math.Abs(a)
			s.minEntry = min(s.minEntry, a)
			if i != j {
				off += math.Abs(a)
			}
		}
		s.norm1 = max(s.norm1, row)
		s.offSum = max(s.offSum, off)
	}
	info, err := s.f.FactorizeContext(ctx, phi)
	s.info = info
	s.singular = false
	switch {
	case errors.Is(err, backend.ErrSingular):
		s.singular = true
	case err != nil:
		return fmt.Errorf("factorize %d×%d Phi: %w", n, n, err)
	case !(info.RCond >= SingularRCond(n)):
		s.singular = true
	}
	return nil
}

// Singular reports whether the last Factorize found Phi numerically
// singular (reciprocal condition below SingularRCond).
func (s *DenseSystem) Singular() bool { return s.singular }

// Info reports the factorisation used and its condition estimate.
func (s *DenseSystem) Info() backend.SolveInfo { return s.info }

// SolveNonneg solves Phi x = b and decides whether a solution x >= 0 exists.
//
// Nonsingular Phi: x is the unique solution; each component is within Err of
// the exact solution for the exact Phi whose rounded entries were given
// (Err = ErrorSafety·||Phi^{-1}||_1·(||b - Phi x|| + rounding of that
// residual + u·|Phi||x| for the rounding of Phi's entries + n·2^-1074·||x||
// for entries that underflowed to 0 or to subnormals). The verdict is Yes
// when Min > Err, No when Min < -Err, Borderline otherwise. Independently of
// the solve, when Phi >= 0 has unit diagonal and its off-diagonal row sums
// are s < 1 with min b·(1-s) > s·max b (strict diagonal dominance, as when
// eps·d is large and exp underflows), x > 0 is certain and the verdict is
// Yes by that argument.
//
// Singular Phi: the verdict comes from Feasible, and Unique is false. A
// "yes" there means some x >= 0 solves a system within rounding of Phi
// (exactly right when Phi is singular in exact arithmetic, like the cube with
// antipodal edges at e^-eps = 1/3); when every entry of Phi is within
// NearConstant of 1 it is downgraded to Borderline.
func (s *DenseSystem) SolveNonneg(ctx context.Context, b []float64) (NonnegResult, error) {
	if s.phi == nil {
		return NonnegResult{}, errors.New("solve: DenseSystem used before Factorize")
	}
	n := s.phi.SymmetricDim()
	if len(b) != n {
		return NonnegResult{}, fmt.Errorf("solve: right-hand side has length %d, want %d: %w", len(b), n, backend.ErrShape)
	}
	for i, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return NonnegResult{}, fmt.Errorf("solve: b[%d] = %v: %w", i, v, backend.ErrNotFinite)
		}
	}
	if s.singular {
		fr, err := Feasible(ctx, s.phi, b)
		if err != nil {
			return NonnegResult{}, err
		}
		r := NonnegResult{
			X: fr.X, Verdict: fr.Verdict, Min: minOf(fr.X), Err: math.Inf(1),
			Unique: false, Method: "nnls", RCond: s.info.RCond,
			Residual: fr.Residual, Certificate: fr.Certificate,
		}
		if r.Verdict == run.Yes && s.minEntry > 1-NearConstant {
			r.Verdict, r.Certificate = run.Borderline, ""
			r.Note = fmt.Sprintf("Phi is within %g of the all-ones matrix (eps·d tiny for every pair): its sign structure is lost to rounding", NearConstant)
		}
		return r, nil
	}
	if err := ctx.Err(); err != nil {
		return NonnegResult{}, err
	}
	s.x.Reset()
	if err := s.f.SolveVecTo(&s.x, mat.NewVecDense(n, b)); err != nil {
		return NonnegResult{}, fmt.Errorf("solve %d×%d Phi: %w", n, n, err)
	}
	x := make([]float64, n)
	copy(x, s.x.RawVector().Data[:n])
	res, absAX := residual(s.phi, x, b)
	xmax, bmax, absMax := 0.0, 0.0, 0.0
	for i := 0; i < n; i++ {
		xmax = max(xmax, math.Abs(x[i]))
		bmax = max(bmax, math.Abs(b[i]))
		absMax = max(absMax, absAX[i]+math.Abs(b[i]))
	}
	const u = 0x1p-53
	gam := float64(n+2) * u / (1 - float64(n+2)*u)
	rTrue := res + gam*absMax + u*absMax + float64(n)*0x1p-1074*xmax
	invNorm := 1 / (s.info.RCond * s.norm1)
	r := NonnegResult{
		X: x, Min: minOf(x), Err: ErrorSafety * invNorm * rTrue,
		Unique: true, Method: string(s.info.Method), RCond: s.info.RCond,
		Residual: res,
	}
	if r.Verdict = run.SignVerdict(r.Min, r.Err); r.Verdict != run.Borderline {
		r.Certificate = "error-bound"
	}
	if r.Verdict != run.Yes && s.diagDominant(b) {
		r.Verdict, r.Certificate = run.Yes, "diagonal-dominance"
	}
	return r, nil
}

// diagDominant reports the certificate x > 0 for Phi = I + E, E >= 0,
// ||E||_inf <= s < 1: x = b - E x gives ||x|| <= max b/(1-s) and
// x_i >= min b - s·max b/(1-s) > 0. s is enlarged for the rounding of the
// row sums and of exp (relative u each) and for underflowed entries.
func (s *DenseSystem) diagDominant(b []float64) bool {
	if !s.nonneg {
		return false
	}
	n := len(b)
	sTrue := s.offSum*(1+float64(n+2)*0x1p-52) + float64(n)*0x1p-1074
	if sTrue >= 1 {
		return false
	}
	bmin, bmax := math.Inf(1), 0.0
	for _, v := range b {
		bmin, bmax = min(bmin, v), max(bmax, v)
	}
	return bmin*(1-sTrue) > sTrue*bmax*(1+0x1p-50)
}

// residual returns ||b - A x||_inf and the vector |A||x|.
func residual(a mat.Symmetric, x, b []float64) (float64, []float64) {
	n := len(x)
	abs := make([]float64, n)
	var res float64
	for i := 0; i < n; i++ {
		var s, t float64
		for j := 0; j < n; j++ {
			v := a.At(i, j) * x[j]
			s += v
			t += math.Abs(v)
		}
		res = max(res, math.Abs(b[i]-s))
		abs[i] = t
	}
	return res, abs
}

func minOf(x []float64) float64 {
	m := math.Inf(1)
	for _, v := range x {
		m = min(m, v)
	}
	return m
}

package solve

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/run"
)

// Certificate is an a posteriori error bound for a computed solution z of
// A z = b (docs/MATH.md §12.3; §3.2: the tight-constraints mechanism exists iff
// the exact solution z* is >= 0, so the sign of min z must be certified).
//
// For symmetric A with smallest eigenvalue magnitude lambda and the exact
// residual r = b - A z,
//
//	max_k |z_k - z*_k| <= ||z - z*||_2 = ||A^{-1} r||_2 <= ||r||_2 / lambda.
//
// The residual is measured in floating point; RoundOff bounds the error of
// that measurement, so ErrBound = (Residual + RoundOff) / LambdaMin.
type Certificate struct {
	// Residual is ||b - A z||_2 as computed (absolute, not relative).
	Residual float64
	// RoundOff bounds the rounding error of computing Residual.
	RoundOff float64
	// LambdaMin is a rigorous lower bound on min |eigenvalue of A|, or 0
	// when none is available (then Certified is false).
	LambdaMin float64
	// Bound names where LambdaMin came from ("symbol", "kms", "poisson",
	// "kron", "dense-eigen", "given") or is "none".
	Bound string
	// ErrBound bounds max_k |z_k - z*_k|; +Inf when not Certified.
	ErrBound float64
	// Certified reports whether ErrBound is a proven bound.
	Certified bool
	// Estimate is a heuristic error size when not Certified (Residual
	// divided by an estimate of the smallest eigenvalue magnitude, such as
	// the smallest |sample| of a Toeplitz symbol); NaN when unknown. It is
	// not a bound: a caller should report a verdict based on it as
	// "borderline" unless |min z| exceeds it by a wide margin (say 100x).
	Estimate float64
}

// Sign certifies the sign of min_k z*_k from the computed minZ = min_k z_k:
// +1 when min z* > 0 is proven (minZ - ErrBound > 0), -1 when min z* < 0 is
// proven (minZ + ErrBound < 0), 0 (borderline) otherwise or when not
// Certified.
func (c Certificate) Sign(minZ float64) int {
	if !c.Certified {
		return 0
	}
	switch {
	case minZ-c.ErrBound > 0:
		return 1
	case minZ+c.ErrBound < 0:
		return -1
	}
	return 0
}

// Verdict turns Sign into the package's three-way existence verdict for
// Phi z = 1 (docs/MATH.md §3.6): Yes when min z* > 0 is proven, No when
// min z* < 0 is proven (the solution is unique, as LambdaMin > 0 shows A is
// invertible), Borderline otherwise.
func (c Certificate) Verdict(minZ float64) run.Verdict {
	if !c.Certified {
		return run.Borderline
	}
	return run.SignVerdict(minZ, c.ErrBound)
}

// Certify measures the residual of z for A z = b and turns a lower bound
// lambdaMin on the smallest eigenvalue magnitude of the symmetric A into an
// error bound (see Certificate); bound names its source. A lambdaMin <= 0
// (or NaN) means no bound: Certified is false and ErrBound is +Inf. When A
// implements RoundingBounder, its allowance for the product A z enters
// RoundOff; otherwise RoundOff covers only the subtraction b - A z and the
// norm, and the caller must account for the product's rounding in
// lambdaMin's margin.
func Certify(a Operator, b, z []float64, lambdaMin float64, bound string) (Certificate, error) {
	n := a.Len()
	if err := checkLen("right-hand side", b, n); err != nil {
		return Certificate{}, err
	}
	if err := checkLen("solution", z, n); err != nil {
		return Certificate{}, err
	}
	az := make([]float64, n)
	a.MulVec(az, z)
	var rr float64
	for i := range az {
		d := b[i] - az[i]
		rr += d * d
	}
	c := Certificate{Residual: math.Sqrt(rr), Estimate: math.NaN()}
	// Each b_i - (Az)_i is rounded once (relative u) and the norm's sum of
	// squares carries a relative error of at most gamma_n.
	c.RoundOff = (unitRoundoff + gamma(n)) * c.Residual
	if rb, ok := a.(RoundingBounder); ok {
		c.RoundOff += rb.RoundingBound(z)
	}
	c.Bound = bound
	if lambdaMin > 0 {
		c.LambdaMin = lambdaMin
		c.ErrBound = (c.Residual + c.RoundOff) / lambdaMin
		c.Certified = true
	} else {
		c.Bound = "none"
		c.ErrBound = math.Inf(1)
	}
	return c, nil
}

// CertifyToeplitz certifies z for T z = b. The eigenvalue bound is
// lambdaHint when positive, a bound the caller knows from the metric
// (spectrum.LineLambdaMin, spectrum.EuclidLambdaMin,
// spectrum.ChebyshevLambdaMin, spectrum.LineLambdaMin^2 for a Manhattan grid), and otherwise the rigorous symbol bound of T
// (SymbolBounds, which costs about d/2 products with T). When that is not
// positive (T indefinite, or too close to singular for the symbol bound),
// the certificate is not Certified and Estimate divides the residual by the
// smallest |sample| of the symbol, a heuristic only.
func CertifyToeplitz(t *Toeplitz, b, z []float64, lambdaHint float64) (Certificate, error) {
	if lambdaHint > 0 {
		return Certify(t, b, z, lambdaHint, "given")
	}
	sb := t.SymbolBounds()
	c, err := Certify(t, b, z, sb.Lo, "symbol")
	if err != nil {
		return c, err
	}
	if !c.Certified && sb.MinAbsSample > 0 {
		c.Estimate = (c.Residual + c.RoundOff) / sb.MinAbsSample
	}
	return c, nil
}

// SymbolBounds encloses the spectrum of a multi-level Toeplitz matrix.
type SymbolBounds struct {
	// Lo <= lambda_min(T) and Hi >= lambda_max(T), rigorously.
	Lo, Hi float64
	// MinAbsSample is the smallest |p(theta)| over the sampled frequencies
	// (not a bound; a size estimate for indefinite T).
	MinAbsSample float64
}

// SymbolBounds returns rigorous bounds on the eigenvalues of T.
//
// T is the multi-level Toeplitz matrix of the real trigonometric polynomial
// p(theta) = sum_k t(k) e^{-i k·theta} (k over all signed offsets
// |k_i| < dims[i]), and x*Tx = (2pi)^{-d} ∫ p |x^(theta)|^2 dtheta, so the
// spectrum lies in [min p, max p] (Grenander–Szegő). The circulant embedding's
// eigenvalues are exactly p on the grid theta_i = 2pi j/m_i (m_i >= 2 dims[i]-1).
// Every theta lies within delta_i = pi/m_i of a grid point g in each
// coordinate, and by Taylor's theorem
//
//	p(theta) >= p(g) - sum_i delta_i |d_i p(g)| - 1/2 sum_ij H_ij delta_i delta_j,
//
// with H_ij = sum_k |k_i k_j| |t(k)| >= sup |d_ij p|. The gradients on the
// grid are computed by one extra FFT per dimension (of k_i t(k)); a rounding
// allowance for the FFTs (Higham, Thm 24.2) is subtracted as well. The cost
// is d transforms of the embedding (about d/2 products with T), at each call.
func (t *Toeplitz) SymbolBounds() SymbolBounds {
	d := len(t.dims)
	// quad(m) = 1/2 sum_ij H_ij delta_i delta_j for grid sizes m.
	off := make([]int, d)
	quadFor := func(m []int) float64 {
		var quad float64
		for k, v := range t.table {
			decode(k, t.dims, off)
			mult := 1.0
			var s float64 // sum_i |k_i| delta_i
			for i, o := range off {
				if o != 0 {
					mult *= 2
				}
				s += float64(o) * math.Pi / float64(m[i])
			}
			quad += 0.5 * mult * math.Abs(v) * s * s
		}
		return quad
	}
	// Oversample while the curvature term is large compared with the
	// smallest |p| sample and the grid stays within symbolBudget points.
	_, scale := t.emb.MinEig()
	m := append([]int(nil), t.emb.dims...)
	quad := quadFor(m)
	for f := 2; scale > 0 && quad > 0.01*scale; f *= 2 {
		next := make([]int, d)
		size := 1
		for i, v := range t.dims {
			next[i] = nextFast(f * (2*v - 1))
			size *= next[i]
		}
		if size > max(t.emb.n, symbolBudget) {
			break
		}
		m, quad = next, quadFor(next)
	}
	return t.symbolBounds(m, quad)
}

// symbolBudget is the largest sampling grid (points) SymbolBounds uses
// beyond the embedding itself.
const symbolBudget = 1 << 19

// symbolBounds evaluates the bound of SymbolBounds on the grid of sizes m
// (each m_i >= 2 dims[i] - 1), with quad the curvature term for that grid.
func (t *Toeplitz) symbolBounds(m []int, quad float64) SymbolBounds {
	d := len(t.dims)
	p := t.emb.plan
	if !slices.Equal(m, t.emb.dims) {
		p = newFFTN(m)
	}
	M := float64(p.size())
	lg := math.Log2(M) + 1
	eta := 5 * unitRoundoff
	fftErr := func(colNorm float64) float64 { return math.Sqrt(M) * lg * eta * colNorm * 2 }

	// column fills col with w(k) t(k) on the grid, w(k) = 1 for the
	// samples of p, or k_i for the derivative along i (i >= 0); it returns
	// the column's 2-norm.
	col := make([]float64, p.size())
	j := make([]int, d)
	column := func(i int) float64 {
		var cn float64
		for k := range col {
			decode(k, m, j)
			idx, ok := 0, true
			for q := d - 1; q >= 0; q-- {
				o := min(j[q], m[q]-j[q])
				if o >= t.dims[q] {
					ok = false
					break
				}
				idx = idx*t.dims[q] + o
			}
			if !ok {
				col[k] = 0
				continue
			}
			w := 1.0
			if i >= 0 {
				w = float64(j[i]) // signed offset along i: j or j-m
				if j[i] > m[i]-j[i] {
					w = float64(j[i] - m[i])
				}
			}
			col[k] = w * t.table[idx]
			cn += col[k] * col[k]
		}
		return math.Sqrt(cn)
	}
	// slack accumulates sum_i delta_i |d_i p(g)| plus rounding allowances.
	slack := make([]float64, len(p.spec))
	for i := range d {
		e := fftErr(column(i))
		p.forward(col, m)
		delta := math.Pi / float64(m[i])
		for k, v := range p.spec {
			slack[k] += delta * (cmplxAbs(v) + e)
		}
	}
	e0 := fftErr(column(-1))
	p.forward(col, m)
	sb := SymbolBounds{Lo: math.Inf(1), Hi: math.Inf(-1), MinAbsSample: math.Inf(1)}
	for k, v := range p.spec {
		s := slack[k] + quad + e0
		pv := real(v)
		sb.Lo = min(sb.Lo, pv-s)
		sb.Hi = max(sb.Hi, pv+s)
		sb.MinAbsSample = min(sb.MinAbsSample, math.Abs(pv))
	}
	return sb
}

func cmplxAbs(v complex128) float64 { return math.Hypot(real(v), imag(v)) }

// KronLambdaMin returns a lower bound on min |eigenvalue| of F_0 ⊗ F_1 ⊗ ...:
// the eigenvalues of a Kronecker product are the products of the factors'
// eigenvalues, so min |lambda| = prod_f min |lambda(F_f)|. Each factor's
// eigenvalues come from backend.EigenValuesSym and are lowered by the
// backward-error allowance gamma_{n_f} ||F_f||_F of a symmetric eigensolver;
// the result is 0 when some factor may be singular.
func KronLambdaMin(factors ...*mat.SymDense) (float64, error) {
	if len(factors) == 0 {
		return 0, fmt.Errorf("solve: kronecker product of no factors: %w", ErrShape)
	}
	p := 1.0
	for f, a := range factors {
		ev, err := backend.EigenValuesSym(a)
		if err != nil {
			return 0, fmt.Errorf("kronecker factor %d: %w", f, err)
		}
		lo := math.Inf(1)
		for _, v := range ev {
			lo = min(lo, math.Abs(v))
		}
		n := a.SymmetricDim()
		lo -= 10 * gamma(n) * mat.Norm(a, 2) // Frobenius norm
		if lo <= 0 {
			return 0, nil
		}
		p *= lo
	}
	return p, nil
}

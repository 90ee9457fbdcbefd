package linear

import (
	"fmt"
	"math"
	"math/big"

	"github.com/optdp/optdp/run"

	"gonum.org/v1/gonum/mat"
)

// Release is the output of Answer: everything in it may be published.
type Release struct {
	// Y holds the noisy strategy answers A' x + noise (length p).
	Y []float64 `json:"y"`
	// XHat is the least-squares estimate of the data, A'^+ Y (length n);
	// nil for a union strategy, whose groups each have their own estimate
	// (Groups).
	XHat []float64 `json:"x_hat"`
	// Answers holds the workload's answers W XHat (length m).
	Answers []float64 `json:"answers"`
	// Noise is the noise actually added: "discrete-laplace" (Answer) with
	// Sensitivity = D1(A'), Scale = D1(A')/eps and the exact Variance of the
	// discrete noise, or "discrete-gaussian" (AnswerGaussian) with
	// Sensitivity = D2(A'), Scale = σ and Variance = σ².
	Noise Noise `json:"noise"`
	// Grid is the resolution of Y: every answer is an integer multiple of it.
	Grid float64 `json:"grid"`
	// Strategy is A', the strategy actually answered (A with its entries
	// rounded to a dyadic grid; A itself when A has integer entries).
	Strategy *Strategy `json:"-"`
	// Expected is the exact expected error of Answers (for Strategy and
	// Noise), from Evaluate; for a union strategy the sum over the groups.
	Expected Report `json:"expected"`
	// Groups holds, for a union strategy (UnionStrategy), the release of
	// each block in order (nil for a block that answers none of w's
	// queries): its own Y, XHat, Answers (of its group's queries), Noise
	// and Expected. Nil for any other strategy.
	Groups []*Release `json:"groups,omitempty"`
}

// strategyBits is the number of significant bits (shared among the
// Kronecker factors) kept when a strategy with non-integer entries is
// rounded to a dyadic grid before answering.
const strategyBits = 40

// gridBits sets the noise resolution: the Laplace scale is at least 2^30
// grid steps, so the discrete noise's variance is within a relative 1e-19 of
// the continuous Laplace's (reported exactly anyway).
const gridBits = 30

// Answer releases the eps-DP matrix mechanism's answers to workload w on the
// data vector x (integer counts, length n) using strategy a and randomness
// src (use CryptoSource() for a real release; SeededSource only for
// experiments).
//
// Floating-point noise can leak the true answer through the low bits of a
// float sum (Mironov 2012), so the release is computed in exact integer
// arithmetic: each factor of A is rounded to A' = A_int·2^-q (integer A is
// kept as is), the strategy answers A_int x are computed exactly in int64, and
// exact discrete Laplace noise K with P(K = k) ∝ exp(-|k|·eps/Δ) is added on
// the grid 2^-R, where Δ = D1(A_int)·2^(R-Q) is the L1 sensitivity of the
// integer answers in grid units (Canonne, Kamath and Steinke 2020's exact
// sampler, integer arithmetic only). This is the geometric mechanism: exactly
// eps-DP with no overhead, for neighbouring data x, x' differing by 1 in one
// count. The integer results are converted to float64 only afterwards
// (post-processing). The estimate A'^+ y (by least squares through a
// factorisation of each factor) is unbiased, and Release.Expected gives its
// exact error.
//
// Errors: eps <= 0, a nil source, a length mismatch, non-integer counts, or
// counts so large that A_int x might overflow int64 (the bound depends only
// on A and is stated in the message), or a strategy that does not support w.
func Answer(w Workload, a *Strategy, x []float64, eps float64, src Source) (*Release, error) {
	return answer(w, a, x, eps, 0, src)
}

// AnswerGaussian is Answer with (eps, delta)-DP Gaussian noise: exact
// discrete Gaussian noise (Canonne, Kamath and Steinke 2020, Algorithm 3,
// integer arithmetic only) on the same dyadic grid, calibrated through
// concentrated DP. The multivariate discrete Gaussian with parameter σ and
// integer L2 sensitivity Δ2 is ρ-zCDP with ρ = Δ2²/(2σ²) (CKS Theorem 14),
// and σ is the smallest for which the zCDP-to-DP conversion ZCDPDelta(ρ, eps)
// is <= delta. This is slightly more noise than the analytic calibration of
// the continuous Gaussian (which does not hold exactly for the discrete one);
// Release.Noise reports the σ actually used. The reported variance is σ²;
// the discrete Gaussian's variance is below σ² by a relative amount of order
// exp(-2π²σ²), with σ >= 2^30 grid steps far below float64 resolution.
func AnswerGaussian(w Workload, a *Strategy, x []float64, eps, delta float64, src Source) (*Release, error) {
	if err := checkDelta(delta); err != nil {
		return nil, err
	}
	return answer(w, a, x, eps, delta, src)
}

// answer implements Answer (delta = 0) and AnswerGaussian.
func answer(w Workload, a *Strategy, x []float64, eps, delta float64, src Source) (*Release, error) {
	if err := checkEps(eps); err != nil {
		return nil, err
	}
	if src == nil {
		return nil, fmt.Errorf("linear: answer: nil randomness source (use CryptoSource() for a real release)")
	}
	if w == nil || a == nil {
		return nil, fmt.Errorf("linear: answer: nil workload or strategy")
	}
	_, n := w.Dims()
	if _, an := a.Dims(); an != n {
		return nil, fmt.Errorf("linear: answer: workload %v has domain size %d, strategy %v has %d", w, n, a, an)
	}
	if len(x) != n {
		return nil, fmt.Errorf("linear: answer: data has %d counts, want n = %d: %w", len(x), n, run.ErrBadInput)
	}

	if a.union != nil {
		return answerUnion(w, a.union, x, eps, delta, src)
	}
	return answerShare(w, a, x, eps, delta, 1, src)
}

// answerShare answers w with strategy a spending the fraction share of the
// privacy budget: eps·share for Laplace noise; for Gaussian noise the
// zCDP parameter ρ·share, ρ the one that (eps, delta) converts to, that is
// σ = c·D2/sqrt(share) with c = zcdpSigmaRatio(eps, delta). share = 1 is
// Answer; the blocks of a union strategy each take their part.
func answerShare(w Workload, a *Strategy, x []float64, eps, delta, share float64, src Source) (*Release, error) {
	_, n := w.Dims()
	if a.sum != nil {
		// A stacked strategy is answered as the explicit matrix (within
		// mech.MaxDenseEntries).
		d, err := a.Dense()
		if err != nil {
			return nil, fmt.Errorf("answer: strategy %v: %w", a, err)
		}
		a = &Strategy{name: a.name, factors: []*mat.Dense{d}}
	}
	// Round each factor to a dyadic grid: A_f' = A_int_f · 2^-q_f.
	d := len(a.factors)
	ints := make([]intMatrix, d)
	qs := make([]int, d)
	aq := &Strategy{name: a.name, factors: make([]*mat.Dense, d)}
	rowBound := 1.0       // Π_f max row |A_int_f| sum
	d1 := big.NewInt(1)   // D1(A_int) = Π_f max column L1 norm
	d2sq := big.NewInt(1) // D2(A_int)² = Π_f max column squared L2 norm
	for f, af := range a.factors {
		im, q, err := quantise(af, strategyBits/d)
		if err != nil {
			return nil, fmt.Errorf("answer: strategy factor %d: %w", f, err)
		}
		ints[f], qs[f] = im, q
		fl := mat.NewDense(im.rows, im.cols, nil)
		for i, v := range im.data {
			fl.RawMatrix().Data[i] = math.Ldexp(float64(v), -q)
		}
		aq.factors[f] = fl
		rs, cs := im.absSums()
		rowBound *= float64(rs)
		d1.Mul(d1, big.NewInt(cs))
		d2sq.Mul(d2sq, im.colSquaresMax())
	}
	Q := 0
	for _, q := range qs {
		Q += q
	}
	// Exact integer answers need Π_f rowsum · max|x| <= 2^62.
	maxCount := math.Floor(math.Ldexp(1, 62) / rowBound)
	maxCount = math.Min(maxCount, math.Ldexp(1, 53))
	xi := make([]int64, n)
	for i, v := range x {
		if v != math.Trunc(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("linear: answer: count %d = %v is not an integer: %w", i, v, run.ErrBadInput)
		}
		if v < 0 {
			return nil, fmt.Errorf("linear: answer: count %d = %v is negative (counts are >= 0): %w", i, v, run.ErrBadInput)
		}
		if math.Abs(v) > maxCount {
			return nil, fmt.Errorf("linear: answer: count %d = %v exceeds %.0f, the largest count this strategy can answer exactly in 64-bit integers: %w", i, v, maxCount, run.ErrBadInput)
		}
		xi[i] = int64(v)
	}
	ins := make([]int, d)
	for f, im := range ints {
		ins[f] = im.cols
	}
	exact := kronApplyInt(xi, ins, ints)

	// Noise on the grid 2^-R, R = Q + extra, with the noise scale at least
	// 2^gridBits grid steps; sample draws one noise value in grid units.
	var nz Noise
	var extra int
	var sample func() *big.Int
	if delta == 0 {
		eps := eps * share
		if need := math.Ldexp(eps, gridBits) / bigFloat(d1); need > 1 {
			extra = int(math.Ceil(math.Log2(need)))
		}
		sens := new(big.Int).Lsh(d1, uint(extra)) // Δ in grid units
		s, t := ratio(eps, sens)
		sample = func() *big.Int { return discreteLaplace(src, s, t) }
		grid := math.Ldexp(1, -(Q + extra))
		d1f := math.Ldexp(bigFloat(d1), -Q)
		nz = Noise{Mechanism: "discrete-laplace", Eps: eps, Sensitivity: d1f, Scale: d1f / eps,
			Variance: grid * grid * discreteLaplaceVariance(eps/bigFloat(sens))}
	} else {
		c, err := zcdpSigmaRatio(eps, delta)
		if err != nil {
			return nil, fmt.Errorf("answer: %w", err)
		}
		c /= math.Sqrt(share)
		d2 := math.Sqrt(bigFloat(d2sq))
		if need := math.Ldexp(1, gridBits) / (c * d2); need > 1 {
			extra = int(math.Ceil(math.Log2(need)))
		}
		// σ² in grid units, rounded up (a larger σ only adds privacy).
		sig2 := math.Ldexp(c*c*bigFloat(d2sq), 2*extra) * (1 + 1e-12)
		r := new(big.Rat).SetFloat64(sig2)
		num, den := new(big.Int).Set(r.Num()), new(big.Int).Set(r.Denom())
		sample = func() *big.Int { return discreteGaussian(src, num, den) }
		grid := math.Ldexp(1, -(Q + extra))
		nz = Noise{Mechanism: "discrete-gaussian", Eps: eps, Delta: delta, Sensitivity: math.Ldexp(d2, -Q),
			Scale: math.Sqrt(sig2) * grid, Variance: sig2 * grid * grid}
	}
	R := Q + extra
	y := make([]float64, len(exact))
	tot := new(big.Int)
	for j, v := range exact {
		tot.SetInt64(v)
		tot.Lsh(tot, uint(extra))
		tot.Add(tot, sample())
		f, _ := new(big.Float).SetInt(tot).Float64()
		y[j] = math.Ldexp(f, -R)
	}
	rep, err := Evaluate(w, aq, nz)
	if err != nil {
		return nil, fmt.Errorf("answer: %w", err)
	}

	// Least squares, factor by factor: x_hat = (⊗ A_f'^+) y.
	pin, nout := make([]int, d), make([]int, d)
	ops := make([]func(dst, src []float64), d)
	var lsErr error
	for f, af := range aq.factors {
		ps, err := newProfileSolver(af)
		if err != nil {
			return nil, fmt.Errorf("answer: %w", err)
		}
		pin[f], nout[f] = af.Dims()
		ops[f] = func(dst, src []float64) {
			if err := ps.leastSquares(dst, src); err != nil && lsErr == nil {
				lsErr = err
			}
		}
	}
	xhat := kronApply(y, pin, nout, ops)
	if lsErr != nil {
		return nil, fmt.Errorf("answer: least squares: %w", lsErr)
	}
	ans, err := w.MulVec(xhat)
	if err != nil {
		return nil, fmt.Errorf("answer: %w", err)
	}
	return &Release{Y: y, XHat: xhat, Answers: ans, Noise: nz, Grid: math.Ldexp(1, -R), Strategy: aq, Expected: rep}, nil
}

func bigFloat(v *big.Int) float64 {
	f, _ := new(big.Float).SetInt(v).Float64()
	return f
}

// quantise rounds a to A_int·2^-q: q = 0 when a has integer entries of
// magnitude < 2^31, otherwise q is chosen so that the largest row L1 norm of
// A_int is about 2^bits.
func quantise(a *mat.Dense, bits int) (intMatrix, int, error) {
	r, c := a.Dims()
	im := intMatrix{rows: r, cols: c, data: make([]int64, r*c)}
	integer := true
	maxRow := 0.0
	for i := 0; i < r; i++ {
		s := 0.0
		for j := 0; j < c; j++ {
			v := a.At(i, j)
			if v != math.Trunc(v) || math.Abs(v) >= 1<<31 {
				integer = false
			}
			s += math.Abs(v)
		}
		maxRow = math.Max(maxRow, s)
	}
	if !(maxRow > 0) || math.IsInf(maxRow, 0) {
		return im, 0, fmt.Errorf("linear: entries must be finite and not all zero")
	}
	q := 0
	if !integer {
		_, e := math.Frexp(maxRow) // maxRow < 2^e
		q = bits - e
	}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			im.data[i*c+j] = int64(math.RoundToEven(math.Ldexp(a.At(i, j), q)))
		}
	}
	return im, q, nil
}

// absSums returns the largest row and column L1 norms.
func (m intMatrix) absSums() (row, col int64) {
	cols := make([]int64, m.cols)
	for i := 0; i < m.rows; i++ {
		var s int64
		for j := 0; j < m.cols; j++ {
			v := m.data[i*m.cols+j]
			if v < 0 {
				v = -v
			}
			s += v
			cols[j] += v
		}
		row = max(row, s)
	}
	for _, v := range cols {
		col = max(col, v)
	}
	return row, col
}

// colSquaresMax returns the largest squared L2 norm of a column, exactly.
func (m intMatrix) colSquaresMax() *big.Int {
	best := new(big.Int)
	sq := new(big.Int)
	for j := 0; j < m.cols; j++ {
		s := new(big.Int)
		for i := 0; i < m.rows; i++ {
			v := big.NewInt(m.data[i*m.cols+j])
			s.Add(s, sq.Mul(v, v))
		}
		if s.Cmp(best) > 0 {
			best = s
		}
	}
	return best
}

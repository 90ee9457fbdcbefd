package stream

import (
	"context"
	"fmt"
	"math"
	"math/big"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// strategyBits is the number of significant bits of the largest entry of C
// kept when C is rounded to the dyadic grid before answering.
const strategyBits = 40

// Streamer releases the prefix sums of an integer stream step by step with
// the factorisation mechanism and exact discrete Gaussian noise.
//
// C is rounded to C' = C_int·2^-q (C_int integer, the largest |entry|
// below 2^40); at step t the mechanism computes y_t = (C_int x)_t + K_t
// exactly (big integers), K_t independent discrete Gaussians with
// parameter σ_int (Canonne, Kamath and Steinke 2020, Algorithm 3, integer
// arithmetic only), and publishes y_t·2^-q. The multivariate discrete
// Gaussian with integer L2 sensitivity Δ is ρ-zCDP with ρ = Δ²/(2σ²)
// (CKS Theorem 14); Δ² is the exact schema sensitivity of C_int (computed
// in floating point and rounded up by a relative 1e-12 plus k²·n·2^-50
// times the largest column norm²), and σ_int = c·Δ
// for the smallest c with linear.ZCDPDelta(1/(2c²), eps) <= delta. The
// estimate ŝ_t = Σ_{s<=t} w_s with C' w = y (forward substitution, the
// noise recurrence) is post-processing, computed in float64 and causal:
// step t reads y_1..y_t only.
type Streamer struct {
	n, t  int
	q     int
	toe   []*big.Int   // Toeplitz C_int coefficients (nil for dense)
	dense [][]*big.Int // dense C_int rows (lower-triangular part)
	cf    func(i, j int) float64
	xs    []int64
	w     []float64
	acc   float64
	src   mech.Source

	sigNum, sigDen *big.Int // σ_int² = sigNum/sigDen
	// Sens2 is the squared sensitivity of C' (in data units); Sigma the
	// standard deviation of the noise of y (in data units, σ_int·2^-q).
	Sens2, Sigma float64
	// Grid is 2^-q: every y_t is a multiple of it.
	Grid float64
}

// Step is one step of a release: the published y_t and the estimate ŝ_t
// of the prefix sum x_1 + ... + x_t.
type Step struct {
	T        int     `json:"t"`
	Y        float64 `json:"y"`
	Estimate float64 `json:"estimate"`
}

// NewStreamer prepares the release of the prefix sums of an n-step integer
// stream under schema s with the lower-triangular strategy c (a *Toeplitz,
// or any n×n mat.Matrix whose upper triangle is ignored; its diagonal must
// be nonzero), (eps, delta)-DP with respect to changing each step of one
// participation pattern by at most 1. src nil means crypto randomness
// (mech.CryptoSource); pass mech.SeededSource only for experiments.
func NewStreamer(ctx context.Context, c mat.Matrix, s Schema, eps, delta float64, src mech.Source) (*Streamer, error) {
	n, m := c.Dims()
	if n != m {
		return nil, fmt.Errorf("stream: %w: strategy is %d×%d, want square", run.ErrBadInput, n, m)
	}
	if err := s.Check(n); err != nil {
		return nil, err
	}
	if !(eps > 0) || math.IsInf(eps, 0) || !(delta > 0 && delta < 1) {
		return nil, fmt.Errorf("stream: %w: eps = %v, delta = %v: want eps > 0 finite and 0 < delta < 1", run.ErrBadInput, eps, delta)
	}
	if src == nil {
		src = mech.CryptoSource()
	}
	st := &Streamer{n: n, src: src}
	// Scale: the largest |entry| becomes an integer below 2^strategyBits.
	top := 0.0
	toe, isToe := c.(*Toeplitz)
	if isToe {
		for _, v := range toe.Coef {
			top = math.Max(top, math.Abs(v))
		}
	} else {
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				top = math.Max(top, math.Abs(c.At(i, j)))
			}
		}
	}
	if !(top > 0) || math.IsInf(top, 0) {
		return nil, fmt.Errorf("stream: %w: the strategy has no finite nonzero entry", run.ErrBadInput)
	}
	_, e := math.Frexp(top) // top < 2^e
	st.q = strategyBits - e
	round := func(v float64) float64 { return math.Round(math.Ldexp(v, st.q)) }
	var sens *Sensitivity
	var err error
	if isToe {
		ci := make([]float64, len(toe.Coef))
		st.toe = make([]*big.Int, len(ci))
		for i, v := range toe.Coef {
			ci[i] = round(v)
			st.toe[i] = big.NewInt(int64(ci[i]))
		}
		if ci[0] == 0 {
			return nil, fmt.Errorf("stream: %w: c_0 rounds to 0", run.ErrBadInput)
		}
		cInt := &Toeplitz{N: n, Coef: ci}
		st.cf = cInt.At
		sens, err = ToeplitzSensitivity(ctx, cInt, s)
	} else {
		if err := (run.Budget(0)).CheckDense("stream: release with a dense strategy", n, 2, "use a Toeplitz strategy"); err != nil {
			return nil, err
		}
		ci := mat.NewDense(n, n, nil)
		st.dense = make([][]*big.Int, n)
		for i := 0; i < n; i++ {
			st.dense[i] = make([]*big.Int, i+1)
			for j := 0; j <= i; j++ {
				v := round(c.At(i, j))
				ci.Set(i, j, v)
				st.dense[i][j] = big.NewInt(int64(v))
			}
			if ci.At(i, i) == 0 {
				return nil, fmt.Errorf("stream: %w: diagonal entry %d rounds to 0", run.ErrBadInput, i)
			}
			// An entry above the diagonal would reach future steps; it is
			// refused rather than silently dropped.
			for j := i + 1; j < n; j++ {
				if v := c.At(i, j); v != 0 {
					return nil, fmt.Errorf("stream: %w: C[%d][%d] = %v above the diagonal: C must be lower triangular", run.ErrBadInput, i, j, v)
				}
			}
		}
		st.cf = ci.At
		x := mat.NewSymDense(n, nil)
		x.SymOuterK(1, ci.T())
		sens, err = GramSensitivity(ctx, x, s)
	}
	if err != nil {
		return nil, err
	}
	ratio, err := zcdpRatio(eps, delta)
	if err != nil {
		return nil, err
	}
	// σ_int² = c²·Δ², Δ² raised by a relative 1e-12 plus k²·n·2^-50 times
	// the largest column norm² (the rounding of the Gram entries), as an
	// exact dyadic rational.
	maxCol := 0.0
	for j := 0; j < n; j++ {
		col := 0.0
		for i := j; i < n; i++ {
			v := st.cf(i, j)
			col += v * v
		}
		maxCol = math.Max(maxCol, col)
		if isToe {
			break // the first column of a Toeplitz strategy is the longest
		}
	}
	sig2 := ratio * ratio * (sens.Sens2*(1+1e-12) + float64(s.K*s.K)*float64(n)*0x1p-50*maxCol)
	r := new(big.Rat).SetFloat64(sig2)
	st.sigNum, st.sigDen = new(big.Int).Set(r.Num()), new(big.Int).Set(r.Denom())
	st.Sens2 = math.Ldexp(sens.Sens2, -2*st.q)
	st.Sigma = math.Ldexp(math.Sqrt(sig2), -st.q)
	st.Grid = math.Ldexp(1, -st.q)
	return st, nil
}

// zcdpRatio returns the smallest c = σ/Δ (to a relative 1e-12, rounded up)
// with linear.ZCDPDelta(1/(2c²), eps) <= delta.
func zcdpRatio(eps, delta float64) (float64, error) {
	ok := func(c float64) bool { return linear.ZCDPDelta(1/(2*c*c), eps) <= delta }
	lo, hi := 1e-3, 1.0
	for !ok(hi) {
		if hi *= 2; hi > 1e12 {
			return 0, fmt.Errorf("stream: %w: no noise scale for eps = %v, delta = %v", run.ErrBadInput, eps, delta)
		}
	}
	for ok(lo) {
		if lo /= 2; lo < 1e-12 {
			return lo, nil
		}
	}
	for hi-lo > 1e-12*hi {
		if mid := (lo + hi) / 2; ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// Next consumes x_t and returns step t's release. It fails after n steps.
func (st *Streamer) Next(x int64) (Step, error) {
	t := st.t
	if t >= st.n {
		return Step{}, fmt.Errorf("stream: %w: the stream has %d steps", run.ErrBadInput, st.n)
	}
	st.xs = append(st.xs, x)
	y := new(big.Int)
	tmp := new(big.Int)
	for s := 0; s <= t; s++ {
		var c *big.Int
		if st.toe != nil {
			if t-s >= len(st.toe) {
				continue
			}
			c = st.toe[t-s]
		} else {
			c = st.dense[t][s]
		}
		if c.Sign() == 0 || st.xs[s] == 0 {
			continue
		}
		y.Add(y, tmp.Mul(c, big.NewInt(st.xs[s])))
	}
	y.Add(y, discreteGaussian(st.src, st.sigNum, st.sigDen))
	yf, _ := new(big.Float).SetInt(y).Float64()
	// Noise recurrence (post-processing): C_int w = y_int, then ŝ_t = Σ w.
	v := yf
	lo := 0
	if st.toe != nil {
		lo = max(0, t-len(st.toe)+1)
	}
	for s := lo; s < t; s++ {
		v -= st.cf(t, s) * st.w[s]
	}
	wt := v / st.cf(t, t)
	st.w = append(st.w, wt)
	st.acc += wt
	st.t++
	return Step{T: t + 1, Y: math.Ldexp(yf, -st.q), Estimate: st.acc}, nil
}

// discreteGaussian returns an integer Y with P(Y = y) ∝ exp(-y²/(2σ²)),
// σ² = num/den, exactly (Canonne, Kamath and Steinke 2020, Algorithm 3):
// a discrete Laplace proposal with scale τ = floor(σ)+1, accepted with
// probability exp(-(|Y| - σ²/τ)²/(2σ²)). Not constant-time (see
// mech/linear's notes on the exact samplers).
func discreteGaussian(src mech.Source, num, den *big.Int) *big.Int {
	tau := new(big.Int).Quo(num, den)
	tau.Sqrt(tau).Add(tau, big.NewInt(1))
	// (|Y|·den·τ - num)² / (2·num·den·τ²)
	twoVar := new(big.Int).Mul(num, den)
	twoVar.Mul(twoVar, tau).Mul(twoVar, tau).Lsh(twoVar, 1)
	scale := new(big.Int).Mul(den, tau)
	one := big.NewInt(1)
	for {
		cand := mech.DiscreteLaplace(src, one, tau)
		dev := new(big.Int).Abs(cand)
		dev.Mul(dev, scale).Sub(dev, num)
		dev.Mul(dev, dev)
		if mech.BernoulliExp(src, dev, twoVar) {
			return cand
		}
	}
}

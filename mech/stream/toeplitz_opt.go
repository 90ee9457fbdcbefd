package stream

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/run"
)

// StageToeplitz is the Progress stage of OptimizeToeplitz.
const StageToeplitz run.Stage = "stream toeplitz"

// ToeplitzOptions configures OptimizeToeplitz; nil means the defaults.
type ToeplitzOptions struct {
	// Settings: Budget (checked against 5 float64 vectors of length n) and
	// Progress (Stage "stream toeplitz", once per L-BFGS iteration, Value =
	// the loss).
	run.Settings
	// Loss is the loss minimised (TotalSquared by default).
	Loss Loss
	// MaxIter bounds the L-BFGS iterations; 0 means 3000.
	MaxIter int
	// Start is the starting c (len = bands, c_0 != 0); nil means the first
	// coefficients of the square-root factorisation.
	Start []float64
}

// ToeplitzResult is the answer of OptimizeToeplitz.
type ToeplitzResult struct {
	// C is the optimised strategy, scaled so that its exact sensitivity
	// under the schema is 1 (Sens.Sens2 = 1 up to rounding).
	C *Toeplitz
	// Sens is the exact sensitivity of C (ToeplitzSensitivity).
	Sens *Sensitivity
	// Errors are C's errors with B = A C⁻¹ (ToeplitzErrors).
	Errors Errors
	// Iterations counts L-BFGS iterations.
	Iterations int
}

// ToeplitzBytes estimates the memory of OptimizeToeplitz on n steps: five
// float64 vectors of length n (D, e, h, weights, the gradient work).
func ToeplitzBytes(n int) float64 { return 5 * 8 * float64(n) }

// OptimizeToeplitz finds a banded lower-triangular Toeplitz strategy C
// (bands coefficients c_0 = 1, c_1, ..., c_{bands-1}) for the prefix sums
// of n steps under schema s, minimising the loss
//
//	f(c) = sens²(c) · Σ_t w_t e_t(c)²,   e = coefficients of 1/((1-x) C(x)),
//
// w_t = n - t (TotalSquared, ‖A C⁻¹‖²_F) or w_t = 1 (MaxVariance, the
// last row of A C⁻¹). When bands <= the separation b (or s is Single) no
// two columns of one pattern overlap, so sens² = Σ_{j∈π₀} ‖C_j‖² with π₀ =
// {0, b, 2b, ...} (k steps, those that fit in n): the column norms do not
// increase with j, so the earliest pattern is the worst. With ∂e_t/∂c_j =
// -h_{t-j}, h = e/C(x), the gradient costs O(n·bands) like the value
// (the series recurrences), so n = 10^5 with 64 bands is a matter of
// seconds. The method is L-BFGS on log f from the square-root
// coefficients; f is not convex in c, so the result carries no
// certificate (compare it with OptimizeDense and the bounds of
// PrefixBounds). The reported sensitivity is recomputed independently by
// ToeplitzSensitivity.
func OptimizeToeplitz(ctx context.Context, n, bands int, s Schema, opt *ToeplitzOptions) (*ToeplitzResult, error) {
	if err := s.Check(n); err != nil {
		return nil, err
	}
	if opt == nil {
		opt = &ToeplitzOptions{}
	}
	if err := opt.Budget.Validate(); err != nil {
		return nil, fmt.Errorf("stream: %w", err)
	}
	if bands < 1 {
		return nil, fmt.Errorf("stream: %w: bands = %d, want >= 1", run.ErrBadInput, bands)
	}
	bands = min(bands, n)
	if s.Kind != Single && s.K > 1 && bands > s.B {
		return nil, fmt.Errorf("stream: %w: %d bands under %v: the banded family needs bands <= b (columns of one pattern must not overlap)", run.ErrBadInput, bands, s)
	}
	if err := opt.Budget.Check(fmt.Sprintf("stream: Toeplitz optimisation on n = %d", n), ToeplitzBytes(n), ""); err != nil {
		return nil, err
	}
	maxIter := opt.MaxIter
	if maxIter == 0 {
		maxIter = 3000
	}
	// cnt[i] = #{j ∈ π₀ : i < n - j}: sens² = Σ_i cnt[i] c_i².
	var pi0 []int
	switch s.Kind {
	case Single:
		pi0 = []int{0}
	default:
		for e := 0; e < s.K && e*s.B < n; e++ {
			pi0 = append(pi0, e*s.B)
		}
	}
	cnt := make([]float64, bands)
	for _, j := range pi0 {
		for i := 0; i < bands && i < n-j; i++ {
			cnt[i]++
		}
	}
	w := make([]float64, n)
	for t := range w {
		w[t] = 1
		if opt.Loss == TotalSquared {
			w[t] = float64(n - t)
		}
	}
	c := SqrtCoef(bands)
	if opt.Start != nil {
		if len(opt.Start) != bands || opt.Start[0] == 0 {
			return nil, fmt.Errorf("stream: %w: Start has %d coefficients (want %d, c_0 != 0)", run.ErrBadInput, len(opt.Start), bands)
		}
		for i := range c {
			c[i] = opt.Start[i] / opt.Start[0]
		}
	}
	d := make([]float64, n)
	e := make([]float64, n)
	h := make([]float64, n)
	// f over the free coefficients v = (c_1, ..., c_{bands-1}).
	f := func(v, g []float64) float64 {
		copy(c[1:], v)
		series(c, n, d, e, h)
		sens := 0.0
		for i, ci := range c {
			sens += cnt[i] * ci * ci
		}
		loss := 0.0
		for t, et := range e {
			loss += w[t] * et * et
		}
		if !(loss > 0) || math.IsInf(loss, 0) || math.IsNaN(loss) {
			return math.Inf(1)
		}
		for j := 1; j < bands; j++ {
			gj := 0.0
			for t := j; t < n; t++ {
				gj += w[t] * e[t] * h[t-j]
			}
			g[j-1] = 2*cnt[j]*c[j]/sens - 2*gj/loss
		}
		return math.Log(sens) + math.Log(loss)
	}
	v := append([]float64(nil), c[1:]...)
	best, stall := math.MaxFloat64, 0
	var iters int
	if bands > 1 {
		var err error
		_, iters, _, err = minimizeLBFGS(ctx, f, v, maxIter, func(it int, fx float64, _ []float64) bool {
			p := run.NewProgress(StageToeplitz)
			p.Iter, p.MaxIter, p.Value = it, maxIter, math.Exp(fx)
			opt.Report(p)
			if best-fx > 1e-15*math.Max(1, math.Abs(fx)) {
				best, stall = fx, 0
			} else if stall++; stall >= 10 {
				return true
			}
			return false
		})
		if err != nil {
			return nil, err
		}
		copy(c[1:], v)
	}
	// Scale to unit sensitivity, then recompute everything independently.
	sens := 0.0
	for i, ci := range c {
		sens += cnt[i] * ci * ci
	}
	for i := range c {
		c[i] /= math.Sqrt(sens)
	}
	strat := &Toeplitz{N: n, Coef: c}
	sv, err := ToeplitzSensitivity(ctx, strat, s)
	if err != nil {
		return nil, err
	}
	return &ToeplitzResult{C: strat, Sens: sv, Errors: ToeplitzErrors(strat, sv.Sens2), Iterations: iters}, nil
}

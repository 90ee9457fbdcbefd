package sdp

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/run"

	"gonum.org/v1/gonum/mat"
)

// Marginal is one marginal of a marginal workload on a product domain
// dims[0] x dims[1] x ...: the counts of every combination of values of the
// attributes whose bit is set in Attrs (Attrs = 0 is the total), with
// Gram-matrix weight Weight (rows scaled by sqrt(Weight)).
type Marginal struct {
	Attrs  uint
	Weight float64
}

// MarginalsResult is the answer of OptimizeL1MarginalWeights.
type MarginalsResult struct {
	// Weights[S] >= 0 is the weight of the marginal on attribute set S
	// (bit mask) in the strategy A = [Weights[S] M_S]_S; they sum to 1,
	// so D1(A) = 1.
	Weights []float64
	// Objective is D1(A)^2 tr(G (A^T A)^{-1}).
	Objective float64
	// Identity and Workload are the objectives of the identity strategy
	// (the full marginal) and of the workload's own marginals, the
	// baselines the result is never worse than.
	Identity, Workload float64
	// Iterations is the total number of L-BFGS iterations.
	Iterations int
}

// marginalSpectrum holds the eigenstructure shared by all marginal
// matrices on a product domain. With P_f = 11^T/n_f, the subspaces
// ⊗_{f∈T}(I-P_f) ⊗_{f∉T} P_f (T a set of attributes, dimension
// mult[T] = ∏_{f∈T}(n_f-1)) diagonalise every M_S^T M_S =
// ⊗_f (I if f∈S else n_f P_f), with eigenvalue c[S] = ∏_{f∉S} n_f when
// T ⊆ S and 0 otherwise.
type marginalSpectrum struct {
	d    int
	dims []int
	c    []float64 // c[S] = ∏_{f∉S} n_f
	mult []float64 // mult[T] = ∏_{f∈T} (n_f - 1)
	g    []float64 // workload eigenvalues g[T] = sum_{S ⊇ T} w_S c[S]
}

const maxMarginalAttrs = 16

func newMarginalSpectrum(dims []int, workload []Marginal) (*marginalSpectrum, error) {
	d := len(dims)
	if d == 0 || d > maxMarginalAttrs {
		return nil, fmt.Errorf("sdp: %w: %d attributes, want 1..%d", run.ErrBadInput, d, maxMarginalAttrs)
	}
	if len(workload) == 0 {
		return nil, fmt.Errorf("sdp: %w: empty marginal workload", run.ErrBadInput)
	}
	for f, n := range dims {
		if n < 1 {
			return nil, fmt.Errorf("sdp: %w: attribute %d has %d values", run.ErrBadInput, f, n)
		}
	}
	full := uint(1)<<d - 1
	s := &marginalSpectrum{d: d, dims: dims, c: make([]float64, full+1), mult: make([]float64, full+1), g: make([]float64, full+1)}
	for m := uint(0); m <= full; m++ {
		c, mu := 1.0, 1.0
		for f := 0; f < d; f++ {
			if m>>f&1 == 1 {
				mu *= float64(dims[f] - 1)
			} else {
				c *= float64(dims[f])
			}
		}
		s.c[m], s.mult[m] = c, mu
	}
	for i, w := range workload {
		if w.Attrs > full {
			return nil, fmt.Errorf("sdp: %w: marginal %d uses attribute bits %b beyond the %d attributes", run.ErrBadInput, i, w.Attrs, d)
		}
		if !(w.Weight > 0) || math.IsInf(w.Weight, 0) {
			return nil, fmt.Errorf("sdp: %w: marginal %d has weight %v, want finite > 0", run.ErrBadInput, i, w.Weight)
		}
		for t := w.Attrs; ; t = (t - 1) & w.Attrs { // subsets T of S
			s.g[t] += w.Weight * s.c[w.Attrs]
			if t == 0 {
				break
			}
		}
	}
	return s, nil
}

// supersetSum replaces v by its superset-sum transform,
// v[T] <- Σ_{S ⊇ T} v[S], in O(d 2^d) (len(v) = 2^d).
func supersetSum(v []float64, d int) {
	for f := 0; f < d; f++ {
		bit := 1 << f
		for m := range v {
			if m&bit == 0 {
				v[m] += v[m|bit]
			}
		}
	}
}

// subsetSum replaces v by its subset-sum transform,
// v[S] <- Σ_{T ⊆ S} v[T], in O(d 2^d).
func subsetSum(v []float64, d int) {
	for f := 0; f < d; f++ {
		bit := 1 << f
		for m := range v {
			if m&bit != 0 {
				v[m] += v[m^bit]
			}
		}
	}
}

// eval returns F(θ) = (sum θ)^2 sum_T mult_T g_T / λ_T with
// λ_T = sum_{S ⊇ T} θ_S^2 c_S, and its gradient
// ∂F/∂θ_S = 2 s Tr - 2 s^2 θ_S c_S sum_{T ⊆ S} mult_T g_T / λ_T^2; both
// sums over subsets are fast zeta transforms, O(d 2^d) per evaluation.
func (s *marginalSpectrum) eval(theta, grad []float64) (float64, bool) {
	nm := len(theta)
	lam := make([]float64, nm)
	sum := 0.0
	for m, th := range theta {
		sum += th
		lam[m] = th * th * s.c[m]
	}
	supersetSum(lam, s.d)
	tr := 0.0
	w := make([]float64, nm)
	for t := range lam {
		h := s.mult[t] * s.g[t]
		if h == 0 {
			continue
		}
		if !(lam[t] > 0) {
			return math.Inf(1), false
		}
		tr += h / lam[t]
		w[t] = h / (lam[t] * lam[t])
	}
	f := sum * sum * tr
	if grad == nil {
		return f, true
	}
	subsetSum(w, s.d)
	for m, th := range theta {
		grad[m] = 2*sum*tr - 2*sum*sum*th*s.c[m]*w[m]
	}
	return f, true
}

// OptimizeL1MarginalWeights optimises an eps-DP strategy for a workload of
// marginals on the product domain dims (HDMM's marginals
// parameterisation): the strategy is a weighted union of all 2^d marginals,
// A = [θ_S M_S], with D1(A) = sum θ_S. In the common eigenbasis of all
// marginal matrices (see marginalSpectrum) the error is
//
//	D1(A)^2 tr(G (A^T A)^{-1}) = (sum_S θ_S)^2 sum_T mult_T g_T / λ_T(θ),
//
// an O(d 2^d) formula, minimised over θ >= 0 by projected L-BFGS from
// dense random, covering-design, unions-of-parts and sparse random starts
// with a local search, opt.Restarts rounds (searchWeights; docs/MATH.md
// §15.10). The identity strategy
// (θ on the full attribute set) and the workload's own marginals (θ_S ∝
// sqrt(w_S)) are baselines; the best is returned, normalised to sum 1.
// opt.P and opt.Baselines are not used. At most 16 attributes.
func OptimizeL1MarginalWeights(ctx context.Context, dims []int, workload []Marginal, opt *L1Options) (*MarginalsResult, error) {
	s, err := newMarginalSpectrum(dims, workload)
	if err != nil {
		return nil, err
	}
	own := make([]float64, len(s.c))
	for _, w := range workload {
		own[w.Attrs] += math.Sqrt(w.Weight)
	}
	return optimizeWeights(ctx, s, own, opt)
}

// OptimizeL1MarginalWeightsSpectrum is OptimizeL1MarginalWeights for any
// workload whose Gram matrix G is a sum of Kronecker products over the
// attributes dims, given through h[T] = tr(G E_T) >= 0 for every attribute
// mask T, E_T = ⊗_f (Q_f if f ∈ T else P_f), P_f = 1 1^T/n_f, Q_f = I - P_f.
// The error of the weighted marginals A = [θ_S M_S] is
// (Σ θ_S)² Σ_T h_T/λ_T(θ) whatever G is (the E_T diagonalise A^T A), so
// the same optimiser applies; its second baseline puts weight 1 on every
// mask maximal among those with h_T > 0 (the marginals the workload needs).
// Result.Workload is that baseline's objective.
func OptimizeL1MarginalWeightsSpectrum(ctx context.Context, dims []int, h []float64, opt *L1Options) (*MarginalsResult, error) {
	d := len(dims)
	if d == 0 || d > maxMarginalAttrs || len(h) != 1<<d {
		return nil, fmt.Errorf("sdp: %w: %d attributes with %d spectrum entries (want 1..%d attributes and 2^d entries)", run.ErrBadInput, d, len(h), maxMarginalAttrs)
	}
	s := &marginalSpectrum{d: d, dims: dims, c: make([]float64, 1<<d), mult: make([]float64, 1<<d), g: make([]float64, 1<<d)}
	any := false
	for m := range s.c {
		c := 1.0
		for f := 0; f < d; f++ {
			if dims[f] < 1 {
				return nil, fmt.Errorf("sdp: %w: attribute %d has %d values", run.ErrBadInput, f, dims[f])
			}
			if m>>f&1 == 0 {
				c *= float64(dims[f])
			}
		}
		if !(h[m] >= 0) || math.IsInf(h[m], 0) {
			return nil, fmt.Errorf("sdp: %w: h[%d] = %v, want finite >= 0", run.ErrBadInput, m, h[m])
		}
		any = any || h[m] > 0
		s.c[m], s.mult[m], s.g[m] = c, 1, h[m]
	}
	if !any {
		return nil, fmt.Errorf("sdp: %w: the workload is zero", run.ErrBadInput)
	}
	own := make([]float64, 1<<d)
	for _, m := range neededMasks(h, d) {
		own[m] = 1
	}
	return optimizeWeights(ctx, s, own, opt)
}

// optimizeWeights minimises the spectral objective s.eval from random
// starts and the identity and own baselines.
func optimizeWeights(ctx context.Context, s *marginalSpectrum, own []float64, opt *L1Options) (*MarginalsResult, error) {
	if opt != nil && opt.Baselines != nil {
		return nil, fmt.Errorf("sdp: %w: OptimizeL1MarginalWeights has built-in baselines; L1Options.Baselines must be nil", run.ErrBadInput)
	}
	o, err := opt.defaults(1)
	if err != nil {
		return nil, err
	}
	if err := o.Budget.Check(fmt.Sprintf("sdp: weighted marginals on %d attributes", s.d), weightsBytes(s.d), "use fewer attributes"); err != nil {
		return nil, err
	}
	nm := len(s.c)
	res := &MarginalsResult{Objective: math.Inf(1)}
	identity := make([]float64, nm)
	identity[nm-1] = 1
	res.Identity, _ = s.eval(identity, nil)
	res.Workload, _ = s.eval(own, nil)
	best, iters, err := searchWeights(ctx, s, identity, own, &o)
	if err != nil {
		return nil, err
	}
	res.Iterations += iters
	if best != nil {
		res.Objective, _ = s.eval(best, nil)
	}
	for _, b := range [][]float64{identity, own} {
		if v, ok := s.eval(b, nil); ok && v <= res.Objective {
			res.Objective, best = v, append([]float64(nil), b...)
		}
	}
	if best == nil {
		return nil, fmt.Errorf("sdp: no finite marginal weights found: %w", run.ErrNotConverged)
	}
	sum := 0.0
	for _, v := range best {
		sum += v
	}
	for i := range best {
		best[i] /= sum
	}
	res.Weights = best
	res.Objective, _ = s.eval(best, nil)
	return res, nil
}

// MarginalStrategy builds the explicit strategy [θ_S M_S] (marginals with
// θ_S > 0, in increasing mask order) on the product domain dims, cells in
// mixed radix with attribute 0 most significant (the order of a Kronecker
// product over attributes 0, 1, ...). It refuses domains above 2^16 cells.
func MarginalStrategy(dims []int, weights []float64) (*mat.Dense, error) {
	d := len(dims)
	if d == 0 || d > maxMarginalAttrs || len(weights) != 1<<d {
		return nil, fmt.Errorf("sdp: %w: %d attributes with %d weights (want 2^d)", run.ErrBadInput, d, len(weights))
	}
	cells := 1
	for f, n := range dims {
		if n < 1 {
			return nil, fmt.Errorf("sdp: %w: attribute %d has %d values", run.ErrBadInput, f, n)
		}
		cells *= n
		if cells > 1<<16 {
			return nil, fmt.Errorf("sdp: %w: domain of more than 2^16 cells is too large for an explicit strategy", run.ErrBadInput)
		}
	}
	rows := 0
	size := func(m uint) int {
		r := 1
		for f := 0; f < d; f++ {
			if m>>f&1 == 1 {
				r *= dims[f]
			}
		}
		return r
	}
	for m, w := range weights {
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("sdp: %w: weight %d is %v", run.ErrBadInput, m, w)
		}
		if w > 0 {
			rows += size(uint(m))
		}
	}
	a := mat.NewDense(max(rows, 1), cells, nil)
	vals := make([]int, d)
	off := 0
	for m, w := range weights {
		if w == 0 {
			continue
		}
		for x := 0; x < cells; x++ {
			rem := x
			for f := d - 1; f >= 0; f-- {
				vals[f] = rem % dims[f]
				rem /= dims[f]
			}
			r := 0
			for f := 0; f < d; f++ {
				if uint(m)>>f&1 == 1 {
					r = r*dims[f] + vals[f]
				}
			}
			a.Set(off+r, x, w)
		}
		off += size(uint(m))
	}
	return a, nil
}

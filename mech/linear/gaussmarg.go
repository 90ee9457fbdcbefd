package linear

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/optdp/optdp/run"
)

// WeightedMarginal is one marginal of a marginal workload: the counts of
// every combination of values of the attributes Attrs (indices into the
// domain's attributes, distinct), each query multiplied by Weight (> 0;
// its squared errors count Weight² times).
type WeightedMarginal struct {
	Attrs  []int   `json:"attrs"`
	Weight float64 `json:"weight"`
}

// GaussianMarginalsResult is the answer of OptimalGaussianMarginals.
type GaussianMarginalsResult struct {
	// Queries is the number of workload queries, Σ_S Π_{f ∈ S} n_f.
	Queries float64
	// Subspaces is the number of residual subspaces T the strategy
	// measures (every T contained in a workload marginal).
	Subspaces int
	// Nu maps each measured subspace (its attributes, comma-separated, in
	// increasing order; "" for the total) to its weight ν_T: the optimal
	// strategy has A^T A = Σ_T ν_T E_T with D2(A) = 1 (ResidualStrategy).
	Nu map[string]float64
	// Trace is the optimum tr(W^T W (A^T A)^{-1}) at D2 = 1, and Dual the
	// SVD bound (Σ_i sqrt(λ_i(W^T W)))²/n certifying it.
	Trace, Dual float64
	// Sigma is the analytic Gaussian σ for D2 = 1 at (eps, delta); TSE =
	// Sigma²·Trace and RMSE = sqrt(TSE/Queries).
	Sigma, TSE, RMSE float64
}

// maxGaussianMarginalSubspaces bounds the residual subspaces of
// OptimalGaussianMarginals (each costs a map entry).
const maxGaussianMarginalSubspaces = 1 << 24

// OptimalGaussianMarginals returns the optimal (eps, delta)-DP Gaussian
// strategy for a weighted marginal workload over the product domain dims,
// in closed form in the residual basis (Xiao, Ding, Wang, Kifer and Zhang,
// NeurIPS 2023; see optimizeL2Marginals for the derivation): with
// h_T = tr(W^T W E_T) = Σ_{S ⊇ T} w_S² Π_{f ∈ T} (n_f - 1) Π_{f ∉ S} n_f and
// δ_T = Π_{f ∈ T} (n_f - 1)/n_f Π_{f ∉ T} 1/n_f, the optimum is
// ν_T ∝ sqrt(h_T/δ_T) and tr = (Σ_T sqrt(h_T δ_T))². Only the subspaces T
// inside some workload marginal enter, so the cost is Σ_S 2^|S| map
// operations whatever the domain size (nothing over the cells is formed;
// the domain only has to have fewer than 10^300 cells). The SVD bound is
// computed from G's eigenvalues h_T/m_T (multiplicity m_T) as the
// certificate. Errors: no attributes, a size < 1, a marginal with a
// repeated or out-of-range attribute or more than 30 attributes, a weight
// not finite and > 0, more than 2^24 subspaces, bad eps or delta.
func OptimalGaussianMarginals(dims []int, marginals []WeightedMarginal, eps, delta float64) (*GaussianMarginalsResult, error) {
	if len(dims) == 0 {
		return nil, fmt.Errorf("linear: gaussian marginals: %w: no attributes", run.ErrBadInput)
	}
	nAll := 1.0
	for f, n := range dims {
		if n < 1 {
			return nil, fmt.Errorf("gaussian marginals: %w: attribute %d has %d values", run.ErrBadInput, f, n)
		}
		nAll *= float64(n)
	}
	if nAll > 1e300 {
		return nil, fmt.Errorf("linear: gaussian marginals: a domain of %g cells is beyond float64's range: %w", nAll, run.ErrTooLarge)
	}
	if len(marginals) == 0 {
		return nil, fmt.Errorf("linear: gaussian marginals: %w: no marginals", run.ErrBadInput)
	}
	sigma, err := AnalyticGaussianSigma(1, eps, delta)
	if err != nil {
		return nil, fmt.Errorf("gaussian marginals: %w", err)
	}
	key := func(attrs []int) string {
		s := make([]string, len(attrs))
		for i, a := range attrs {
			s[i] = strconv.Itoa(a)
		}
		return strings.Join(s, ",")
	}
	h := map[string]float64{}
	tAttrs := map[string][]int{}
	res := &GaussianMarginalsResult{}
	for i, m := range marginals {
		if !(m.Weight > 0) || math.IsInf(m.Weight, 0) {
			return nil, fmt.Errorf("gaussian marginals: %w: marginal %d has weight %v", run.ErrBadInput, i, m.Weight)
		}
		if len(m.Attrs) > 30 {
			return nil, fmt.Errorf("gaussian marginals: %w: marginal %d has %d attributes, the limit is 30", run.ErrBadInput, i, len(m.Attrs))
		}
		s := append([]int(nil), m.Attrs...)
		sort.Ints(s)
		rows, off := 1.0, nAll // off = Π_{f ∉ S} n_f
		for k, a := range s {
			if a < 0 || a >= len(dims) || (k > 0 && s[k-1] == a) {
				return nil, fmt.Errorf("gaussian marginals: %w: marginal %d has attributes %v (repeated or outside 0..%d)", run.ErrBadInput, i, m.Attrs, len(dims)-1)
			}
			rows *= float64(dims[a])
			off /= float64(dims[a])
		}
		res.Queries += rows
		w2 := m.Weight * m.Weight
		for sub := 0; sub < 1<<len(s); sub++ { // T ⊆ S
			var t []int
			v := w2 * off
			for k, a := range s {
				if sub>>k&1 == 1 {
					t = append(t, a)
					v *= float64(dims[a] - 1)
				}
			}
			if v == 0 {
				continue // an attribute of size 1 has no residual
			}
			kt := key(t)
			if _, ok := h[kt]; !ok {
				if len(h) >= maxGaussianMarginalSubspaces {
					return nil, fmt.Errorf("linear: gaussian marginals: more than %d residual subspaces: %w", maxGaussianMarginalSubspaces, run.ErrTooLarge)
				}
				tAttrs[kt] = t
			}
			h[kt] += v
		}
	}
	// δ_T = m_T/n with m_T = Π_{f ∈ T}(n_f - 1).
	mult := func(t []int) float64 {
		m := 1.0
		for _, a := range t {
			m *= float64(dims[a] - 1)
		}
		return m
	}
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys) // a deterministic summation order
	d2, svd := 0.0, 0.0
	nu := make(map[string]float64, len(h))
	for _, k := range keys {
		mt := mult(tAttrs[k])
		delta := mt / nAll
		nu[k] = math.Sqrt(h[k] / delta)
		d2 += nu[k] * delta
		svd += mt * math.Sqrt(h[k]/mt)
	}
	tr := 0.0
	for _, k := range keys {
		nu[k] /= d2
		tr += h[k] / nu[k]
	}
	res.Subspaces = len(h)
	res.Nu = nu
	res.Trace = tr
	res.Dual = svd * svd / nAll
	res.Sigma = sigma
	res.TSE = sigma * sigma * tr
	res.RMSE = math.Sqrt(res.TSE / res.Queries)
	return res, nil
}

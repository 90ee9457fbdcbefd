package linear

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/optdp/optdp/internal/stable"
	"github.com/optdp/optdp/run"
)

// dualSafety is the relative margin by which the sum loss's closed-form
// bound φ² is lowered so that rounding never puts it above the true
// optimum (see PlanGaussianMarginals).
const dualSafety = 0x1p-47

// Losses of PlanGaussianMarginals.
const (
	// LossSum is the total (weighted) variance of all workload queries,
	// Σ_S w_S² n_S Var_S: the matrix mechanism's TSE, solved in closed form.
	LossSum = "sum"
	// LossMax is the largest (weighted) variance of one workload query,
	// max_S w_S² Var_S, solved by the certified multiplicative method.
	LossMax = "max"
)

// MarginalPlanOptions configures PlanGaussianMarginals.
type MarginalPlanOptions struct {
	// Settings: the memory Budget (0 = run.DefaultBudget), checked before
	// the plan's tables are allocated, and the Progress callback (Stage
	// run.StageMarginalPlan, Iter, Value = the best max variance in
	// units of σ², Gap = its relative certified gap).
	run.Settings
	// Eps > 0 and 0 < Delta < 1 are the privacy parameters; the plan's
	// variances use the analytic Gaussian σ for L2 sensitivity 1
	// (AnalyticGaussianSigma).
	Eps   float64 `json:"eps"`
	Delta float64 `json:"delta"`
	// Loss is LossSum ("" means LossSum) or LossMax.
	Loss string `json:"loss"`
	// Tol is the relative certified gap at which the max-variance method
	// stops (0 means 1e-6; at least 1e-14).
	Tol float64 `json:"tol"`
	// MaxIter bounds the max-variance iterations (0 means 100,000).
	MaxIter int `json:"max_iter"`
	// AttrQueries, when not nil, gives each attribute's query type
	// (QueryIdentity, QueryPrefix or QueryAllRange; "" means
	// QueryIdentity), the same in every marginal containing the
	// attribute (docs/MATH.md §15.11, "Prefix and range attributes").
	AttrQueries []string `json:"attr_queries"`
}

// MarginalPlan is a Gaussian measurement plan for a weighted marginal
// workload in the residual basis (Xiao, Ding, Wang, Kifer and Zhang,
// NeurIPS 2023): for every subspace T, a set of attributes inside some
// workload marginal with Π_{f ∈ T}(n_f - 1) > 0, the residual of the
// T-marginal, (⊗_{f ∈ T} B_f) y_T with B_f the (n_f - 1)×n_f Helmert matrix,
// is measured with Gaussian noise of variance σ² m_T/(n_T u_T) per entry,
// where m_T = Π_{f ∈ T}(n_f - 1), n_T = Π_{f ∈ T} n_f and Σ_T u_T = 1: the
// whole measurement has L2 sensitivity 1 against adding or removing one
// record (docs/MATH.md §15.11). Every cell of marginal S is then estimated
// with variance
//
//	Var_S = σ² Σ_{T ⊆ S} (m_T/n_S)² / u_T,
//
// and nothing of the size of the full domain is ever formed. With prefix or
// allrange attributes (MarginalPlanOptions.AttrQueries) each such attribute's
// residual is measured in a tree basis with optimised weights instead of
// Helmert's, the sensitivity is still exactly 1, and query q of S has
// variance σ² Σ_{T ⊆ S} Π_{f ∈ T} α_f(q_f) Π_{f ∈ S∖T} β_f(q_f)/u_T
// (docs/MATH.md §15.11, "Prefix and range attributes").
type MarginalPlan struct {
	// Dims are the attribute sizes.
	Dims []int `json:"dims"`
	// Marginals is the workload, each Attrs sorted increasingly.
	Marginals []WeightedMarginal `json:"marginals"`
	// Subspaces lists the measured subspaces T (sorted attribute lists,
	// [] for the total), Share their budget shares u_T (> 0, summing to 1).
	Subspaces [][]int   `json:"subspaces"`
	Share     []float64 `json:"share"`
	// Loss is LossSum or LossMax; Eps, Delta and Sigma (the analytic
	// Gaussian σ for sensitivity 1) the calibration of the variances.
	Loss  string  `json:"loss"`
	Eps   float64 `json:"eps"`
	Delta float64 `json:"delta"`
	Sigma float64 `json:"sigma"`
	// AttrQueries is each attribute's query type (nil when every one is
	// QueryIdentity), and BasisGap the largest certified relative gap of
	// the prefix and allrange attributes' bases within their families (0
	// when there are none).
	AttrQueries []string `json:"attr_queries,omitempty"`
	BasisGap    float64  `json:"basis_gap"`
	// Queries is the number of workload queries: Σ_S Π_{f ∈ S} q_f, q_f
	// = n_f for identity and prefix attributes, n_f(n_f+1)/2 for allrange
	// ones (Σ_S n_S when every attribute is identity).
	Queries float64 `json:"queries"`
	// Variance[i] is the largest variance of a query of marginal i
	// (unweighted, σ² included): that of every cell when its attributes
	// are all identity.
	Variance []float64 `json:"variance"`
	// TSE = σ² Σ_S w_S² n_S Var_S/σ², RMSE = sqrt(TSE/Queries), and
	// MaxVariance = max_S w_S² Var_S (weighted query variances).
	TSE         float64 `json:"tse"`
	RMSE        float64 `json:"rmse"`
	MaxVariance float64 `json:"max_variance"`
	// Objective is the loss in units of σ² (Σ_T b_T/u_T for LossSum,
	// max_S w_S² Var_S/σ² for LossMax); Dual a lower bound on the loss of
	// every Gaussian linear strategy for the workload (units σ²); Gap =
	// Objective - Dual >= 0 and RelGap = Gap/Objective certify it.
	Objective float64 `json:"objective"`
	Dual      float64 `json:"dual"`
	Gap       float64 `json:"gap"`
	RelGap    float64 `json:"rel_gap"`
	// Iterations of the max-variance method (0 for LossSum).
	Iterations int `json:"iterations"`
	// Time is the planning time.
	Time time.Duration `json:"-"`

	// subIdx[off[i]:off[i+1]] are the indices of the subspaces T ⊆ S_i and
	// coef the matching (m_T/n_S)².
	off    []int
	subIdx []int32
	coef   []float64
	// bases[f] is attribute f's basis (nil when every attribute is
	// identity: the Helmert basis with ζ ≡ 1); tse[k] the pair's total
	// unweighted variance factor Π_{f ∈ T} d_f Σ_q v_q Π_{f ∈ S∖T} Σ_q β_q
	// (docs/MATH.md §15.11).
	bases []*attrBasis
	tse   []float64
	// frozen is a private deep copy of the plan as computed, which
	// AnswerGaussianMarginals uses: changing the exported fields changes
	// neither the noise nor the reconstruction.
	frozen *MarginalPlan
}

// freeze stores the private copy of p (see frozen).
func (p *MarginalPlan) freeze() {
	c := *p
	c.Dims = append([]int(nil), p.Dims...)
	c.Marginals = make([]WeightedMarginal, len(p.Marginals))
	for i, m := range p.Marginals {
		c.Marginals[i] = WeightedMarginal{Attrs: append([]int(nil), m.Attrs...), Weight: m.Weight}
	}
	c.Subspaces = make([][]int, len(p.Subspaces))
	for t, ts := range p.Subspaces {
		c.Subspaces[t] = append([]int{}, ts...)
	}
	c.Share = append([]float64(nil), p.Share...)
	c.Variance = append([]float64(nil), p.Variance...)
	c.AttrQueries = append([]string(nil), p.AttrQueries...)
	c.frozen = nil
	p.frozen = &c
}

// Limits of PlanGaussianMarginals.
const (
	maxPlanAttrs        = 1 << 20
	maxPlanMarginalSize = 30
	maxPlanEntries      = 1 << 28
)

// PlanGaussianMarginals returns the optimal (eps, delta)-DP Gaussian plan
// for a weighted marginal workload over attributes of sizes dims under the
// loss opts.Loss, in the residual basis (see MarginalPlan). The problem
// over all Gaussian linear strategies is convex and invariant under
// permuting each attribute's values, so an optimum lies in the residual
// family and both losses become convex programs in the shares u:
//
//   - LossSum: minimise Σ_T b_T/u_T, b_T = Σ_{S ⊇ T} w_S² m_T²/n_S, with
//     Σ u_T = 1; the minimum (Σ_T sqrt(b_T))² is at u_T ∝ sqrt(b_T) (the
//     closed form of OptimalGaussianMarginals); Dual is the SVD bound.
//   - LossMax: minimise max_S Σ_{T ⊆ S} a_{S,T}/u_T, a_{S,T} = w_S²
//     (m_T/n_S)²; its Lagrangian dual is max over distributions λ on the
//     marginals of (Σ_T sqrt(c_T(λ)))², c_T = Σ_{S ⊇ T} λ_S a_{S,T}, whose
//     inner minimiser u_T ∝ sqrt(c_T) is the primal iterate. λ is updated
//     multiplicatively, λ_S ∝ λ_S (f_S/Σ λ f)^p with f_S the marginal's
//     variance, p adapted so that the dual never decreases; every iterate's
//     dual value is a certified lower bound and the best primal value is
//     returned with the gap (docs/MATH.md §15.11).
//
// With opts.AttrQueries naming prefix or allrange attributes, each gets the
// better of two tree bases with weights minimising its factor of the sum
// loss (certified to BasisGap); the sum plan is then optimal among
// residual strategies with such bases, the max plan over the shares for
// them (its rows are the combinations of each attribute's hull queries,
// where every marginal's largest variance lies), and Dual is the larger of
// two valid lower bounds over all Gaussian linear strategies (separated
// per marginal, and a block-diagonal relaxation of each attribute's Gram),
// valid but not tight (docs/MATH.md §15.11).
//
// The cost is Σ_S 2^|S| per iteration; nothing over the cells is formed.
// Errors (run.ErrBadInput): no attributes or marginals, a size < 1, a
// marginal with a repeated or out-of-range attribute or more than 30
// attributes, a weight outside [1e-50, 1e50] (so that every w² (m_T/n_S)²
// is a normal float64), a workload with no residual (all its attributes
// of size 1), bad eps, delta or loss; run.ErrTooLarge for a marginal of
// more than 1e100 cells, beyond 2^28 (marginal, subspace) pairs or the
// budget; for AttrQueries (run.ErrBadInput): not one per attribute, an unknown
// type, a prefix or allrange attribute of fewer than 2 or more than 512
// values; run.ErrTooLarge beyond 2^28 hull coefficients;
// run.ErrNotConverged when LossMax misses Tol within MaxIter (the result
// is returned with its certified gap); ctx's error when cancelled.
func PlanGaussianMarginals(ctx context.Context, dims []int, marginals []WeightedMarginal, opts *MarginalPlanOptions) (*MarginalPlan, error) {
	start := time.Now()
	if opts == nil {
		opts = &MarginalPlanOptions{}
	}
	loss := opts.Loss
	if loss == "" {
		loss = LossSum
	}
	if loss != LossSum && loss != LossMax {
		return nil, fmt.Errorf("linear: marginal plan: %w: loss %q, want %q or %q", run.ErrBadInput, opts.Loss, LossSum, LossMax)
	}
	if len(dims) == 0 || len(dims) > maxPlanAttrs {
		return nil, fmt.Errorf("linear: marginal plan: %w: %d attributes, want 1..%d", run.ErrBadInput, len(dims), maxPlanAttrs)
	}
	for f, n := range dims {
		if n < 1 {
			return nil, fmt.Errorf("linear: marginal plan: %w: attribute %d has %d values", run.ErrBadInput, f, n)
		}
	}
	if len(marginals) == 0 {
		return nil, fmt.Errorf("linear: marginal plan: %w: no marginals", run.ErrBadInput)
	}
	sigma, err := AnalyticGaussianSigma(1, opts.Eps, opts.Delta)
	if err != nil {
		return nil, fmt.Errorf("linear: marginal plan: %w: %v", run.ErrBadInput, err)
	}
	tol := opts.Tol
	if tol == 0 {
		tol = 1e-6
	}
	if !(tol >= 1e-14) || math.IsInf(tol, 0) || opts.MaxIter < 0 {
		return nil, fmt.Errorf("linear: marginal plan: %w: tol %v (want >= 1e-14), max-iter %d", run.ErrBadInput, opts.Tol, opts.MaxIter)
	}
	maxIter := opts.MaxIter
	if maxIter == 0 {
		maxIter = 100000
	}
	// Validate and count the (marginal, subspace) pairs before allocating.
	pairs := 0.0
	ms := make([]WeightedMarginal, len(marginals))
	for i, m := range marginals {
		if !(m.Weight >= 1e-50 && m.Weight <= 1e50) {
			return nil, fmt.Errorf("linear: marginal plan: %w: marginal %d has weight %v, want 1e-50..1e50", run.ErrBadInput, i, m.Weight)
		}
		if len(m.Attrs) > maxPlanMarginalSize {
			return nil, fmt.Errorf("linear: marginal plan: %w: marginal %d has %d attributes, the limit is %d", run.ErrBadInput, i, len(m.Attrs), maxPlanMarginalSize)
		}
		s := append([]int(nil), m.Attrs...)
		sort.Ints(s)
		for k, a := range s {
			if a < 0 || a >= len(dims) || (k > 0 && s[k-1] == a) {
				return nil, fmt.Errorf("linear: marginal plan: %w: marginal %d has attributes %v (repeated or outside 0..%d)", run.ErrBadInput, i, m.Attrs, len(dims)-1)
			}
		}
		cells := 1.0
		for _, a := range s {
			cells *= float64(dims[a])
		}
		if cells > 1e100 {
			return nil, fmt.Errorf("linear: marginal plan: marginal %d has %g cells, the limit is 1e100: %w", i, cells, run.ErrTooLarge)
		}
		ms[i] = WeightedMarginal{Attrs: s, Weight: m.Weight}
		pairs += math.Ldexp(1, len(s))
	}
	if pairs > maxPlanEntries {
		return nil, fmt.Errorf("linear: marginal plan: %g (marginal, subspace) pairs, the limit is %d: %w", pairs, maxPlanEntries, run.ErrTooLarge)
	}
	// Per pair: an int32 index, a float64 coefficient, and a map entry
	// (about 64 bytes with its key) in the worst case.
	if err := opts.Budget.Check("marginal plan: the subspace tables", pairs*(4+8+64), ""); err != nil {
		return nil, fmt.Errorf("linear: %w", err)
	}
	p := &MarginalPlan{Dims: append([]int(nil), dims...), Marginals: ms, Loss: loss, Eps: opts.Eps, Delta: opts.Delta, Sigma: sigma}
	if err := p.setBases(ctx, opts.AttrQueries); err != nil {
		return nil, err
	}
	if err := p.checkTypedSize(loss, pairs, opts.Budget); err != nil {
		return nil, err
	}
	if err := p.index(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	nT := len(p.Subspaces)
	tb := p.table(loss)
	var runErr error
	if loss == LossSum {
		// Compensated sums throughout: a single attribute's b_T gathers
		// thousands of terms and φ ~10^5 of them, where plain summation
		// loses the last four digits (and would put Dual above the loss).
		bs := make([]stable.Sum, nT)
		for i, m := range p.Marginals {
			w2 := m.Weight * m.Weight
			if p.bases != nil {
				for k := p.off[i]; k < p.off[i+1]; k++ {
					bs[p.subIdx[k]].Add(w2 * p.tse[k])
				}
				continue
			}
			ns := p.cells(m.Attrs)
			for k := p.off[i]; k < p.off[i+1]; k++ {
				bs[p.subIdx[k]].Add(w2 * ns * p.coef[k]) // w² m_T²/n_S
			}
		}
		b := make([]float64, nT)
		var phiSum stable.Sum
		for t := range bs {
			b[t] = bs[t].Value()
			phiSum.Add(math.Sqrt(b[t]))
		}
		phi := phiSum.Value()
		p.Share = make([]float64, nT)
		var obj stable.Sum
		for t, v := range b {
			p.Share[t] = math.Sqrt(v) / phi
			obj.Add(v / p.Share[t])
		}
		// Dual = φ² lowered by dualSafety: each b_T is within 6u of its
		// exact value (products of at most four factors, a compensated
		// sum of positive terms), its root within 4u, φ within 6u and φ²
		// within 13u, u = 2^-53; the margin 2^-47 = 64u covers that.
		p.Objective, p.Dual = obj.Value(), phi*phi*(1-dualSafety)
		if p.bases != nil {
			w2 := make([]float64, len(p.Marginals))
			for i, m := range p.Marginals {
				w2[i] = m.Weight * m.Weight
			}
			if p.Dual, err = p.relaxedBound(ctx, w2); err != nil {
				return nil, err
			}
		}
	} else {
		lambda, err := p.solveMax(ctx, tb, tol, maxIter, opts.Progress)
		if runErr = err; err != nil && p.Share == nil {
			return nil, runErr
		}
		if p.bases != nil {
			// Σ_S λ_S w_S² (mean query variance of S) <= the max: the
			// relaxed sum bound of those weights bounds every strategy.
			w2 := make([]float64, len(p.Marginals))
			for r, l := range lambda {
				i := tb.marg[r]
				w2[i] += l * tb.w2[r]
			}
			for i := range w2 {
				w2[i] /= p.queryCount(i)
			}
			if p.Dual, err = p.relaxedBound(ctx, w2); err != nil {
				// Cancelled: the plan is returned with the trivial bound 0,
				// as a cancelled max plan is returned with its error.
				p.Dual = 0
				if runErr == nil {
					runErr = err
				}
			}
		}
	}
	if p.bases != nil {
		p.finishTyped(tb)
		p.Time = time.Since(start)
		p.freeze()
		return p, runErr
	}
	p.finish()
	p.Time = time.Since(start)
	p.freeze()
	return p, runErr
}

// cells returns n_S = Π_{f ∈ S} n_f.
func (p *MarginalPlan) cells(s []int) float64 {
	c := 1.0
	for _, a := range s {
		c *= float64(p.Dims[a])
	}
	return c
}

// index enumerates the subspaces T ⊆ S with m_T > 0 of every marginal,
// fills Subspaces (sorted by size, then lexicographically) and the
// per-marginal tables off, subIdx and coef = (m_T/n_S)².
func (p *MarginalPlan) index() error {
	id := map[string]int32{}
	var subs [][]int
	p.off = make([]int, len(p.Marginals)+1)
	key := make([]byte, 0, 4*maxPlanMarginalSize)
	raw := make([]int32, 0)
	for i, m := range p.Marginals {
		s := m.Attrs
		ns := p.cells(s)
		for sub := 0; sub < 1<<len(s); sub++ {
			key = key[:0]
			mt := 1.0
			for k, a := range s {
				if sub>>k&1 == 1 {
					key = append(key, byte(a>>24), byte(a>>16), byte(a>>8), byte(a))
					mt *= float64(p.Dims[a] - 1)
				}
			}
			if mt == 0 {
				continue // an attribute of size 1 has no residual
			}
			t, ok := id[string(key)]
			if !ok {
				t = int32(len(subs))
				id[string(key)] = t
				var attrs []int
				for k, a := range s {
					if sub>>k&1 == 1 {
						attrs = append(attrs, a)
					}
				}
				subs = append(subs, attrs)
			}
			raw = append(raw, t)
			r := mt / ns
			p.coef = append(p.coef, r*r)
		}
		p.off[i+1] = len(raw)
	}
	if len(subs) == 0 {
		return fmt.Errorf("linear: marginal plan: %w: the workload has no residual to measure", run.ErrBadInput)
	}
	// Sort the subspaces (by size, then lexicographically) for a
	// deterministic, readable order, and renumber.
	order := make([]int, len(subs))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(x, y int) bool {
		a, b := subs[order[x]], subs[order[y]]
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		for k := range a {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return false
	})
	newID := make([]int32, len(subs))
	p.Subspaces = make([][]int, len(subs))
	for j, o := range order {
		newID[o] = int32(j)
		p.Subspaces[j] = subs[o]
		if p.Subspaces[j] == nil {
			p.Subspaces[j] = []int{}
		}
	}
	p.subIdx = make([]int32, len(raw))
	for k, t := range raw {
		p.subIdx[k] = newID[t]
	}
	return nil
}

// varTable lists the queries whose weighted variances the max loss bounds:
// row r (a marginal when every attribute is identity, else one
// combination of its attributes' hull queries) of marginal marg[r] has
// variance w2[r] Σ_k coef[k]/u_{sub[k]} over k in off[r]:off[r+1].
type varTable struct {
	off  []int
	sub  []int32
	coef []float64
	w2   []float64
	marg []int
}

// table returns the plan's varTable: the marginals themselves when every
// attribute is identity, else the hull rows (hullRows, which also fills
// tse).
func (p *MarginalPlan) table(loss string) *varTable {
	if p.bases != nil {
		return p.hullRows()
	}
	tb := &varTable{off: p.off, sub: p.subIdx, coef: p.coef, w2: make([]float64, len(p.Marginals)), marg: make([]int, len(p.Marginals))}
	for i, m := range p.Marginals {
		tb.w2[i] = m.Weight * m.Weight
		tb.marg[i] = i
	}
	return tb
}

// variances returns f_r = w2_r Σ_k coef_k/u_T (units σ²) for every row
// into f, and their maximum.
func (tb *varTable) variances(u, f []float64) float64 {
	best := 0.0
	for i, w2 := range tb.w2 {
		v := 0.0
		for k := tb.off[i]; k < tb.off[i+1]; k++ {
			v += tb.coef[k] / u[tb.sub[k]]
		}
		f[i] = w2 * v
		best = math.Max(best, f[i])
	}
	return best
}

// finish fills the variances, TSE, RMSE, MaxVariance and the gap from Share.
func (p *MarginalPlan) finish() {
	f := make([]float64, len(p.Marginals))
	worst := p.table(p.Loss).variances(p.Share, f)
	s2 := p.Sigma * p.Sigma
	p.Variance = make([]float64, len(f))
	var tseSum stable.Sum
	p.Queries = 0
	for i, m := range p.Marginals {
		ns := p.cells(m.Attrs)
		p.Queries += ns
		p.Variance[i] = s2 * f[i] / (m.Weight * m.Weight)
		tseSum.Add(ns * f[i])
	}
	p.setTotals(tseSum.Value(), worst)
}

// setTotals fills TSE, RMSE, MaxVariance, Objective and the gap from the
// loss totals in units of σ²: tse = Σ_S w_S² n_S Var_S/σ² and worst =
// max_S w_S² Var_S/σ².
func (p *MarginalPlan) setTotals(tse, worst float64) {
	s2 := p.Sigma * p.Sigma
	p.TSE = s2 * tse
	p.RMSE = math.Sqrt(p.TSE / p.Queries)
	p.MaxVariance = s2 * worst
	if p.Loss == LossSum {
		p.Objective = tse
	} else {
		p.Objective = worst
	}
	p.Gap = math.Max(p.Objective-p.Dual, 0)
	p.RelGap = p.Gap / p.Objective
}

// solveMax runs the multiplicative dual ascent of LossMax over the rows
// of tb (see PlanGaussianMarginals), keeping the best primal shares and the
// best dual bound; it returns the final dual distribution over the rows.
func (p *MarginalPlan) solveMax(ctx context.Context, tb *varTable, tol float64, maxIter int, progress func(run.Progress)) ([]float64, error) {
	nS, nT := len(tb.w2), len(p.Subspaces)
	lambda := make([]float64, nS)
	for i := range lambda {
		lambda[i] = 1 / float64(nS)
	}
	c := make([]float64, nT)
	u := make([]float64, nT)
	f := make([]float64, nS)
	trial := make([]float64, nS)
	next := make([]float64, nS)
	logLambda := make([]float64, nS)
	for i := range logLambda {
		logLambda[i] = -math.Log(float64(nS))
	}
	// dual evaluates c(λ), u(λ) and returns φ(λ)² = (Σ_T sqrt(c_T))².
	dual := func(l []float64) float64 {
		for t := range c {
			c[t] = 0
		}
		for i, tw := range tb.w2 {
			w2 := l[i] * tw
			if w2 == 0 {
				continue
			}
			for k := tb.off[i]; k < tb.off[i+1]; k++ {
				c[tb.sub[k]] += w2 * tb.coef[k]
			}
		}
		// The dual value from c itself (the certificate); the iterate u from
		// c floored at 1e-30 of its largest entry, so that a subspace whose
		// marginals' weights have all underflowed keeps a positive share
		// (any positive u is a valid primal point).
		cmax := 0.0
		for _, v := range c {
			cmax = math.Max(cmax, v)
		}
		phi, phiU := 0.0, 0.0
		for t, v := range c {
			phi += math.Sqrt(v)
			u[t] = math.Sqrt(math.Max(v, 1e-30*cmax))
			phiU += u[t]
		}
		for t := range u {
			u[t] /= phiU
		}
		return phi * phi
	}
	bestDual := dual(lambda)
	// u_T > 0 always (every T lies in some marginal, and the floor).
	bestPrimal := tb.variances(u, f)
	p.Share = append([]float64(nil), u...)
	step := 1.0
	iter := 0
	for ; iter < maxIter; iter++ {
		if (bestPrimal-bestDual)/bestPrimal <= tol {
			break
		}
		if iter%64 == 0 {
			if err := ctx.Err(); err != nil {
				p.Dual, p.Iterations = bestDual, iter
				return lambda, err
			}
			if progress != nil {
				progress(run.Progress{Stage: run.StageMarginalPlan, Iter: iter + 1, MaxIter: maxIter, Value: bestPrimal,
					Gap: (bestPrimal - bestDual) / bestPrimal, Frac: math.NaN()})
			}
		}
		// f holds the variances at u(λ); Σ_S λ_S f_S = g(λ) (up to the
		// floor). Try λ_S ∝ λ_S (f_S/φ²)^step; halve the step until
		// the dual does not decrease by more than a relative 1e-10 (the
		// smallest marginals' weights move the dual by less than its
		// rounding; the certificate is the best dual seen, whatever the
		// iterate).
		cur := 0.0
		for i := range f {
			cur += lambda[i] * f[i]
		}
		accepted := false
		for tries := 0; tries < 40; tries++ {
			// In logarithms, so that a weight driven far down can come
			// back: log λ_S moves by step·log(f_S/φ²), floored 700 below
			// the largest.
			expStep(trial, next, logLambda, step, func(i int) float64 { return f[i] / cur })
			if d := dual(next); d >= bestDual*(1-1e-10) {
				bestDual = math.Max(bestDual, d)
				copy(logLambda, trial)
				copy(lambda, next)
				accepted = true
				step = math.Min(step*1.25, 64)
				break
			}
			step /= 2
		}
		if !accepted {
			dual(lambda) // restore u(λ)
		}
		if v := tb.variances(u, f); v < bestPrimal {
			bestPrimal = v
			copy(p.Share, u)
		}
		// A Frank–Wolfe step toward the marginal S* of largest variance,
		// which revives marginals the multiplicative step has driven to
		// ~0: along e_{S*} - λ the dual's derivative is f_{S*} - Σ λ f (the
		// gap at λ); γ by bisection on its sign (the dual is concave).
		star, cur := 0, 0.0
		for i := range f {
			cur += lambda[i] * f[i]
			if f[i] > f[star] {
				star = i
			}
		}
		if f[star] > cur*(1+1e-13) {
			at := func(g float64) {
				for i := range next {
					next[i] = (1 - g) * lambda[i]
				}
				next[star] += g
			}
			// The derivative at γ is f_{S*}(u(λ_γ)) - g(λ_γ), since
			// Σ_S λ_S f_S(u(λ)) = g(λ).
			w2 := tb.w2[star]
			rising := func(g float64) bool {
				at(g)
				d := dual(next)
				v := 0.0
				for k := tb.off[star]; k < tb.off[star+1]; k++ {
					v += tb.coef[k] / u[tb.sub[k]]
				}
				return w2*v > d
			}
			// The best γ may be tiny (a marginal whose weight has fallen
			// far): bisect on log γ over [1e-20, 1].
			lo := 0.0
			if rising(1e-20) {
				a, b := math.Log(1e-20), 0.0
				for k := 0; k < 12; k++ { // γ to a factor of 1.011
					if m := (a + b) / 2; rising(math.Exp(m)) {
						a = m
					} else {
						b = m
					}
				}
				lo = math.Exp(a)
			}
			at(lo)
			if d := dual(next); lo > 0 && d >= bestDual {
				bestDual = d
				copy(lambda, next)
				top := math.Inf(-1)
				for i, v := range lambda {
					logLambda[i] = math.Log(v)
					top = math.Max(top, logLambda[i])
				}
				for i := range logLambda {
					logLambda[i] = math.Max(logLambda[i], top-700)
				}
				accepted = true
			} else {
				dual(lambda)
			}
			if v := tb.variances(u, f); v < bestPrimal {
				bestPrimal = v
				copy(p.Share, u)
			}
		}
		if !accepted {
			break // no ascent direction within rounding: the dual is at its maximum
		}
	}
	p.Dual, p.Iterations = bestDual, iter
	if (bestPrimal-bestDual)/bestPrimal > tol {
		return lambda, fmt.Errorf("linear: marginal plan: max-variance relative gap %.3g after %d iterations, wanted %.3g: %w", (bestPrimal-bestDual)/bestPrimal, iter, tol, run.ErrNotConverged)
	}
	return lambda, nil
}

// expStep is the multiplicative step of the max-variance methods on a
// distribution w = exp(logw): trial_i = logw_i + step·log(ratio(i)),
// shifted so that the largest is 0 and floored 700 below it, then
// normalised (trial = log of the new distribution, next = its values).
func expStep(trial, next, logw []float64, step float64, ratio func(i int) float64) {
	top := math.Inf(-1)
	for i := range trial {
		trial[i] = logw[i] + step*math.Log(ratio(i))
		top = math.Max(top, trial[i])
	}
	z := 0.0
	for i := range trial {
		trial[i] = math.Max(trial[i]-top, -700)
		z += math.Exp(trial[i])
	}
	lz := math.Log(z)
	for i := range trial {
		trial[i] -= lz
		next[i] = math.Exp(trial[i])
	}
}

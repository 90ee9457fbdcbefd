package sdp

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// KronResult is the answer of OptimizeL1Kron and OptimizeL1Marginals: the
// strategy A = Factors[0] ⊗ Factors[1] ⊗ ... (never formed).
type KronResult struct {
	// Factors are the factor strategies (D1 = 1 for optimised factors).
	Factors []*mat.Dense
	// Objective is D1(A)^2 tr(G (A^T A)^{-1}) for the whole workload.
	Objective float64
	// FactorResults are the per-factor results (OptimizeL1Kron only).
	FactorResults []*L1Result
	// Iterations is the total number of L-BFGS iterations.
	Iterations int
}

// factorSeed derives the seed of factor f from the caller's seed.
func factorSeed(seed uint64, f int) uint64 { return seed + uint64(f)*0x9e3779b97f4a7c15 }

// OptimizeL1Kron optimises an eps-DP strategy for a Kronecker product
// workload with Gram matrix G = grams[0] ⊗ grams[1] ⊗ ... (for example
// 2-D ranges: AllRange(64) ⊗ AllRange(64)). For A = ⊗ A_f both factors of
// the error factorise, D1(⊗ A_f) = ∏ D1(A_f) and
// tr(⊗G_f (⊗ A_f^T A_f)^{-1}) = ∏ tr(G_f (A_f^T A_f)^{-1}), so each factor
// is optimised on its own by OptimizeL1 (seed derived from opt.Seed and the
// factor index) against its own baselines baselines[f] (may be nil), and
// Objective is the product. opt.Baselines must be nil (use baselines).
func OptimizeL1Kron(ctx context.Context, grams []*mat.SymDense, baselines [][]*mat.Dense, opt *L1Options) (*KronResult, error) {
	if len(grams) == 0 {
		return nil, fmt.Errorf("sdp: %w: no Kronecker factors", run.ErrBadInput)
	}
	if opt == nil {
		opt = &L1Options{}
	}
	if opt.Baselines != nil {
		return nil, fmt.Errorf("sdp: %w: OptimizeL1Kron takes per-factor baselines, not L1Options.Baselines", run.ErrBadInput)
	}
	if baselines != nil && len(baselines) != len(grams) {
		return nil, fmt.Errorf("sdp: %w: %d baseline lists for %d factors", run.ErrBadInput, len(baselines), len(grams))
	}
	res := &KronResult{Objective: 1}
	for f, g := range grams {
		o := *opt
		o.Seed = factorSeed(opt.Seed, f)
		if baselines != nil {
			o.Baselines = baselines[f]
		}
		r, err := OptimizeL1(ctx, g, &o)
		if err != nil {
			return nil, fmt.Errorf("sdp: Kronecker factor %d: %w", f, err)
		}
		res.Factors = append(res.Factors, r.A)
		res.FactorResults = append(res.FactorResults, r)
		res.Objective *= r.Objective
		res.Iterations += r.Iterations
	}
	return res, nil
}

// KronTerm is one Kronecker product term Weight * (Factors[0] ⊗ ...) of a
// Gram matrix that is a sum of such terms (a union of Kronecker workloads,
// e.g. marginals: for a marginal on attribute set S the factor of attribute
// f is I when f is in S and the all-ones matrix otherwise).
type KronTerm struct {
	Weight  float64
	Factors []*mat.SymDense
}

// KronError returns D1(A)^2 tr(G (A^T A)^{-1}) for G = sum_t w_t ⊗_f G_tf
// and A = ⊗_f factors[f], computed term-wise:
// ∏_f D1(A_f)^2 · sum_t w_t ∏_f tr(G_tf (A_f^T A_f)^{-1}).
func KronError(terms []KronTerm, factors []*mat.Dense) (float64, error) {
	if err := checkTerms(terms); err != nil {
		return 0, err
	}
	if len(factors) != len(terms[0].Factors) {
		return 0, fmt.Errorf("sdp: %w: %d strategy factors for %d workload factors", run.ErrBadInput, len(factors), len(terms[0].Factors))
	}
	d := 1.0
	for f, a := range factors {
		d1, err := maxColNorm1(a, terms[0].Factors[f].SymmetricDim())
		if err != nil {
			return 0, fmt.Errorf("sdp: factor %d: %w", f, err)
		}
		d *= d1 * d1
	}
	inv := make([]*gramInverse, len(factors))
	for f, a := range factors {
		gi, err := newGramInverse(a)
		if err != nil {
			return 0, fmt.Errorf("sdp: factor %d: %w", f, err)
		}
		inv[f] = gi
	}
	total := 0.0
	for _, term := range terms {
		v := term.Weight
		for f, g := range term.Factors {
			v *= inv[f].trace(g)
		}
		total += v
	}
	return d * total, nil
}

func checkTerms(terms []KronTerm) error {
	if len(terms) == 0 {
		return fmt.Errorf("sdp: %w: no workload terms", run.ErrBadInput)
	}
	nf := len(terms[0].Factors)
	if nf == 0 {
		return fmt.Errorf("sdp: %w: workload term without factors", run.ErrBadInput)
	}
	for t, term := range terms {
		if !(term.Weight > 0) || math.IsInf(term.Weight, 0) {
			return fmt.Errorf("sdp: %w: term %d has weight %v, want finite > 0", run.ErrBadInput, t, term.Weight)
		}
		if len(term.Factors) != nf {
			return fmt.Errorf("sdp: %w: term %d has %d factors, term 0 has %d", run.ErrBadInput, t, len(term.Factors), nf)
		}
		for f, g := range term.Factors {
			n, err := checkGram(g)
			if err != nil {
				return fmt.Errorf("term %d factor %d: %w", t, f, err)
			}
			if n != terms[0].Factors[f].SymmetricDim() {
				return fmt.Errorf("sdp: %w: term %d factor %d is %d x %d, term 0's is %d x %d", run.ErrBadInput, t, f, n, n,
					terms[0].Factors[f].SymmetricDim(), terms[0].Factors[f].SymmetricDim())
			}
		}
	}
	return nil
}

// OptimizeL1Marginals optimises a Kronecker-product strategy
// A = ⊗_f [I; Θ_f] D_f^{-1} (a p-Identity per attribute, p_f = opt.P or
// max(1, n_f/16)) for a workload whose Gram matrix is a sum of Kronecker
// terms, such as a set of marginals. Every factor has D1 = 1, so the
// objective is the term-wise sum F = sum_t w_t ∏_f F_tf(Θ_f) with
// F_tf = tr(G_tf (A_f^T A_f)^{-1}); its gradient in Θ_f is
// sum_t w_t (∏_{g≠f} F_tg) ∂F_tf/∂Θ_f, and all Θ_f are optimised jointly by
// projected L-BFGS with opt.Restarts seeded restarts. baselines, if
// non-nil, are candidate factor lists (each a full list of factors),
// evaluated with KronError. An attribute that every term only totals
// (G_tf = c 11ᵀ) gets the total 1ᵀ, which is optimal for it, and is not
// searched. Restart 0's point, and every other restart's and the best
// baseline's whose KronError is below it, is then refined by block
// coordinate descent over the attributes (refineKron: each
// factor re-optimised by OptimizeL1 against the Gram matrix reduced by the
// other factors, with the current factor, the identity, the total 1^T and
// the baselines' factors as candidates, so no step increases the error);
// the refined strategy with the least KronError (computed without
// ill-conditioned Gram matrices, docs/MATH.md §15.9) is returned, and more
// restarts never return a worse one. This is a heuristic (the
// optimum for marginals need not be a Kronecker product); for small
// domains a dense OptimizeL1 on the full Gram matrix is a useful
// comparison.
func OptimizeL1Marginals(ctx context.Context, terms []KronTerm, baselines [][]*mat.Dense, opt *L1Options) (*KronResult, error) {
	if err := checkTerms(terms); err != nil {
		return nil, err
	}
	if opt == nil {
		opt = &L1Options{}
	}
	if opt.Baselines != nil {
		return nil, fmt.Errorf("sdp: %w: OptimizeL1Marginals takes baseline factor lists, not L1Options.Baselines", run.ErrBadInput)
	}
	nf := len(terms[0].Factors)
	o, err := opt.defaults(terms[0].Factors[0].SymmetricDim())
	if err != nil {
		return nil, err
	}
	// Per-factor evaluators, one per (term, factor).
	dims := make([]int, nf)
	ps := make([]int, nf)
	offs := make([]int, nf+1)
	// An attribute that every term only totals (G_tf = c_t 11ᵀ) gets the
	// total 1ᵀ, optimal for each term (totalResult), instead of a
	// p-Identity that tends to it and whose singular values fall to 1e-7.
	pinned := make([]bool, nf)
	for f := 0; f < nf; f++ {
		dims[f] = terms[0].Factors[f].SymmetricDim()
		ps[f] = opt.P
		if ps[f] == 0 {
			ps[f] = max(1, dims[f]/16)
		}
		pinned[f] = true
		for _, term := range terms {
			if _, ok := totalMultiple(term.Factors[f]); !ok {
				pinned[f] = false
				break
			}
		}
		offs[f+1] = offs[f]
		if !pinned[f] {
			offs[f+1] += ps[f] * dims[f]
		}
	}
	// One evaluator per distinct factor Gram matrix of each attribute
	// (terms of a union often share factors: totals, identities).
	uniq := make([][]*pidentity, nf)   // uniq[f][u]
	which := make([][]int, len(terms)) // which[t][f] = u
	for t := range terms {
		which[t] = make([]int, nf)
	}
	for f := 0; f < nf; f++ {
		var seen []*mat.SymDense
		for t, term := range terms {
			g := term.Factors[f]
			u := -1
			for k, h := range seen {
				if h == g || mat.Equal(h, g) {
					u = k
					break
				}
			}
			if u < 0 {
				u = len(seen)
				seen = append(seen, g)
				var ev *pidentity
				if !pinned[f] {
					ev = newPIdentity(mat.DenseCopyOf(g), ps[f])
				}
				uniq[f] = append(uniq[f], ev)
			}
			which[t][f] = u
		}
	}
	views := make([]*mat.Dense, nf)   // fg's views of x, per attribute
	grads := make([][]*mat.Dense, nf) // grads[f][u]
	uvals := make([][]float64, nf)    // uvals[f][u]
	coef := make([][]float64, nf)     // coef[f][u]: gradient weight
	for f := 0; f < nf; f++ {
		uvals[f] = make([]float64, len(uniq[f]))
		coef[f] = make([]float64, len(uniq[f]))
		if pinned[f] {
			// The total's error on c 11ᵀ is c: constant during the search.
			for t := range terms {
				uvals[f][which[t][f]], _ = totalMultiple(terms[t].Factors[f])
			}
			continue
		}
		for range uniq[f] {
			grads[f] = append(grads[f], mat.NewDense(ps[f], dims[f], nil))
		}
	}
	fg := func(x, g []float64) (float64, bool) {
		for f := 0; f < nf; f++ {
			if pinned[f] {
				continue
			}
			views[f] = mat.NewDense(ps[f], dims[f], x[offs[f]:offs[f+1]])
			for u, ev := range uniq[f] {
				var gr *mat.Dense
				if g != nil {
					gr = grads[f][u]
				}
				v, ok := ev.eval(views[f], gr)
				if !ok {
					return math.Inf(1), false
				}
				uvals[f][u] = v
			}
		}
		total := 0.0
		for t, term := range terms {
			prod := term.Weight
			for f := 0; f < nf; f++ {
				prod *= uvals[f][which[t][f]]
			}
			total += prod
		}
		if g == nil {
			return total, true
		}
		for f := range coef {
			for u := range coef[f] {
				coef[f][u] = 0
			}
		}
		for t, term := range terms {
			for f := 0; f < nf; f++ {
				c := term.Weight
				for h := 0; h < nf; h++ {
					if h != f {
						c *= uvals[h][which[t][h]]
					}
				}
				coef[f][which[t][f]] += c
			}
		}
		for k := range g {
			g[k] = 0
		}
		for f := 0; f < nf; f++ {
			if pinned[f] {
				continue
			}
			out := g[offs[f]:offs[f+1]]
			for u, c := range coef[f] {
				for k, v := range grads[f][u].RawMatrix().Data {
					out[k] += c * v
				}
			}
		}
		return total, true
	}
	// Restart 0's point, and every other restart's and the best
	// baseline's that is better, is refined by block coordinate descent;
	// the best refined strategy is returned. Restart r is the same
	// whatever the number of restarts, so more restarts never give a worse
	// result.
	type point struct{ factors, thetas []*mat.Dense }
	var starts []point
	res := &KronResult{Objective: math.Inf(1)}
	for r := 0; r < o.Restarts; r++ {
		x := make([]float64, offs[nf])
		for f := 0; f < nf; f++ {
			copy(x[offs[f]:], randomTheta(ps[f], dims[f], o.Seed, uint64(r*nf+f)).RawMatrix().Data)
		}
		report := lbfgsReporter(&o.Settings, "l1 kron", r, o.Restarts, o.MaxIter)
		_, iters, err := lbfgsB(ctx, func(x, g []float64) (float64, bool) { return fg(x, g) }, x, o.MaxIter, 1e-10, report)
		if err != nil {
			return nil, err
		}
		res.Iterations += iters
		fs, ths := marginalFactors(x, offs, ps, dims, pinned)
		starts = append(starts, point{fs, ths})
	}
	cands := make([][]*mat.Dense, nf)
	bestB, bestV := -1, math.Inf(1)
	for i, b := range baselines {
		if len(b) != nf {
			return nil, fmt.Errorf("sdp: %w: baseline %d has %d factors, want %d", run.ErrBadInput, i, len(b), nf)
		}
		for f, a := range b {
			cands[f] = append(cands[f], a)
		}
		v, err := KronError(terms, b)
		if err != nil {
			return nil, fmt.Errorf("sdp: baseline %d: %w", i, err)
		}
		if v < bestV {
			bestB, bestV = i, v
		}
	}
	if bestB >= 0 {
		fs := make([]*mat.Dense, nf)
		for f, a := range baselines[bestB] {
			fs[f] = mat.DenseCopyOf(a)
		}
		starts = append(starts, point{fs, make([]*mat.Dense, nf)})
	}
	// Which points are refined depends only on each point and restart
	// 0's (never on the number of restarts): restart 0, and any other
	// point (a later restart, the best baseline) whose error is below
	// restart 0's. Errors are recomputed stably from the strategy
	// (KronError, §15.9), never taken from the Woodbury form L-BFGS
	// minimised.
	first := math.Inf(1)
	for i, st := range starts {
		v, err := KronError(terms, st.factors)
		if err != nil || !(v < math.Inf(1)) {
			continue
		}
		if i == 0 {
			first = v
		} else if !(v < first) {
			continue
		}
		_, it, err := refineKron(ctx, terms, st.factors, st.thetas, cands, ps, &o)
		if err != nil {
			return nil, err
		}
		res.Iterations += it
		v, err = KronError(terms, st.factors)
		if err != nil {
			return nil, err
		}
		if v < res.Objective {
			res.Objective, res.Factors = v, st.factors
		}
	}
	if res.Factors == nil {
		return nil, fmt.Errorf("sdp: no restart or baseline produced a finite objective: %w", run.ErrNotConverged)
	}
	return res, nil
}

// L2KronResult is the answer of OptimizeL2Kron.
type L2KronResult struct {
	// Factors are the per-factor results; the strategy is
	// A = Factors[0].A ⊗ Factors[1].A ⊗ ... with A^T A = ⊗ X_f.
	Factors []*L2Result
	// Objective = ∏ Objective_f = tr(G (⊗X_f)^{-1}).
	Objective float64
	// Dual = ∏ Dual_f is the dual bound L2Dual(G, ⊗ y_f) of the whole
	// problem (not only of Kronecker-structured X), so Gap = Objective -
	// Dual certifies the Kronecker answer against every X.
	Dual, Gap, RelGap float64
}

// OptimizeL2Kron solves the L2 problem for G = grams[0] ⊗ grams[1] ⊗ ...
// factor by factor. With y = ⊗ y_f, D^{1/2} G D^{1/2} is the Kronecker
// product of the factors' D_f^{1/2} G_f D_f^{1/2}, so tr of its square root
// and sum(y) are products and L2Dual(G, y) = ∏ L2Dual(G_f, y_f); X = ⊗ X_f
// has objective ∏ tr(G_f X_f^{-1}) and unit diagonal. Hence the product of
// the factor optima is optimal for the whole problem, to the certified
// relative gap.
func OptimizeL2Kron(ctx context.Context, grams []*mat.SymDense, opt *L2Options) (*L2KronResult, error) {
	if len(grams) == 0 {
		return nil, fmt.Errorf("sdp: %w: no Kronecker factors", run.ErrBadInput)
	}
	res := &L2KronResult{Objective: 1, Dual: 1}
	for f, g := range grams {
		r, err := OptimizeL2(ctx, g, opt)
		if err != nil {
			return nil, fmt.Errorf("sdp: Kronecker factor %d: %w", f, err)
		}
		res.Factors = append(res.Factors, r)
		res.Objective *= r.Objective
		res.Dual *= r.Dual
	}
	res.Gap = math.Max(res.Objective-res.Dual, 0)
	res.RelGap = res.Gap / res.Objective
	return res, nil
}

// marginalFactors returns the strategy factors of the point x of
// OptimizeL1Marginals (a p-Identity per attribute, the total for a pinned
// one) and their Θ (nil for the total).
func marginalFactors(x []float64, offs, ps, dims []int, pinned []bool) (fs, thetas []*mat.Dense) {
	fs, thetas = make([]*mat.Dense, len(dims)), make([]*mat.Dense, len(dims))
	for f := range dims {
		if pinned[f] {
			fs[f] = totalStrategy(dims[f])
			continue
		}
		thetas[f] = mat.NewDense(ps[f], dims[f], append([]float64(nil), x[offs[f]:offs[f+1]]...))
		fs[f] = pIdentityStrategy(thetas[f])
	}
	return fs, thetas
}

package linear

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/run"
	"github.com/optdp/optdp/sdp"
	"gonum.org/v1/gonum/mat"
)

// maxUnionAtoms bounds the number of distinct workload parts for which
// Optimize searches union strategies: the greedy merge costs
// O(atoms²·candidates) per step and up to atoms steps, about 3·10^8
// operations at 128 (all 2-way marginals of 15 attributes have 105 parts;
// 3-way marginals of 15 attributes, 455, are not searched).
const maxUnionAtoms = 128

// maxLocalAtoms bounds the atoms for which single-part moves are tried
// after the greedy merge (each move scan costs O(atoms²·candidates)).
const maxLocalAtoms = 64

// maxUnionRounds bounds the rounds of greedy merging followed by
// re-optimisation of the merged groups.
const maxUnionRounds = 3

// unionAtom is a set of Gram terms that one block must answer together
// (one part of the workload, or parts sharing a term), term i counted
// wts[i] times in the workload's Gram.
type unionAtom struct {
	terms [][]*mat.SymDense
	wts   []float64
}

// unionCand is a Kronecker candidate block A = ⊗ factors with d = D_p(A)²
// and tr[a] = Σ_{t ∈ a} wt_t Π_f tr(G_tf (A_f^T A_f)^+) per atom (+Inf
// where A does not support the atom).
type unionCand struct {
	factors []*mat.Dense
	d       float64
	tr      []float64
}

// unionSearch holds the state of tryUnion.
type unionSearch struct {
	ctx   context.Context
	opts  *OptimizeOptions
	p     int // 1: L1 (Laplace), 2: L2 (Gaussian)
	dims  []int
	atoms []unionAtom
	pool  []*unionCand
	iters int
	// factorOpt caches the optimised strategy of each distinct factor
	// Gram (canonical pointer).
	factorOpt map[*mat.SymDense]*mat.Dense
}

// tryUnion searches unions of Kronecker strategies (docs/MATH.md §15.8) for a
// workload on a product domain whose parts (WorkloadParts) have Gram terms
// over the same factor orders, and returns the best union when its
// objective is below single's (the single strategy found by Optimize),
// else single unchanged. Groupings tried: (a) one group per distinct part
// (each optimised on its own: factor-wise OptimizeL1 / OptimizeL2 for a
// Kronecker part, with identity and total as per-factor candidates), (b)
// everything in one group (single), (c) a greedy merge from (a): at each
// step the pair of groups whose merge lowers the union's error most, a
// merged group being answered by the best strategy found so far for it;
// then single atoms are moved between groups (or split off into new
// ones) while a move lowers the error (local); changed groups are then
// re-optimised (sdp.OptimizeL1Marginals or
// sdp.OptimizeL2KronSum) and the merging repeated (at most
// maxUnionRounds rounds). The budget is split in closed form
// (sdp.UnionSplit).
func tryUnion(ctx context.Context, w Workload, g Gram, opts *OptimizeOptions, single *OptimizeResult) (*OptimizeResult, error) {
	_, dims, ok := kronTerms(g)
	if !ok || len(dims) < 2 || single == nil || single.Strategy == nil {
		return single, nil
	}
	l2 := opts.Delta != 0
	if l2 && single.RelGap <= 1e-9 && single.Dual > 0 {
		return single, nil // certified optimal over all strategies
	}
	s := &unionSearch{ctx: ctx, opts: opts, p: 1, dims: dims, factorOpt: map[*mat.SymDense]*mat.Dense{}}
	if l2 {
		s.p = 2
	}
	if !s.buildAtoms(WorkloadParts(w)) || len(s.atoms) < 2 || len(s.atoms) > maxUnionAtoms {
		return single, nil
	}
	// The single strategy is a candidate block when it is a Kronecker
	// product over the same factor orders.
	if fs := single.Strategy.factors; single.Strategy.sum == nil && single.Strategy.union == nil && len(fs) == len(dims) {
		if err := s.addCand(fs); err != nil {
			return nil, err
		}
	}
	if s.opts.Progress != nil {
		pr := run.NewProgress(run.StageUnionSearch)
		pr.Message = fmt.Sprintf("%d distinct parts: one group each, then greedy merging", len(s.atoms))
		s.opts.Progress(pr)
	}
	// (a) One group per atom, each optimised on its own.
	groups := make([][]int, len(s.atoms))
	for a := range s.atoms {
		groups[a] = []int{a}
		if err := s.optimizeGroup(groups[a]); err != nil {
			return nil, err
		}
	}
	// (c) Greedy merging, then re-optimisation of the merged groups.
	optimised := map[string]bool{}
	for round := 0; round < maxUnionRounds; round++ {
		groups = s.local(s.greedy(groups))
		changed := false
		for _, gr := range groups {
			key := fmt.Sprint(gr)
			// The group of every atom is the single strategy's problem.
			if len(gr) > 1 && len(gr) < len(s.atoms) && !optimised[key] {
				optimised[key] = true
				changed = true
				if err := s.optimizeGroup(gr); err != nil {
					return nil, err
				}
			}
		}
		if !changed {
			break
		}
	}
	errs, cands := s.groupErrors(groups)
	beta, total, err := sdp.UnionSplit(errs, s.p)
	if err != nil || len(groups) < 2 || !(total < single.Objective*(1-1e-9)) {
		return single, nil // (b), one group, is at least as good
	}
	blocks := make([]*Strategy, len(groups))
	terms := make([][][]*mat.SymDense, len(groups))
	for k, gr := range groups {
		c := s.pool[cands[k]]
		fs := make([]*mat.Dense, len(c.factors))
		copy(fs, c.factors)
		var first mat.Dense
		first.Scale(beta[k]/math.Sqrt(c.d), fs[0])
		fs[0] = &first
		if blocks[k], err = kronFromFactors(fmt.Sprintf("%.4g*opt", beta[k]), fs); err != nil {
			return nil, err
		}
		for _, a := range gr {
			terms[k] = append(terms[k], s.atoms[a].terms...)
		}
	}
	u, err := newUnion(blocks, terms)
	if err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	scale := laplaceScale(opts.Eps)
	method := "l1-union"
	if l2 {
		sig, err := AnalyticGaussianSigma(1, opts.Eps, opts.Delta)
		if err != nil {
			return nil, fmt.Errorf("optimize: %w", err)
		}
		scale, method = sig*sig, "l2-union"
	}
	res := &OptimizeResult{Method: method, Strategy: u, Objective: total, Iterations: single.Iterations + s.iters,
		Baselines: append(append([]BaselineError(nil), single.Baselines...),
			BaselineError{Name: fmt.Sprintf("single %v (%s)", single.Strategy, single.Method), TSE: scale * single.Objective})}
	if l2 {
		res.Dual = single.Dual // a lower bound over all strategies
		res.Gap = math.Max(total-res.Dual, 0)
		res.RelGap = res.Gap / total
	}
	return res, nil
}

// buildAtoms turns the workload's parts into atoms: Gram factors are
// replaced by one canonical matrix per distinct value, parts with the same
// terms are counted once (with weights), and parts sharing a term are merged. It
// reports false when some term's factor orders differ from s.dims.
func (s *unionSearch) buildAtoms(parts []Workload) bool {
	canon := make([][]*mat.SymDense, len(s.dims))
	canonical := func(f int, m *mat.SymDense) *mat.SymDense {
		for _, c := range canon[f] {
			if c == m || mat.Equal(c, m) {
				return c
			}
		}
		canon[f] = append(canon[f], m)
		return m
	}
	var atoms []unionAtom
	for _, p := range parts {
		var ts [][]*mat.SymDense
		var tw []float64
		for _, t := range p.Gram().Terms {
			if len(t) != len(s.dims) {
				return false
			}
			ct := make([]*mat.SymDense, len(t))
			for f, m := range t {
				if m.SymmetricDim() != s.dims[f] {
					return false
				}
				ct[f] = canonical(f, m)
			}
			j := 0
			for j < len(ts) && !sameTerm(ts[j], ct) {
				j++
			}
			if j == len(ts) {
				ts, tw = append(ts, ct), append(tw, 0)
			}
			tw[j]++
		}
		// Merge with every atom sharing a term, adding the counts of
		// common terms (identical parts become one atom counted twice).
		merged := unionAtom{terms: ts, wts: tw}
		var keep []unionAtom
		for _, a := range atoms {
			shared := false
			for _, t := range a.terms {
				shared = shared || containsTerm(ts, t)
			}
			if !shared {
				keep = append(keep, a)
				continue
			}
			for i, t := range a.terms {
				j := 0
				for j < len(merged.terms) && !sameTerm(merged.terms[j], t) {
					j++
				}
				if j == len(merged.terms) {
					merged.terms = append(merged.terms, t)
					merged.wts = append(merged.wts, 0)
				}
				merged.wts[j] += a.wts[i]
			}
		}
		atoms = append(keep, merged)
	}
	s.atoms = atoms
	return true
}

// atomTerms returns the atoms' terms as weighted sdp terms.
func (s *unionSearch) atomTerms(gr []int) []sdp.KronTerm {
	var out []sdp.KronTerm
	for _, a := range gr {
		for i, t := range s.atoms[a].terms {
			out = append(out, sdp.KronTerm{Weight: s.atoms[a].wts[i], Factors: t})
		}
	}
	return out
}

// addCand evaluates the Kronecker strategy ⊗ fs on every atom with the
// matrix mechanism's own per-factor solver (profileSolver) and adds it to
// the pool.
func (s *unionSearch) addCand(fs []*mat.Dense) error {
	c := &unionCand{factors: fs, d: 1, tr: make([]float64, len(s.atoms))}
	for _, f := range fs {
		v := colNormMax(f, s.p)
		c.d *= v * v
	}
	if !(c.d > 0) || math.IsInf(c.d, 0) {
		return nil
	}
	solvers := make([]*profileSolver, len(fs))
	for f, a := range fs {
		ps, err := newProfileSolver(a)
		if err != nil {
			return nil // a zero factor: not a candidate
		}
		solvers[f] = ps
	}
	cache := map[*mat.SymDense]float64{}
	for a, at := range s.atoms {
		sum := 0.0
		for i, t := range at.terms {
			prod := at.wts[i]
			for f, m := range t {
				v, ok := cache[m]
				if !ok {
					var err error
					if v, err = solvers[f].trace(m); err != nil {
						v = math.Inf(1)
					}
					cache[m] = v
				}
				prod *= v
			}
			sum += prod
		}
		c.tr[a] = sum
	}
	s.pool = append(s.pool, c)
	return nil
}

// optimizeGroup optimises a Kronecker strategy for the atoms gr and adds
// it to the pool. A failure of the optimiser other than cancellation only
// leaves the pool as it is (the search is a heuristic on top of a valid
// answer).
func (s *unionSearch) optimizeGroup(gr []int) error {
	if err := s.ctx.Err(); err != nil {
		return fmt.Errorf("optimize: union search: %w", err)
	}
	terms := s.atomTerms(gr)
	if len(terms) == 1 {
		fs := make([]*mat.Dense, len(s.dims))
		for f, m := range terms[0].Factors {
			a, err := s.factorStrategy(m)
			if err != nil {
				return err
			}
			fs[f] = a
		}
		return s.addCand(fs)
	}
	if s.p == 1 {
		best := s.bestCand(gr)
		var bl [][]*mat.Dense
		if best >= 0 {
			bl = [][]*mat.Dense{s.pool[best].factors}
		}
		o := &sdp.L1Options{Settings: s.opts.Settings, P: s.opts.P, Restarts: s.opts.Restarts, Seed: s.opts.Seed + uint64(len(s.pool)), MaxIter: s.opts.MaxIter}
		kr, err := sdp.OptimizeL1Marginals(s.ctx, terms, bl, o)
		if err != nil && bl != nil && s.ctx.Err() == nil {
			// A rank-deficient candidate (a total or a single query on
			// some attribute) can stop the refinement: start afresh.
			kr, err = sdp.OptimizeL1Marginals(s.ctx, terms, nil, o)
		}
		if err != nil {
			if s.ctx.Err() != nil {
				return fmt.Errorf("optimize: union group: %w", err)
			}
			return nil // the group keeps the best strategy found so far
		}
		s.iters += kr.Iterations
		return s.addCand(kr.Factors)
	}
	kr, err := sdp.OptimizeL2KronSum(s.ctx, terms, &sdp.L2Options{Settings: s.opts.Settings, MaxIter: s.opts.MaxIter})
	if err != nil {
		if s.ctx.Err() != nil {
			return fmt.Errorf("optimize: union group: %w", err)
		}
		return nil // the group keeps the best strategy found so far
	}
	fs := make([]*mat.Dense, len(kr.Factors))
	for f, r := range kr.Factors {
		fs[f] = r.A
		s.iters += r.Iterations
	}
	return s.addCand(fs)
}

// factorStrategy returns the best strategy found for one factor Gram m
// (cached): the optimiser's answer (OptimizeL1 with the identity and the
// total as baselines, or OptimizeL2), or the identity or the total when
// they do better (the total is optimal for an attribute that is only
// totalled, whose Gram 1 1^T is singular).
func (s *unionSearch) factorStrategy(m *mat.SymDense) (*mat.Dense, error) {
	if a, ok := s.factorOpt[m]; ok {
		return a, nil
	}
	n := m.SymmetricDim()
	id := mat.NewDense(n, n, nil)
	tot := mat.NewDense(1, n, nil)
	for i := 0; i < n; i++ {
		id.Set(i, i, 1)
		tot.Set(0, i, 1)
	}
	cands := []*mat.Dense{id, tot}
	if v := rankOneRow(m); v != nil {
		// G = c·v vᵀ: answering vᵀx alone is optimal for a 0/1 query v
		// (error 1 at sensitivity 1; any strategy has
		// vᵀX⁺v ≥ (vᵀv)²/vᵀXv ≥ 1 when diag X ≤ 1), so no optimiser runs.
		cands = append(cands, v)
	} else if s.p == 1 {
		o := &sdp.L1Options{Settings: s.opts.Settings, P: s.opts.P, Restarts: s.opts.Restarts, Seed: s.opts.Seed + uint64(len(s.factorOpt)),
			MaxIter: s.opts.MaxIter, Baselines: []*mat.Dense{id, tot}}
		r, err := sdp.OptimizeL1(s.ctx, m, o)
		if err != nil {
			if s.ctx.Err() != nil {
				return nil, fmt.Errorf("optimize: union search: %w", err)
			}
		} else {
			s.iters += r.Iterations
			cands = append(cands, r.A)
		}
	} else {
		r, err := sdp.OptimizeL2(s.ctx, m, &sdp.L2Options{Settings: s.opts.Settings, MaxIter: s.opts.MaxIter})
		if err != nil {
			if s.ctx.Err() != nil {
				return nil, fmt.Errorf("optimize: union search: %w", err)
			}
		} else {
			s.iters += r.Iterations
			cands = append(cands, r.A)
		}
	}
	best, bestV := cands[0], math.Inf(1)
	for _, a := range cands {
		ps, err := newProfileSolver(a)
		if err != nil {
			continue
		}
		tr, err := ps.trace(m)
		if err != nil {
			continue
		}
		d := colNormMax(a, s.p)
		if v := d * d * tr; v < bestV {
			best, bestV = a, v
		}
	}
	s.factorOpt[m] = best
	return best, nil
}

// rankOneRow returns the 1×n row vᵀ when m = c·v vᵀ (to a relative 1e-12
// of its largest entry), else nil.
func rankOneRow(m *mat.SymDense) *mat.Dense {
	n := m.SymmetricDim()
	j, top := 0, 0.0
	for i := 0; i < n; i++ {
		if d := m.At(i, i); d > top {
			j, top = i, d
		}
	}
	if !(top > 0) {
		return nil
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = m.At(i, j) / math.Sqrt(top)
	}
	for a := 0; a < n; a++ {
		for b := a; b < n; b++ {
			if math.Abs(m.At(a, b)-v[a]*v[b]) > 1e-12*top {
				return nil
			}
		}
	}
	return mat.NewDense(1, n, v)
}

// groupError returns min over the pool of D² Σ_{a ∈ gr} tr_a and the
// candidate achieving it (-1 when none supports the group).
func (s *unionSearch) groupError(gr []int) (float64, int) {
	best, which := math.Inf(1), -1
	for ci, c := range s.pool {
		v := 0.0
		for _, a := range gr {
			v += c.tr[a]
		}
		if v *= c.d; v < best {
			best, which = v, ci
		}
	}
	return best, which
}

func (s *unionSearch) bestCand(gr []int) int { _, c := s.groupError(gr); return c }

// groupErrors returns every group's error and candidate.
func (s *unionSearch) groupErrors(groups [][]int) ([]float64, []int) {
	errs, cands := make([]float64, len(groups)), make([]int, len(groups))
	for k, gr := range groups {
		errs[k], cands[k] = s.groupError(gr)
	}
	return errs, cands
}

// greedy merges pairs of groups while a merge lowers the union's error,
// each time the pair lowering it most; a merged group's error is the best
// over the pool (so every step is exact for the strategies at hand).
func (s *unionSearch) greedy(groups [][]int) [][]int {
	// sums[c][k] = Σ_{a ∈ groups[k]} tr_c[a].
	sums := make([][]float64, len(s.pool))
	for ci, c := range s.pool {
		sums[ci] = make([]float64, len(groups))
		for k, gr := range groups {
			for _, a := range gr {
				sums[ci][k] += c.tr[a]
			}
		}
	}
	errs, _ := s.groupErrors(groups)
	root := math.Cbrt
	pow := func(x float64) float64 { return x * x * x }
	if s.p == 2 {
		root, pow = math.Sqrt, func(x float64) float64 { return x * x }
	}
	for len(groups) > 1 {
		if s.ctx.Err() != nil {
			return groups
		}
		base := 0.0
		for _, e := range errs {
			base += root(e)
		}
		bestT, bi, bj, bestE := pow(base), -1, -1, 0.0
		for i := range groups {
			for j := i + 1; j < len(groups); j++ {
				m := math.Inf(1)
				for ci, c := range s.pool {
					m = math.Min(m, c.d*(sums[ci][i]+sums[ci][j]))
				}
				if t := pow(base - root(errs[i]) - root(errs[j]) + root(m)); t < bestT*(1-1e-12) {
					bestT, bi, bj, bestE = t, i, j, m
				}
			}
		}
		if bi < 0 {
			break
		}
		groups[bi] = append(append([]int(nil), groups[bi]...), groups[bj]...)
		groups = append(groups[:bj], groups[bj+1:]...)
		errs[bi] = bestE
		errs = append(errs[:bj], errs[bj+1:]...)
		for ci := range sums {
			sums[ci][bi] += sums[ci][bj]
			sums[ci] = append(sums[ci][:bj], sums[ci][bj+1:]...)
		}
	}
	return groups
}

// maxUnionMoves bounds the single-atom moves of local per call.
const maxUnionMoves = 200

// local moves one atom at a time from its group to another group or to a
// new group of its own, each time the move lowering the union's error most
// (groups answered by the best pool candidate), until no move lowers it.
func (s *unionSearch) local(groups [][]int) [][]int {
	if len(s.atoms) > maxLocalAtoms {
		return groups
	}
	root := math.Cbrt
	if s.p == 2 {
		root = math.Sqrt
	}
	where := make([]int, len(s.atoms))
	for k, gr := range groups {
		for _, a := range gr {
			where[a] = k
		}
	}
	for move := 0; move < maxUnionMoves && s.ctx.Err() == nil; move++ {
		errs, _ := s.groupErrors(groups)
		base := 0.0
		for _, e := range errs {
			base += root(e)
		}
		bestS, ba, bto := base*(1-1e-12), -1, -1
		for a := range s.atoms {
			from := groups[where[a]]
			rest := make([]int, 0, len(from)-1)
			for _, b := range from {
				if b != a {
					rest = append(rest, b)
				}
			}
			restRoot := 0.0
			if len(rest) > 0 {
				e, _ := s.groupError(rest)
				restRoot = root(e)
			}
			without := base - root(errs[where[a]]) + restRoot
			for to := 0; to <= len(groups); to++ {
				if to == where[a] || (to == len(groups) && len(rest) == 0) {
					continue
				}
				var sum float64
				if to == len(groups) {
					e, _ := s.groupError([]int{a})
					sum = without + root(e)
				} else {
					e, _ := s.groupError(append(append([]int(nil), groups[to]...), a))
					sum = without - root(errs[to]) + root(e)
				}
				if sum < bestS {
					bestS, ba, bto = sum, a, to
				}
			}
		}
		if ba < 0 {
			break
		}
		from := where[ba]
		rest := make([]int, 0, len(groups[from]))
		for _, b := range groups[from] {
			if b != ba {
				rest = append(rest, b)
			}
		}
		groups[from] = rest
		if bto == len(groups) {
			groups = append(groups, []int{ba})
		} else {
			groups[bto] = append(append([]int(nil), groups[bto]...), ba)
		}
		if len(rest) == 0 {
			groups = append(groups[:from], groups[from+1:]...)
		}
		for k, gr := range groups {
			for _, a := range gr {
				where[a] = k
			}
		}
	}
	return groups
}

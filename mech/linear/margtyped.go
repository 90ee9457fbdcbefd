package linear

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/internal/stable"
	"github.com/optdp/optdp/run"
)

// setBases validates the per-attribute query types and, when one is not
// identity, builds every attribute's basis (shared between attributes of
// the same type and size) and AttrQueries; it leaves bases nil otherwise.
func (p *MarginalPlan) setBases(ctx context.Context, queries []string) error {
	if queries == nil {
		return nil
	}
	if len(queries) != len(p.Dims) {
		return fmt.Errorf("linear: marginal plan: %w: %d query types for %d attributes", run.ErrBadInput, len(queries), len(p.Dims))
	}
	typed := false
	for f, q := range queries {
		switch q {
		case "", QueryIdentity:
		case QueryPrefix, QueryAllRange:
			typed = true
		default:
			return fmt.Errorf("linear: marginal plan: %w: attribute %d has query type %q, want %q, %q or %q", run.ErrBadInput, f, q, QueryIdentity, QueryPrefix, QueryAllRange)
		}
	}
	if !typed {
		return nil
	}
	type key struct {
		kind string
		n    int
	}
	cache := map[key]*attrBasis{}
	p.bases = make([]*attrBasis, len(p.Dims))
	p.AttrQueries = make([]string, len(p.Dims))
	for f, q := range queries {
		if q == "" {
			q = QueryIdentity
		}
		p.AttrQueries[f] = q
		k := key{q, p.Dims[f]}
		b, ok := cache[k]
		if !ok {
			if err := ctx.Err(); err != nil {
				return err
			}
			var err error
			if b, err = newAttrBasis(ctx, q, p.Dims[f]); err != nil {
				return fmt.Errorf("attribute %d: %w", f, err)
			}
			cache[k] = b
			p.BasisGap = math.Max(p.BasisGap, b.gap)
		}
		p.bases[f] = b
	}
	return nil
}

// checkTypedSize checks the hull rows of a typed plan, Σ_S 2^|S| Π_{f ∈ S}
// |hull_f| (marginal, subspace) coefficients, against the limits and the
// budget (with the pairs' tables).
func (p *MarginalPlan) checkTypedSize(loss string, pairs float64, budget run.Budget) error {
	if p.bases == nil {
		return nil
	}
	rows := 0.0
	for _, m := range p.Marginals {
		r := math.Ldexp(1, len(m.Attrs))
		for _, f := range m.Attrs {
			r *= float64(len(p.bases[f].hull))
		}
		rows += r
	}
	if rows > maxPlanEntries {
		return fmt.Errorf("linear: marginal plan: %g (query, subspace) coefficients of the hull queries, the limit is %d: %w", rows, maxPlanEntries, run.ErrTooLarge)
	}
	if err := budget.Check("marginal plan: the hull queries' tables", rows*12+pairs*8, ""); err != nil {
		return fmt.Errorf("linear: %w", err)
	}
	return nil
}

// forPairs calls fn(k, sub) for marginal i's pairs in index's order: k
// the pair's index and sub the bit set of the subspace's positions in the
// marginal.
func (p *MarginalPlan) forPairs(i int, fn func(k, sub int)) {
	s := p.Marginals[i].Attrs
	k := p.off[i]
	for sub := 0; sub < 1<<len(s); sub++ {
		ok := true
		for a, f := range s {
			if sub>>a&1 == 1 && p.Dims[f] == 1 {
				ok = false
				break
			}
		}
		if ok {
			fn(k, sub)
			k++
		}
	}
}

// queryCount returns the number of queries of marginal i, Π_{f ∈ S} q_f.
func (p *MarginalPlan) queryCount(i int) float64 {
	c := 1.0
	for _, f := range p.Marginals[i].Attrs {
		c *= float64(p.bases[f].queries())
	}
	return c
}

// hullRows returns the typed plan's varTable, after filling tse: a row for
// every combination of hull queries of a marginal's attributes (the
// largest variance of the marginal is at one of them, docs/MATH.md
// §15.11), with coefficients Π_{f ∈ T} α_f(q_f) Π_{f ∈ S∖T} β_f(q_f).
func (p *MarginalPlan) hullRows() *varTable {
	p.tse = make([]float64, len(p.subIdx))
	nc, nr := 0, 0
	for i, m := range p.Marginals {
		r := 1
		for _, f := range m.Attrs {
			r *= len(p.bases[f].hull)
		}
		nr += r
		nc += r * (p.off[i+1] - p.off[i])
	}
	tb := &varTable{off: make([]int, 1, nr+1), sub: make([]int32, 0, nc), coef: make([]float64, 0, nc),
		w2: make([]float64, 0, nr), marg: make([]int, 0, nr)}
	for i, m := range p.Marginals {
		s := m.Attrs
		p.forPairs(i, func(k, sub int) {
			v := 1.0
			for a, f := range s {
				if sub>>a&1 == 1 {
					v *= p.bases[f].trace
				} else {
					v *= p.bases[f].wbar2
				}
			}
			p.tse[k] = v
		})
		pos := make([]int, len(s))
		for {
			p.forPairs(i, func(k, sub int) {
				v := 1.0
				for a, f := range s {
					b := p.bases[f]
					q := b.hull[pos[a]]
					if sub>>a&1 == 1 {
						v *= b.alpha[q]
					} else {
						v *= b.beta[q]
					}
				}
				tb.sub = append(tb.sub, p.subIdx[k])
				tb.coef = append(tb.coef, v)
			})
			tb.off = append(tb.off, len(tb.sub))
			tb.w2 = append(tb.w2, m.Weight*m.Weight)
			tb.marg = append(tb.marg, i)
			a := len(s) - 1
			for ; a >= 0; a-- {
				if pos[a]++; pos[a] < len(p.bases[s[a]].hull) {
					break
				}
				pos[a] = 0
			}
			if a < 0 {
				break
			}
		}
	}
	return tb
}

// relaxedBound (ctx's error when cancelled) returns a lower bound on Σ_S w2_S Σ_{q ∈ S} Var_q/σ² over
// every Gaussian linear strategy (docs/MATH.md §15.11), the larger of
// the separated bound Σ_S w2_S Π_{f ∈ S} opt_f and the relaxed one: each
// attribute's D_f-weighted Gram replaced by M_f + c_f e eᵀ ⪯ it (one of its
// candidate pairs (κ_f², c_f), chosen by two rounds of coordinate ascent
// over the distinct bases), whose dual bound at D = ⊗ D_f is
// (Σ_T sqrt(Σ_{S ⊇ T} w2_S Π_{f ∈ T} κ_f² Π_{f ∈ S∖T} c_f))².
func (p *MarginalPlan) relaxedBound(ctx context.Context, w2 []float64) (float64, error) {
	var classes []*attrBasis
	seen := map[*attrBasis]int{}
	class := make([]int, len(p.bases))
	for f, b := range p.bases {
		c, ok := seen[b]
		if !ok {
			c = len(classes)
			seen[b] = c
			classes = append(classes, b)
		}
		class[f] = c
	}
	choice := make([]int, len(classes))
	bt := make([]float64, len(p.Subspaces))
	eval := func() float64 {
		for t := range bt {
			bt[t] = 0
		}
		for i, m := range p.Marginals {
			if w2[i] == 0 {
				continue
			}
			s := m.Attrs
			p.forPairs(i, func(k, sub int) {
				v := w2[i]
				for a, f := range s {
					b := p.bases[f]
					c := choice[class[f]]
					if sub>>a&1 == 1 {
						v *= b.lbA[c]
					} else {
						v *= b.lbC[c]
					}
				}
				bt[p.subIdx[k]] += v
			})
		}
		phi := 0.0
		for _, v := range bt {
			phi += math.Sqrt(v)
		}
		return phi * phi
	}
	// The separated bound: Σ_S w2_S Π_{f ∈ S} opt_f, each marginal's own
	// optimum (a Kronecker product's is the product of its factors').
	sep := 0.0
	for i, m := range p.Marginals {
		v := w2[i]
		for _, f := range m.Attrs {
			v *= p.bases[f].opt
		}
		sep += v
	}
	best := eval()
	for round := 0; round < 2; round++ {
		for c, b := range classes {
			if len(b.lbA) < 2 {
				continue
			}
			keep := choice[c]
			for o := range b.lbA {
				if o == keep {
					continue
				}
				if err := ctx.Err(); err != nil {
					return 0, err
				}
				choice[c] = o
				if v := eval(); v > best {
					best, keep = v, o
				}
			}
			choice[c] = keep
		}
	}
	return math.Max(best, sep), nil
}

// finishTyped fills the variances, TSE, RMSE, MaxVariance, Objective and
// the gap of a typed plan from Share: Var_S = max over tb's rows of S,
// TSE = σ² Σ_S w_S² Σ_{T ⊆ S} tse/u_T.
func (p *MarginalPlan) finishTyped(tb *varTable) {
	f := make([]float64, len(tb.w2))
	worst := tb.variances(p.Share, f)
	s2 := p.Sigma * p.Sigma
	p.Variance = make([]float64, len(p.Marginals))
	for r, v := range f {
		i := tb.marg[r]
		p.Variance[i] = math.Max(p.Variance[i], s2*v/tb.w2[r])
	}
	var tse stable.Sum
	p.Queries = 0
	for i, m := range p.Marginals {
		p.Queries += p.queryCount(i)
		w2 := m.Weight * m.Weight
		for k := p.off[i]; k < p.off[i+1]; k++ {
			tse.Add(w2 * p.tse[k] / p.Share[p.subIdx[k]])
		}
	}
	p.setTotals(tse.Value(), worst)
}

// sensitivity returns Π_{f ∈ t} d_f, the largest squared column norm of
// subspace t's unit-share measurement: m_t/n_t when every attribute is
// identity (computed as before), else the product of the bases' d.
func (p *MarginalPlan) sensitivity(t []int) float64 {
	if p.bases == nil {
		return p.cellsMinus(t) / p.cells(t)
	}
	num, den, other := 1.0, 1.0, 1.0
	for _, f := range t {
		if b := p.bases[f]; b.kind == QueryIdentity {
			num *= float64(p.Dims[f] - 1)
			den *= float64(p.Dims[f])
		} else {
			other *= b.d
		}
	}
	return num / den * other
}

// queryVariances returns the variances (units σ², unweighted) of every
// query of marginal i in row-major order of its attributes' queries:
// Σ_{T ⊆ S} Π_{f ∈ T} α_f(q_f) Π_{f ∈ S∖T} β_f(q_f)/u_T.
func (p *MarginalPlan) queryVariances(i int) []float64 {
	s := p.Marginals[i].Attrs
	out := make([]float64, int(p.queryCount(i)))
	pos := make([]int, len(s))
	for q := range out {
		v := 0.0
		p.forPairs(i, func(k, sub int) {
			c := 1 / p.Share[p.subIdx[k]]
			for a, f := range s {
				b := p.bases[f]
				if sub>>a&1 == 1 {
					c *= b.alpha[pos[a]]
				} else {
					c *= b.beta[pos[a]]
				}
			}
			v += c
		})
		out[q] = v
		for a := len(s) - 1; a >= 0; a-- {
			if pos[a]++; pos[a] < p.bases[s[a]].queries() {
				break
			}
			pos[a] = 0
		}
	}
	return out
}

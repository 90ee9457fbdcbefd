package linear

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/optdp/optdp/run"
)

// Answering a plan with prefix or allrange attributes (docs/MATH.md
// §15.11): each subspace's residual is measured in the attributes' tree
// bases, and each marginal's cell estimate is summed into its queries.

// axisL1 returns the largest L1 norm of attribute f's integer rows,
// max_r 2ab (2(n-1) for the Helmert rows).
func (p *MarginalPlan) axisL1(f int) float64 {
	if p.bases == nil {
		return 2 * float64(p.Dims[f]-1)
	}
	b := p.bases[f]
	top := 0.0
	for k := range b.lo {
		top = math.Max(top, 2*float64(b.mid[k]-b.lo[k])*float64(b.hi[k]-b.mid[k]))
	}
	return top
}

// measureTyped measures subspace t's integer residual z = (⊗_f H_f) y
// (H_f the tree rows h_r of attribute f) with exact discrete Gaussian
// noise of variance s2 Π_f ||h_{r_f}||²/ζ_{r_f} per entry (rounded up),
// on the dyadic grid of AnswerGaussianMarginals, and returns the least-
// squares estimate (⊗_f H_f^T diag(1/||h_r||²)) ẑ of the T-marginal's
// residual. The measurement of row r is thus sqrt(ζ_r) h_r/||h_r|| with
// noise variance s2: its zCDP cost at a record in cell c is
// Π_f δ_f(c_f)/(2 s2) <= Π_f d_f/(2 s2).
func (p *MarginalPlan) measureTyped(y []int64, ts []int, s2 float64, src Source, noiseless bool) []float64 {
	bs := make([]*attrBasis, len(ts))
	for k, f := range ts {
		bs[k] = p.bases[f]
	}
	z := treeForward(y, bs)
	noisy := make([]float64, len(z))
	if noiseless {
		for r, v := range z {
			noisy[r] = float64(v)
		}
		return treeBack(noisy, bs)
	}
	e := 0
	if need := math.Ldexp(1, gridBits) / math.Sqrt(s2); need > 1 {
		e = int(math.Ceil(math.Log2(need)))
	}
	base := math.Ldexp(s2, 2*e) * (1 + 2e-12)
	idx := make([]int, len(bs))
	tot := new(big.Int)
	r := new(big.Rat)
	for q, v := range z {
		fac := base
		for k, b := range bs {
			fac *= b.norm2[idx[k]] / b.zeta[idx[k]]
		}
		r.SetFloat64(fac)
		tot.SetInt64(v)
		tot.Lsh(tot, uint(e))
		tot.Add(tot, discreteGaussian(src, r.Num(), r.Denom()))
		f, _ := new(big.Float).SetInt(tot).Float64()
		noisy[q] = math.Ldexp(f, -e)
		for k := len(idx) - 1; k >= 0; k-- {
			if idx[k]++; idx[k] < bs[k].n-1 {
				break
			}
			idx[k] = 0
		}
	}
	return treeBack(noisy, bs)
}

// treeForward applies ⊗_k H_k (the tree rows of bs[k], k-th axis of size
// bs[k].n) to y, row-major; each row by the prefix sums of its line.
func treeForward(y []int64, bs []*attrBasis) []int64 {
	cur := y
	shape := make([]int, len(bs))
	for k, b := range bs {
		shape[k] = b.n
	}
	pre := make([]int64, 0)
	for ax, b := range bs {
		n := shape[ax]
		outer, inner := axisSpan(shape, ax)
		out := make([]int64, outer*(n-1)*inner)
		pre = append(pre[:0], make([]int64, n+1)...)
		for o := 0; o < outer; o++ {
			for i := 0; i < inner; i++ {
				for j := 0; j < n; j++ {
					pre[j+1] = pre[j] + cur[(o*n+j)*inner+i]
				}
				for r := range b.lo {
					a, c := int64(b.mid[r]-b.lo[r]), int64(b.hi[r]-b.mid[r])
					out[(o*(n-1)+r)*inner+i] = c*(pre[b.mid[r]]-pre[b.lo[r]]) - a*(pre[b.hi[r]]-pre[b.mid[r]])
				}
			}
		}
		cur = out
		shape[ax] = n - 1
	}
	return cur
}

// treeBack applies ⊗_k H_k^T diag(1/||h_r||²) to z (axis sizes
// bs[k].n - 1): the least-squares map back to the residual.
func treeBack(z []float64, bs []*attrBasis) []float64 {
	cur := z
	shape := make([]int, len(bs))
	for k, b := range bs {
		shape[k] = b.n - 1
	}
	for ax, b := range bs {
		n := b.n
		outer, inner := axisSpan(shape, ax)
		out := make([]float64, outer*n*inner)
		for o := 0; o < outer; o++ {
			for i := 0; i < inner; i++ {
				for r := range b.lo {
					v := cur[(o*(n-1)+r)*inner+i] / b.norm2[r]
					a, c := float64(b.mid[r]-b.lo[r]), float64(b.hi[r]-b.mid[r])
					for j := b.lo[r]; j < b.mid[r]; j++ {
						out[(o*n+j)*inner+i] += c * v
					}
					for j := b.mid[r]; j < b.hi[r]; j++ {
						out[(o*n+j)*inner+i] -= a * v
					}
				}
			}
		}
		cur = out
		shape[ax] = n
	}
	return cur
}

// applyQueries turns marginal i's cell estimate (row-major over its
// attributes' values) into its queries' answers (row-major over its
// attributes' queries): along a prefix attribute the running sums, along
// an allrange attribute the differences of running sums P[r+1] - P[l].
func (p *MarginalPlan) applyQueries(i int, cells []float64) []float64 {
	s := p.Marginals[i].Attrs
	cur := cells
	shape := make([]int, len(s))
	for a, f := range s {
		shape[a] = p.Dims[f]
	}
	pre := make([]float64, 0)
	for ax, f := range s {
		b := p.bases[f]
		if b.kind == QueryIdentity {
			continue
		}
		n, nq := shape[ax], b.queries()
		outer, inner := axisSpan(shape, ax)
		out := make([]float64, outer*nq*inner)
		pre = append(pre[:0], make([]float64, n+1)...)
		for o := 0; o < outer; o++ {
			for in := 0; in < inner; in++ {
				for j := 0; j < n; j++ {
					pre[j+1] = pre[j] + cur[(o*n+j)*inner+in]
				}
				for q := range b.ql {
					out[(o*nq+q)*inner+in] = pre[b.qr[q]+1] - pre[b.ql[q]]
				}
			}
		}
		cur = out
		shape[ax] = nq
	}
	return cur
}

// answerTyped returns marginal i's answers from the subspaces' estimates,
// with each query's exact variance v·(units σ² variance), v the noise
// variance at sensitivity 1 (0 when noiseless).
func (p *MarginalPlan) answerTyped(i int, est [][]float64, v float64) MarginalAnswer {
	m := p.Marginals[i]
	ans := p.applyQueries(i, reconstruct(p, i, est, nil))
	vs := p.queryVariances(i)
	top := 0.0
	for q := range vs {
		vs[q] *= v
		top = math.Max(top, vs[q])
	}
	return MarginalAnswer{Attrs: append([]int(nil), m.Attrs...), Weight: m.Weight, Answers: ans, Variance: top, Variances: vs}
}

// QueryLabel returns the label of answer q of marginal i in a release of
// plan p, as Labels writes them: the conditions NAME=V (a value) or
// NAME=L..R (a range, inclusive) of the marginal's attributes joined by
// " & " ("total" for the empty marginal). attrs names the attributes (nil:
// a0, a1, ...). Errors (run.ErrBadInput): a plan not built by
// PlanGaussianMarginals, i or q out of range, attrs of the wrong length.
func (p *MarginalPlan) QueryLabel(attrs []Attribute, i, q int) (string, error) {
	if p == nil || p.frozen == nil {
		return "", fmt.Errorf("linear: query label: %w: build the plan with PlanGaussianMarginals", run.ErrBadInput)
	}
	p = p.frozen
	if attrs != nil && len(attrs) != len(p.Dims) {
		return "", fmt.Errorf("linear: query label: %w: %d attribute names for %d attributes", run.ErrBadInput, len(attrs), len(p.Dims))
	}
	if i < 0 || i >= len(p.Marginals) {
		return "", fmt.Errorf("linear: query label: %w: marginal %d of %d", run.ErrBadInput, i, len(p.Marginals))
	}
	s := p.Marginals[i].Attrs
	counts := make([]int, len(s))
	total := 1.0
	for a, f := range s {
		counts[a] = p.Dims[f]
		if p.bases != nil {
			counts[a] = p.bases[f].queries()
		}
		total *= float64(counts[a])
	}
	if q < 0 || float64(q) >= total {
		return "", fmt.Errorf("linear: query label: %w: query %d of %g", run.ErrBadInput, q, total)
	}
	if len(s) == 0 {
		return "total", nil
	}
	parts := make([]string, len(s))
	for a := len(s) - 1; a >= 0; a-- {
		f := s[a]
		k := q % counts[a]
		q /= counts[a]
		l, r := k, k
		if p.bases != nil {
			l, r = p.bases[f].ql[k], p.bases[f].qr[k]
		}
		name := "a" + strconv.Itoa(f)
		if attrs != nil {
			name = attrs[f].Name
		}
		if l == r {
			parts[a] = name + "=" + strconv.Itoa(l)
		} else {
			parts[a] = name + "=" + strconv.Itoa(l) + ".." + strconv.Itoa(r)
		}
	}
	return strings.Join(parts, " & "), nil
}

package linear

import (
	"fmt"
	"math"
	"strings"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// unionStrategy is a union of strategies B_1, ..., B_G (each a Kronecker
// product or an explicit matrix), block g answering the workload terms
// terms[g] on its own: the estimate of a query of group g is reconstructed
// by least squares from block g's answers only (docs/MATH.md §15.8).
type unionStrategy struct {
	blocks []*Strategy
	// terms[g] lists the Gram terms (Kronecker factor lists) of the
	// queries block g answers; a workload's Gram terms are matched to them
	// by value.
	terms [][][]*mat.SymDense
}

// UnionBlock is one block of a union strategy (Strategy.Union).
type UnionBlock struct {
	// Strategy is the block B_g as answered (its budget weight folded in).
	Strategy *Strategy
	// Terms is the number of distinct workload Gram terms it answers.
	Terms int
}

// UnionStrategy returns the union of the strategies blocks over the domain
// of w: block g answers the parts of w with assign[k] = g, where the parts
// of w are, in query order, the members of a Union (recursively, through
// Scale), and the single marginal tables of a Marginals workload (WorkloadParts
// lists them). Each group's queries are estimated by least squares from its
// own block's answers, B_g^+ y_g, a valid linear estimator that differs from
// least squares on the whole stack; its total squared error is
//
//	Var · Σ_g tr(W_g^T W_g (B_g^T B_g)^+)
//
// (ProfileTrace, factor-wise per block) with the noise calibrated to the
// union's sensitivity: L1() = Σ_g D1(B_g) (basic composition: block g
// spends the fraction D1(B_g)/L1() of eps) and L2() = sqrt(Σ_g D2(B_g)²)
// (zCDP composition of the Gaussian blocks). Both bound the stack's column
// norms from above and equal them when every block's columns have equal
// norms (the p-Identity strategies of Optimize). docs/MATH.md §15.8.
//
// The strategy keeps the Gram terms of each group and recognises a
// workload's terms by value: it evaluates and answers w, or any workload
// whose Gram terms are among them. Errors: a nil or stacked block
// (MarginalsStrategy, a union), blocks over another domain, assign not one
// entry per part, an entry out of range, a block answering nothing, or two
// groups sharing an identical Gram term.
func UnionStrategy(w Workload, blocks []*Strategy, assign []int) (*Strategy, error) {
	if w == nil {
		return nil, fmt.Errorf("linear: union strategy: %w: nil workload", run.ErrBadInput)
	}
	parts := WorkloadParts(w)
	if len(assign) != len(parts) {
		return nil, fmt.Errorf("union strategy: %w: %d assignments for the %d parts of %v", run.ErrBadInput, len(assign), len(parts), w)
	}
	_, n := w.Dims()
	for g, b := range blocks {
		if b == nil || b.sum != nil || b.union != nil {
			return nil, fmt.Errorf("union strategy: %w: block %d must be a Kronecker or explicit strategy", run.ErrBadInput, g)
		}
		if _, bn := b.Dims(); bn != n {
			return nil, fmt.Errorf("union strategy: %w: block %d (%v) has domain size %d, the workload %d", run.ErrBadInput, g, b, bn, n)
		}
	}
	terms := make([][][]*mat.SymDense, len(blocks))
	for k, g := range assign {
		if g < 0 || g >= len(blocks) {
			return nil, fmt.Errorf("union strategy: %w: part %d assigned to block %d of %d", run.ErrBadInput, k, g, len(blocks))
		}
		for _, t := range parts[k].Gram().Terms {
			if !containsTerm(terms[g], t) {
				terms[g] = append(terms[g], t)
			}
		}
	}
	return newUnion(blocks, terms)
}

// newUnion checks and wraps the blocks and their groups of Gram terms.
func newUnion(blocks []*Strategy, terms [][][]*mat.SymDense) (*Strategy, error) {
	if len(blocks) == 0 {
		return nil, fmt.Errorf("linear: union strategy: %w: no blocks", run.ErrBadInput)
	}
	for g := range blocks {
		if len(terms[g]) == 0 {
			return nil, fmt.Errorf("union strategy: %w: block %d answers no query", run.ErrBadInput, g)
		}
		for h := 0; h < g; h++ {
			for _, t := range terms[g] {
				if containsTerm(terms[h], t) {
					return nil, fmt.Errorf("union strategy: %w: blocks %d and %d answer an identical Gram term", run.ErrBadInput, h, g)
				}
			}
		}
	}
	u := &unionStrategy{blocks: append([]*Strategy(nil), blocks...), terms: terms}
	names := make([]string, len(blocks))
	for g, b := range blocks {
		names[g] = fmt.Sprintf("%d terms: %v", len(terms[g]), b)
	}
	return &Strategy{name: fmt.Sprintf("union(%d blocks; %s)", len(blocks), strings.Join(names, "; ")), union: u}, nil
}

// Union returns the blocks of a union strategy (UnionStrategy, or the
// result of Optimize with Method "l1-union" or "l2-union"), nil for any
// other strategy.
func (s *Strategy) Union() []UnionBlock {
	if s.union == nil {
		return nil
	}
	out := make([]UnionBlock, len(s.union.blocks))
	for g, b := range s.union.blocks {
		out[g] = UnionBlock{Strategy: b, Terms: len(s.union.terms[g])}
	}
	return out
}

// WorkloadParts splits w into the parts a union strategy assigns to its
// blocks, in query order (their queries stacked are w's): the members of a
// Union, recursively (a scaled union c·U splits into c·U_i), and the single
// marginal tables of a Marginals workload; any other workload is one part.
func WorkloadParts(w Workload) []Workload {
	switch v := w.(type) {
	case *unionWorkload:
		var out []Workload
		for _, m := range v.ws {
			out = append(out, WorkloadParts(m)...)
		}
		return out
	case *scaledWorkload:
		in := WorkloadParts(v.w)
		if len(in) == 1 {
			return []Workload{w}
		}
		out := make([]Workload, len(in))
		for i, p := range in {
			out[i] = &scaledWorkload{w: p, c: v.c}
		}
		return out
	case *marginalWorkload:
		if len(v.subsets) <= 1 {
			return []Workload{w}
		}
		out := make([]Workload, len(v.subsets))
		for i, s := range v.subsets {
			out[i] = &marginalWorkload{dims: v.dims, k: v.k, subsets: [][]int{s}}
		}
		return out
	}
	return []Workload{w}
}

// sameTerm reports whether two Gram terms have equal factors.
func sameTerm(a, b []*mat.SymDense) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && (a[i].SymmetricDim() != b[i].SymmetricDim() || !mat.Equal(a[i], b[i])) {
			return false
		}
	}
	return true
}

func containsTerm(ts [][]*mat.SymDense, t []*mat.SymDense) bool {
	for _, u := range ts {
		if sameTerm(u, t) {
			return true
		}
	}
	return false
}

// group returns the block that answers Gram term t, or -1.
func (u *unionStrategy) group(t []*mat.SymDense) int {
	for g, ts := range u.terms {
		if containsTerm(ts, t) {
			return g
		}
	}
	return -1
}

func (u *unionStrategy) dims() (p, n int) {
	for _, b := range u.blocks {
		bp, bn := b.Dims()
		p, n = p+bp, bn
	}
	return p, n
}

// sens returns Σ_g D1(B_g) (q = 1) or sqrt(Σ_g D2(B_g)²) (q = 2).
func (u *unionStrategy) sens(q int) float64 {
	s := 0.0
	for _, b := range u.blocks {
		if q == 1 {
			s += b.L1()
		} else {
			d := b.L2()
			s += d * d
		}
	}
	if q == 2 {
		return math.Sqrt(s)
	}
	return s
}

// dense stacks the blocks (within mech.MaxDenseEntries).
func (u *unionStrategy) dense() (*mat.Dense, error) {
	p, n := u.dims()
	if err := checkDense("union strategy", p, n); err != nil {
		return nil, err
	}
	out := mat.NewDense(p, n, nil)
	off := 0
	for _, b := range u.blocks {
		d, err := b.Dense()
		if err != nil {
			return nil, err
		}
		r, _ := d.Dims()
		out.Slice(off, off+r, 0, n).(*mat.Dense).Copy(d)
		off += r
	}
	return out, nil
}

func (u *unionStrategy) mulVec(x []float64) ([]float64, error) {
	var out []float64
	for _, b := range u.blocks {
		y, err := b.MulVec(x)
		if err != nil {
			return nil, err
		}
		out = append(out, y...)
	}
	return out, nil
}

// trace returns Σ_g tr(G_g (B_g^T B_g)^+), G_g the sum of g's terms of
// G: the union's error up to the noise variance. Each group's part is
// ProfileTrace of that group's terms against its block (factor-wise). A
// term of G that no block answers is an error wrapping ErrUnsupported.
func (u *unionStrategy) trace(g Gram) (float64, error) {
	parts := make([]Gram, len(u.blocks))
	for i, t := range g.Terms {
		k := u.group(t)
		if k < 0 {
			return 0, fmt.Errorf("linear: union strategy: Gram term %d of the workload is not one its blocks were built for: %w", i, ErrUnsupported)
		}
		parts[k].Terms = append(parts[k].Terms, t)
	}
	total := 0.0
	for k, gk := range parts {
		if len(gk.Terms) == 0 {
			continue
		}
		tr, err := ProfileTrace(gk, u.blocks[k])
		if err != nil {
			return 0, fmt.Errorf("union strategy: block %d: %w", k, err)
		}
		total += tr
	}
	return total, nil
}

// answerUnion releases w's answers with a union strategy: block g answers
// the parts of w in its group with Answer's exact integer computation and
// discrete noise, spending the share s_g = D1(B_g)/Σ_h D1(B_h) of eps
// (Laplace; basic composition) or s_g = D2(B_g)²/Σ_h D2(B_h)² of the zCDP
// budget ρ that (eps, delta) converts to (Gaussian; zCDP composition), so
// the shares sum to 1 whatever the rounding of the blocks; a block that
// answers none of w's parts spends nothing. Each group's queries are
// estimated from its own block (least squares, factor-wise), never
// forming the full domain; the estimate is unbiased for every query the
// block supports. The union release reports the stacked Y, the answers in
// w's query order, the per-block releases (Groups), the union's noise
// (Sensitivity Σ_g D1(B_g') or sqrt(Σ_g D2(B_g')²) of the rounded blocks,
// Variance the largest block variance) and the exact expected error, the
// sum of the groups' (docs/MATH.md §15.8).
func answerUnion(w Workload, u *unionStrategy, x []float64, eps, delta float64, src Source) (*Release, error) {
	parts := WorkloadParts(w)
	group := make([]int, len(parts))
	offs := make([]int, len(parts)+1)
	for k, p := range parts {
		terms := p.Gram().Terms
		group[k] = -1
		for i, t := range terms {
			g := u.group(t)
			if g < 0 || (i > 0 && g != group[k]) {
				return nil, fmt.Errorf("linear: answer: part %d of %v (%v) is not answered by one block of the union strategy: %w", k, w, p, ErrUnsupported)
			}
			group[k] = g
		}
		m, _ := p.Dims()
		offs[k+1] = offs[k] + m
	}
	// Each answered block keeps its estimate of the data and its answers
	// (Release.Groups): about 16 bytes per cell and block, with the
	// integer and float work vectors of the block being answered.
	_, n := w.Dims()
	if err := run.DefaultBudget.Check(fmt.Sprintf("answer: the per-group estimates of %d blocks over %d cells", len(u.blocks), n),
		16*float64(n)*float64(len(u.blocks)+2), "answer fewer groups (a union with fewer blocks)"); err != nil {
		return nil, fmt.Errorf("answer: %w", err)
	}
	q := 1
	if delta != 0 {
		q = 2
	}
	sens := make([]float64, len(u.blocks))
	total := 0.0
	for g, b := range u.blocks {
		if q == 1 {
			sens[g] = b.L1()
		} else {
			d := b.L2()
			sens[g] = d * d
		}
		total += sens[g]
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return nil, fmt.Errorf("linear: answer: union strategy has sensitivity %v", total)
	}
	rel := &Release{Answers: make([]float64, offs[len(parts)]), Groups: make([]*Release, len(u.blocks))}
	quant := make([]*Strategy, len(u.blocks))
	qsens, maxVar, tse, tr, p := 0.0, 0.0, 0.0, 0.0, 0
	for g, b := range u.blocks {
		quant[g] = b
		var ks []int
		var ws []Workload
		for k, pg := range group {
			if pg == g {
				ks, ws = append(ks, k), append(ws, parts[k])
			}
		}
		if len(ws) == 0 {
			continue
		}
		wg := ws[0]
		if len(ws) > 1 {
			var err error
			if wg, err = Union(ws...); err != nil {
				return nil, fmt.Errorf("answer: %w", err)
			}
		}
		r, err := answerShare(wg, b, x, eps, delta, sens[g]/total, src)
		if err != nil {
			return nil, fmt.Errorf("answer: union block %d: %w", g, err)
		}
		rel.Groups[g] = r
		quant[g] = r.Strategy
		off := 0
		for _, k := range ks {
			copy(rel.Answers[offs[k]:offs[k+1]], r.Answers[off:off+offs[k+1]-offs[k]])
			off += offs[k+1] - offs[k]
		}
		rel.Y = append(rel.Y, r.Y...)
		if rel.Grid == 0 || r.Grid < rel.Grid {
			rel.Grid = r.Grid // grids are powers of 2: every Y is a multiple of the finest
		}
		if q == 1 {
			qsens += r.Noise.Sensitivity
		} else {
			qsens += r.Noise.Sensitivity * r.Noise.Sensitivity
		}
		maxVar = math.Max(maxVar, r.Noise.Variance)
		tse += r.Expected.TSE
		tr += r.Expected.Trace
		p += r.Expected.P
		rel.Noise.Mechanism = r.Noise.Mechanism
	}
	if q == 2 {
		qsens = math.Sqrt(qsens)
	}
	rel.Noise.Eps, rel.Noise.Delta, rel.Noise.Sensitivity, rel.Noise.Variance = eps, delta, qsens, maxVar
	rel.Noise.Scale = qsens / eps
	if q == 2 {
		rel.Noise.Scale = math.Sqrt(maxVar)
	}
	us, err := newUnion(quant, u.terms)
	if err != nil {
		return nil, fmt.Errorf("answer: %w", err)
	}
	rel.Strategy = us
	m, _ := w.Dims()
	rel.Expected = Report{Workload: w.String(), Strategy: us.String(), M: m, N: n, P: p, Trace: tr, Noise: rel.Noise,
		TSE: tse, RMSE: math.Sqrt(tse / float64(m))}
	return rel, nil
}

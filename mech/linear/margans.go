package linear

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"runtime"
	"sync"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/run"
)

// MarginalData is a data set for AnswerGaussianMarginals, column by
// column: Columns[f][r] is record r's value of attribute f, an integer in
// [0, dims[f]). Counts, when not nil, gives each row a multiplicity (the
// rows of a histogram: cells with their counts, integers >= 0); nil means
// one record per row. The full histogram over the product domain is never
// formed.
type MarginalData struct {
	Columns [][]int32
	Counts  []int64
}

// MarginalAnswer is one released marginal.
type MarginalAnswer struct {
	// Attrs are the marginal's attributes (increasing) and Weight its
	// workload weight.
	Attrs  []int   `json:"attrs"`
	Weight float64 `json:"weight"`
	// Answers are the noisy counts of every combination of values of
	// Attrs, in row-major order (the first attribute slowest); along a
	// prefix or allrange attribute (MarginalPlan.AttrQueries) the values
	// are replaced by its queries, in the order of Prefix or AllRange
	// (MarginalPlan.QueryLabel names them).
	Answers []float64 `json:"answers"`
	// Variance is the exact variance of every answer (unweighted); when
	// the plan has prefix or allrange attributes, the largest, and
	// Variances gives each answer's.
	Variance  float64   `json:"variance"`
	Variances []float64 `json:"variances,omitempty"`
}

// MarginalRelease is the output of AnswerGaussianMarginals: everything in
// it may be published.
type MarginalRelease struct {
	// Marginals holds the workload's marginals in the plan's order.
	Marginals []MarginalAnswer `json:"marginals"`
	// Noise is the noise actually added: "discrete-gaussian" with
	// Sensitivity 1 (the whole measurement, every residual scaled by its
	// share) and Scale = σ, the zCDP calibration of the discrete Gaussian
	// for (Eps, Delta); each residual of subspace T carries variance
	// s_T² = σ² m_T/(n_T u_T) per entry, rounded up by a relative 2^-32 at
	// most (the answers' Variance is that of the noise drawn).
	Noise Noise `json:"noise"`
	// Subspaces is the number of residuals measured.
	Subspaces int `json:"subspaces"`
}

// maxMarginalCount bounds the total count of the data (2^53).
const maxMarginalCount = 1 << 53

// AnswerGaussianMarginals releases the marginals of plan p on the data
// under (p.Eps, p.Delta)-DP without forming the full histogram: for every
// subspace T it counts the T-marginal y_T (each from one pass over the
// records for the first workload marginal containing T), measures the
// integer residual z_T = (⊗_{f ∈ T} H_f) y_T, H_f the integer Helmert
// matrix with rows h_k = (1, ..., 1, -k, 0, ...) (k ones), adding to each
// entry exact discrete Gaussian noise (Canonne, Kamath and Steinke 2020) of
// variance s_T² ||h_r||², s_T² = σ² m_T/(n_T u_T) rounded up to an integer
// number of steps² of the coarsest dyadic grid on which it is at least 2^32
// (docs/MATH.md §15.11); and reconstructs every
// workload marginal S from the noisy residuals as
//
//	ŷ_S = Σ_{T ⊆ S} (⊗_{f ∈ T} H_f^T D_f^{-1} ⊗_{f ∈ S∖T} 1/n_f) ẑ_T,
//
// D_f = diag(k(k+1)), exact when the noise is zero (the ANOVA
// decomposition of y_S). Adding or removing one record changes the
// zCDP divergence by Σ_T Σ_r h_r(c)²/(2 s_T² ||h_r||²) = Σ_T u_T/(2σ²) =
// 1/(2σ²) (the rows are orthogonal, so Σ_r h_r(c)²/||h_r||² = m_T/n_T for
// every cell c): the release is ρ-zCDP with ρ = 1/(2σ²), and σ is the
// smallest with ZCDPDelta(ρ, eps) <= delta (as AnswerGaussian).
//
// The work runs on GOMAXPROCS goroutines: the marginals sharing all but
// their last attribute are counted together from compact copies of the
// columns, and each subspace's noise is drawn as soon as it is counted.
// With src = CryptoSource() (real releases) every goroutine reads
// crypto/rand through its own buffer; with a SeededSource (experiments
// only) subspace t draws from its own generator seeded by
// splitmix64(k ^ splitmix64(t)), k the first word of src, so a seed gives
// the same release whatever GOMAXPROCS; any other source is read by a
// single goroutine in a fixed order.
//
// Errors (run.ErrBadInput): a nil plan, data or source, a column count or
// length mismatch, a value outside its attribute's domain, a negative count,
// a total count above 2^53 or one for which an integer residual might
// exceed 2^62; run.ErrTooLarge beyond budget (the estimates, Σ_T n_T, and
// the answers, Σ_S n_S, as float64, the compact and pair columns, and per
// goroutine the counting tables of one group); ctx's error when cancelled.
func AnswerGaussianMarginals(ctx context.Context, p *MarginalPlan, data *MarginalData, src Source, budget run.Budget) (*MarginalRelease, error) {
	return answerMarginals(ctx, p, data, src, budget, false)
}

// answerMarginals is AnswerGaussianMarginals; noiseless skips the noise
// (tests of the reconstruction only).
func answerMarginals(ctx context.Context, p *MarginalPlan, data *MarginalData, src Source, budget run.Budget, noiseless bool) (*MarginalRelease, error) {
	if p == nil || data == nil || p.frozen == nil {
		return nil, fmt.Errorf("linear: answer marginals: %w: nil plan or data (build the plan with PlanGaussianMarginals)", run.ErrBadInput)
	}
	p = p.frozen // the plan as computed, whatever its exported fields say now
	if src == nil {
		return nil, fmt.Errorf("linear: answer marginals: %w: nil randomness source (use CryptoSource() for a real release)", run.ErrBadInput)
	}
	c, err := zcdpSigmaRatio(p.Eps, p.Delta)
	if err != nil {
		return nil, fmt.Errorf("linear: answer marginals: %w: %v", run.ErrBadInput, err)
	}
	total, err := checkMarginalData(p.Dims, data)
	if err != nil {
		return nil, err
	}
	// Memory: the estimates (float64) over n_T cells, the answers over n_S
	// cells (checked below, before any allocation of their size, with the
	// columns and the counting tables).
	cellsT, cellsS, maxT := 0.0, 0.0, 0.0
	for _, t := range p.Subspaces {
		cellsT += p.cells(t)
		maxT = math.Max(maxT, p.cells(t))
	}
	for i, m := range p.Marginals {
		n := p.cells(m.Attrs)
		if p.bases != nil {
			n = math.Max(n, p.queryCount(i))
		}
		if n > math.MaxInt32 {
			return nil, fmt.Errorf("linear: answer marginals: marginal %v has %g cells, more than 2^31-1: %w", m.Attrs, n, run.ErrTooLarge)
		}
		cellsS += n
	}
	rows := len(data.Columns[0])
	// The largest integer residual: total·Π_{f ∈ T} 2(n_f - 1) <= 2^62.
	for _, t := range p.Subspaces {
		b := float64(total)
		for _, f := range t {
			b *= p.axisL1(f)
		}
		if b > math.Ldexp(1, 62) {
			return nil, fmt.Errorf("linear: answer marginals: %w: a total count of %d makes the residual of attributes %v exceed 2^62", run.ErrBadInput, total, t)
		}
	}
	// The shares' exact sum: the release is Σ_T u_T/(2c²)-zCDP, and
	// rounding can leave Σ u_T a few ulps above 1; the noise is scaled by
	// it (and rounded up below), so the budget is never exceeded.
	sum := new(big.Float).SetPrec(256)
	for _, u := range p.Share {
		sum.Add(sum, new(big.Float).SetFloat64(u))
	}
	scale, _ := sum.Float64()
	scale = math.Max(scale, 1)
	// The home of each subspace: the first marginal containing it.
	home := make([]int, len(p.Subspaces))
	for t := range home {
		home[t] = -1
	}
	homes := make([][]int32, len(p.Marginals)) // subspaces homed at each marginal
	for i := range p.Marginals {
		for k := p.off[i]; k < p.off[i+1]; k++ {
			if t := p.subIdx[k]; home[t] < 0 {
				home[t] = i
				homes[i] = append(homes[i], t)
			}
		}
	}
	// A subspace equal to its home marginal and in no other one (the
	// top subspaces of a workload of k-way marginals) is estimated straight
	// into that marginal's answers.
	uses := make([]int32, len(p.Subspaces))
	for _, t := range p.subIdx {
		uses[t]++
	}
	inPlace := make([]bool, len(p.Subspaces))
	for t, i := range home {
		if uses[t] == 1 && len(p.Subspaces[t]) == len(p.Marginals[i].Attrs) && p.bases == nil {
			inPlace[t] = true
			cellsT -= p.cells(p.Subspaces[t])
		}
	}
	var jobs, empty []int
	for i, h := range homes {
		switch {
		case len(h) == 0:
		case len(p.Marginals[i].Attrs) == 0:
			empty = append(empty, i)
		default:
			jobs = append(jobs, i)
		}
	}
	groups := groupMarginals(p.Marginals, jobs)
	// The sources: CryptoSource gives every worker its own buffered
	// crypto/rand reader; SeededSource gives subspace t its own stream,
	// seeded by splitmix64(k ^ splitmix64(t)) with k one word of src, so a
	// seed gives the same release whatever GOMAXPROCS; any other source is
	// read by one goroutine, in a fixed order.
	workers := runtime.GOMAXPROCS(0)
	var key uint64
	seeded, crypto := false, false
	switch {
	case noiseless:
	case src == CryptoSource():
		crypto = true
	case mech.Seeded(src):
		seeded = true
		key = src.Uint64()
	default:
		workers = 1
	}
	workers = max(1, min(workers, len(groups)))
	pairMem := 0.0
	if data.Counts == nil {
		pairMem = pairBytes(p.Dims, p.Marginals, groups, rows)
	}
	if err := budget.Check("answer marginals: the columns, estimates, answers and counting tables",
		compactBytes(p.Dims, rows)+pairMem+8*cellsT+8*cellsS+float64(workers)*(12*maxGroupCells(p, groups)+48*maxT+4*countBlock), ""); err != nil {
		return nil, fmt.Errorf("linear: %w", err)
	}
	par := make([]residualNoise, len(p.Subspaces))
	if !noiseless {
		for t, ts := range p.Subspaces {
			s2 := scale * c * c * p.cellsMinus(ts) / (p.cells(ts) * p.Share[t])
			if !(s2 > 0 && s2 < math.MaxFloat64/2) {
				return nil, fmt.Errorf("linear: answer marginals: %w: subspace %v has noise variance %g (its share %g)", run.ErrBadInput, ts, s2, p.Share[t])
			}
			par[t] = newResidualNoise(s2)
		}
	}
	cols := compactColumns(p.Dims, data.Columns, runtime.GOMAXPROCS(0))
	var pairs []column
	if data.Counts == nil {
		pairs = pairColumns(p.Dims, p.Marginals, groups, cols, rows, runtime.GOMAXPROCS(0))
	}
	// Count each group's marginals, then measure and estimate the
	// subspaces homed at them, in parallel.
	est := make([][]float64, len(p.Subspaces))
	answers := make([][]float64, len(p.Marginals))
	measure := func(i int, ys []int64, wsrc Source) {
		attrs := p.Marginals[i].Attrs
		for _, t := range homes[i] {
			ts := p.Subspaces[t]
			yt := ys
			if len(ts) != len(attrs) {
				yt = sumOut(p.Dims, attrs, ys, ts)
			}
			if p.bases != nil {
				// Prefix or allrange attributes: tree bases
				// (margansq.go).
				tsrc := wsrc
				if seeded {
					tsrc = SeededSource(splitmix64(key ^ splitmix64(uint64(t))))
				}
				est[t] = p.measureTyped(yt, ts, scale*c*c*p.sensitivity(ts)/p.Share[t], tsrc, noiseless)
				continue
			}
			ns := make([]int, len(ts))
			for k, f := range ts {
				ns[k] = p.Dims[f]
			}
			z := helmertForward(yt, ns)
			noisy := make([]float64, len(z))
			switch {
			case noiseless:
				for r, v := range z {
					noisy[r] = float64(v)
				}
			case seeded:
				par[t].measure(SeededSource(splitmix64(key^splitmix64(uint64(t)))), z, ns, noisy)
			default:
				par[t].measure(wsrc, z, ns, noisy)
			}
			if inPlace[t] {
				answers[i] = helmertBack(noisy, ns)
			} else {
				est[t] = helmertBack(noisy, ns)
			}
		}
	}
	var wsrc0 Source = src
	if crypto {
		wsrc0 = newCryptoBuffer()
	}
	for _, i := range empty {
		measure(i, []int64{total}, wsrc0)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wsrc := src
			if crypto {
				wsrc = newCryptoBuffer()
			}
			cnt := &counter{ctx: ctx, dims: p.Dims, cols: cols, pairs: pairs, w: data.Counts, pre: make([]uint32, countBlock)}
			for g := range next {
				tabs := cnt.count(p.Marginals, groups[g])
				if tabs == nil {
					continue // cancelled
				}
				for j, i := range groups[g].members {
					measure(i, tabs[j], wsrc)
					tabs[j] = nil
				}
			}
		}()
	}
	for g := range groups {
		if ctx.Err() != nil {
			break
		}
		next <- g
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rel := &MarginalRelease{Subspaces: len(p.Subspaces), Marginals: make([]MarginalAnswer, len(p.Marginals)),
		Noise: Noise{Mechanism: "discrete-gaussian", Eps: p.Eps, Delta: p.Delta, Sensitivity: 1, Scale: c * math.Sqrt(1+1e-12), Variance: c * c * (1 + 1e-12)}}
	// Noise.Scale is σ for the whole measurement at sensitivity 1; the
	// per-marginal variances are those of the noise drawn (s_T² rounded up).
	if noiseless {
		rel.Noise = Noise{Mechanism: "none"}
	}
	parallelFor(len(p.Marginals), runtime.GOMAXPROCS(0), func(i int) {
		m := p.Marginals[i]
		if p.bases != nil {
			rel.Marginals[i] = p.answerTyped(i, est, scale*rel.Noise.Variance)
			return
		}
		v := 0.0
		if !noiseless {
			// Var_S = Σ_{T ⊆ S} s_T² m_T n_T / n_S² (docs/MATH.md §15.11).
			ns := p.cells(m.Attrs)
			for k := p.off[i]; k < p.off[i+1]; k++ {
				t := p.subIdx[k]
				ts := p.Subspaces[t]
				v += par[t].variance() * p.cellsMinus(ts) * p.cells(ts) / (ns * ns)
			}
		}
		rel.Marginals[i] = MarginalAnswer{Attrs: append([]int(nil), m.Attrs...), Weight: m.Weight, Answers: reconstruct(p, i, est, answers[i]), Variance: v}
	})
	return rel, nil
}

// maxGroupCells returns the largest total of cells counted by one group.
func maxGroupCells(p *MarginalPlan, groups []countGroup) float64 {
	best := 0.0
	for _, g := range groups {
		c := 0.0
		for _, i := range g.members {
			c += p.cells(p.Marginals[i].Attrs)
		}
		best = math.Max(best, c)
	}
	return best
}

// parallelFor calls f(0), ..., f(n-1) on up to workers goroutines.
func parallelFor(n, workers int, f func(int)) {
	workers = max(1, min(workers, n))
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

// cellsMinus returns m_T = Π_{f ∈ T}(n_f - 1).
func (p *MarginalPlan) cellsMinus(t []int) float64 {
	m := 1.0
	for _, f := range t {
		m *= float64(p.Dims[f] - 1)
	}
	return m
}

// checkMarginalData validates data against dims and returns the total
// count.
func checkMarginalData(dims []int, data *MarginalData) (int64, error) {
	if len(data.Columns) != len(dims) {
		return 0, fmt.Errorf("linear: answer marginals: %w: %d data columns for %d attributes", run.ErrBadInput, len(data.Columns), len(dims))
	}
	rows := len(data.Columns[0])
	for f, col := range data.Columns {
		if len(col) != rows {
			return 0, fmt.Errorf("linear: answer marginals: %w: column %d has %d rows, column 0 has %d", run.ErrBadInput, f, len(col), rows)
		}
		n := int32(dims[f])
		for r, v := range col {
			if v < 0 || v >= n {
				return 0, fmt.Errorf("linear: answer marginals: %w: row %d: attribute %d has value %d, outside [0, %d)", run.ErrBadInput, r, f, v, n)
			}
		}
	}
	if data.Counts == nil {
		if int64(rows) > maxMarginalCount {
			return 0, fmt.Errorf("linear: answer marginals: %w: more than 2^53 records", run.ErrBadInput)
		}
		return int64(rows), nil
	}
	if len(data.Counts) != rows {
		return 0, fmt.Errorf("linear: answer marginals: %w: %d counts for %d rows", run.ErrBadInput, len(data.Counts), rows)
	}
	var total int64
	for r, v := range data.Counts {
		if v < 0 {
			return 0, fmt.Errorf("linear: answer marginals: %w: row %d has count %d (counts are >= 0)", run.ErrBadInput, r, v)
		}
		if total += v; v > maxMarginalCount || total > maxMarginalCount {
			return 0, fmt.Errorf("linear: answer marginals: %w: the total count exceeds 2^53", run.ErrBadInput)
		}
	}
	return total, nil
}

// sumOut returns the marginal over t (a subset of attrs) of ys, the
// marginal over attrs.
func sumOut(dims, attrs []int, ys []int64, t []int) []int64 {
	nt := 1
	keep := make([]bool, len(attrs))
	for k, f := range attrs {
		for _, g := range t {
			if g == f {
				keep[k] = true
				nt *= dims[f]
			}
		}
	}
	yt := make([]int64, nt)
	vals := make([]int, len(attrs))
	for c, v := range ys {
		q := 0
		for k, f := range attrs {
			if keep[k] {
				q = q*dims[f] + vals[k]
			}
		}
		yt[q] += v
		_ = c
		for k := len(attrs) - 1; k >= 0; k-- {
			if vals[k]++; vals[k] < dims[attrs[k]] {
				break
			}
			vals[k] = 0
		}
	}
	return yt
}

// helmertForward applies ⊗_k H_{ns[k]} (integer Helmert rows h_j =
// (1, ..., 1, -j, 0, ...), j = 1..n-1) to y, row-major with axis sizes ns.
func helmertForward(y []int64, ns []int) []int64 {
	cur := y
	shape := append([]int(nil), ns...)
	var prefix []int64
	for ax := range ns {
		n := shape[ax]
		outer, inner := axisSpan(shape, ax)
		out := make([]int64, outer*(n-1)*inner)
		prefix = append(prefix[:0], make([]int64, inner)...)
		for o := 0; o < outer; o++ {
			clear(prefix)
			// out_j = Σ_{k < j} cur_k - j cur_j, over the inner index.
			for j := 1; j < n; j++ {
				prev := cur[(o*n+j-1)*inner : (o*n+j)*inner]
				next := cur[(o*n+j)*inner : (o*n+j+1)*inner]
				dst := out[(o*(n-1)+j-1)*inner : (o*(n-1)+j)*inner]
				jj := int64(j)
				prev, next = prev[:len(dst)], next[:len(dst)]
				for i := range dst {
					prefix[i] += prev[i]
					dst[i] = prefix[i] - jj*next[i]
				}
			}
		}
		cur = out
		shape[ax] = n - 1
	}
	return cur
}

// helmertBack applies ⊗_k H_{ns[k]}^T diag(1/(j(j+1))) to z (axis sizes
// ns[k] - 1), the least-squares map from the residual measurements back
// to the T-marginal's residual (axis sizes ns).
func helmertBack(z []float64, ns []int) []float64 {
	cur := z
	shape := make([]int, len(ns))
	for k, n := range ns {
		shape[k] = n - 1
	}
	var suffix []float64
	for ax, n := range ns {
		outer, inner := axisSpan(shape, ax)
		out := make([]float64, outer*n*inner)
		suffix = append(suffix[:0], make([]float64, inner)...)
		for o := 0; o < outer; o++ {
			clear(suffix)
			// out_j = Σ_{k > j} a_k - j a_j, a_k = cur_k/(k(k+1)).
			for j := n - 1; j >= 1; j-- {
				src := cur[(o*(n-1)+j-1)*inner : (o*(n-1)+j)*inner]
				dst := out[(o*n+j)*inner : (o*n+j+1)*inner]
				d, fj := float64(j)*float64(j+1), float64(j)
				src = src[:len(dst)]
				for i := range dst {
					a := src[i] / d
					dst[i] = suffix[i] - fj*a
					suffix[i] += a
				}
			}
			copy(out[o*n*inner:(o*n+1)*inner], suffix)
		}
		cur = out
		shape[ax] = n
	}
	return cur
}

// reconstruct returns marginal i's estimate Σ_{T ⊆ S} est_T broadcast over
// S∖T and divided by Π_{f ∈ S∖T} n_f (T's attributes in S's order), added
// to out (nil for zeros; est_T is nil for the subspace already in out).
func reconstruct(p *MarginalPlan, i int, est [][]float64, out []float64) []float64 {
	s := p.Marginals[i].Attrs
	if out == nil {
		out = make([]float64, int(p.cells(s)))
	}
	if len(s) == 0 {
		for k := p.off[i]; k < p.off[i+1]; k++ {
			if e := est[p.subIdx[k]]; e != nil {
				out[0] += e[0]
			}
		}
		return out
	}
	vals := make([]int, len(s))
	stride := make([]int, len(s)) // T's row-major stride of each axis of S, 0 off T
	var tmp []float64
	for k := p.off[i]; k < p.off[i+1]; k++ {
		t := p.Subspaces[p.subIdx[k]]
		e := est[p.subIdx[k]]
		if e == nil {
			continue
		}
		div := 1.0
		st := 1
		for a := len(s) - 1; a >= 0; a-- {
			stride[a] = 0
			for _, g := range t {
				if g == s[a] {
					stride[a] = st
					st *= p.Dims[s[a]]
				}
			}
			if stride[a] == 0 {
				div *= float64(p.Dims[s[a]])
			}
		}
		tmp = append(tmp[:0], e...)
		for q := range tmp {
			tmp[q] /= div
		}
		// Odometer over all axes but the last; the last runs inner.
		clear(vals)
		last, nl := stride[len(s)-1], p.Dims[s[len(s)-1]]
		q0 := 0
		for c := 0; c < len(out); c += nl {
			row := out[c : c+nl]
			for v := range row {
				row[v] += tmp[q0+v*last]
			}
			for a := len(s) - 2; a >= 0; a-- {
				q0 += stride[a]
				if vals[a]++; vals[a] < p.Dims[s[a]] {
					break
				}
				q0 -= vals[a] * stride[a]
				vals[a] = 0
			}
		}
	}
	return out
}

// axisSpan returns the number of lines before and the stride after axis ax
// of a row-major array of the given shape: Π_{k<ax} shape[k] and
// Π_{k>ax} shape[k].
func axisSpan(shape []int, ax int) (outer, inner int) {
	outer, inner = 1, 1
	for k := 0; k < ax; k++ {
		outer *= shape[k]
	}
	for k := ax + 1; k < len(shape); k++ {
		inner *= shape[k]
	}
	return outer, inner
}

package lp

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/optdp/optdp/lp/internal/percol"
	"github.com/optdp/optdp/lp/internal/price"
	"github.com/optdp/optdp/lp/ldl"
)

// colElim is the column (output) elimination of per-column generation
// (docs/MATH.md §11.7): a column whose reduced costs show it unused is left
// out of the next relaxations (its X fixed at 0), and the certified bound
// keeps a term for it from multipliers of its own, priced against the
// other columns' row multipliers after every round (price.Column); a column
// that no longer prices out comes back.
type colElim struct {
	m, workers int
	active     []bool
	back       []int // times brought back: at elimBack the column stays (no column goes back and forth for ever)
	// Column o's pairs, multipliers and analysis at its last solve in a
	// relaxation (solved[o]); the multipliers are replaced by price.Column
	// while o is inactive.
	pairs   [][]Pair
	lam     [][]float64
	factors []percol.Column
	solved  []bool
	mass    []float64 // column o's mass sum_i X[i][o] in the last relaxation
	fresh   []bool    // seeded (seed) and in no relaxation since
	// Extra multipliers of an inactive column on pairs of p outside its
	// own list: extraLam[o][k] on p.Pairs[extra[o][k]] (see push).
	extra    [][]int
	extraLam [][]float64
	byI      [][]pushArc // p's pairs by I, by ascending W (pairsByI)
	// everyPair: every row is I in n−1 pairs of p (every ordered pair,
	// as a dense metric's problem lists them); coarse: the tolerance is
	// at least pushOnlyTol. See slack.
	everyPair, coarse bool
}

// Elimination thresholds: an active column is left out when its
// reduced-cost slack (see slack) is below -elimDrop |Dual|/n (|Dual|/n the
// mean row multiplier) and its mass below elimMass·n/M (elimMassLoose·n/M
// after a loose relaxation, see elimMassFor), unless it was brought back
// elimBack times, or once in a tight round (see update).
// priceIter caps price.Column's iterations. Columns are left out after
// round elimFirst and later: the first relaxation, with the start pairs
// only, is a poor guide to the outputs used (20×20 hotspots: 13 rounds
// and 527 iterations against 16 and 609 when leaving out after round 1).
const (
	elimFirst     = 2
	elimDrop      = 1e-5
	elimMass      = 0.1
	elimMassLoose = 0.3
	elimBack      = 2
	priceIter     = 40
)

// pushOnlyTol: from this tolerance on, colElim prices the columns left out
// of a problem with every ordered pair by push alone (see slack).
const pushOnlyTol = 1e-3

// elimDebug, when set, receives the elimination's per-round figures.
var elimDebug func(format string, args ...any)

func newColElim(m, workers int) *colElim {
	e := &colElim{m: m, workers: max(1, workers), active: make([]bool, m), back: make([]int, m), pairs: make([][]Pair, m),
		lam: make([][]float64, m), factors: make([]percol.Column, m), solved: make([]bool, m),
		mass: make([]float64, m), fresh: make([]bool, m), extra: make([][]int, m), extraLam: make([][]float64, m)}
	for o := range e.active {
		e.active[o] = true
	}
	return e
}

// startWith leaves out of the first relaxation every column not in keep
// (seed gives them the first relaxation's pairs and analysis afterwards).
func (e *colElim) startWith(keep []int) {
	clear(e.active)
	for _, o := range keep {
		e.active[o] = true
	}
}

// seed gives every column never solved the pairs ps and the analysis c of
// a solved column with those pairs (a common start), with multipliers 0,
// so that slack can price it and restrict bring it back.
func (e *colElim) seed(ps []Pair, c percol.Column) {
	for o, done := range e.solved {
		if !done {
			e.pairs[o], e.lam[o], e.factors[o] = ps, make([]float64, len(ps)), c.Symbolic()
			e.solved[o], e.fresh[o] = true, true
		}
	}
}

// restrict returns the active columns act, the problem restricted to them
// (p itself when every column is active), their pair lists, and the
// analysis of their last solve for solveColumns (nil before the first).
func (e *colElim) restrict(p *Problem, cols [][]int) ([]int, *Problem, [][]int, *percol.Factors) {
	n, m := p.N, p.M
	var act []int
	for o, a := range e.active {
		if a {
			act = append(act, o)
		}
	}
	if len(act) == 0 { // cannot happen: the columns attaining y stay
		for o := range e.active {
			e.active[o] = true
			act = append(act, o)
		}
	}
	var prev *percol.Factors
	if e.solved[act[0]] {
		prev = &percol.Factors{N: n, Pairs: make([][]Pair, len(act)), Cols: make([]percol.Column, len(act))}
		for j, o := range act {
			prev.Pairs[j], prev.Cols[j] = e.pairs[o], e.factors[o]
		}
	}
	if len(act) == m {
		return act, p, cols, prev
	}
	k := len(act)
	c := make([]float64, n*k)
	qcols := make([][]int, k)
	for j, o := range act {
		for i := 0; i < n; i++ {
			c[i*k+j] = p.C[i*m+o]
		}
		qcols[j] = cols[o]
	}
	return act, &Problem{N: n, M: k, C: c, Pairs: p.Pairs}, qcols, prev
}

// bytes is the memory e holds for the columns: their pairs, multipliers
// and analyses (an analysis shared by several columns counted once), and
// the pairs by row that pricing pushes along.
func (e *colElim) bytes() float64 {
	var b float64
	for _, as := range e.byI {
		b += float64(unsafe.Sizeof(pushArc{})) * float64(cap(as)) // pricing's pairs by row
	}
	seen := make(map[*ldl.Symbolic]bool)
	seenPairs := make(map[*Pair]bool)
	for o := range e.factors {
		c := &e.factors[o]
		b += 8 * float64(len(e.lam[o])+len(e.extraLam[o])+len(e.extra[o]))
		if ps := e.pairs[o]; len(ps) > 0 && !seenPairs[&ps[0]] {
			seenPairs[&ps[0]] = true
			b += 24 * float64(len(ps))
		}
		if c.LDL.Sym != nil && seen[c.LDL.Sym] {
			b += 8 * float64(len(c.LDL.D)+len(c.LDL.L))
			continue
		}
		seen[c.LDL.Sym] = true
		b += c.Bytes()
	}
	return b
}

// store keeps the active columns' pairs, multipliers (r.lam) and analysis
// (pc's, without the numeric factors: the next solve allocates its own,
// and pricing works in scratch), and expands the relaxation's X
// (n×len(act)) into x (n×m, zero in the inactive columns).
func (e *colElim) store(act []int, pc *percol.Factors, r *Result, x []float64) {
	n, m, k := pc.N, e.m, len(act)
	for j, o := range act {
		e.pairs[o] = pc.Pairs[j]
		e.lam[o] = slices.Clone(r.lam[pc.Off[j]:pc.Off[j+1]])
		e.factors[o] = pc.Cols[j].Symbolic()
		e.solved[o], e.fresh[o] = true, false
		e.extra[o], e.extraLam[o] = e.extra[o][:0], e.extraLam[o][:0]
	}
	clear(x)
	clear(e.mass)
	for i := 0; i < n; i++ {
		for j, o := range act {
			v := r.X[i*k+j]
			x[i*m+o] = v
			e.mass[o] += v
		}
	}
}

// term sets t_i = C[i][o] - (G_o^T lam_o)_i for column o's multipliers on
// its own pairs and on its extra ones (negative multipliers count as 0).
func (e *colElim) term(p *Problem, o int, t []float64) {
	n, m := p.N, p.M
	for i := 0; i < n; i++ {
		t[i] = p.C[i*m+o]
	}
	for k, q := range e.pairs[o] {
		l := max(e.lam[o][k], 0)
		t[q.I] -= l
		t[q.H] += q.W * l
	}
	for k, j := range e.extra[o] {
		q := p.Pairs[j]
		l := max(e.extraLam[o][k], 0)
		t[q.I] -= l
		t[q.H] += q.W * l
	}
}

// bound is the certified bound of p over every column (§11.2 with the
// multipliers of term: valid for any multipliers >= 0 on pairs of p):
// y_i = max_o t_i(o), bound = sum_i y_i.
func (e *colElim) bound(p *Problem) (float64, []float64) {
	n, m := p.N, p.M
	y := make([]float64, n)
	for i := range y {
		y[i] = math.Inf(-1)
	}
	t := make([]float64, n)
	for o := 0; o < m; o++ {
		e.term(p, o, t)
		for i, v := range t {
			y[i] = max(y[i], v)
		}
	}
	var sum float64
	for _, v := range y {
		sum += v
	}
	return sum, y
}

// slack prices the inactive columns against the row multipliers y of the
// active ones and returns, for every column o, its slack max_i (t_i - y_i)
// and its excess sum_i max(0, t_i - y_i). An active column's slack is <= 0
// (y is the maximum over the active columns, up to rounding), and how far
// below 0 says how far it is from being used. An inactive column keeps its
// multipliers when they still price it out (slack <= 0); otherwise push
// moves the excess onto rows with room, from those multipliers and, if
// some is left, from multipliers 0; if some is still left, price.Column
// searches new multipliers on the column's own pairs, followed by push
// again; the multipliers of the smallest excess are kept. Its excess is
// what its term adds to the bound of the active columns. The inactive
// columns are priced by the workers.
//
// When p lists every ordered pair (everyPair) and the tolerance is coarse
// (pushOnlyTol), price.Column is not run: push then reaches every row in
// one hop, and the column's own pairs are a subset of p's. On 1,600
// random points (two hot spots, eps 1, the subset start, Tol 1e-2)
// price.Column lowered the excess left by the pushes by 3 % in round 1
// and by nothing in rounds 3 to 5, at about 0.7 s per column it priced
// (round 5: 24 columns, pricing 25.9 s against 8.2 s in round 4 with
// none). At a tight tolerance the small excesses greedy leaves decide
// whether a column comes back: on 200 points at Tol 1e-6, leaving
// price.Column out made 10 rounds and 298 iterations instead of 9 and
// 222.
func (e *colElim) slack(p *Problem, y []float64) (sl, ex []float64) {
	n, m := p.N, p.M
	sl, ex = make([]float64, m), make([]float64, m)
	if e.byI == nil {
		e.byI = pairsByI(p.Pairs, n)
		e.everyPair = e.byI != nil
		for _, as := range e.byI {
			e.everyPair = e.everyPair && len(as) == n-1
		}
	}
	measure := func(o int, t []float64) {
		v, s := math.Inf(-1), 0.0
		for i := 0; i < n; i++ {
			v = max(v, t[i]-y[i])
			s += max(0, t[i]-y[i])
		}
		sl[o], ex[o] = v, s
	}
	var inactive []int
	t := make([]float64, n)
	for o := 0; o < m; o++ {
		if e.active[o] {
			e.term(p, o, t)
			measure(o, t)
		} else {
			inactive = append(inactive, o)
		}
	}
	var priced atomic.Int64
	defer func() {
		if elimDebug != nil {
			elimDebug("%d inactive columns, %d priced afresh", len(inactive), priced.Load())
		}
	}()
	parallel(len(inactive), e.workers, func(k int) {
		o := inactive[k]
		t := make([]float64, n)
		e.term(p, o, t)
		measure(o, t)
		if sl[o] <= 0 {
			return
		}
		// Pushing the excess of the last multipliers often suffices
		// when y moved little; else pushing from multipliers 0 (the last
		// ones may have filled rows that no longer have room); else
		// pricing afresh. The smallest excess is kept.
		type state struct {
			lam, extraLam []float64
			extra         []int
			ex            float64
		}
		keep := func() state {
			return state{e.lam[o], slices.Clone(e.extraLam[o]), slices.Clone(e.extra[o]), ex[o]}
		}
		restore := func(b state) {
			e.lam[o], e.extra[o], e.extraLam[o] = b.lam, b.extra, b.extraLam
			e.term(p, o, t)
			measure(o, t)
		}
		last := keep()
		e.push(p, o, y, t)
		measure(o, t)
		if sl[o] <= 0 {
			return
		}
		best := keep()
		e.lam[o] = make([]float64, len(e.pairs[o]))
		e.extra[o], e.extraLam[o] = nil, nil
		e.term(p, o, t)
		e.push(p, o, y, t)
		measure(o, t)
		if sl[o] <= 0 {
			return
		}
		if ex[o] < best.ex {
			best = keep()
		}
		if e.everyPair && e.coarse {
			restore(best)
			return
		}
		restore(last)
		priced.Add(1)
		c := &e.factors[o]
		b := make([]float64, n)
		for k, i := range c.Perm {
			b[k] = p.C[i*m+o] - y[i]
		}
		f := c.LDL
		if f.D == nil { // a column seeded, never solved: scratch values
			f.D, f.L = make([]float64, n), make([]float64, f.Sym.NNZ())
		}
		if lam, x := price.Column(&f, b, c.PP, priceIter, nil); x < ex[o] {
			e.lam[o] = lam
			e.extra[o], e.extraLam[o] = e.extra[o][:0], e.extraLam[o][:0]
			e.term(p, o, t)
		}
		e.push(p, o, y, t)
		measure(o, t)
		if ex[o] > best.ex {
			restore(best)
		}
	})
	return sl, ex
}

// push lowers inactive column o's excess over y, t holding its term, by
// raising multipliers of pairs (i, h) of p, each moving an excess d from
// row i to row h as W_ih d, the pairs of smallest W first (pushExcess).
// Any multipliers >= 0 on pairs of p keep the bound valid (§11.2).
func (e *colElim) push(p *Problem, o int, y, t []float64) {
	defer e.compact(o, len(t))
	pushExcess(e.byI, t, y, func(k int, d float64) {
		e.extra[o] = append(e.extra[o], k)
		e.extraLam[o] = append(e.extraLam[o], d)
	})
}

// compact merges column o's extra multipliers on the same pair (summing
// them) once there are more than 2n of them, so that repeated pushes over
// the rounds do not grow the lists without bound.
func (e *colElim) compact(o, n int) {
	if len(e.extra[o]) <= 2*n {
		return
	}
	sum := make(map[int]float64, len(e.extra[o]))
	for k, j := range e.extra[o] {
		sum[j] += e.extraLam[o][k]
	}
	keys := make([]int, 0, len(sum))
	for j := range sum {
		keys = append(keys, j)
	}
	slices.Sort(keys)
	e.extra[o], e.extraLam[o] = e.extra[o][:0], e.extraLam[o][:0]
	for _, j := range keys {
		e.extra[o] = append(e.extra[o], j)
		e.extraLam[o] = append(e.extraLam[o], sum[j])
	}
}

// elimMassFor is the mass threshold of update (times n/M) after a round
// whose relaxation was solved to the relative gap tol, from a common
// start with every column in the first relaxation (all) or not. A
// relaxation solved loosely is centred: every output keeps some mass,
// about in proportion to the gap, so the outputs the optimum leaves
// unused are told by their mass only against a higher threshold. Random
// points, two hot spots, eps 1, the common start, the columns' mass·M/n
// after the loose rounds (1e-2) against the outputs the last round used:
// 1,000 points, rounds 1-3, the used ones at least 0.70, 0.93 and 1.57,
// of the others half above 0.09, 0.23 and 0.23; 400 points, rounds 2-4,
// the used ones at least 0.82, 0.80 and 0.74, the others' median 0.22,
// 0.22 and 0.07. At 0.3 rather than 0.1 the loose rounds after the first
// at 1,000 points solved about 200 columns instead of about 490, and the
// whole took 522 and 561 s against 605 and 622 s side by side
// (docs/MATH.md §11.7). The threshold stays elimMass after tight rounds
// (2.4e-4 at 1,000 points, where the used ones had 0.46 or more and the
// others' median was 0.011), from the toward start of grids (loose rounds
// solved to looseTol), and from a spread subset of the columns
// (startColsMin), where the columns solved follow those priced back
// (2,500 points, one run: 208, 336, 307 and 457 in rounds 1-4 against
// 208, 336, 358 and 524 in an earlier run, whose rounds 2-4 were as fast
// or faster).
func elimMassFor(tol float64, all bool) float64 {
	if all && tol >= warmLooseTol {
		return elimMassLoose
	}
	return elimMass
}

// update decides the next round's active columns from the slacks and
// excesses of slack, the bound dual of the round, the tolerance tol,
// whether the relaxations are solved tightly, and the mass threshold
// (elimMassFor). An inactive column comes
// back when its excess is above tol·|dual|/(16 K), K the inactive columns
// (so that together they weaken the bound by less than tol/16); an active
// one is left out as the elimination thresholds say. A column brought back
// elimBack times, or once in a tight round, stays: generation, which goes
// on while columns come back, cannot cycle. It returns the numbers of
// columns left out and brought back.
func (e *colElim) update(p *Problem, sl, ex []float64, dual, tol float64, tight bool, mass float64) (dropped, revived int) {
	n, m := p.N, p.M
	if !(math.Abs(dual) > 0) || math.IsInf(dual, 0) {
		return 0, 0 // no scale for the thresholds: keep the columns as they are
	}
	scale := float64(n) / math.Abs(dual)
	inactive := 0
	for _, a := range e.active {
		if !a {
			inactive++
		}
	}
	back := tol * math.Abs(dual) / (16 * float64(max(1, inactive)))
	for o := 0; o < m; o++ {
		switch {
		case !e.active[o] && sl[o] > 0 && ex[o] > back:
			e.active[o] = true
			e.back[o]++
			if tight {
				e.back[o] = elimBack
			}
			revived++
		case e.active[o] && e.back[o] < elimBack && sl[o]*scale < -elimDrop && e.mass[o]*float64(m) < mass*float64(n):
			e.active[o] = false
			dropped++
		}
	}
	return dropped, revived
}

// parallel runs f(k) for k = 0..count-1 on the given number of goroutines
// (dynamic assignment: the columns' costs differ).
func parallel(count, workers int, f func(k int)) {
	workers = max(1, min(workers, count))
	if workers == 1 {
		for k := 0; k < count; k++ {
			f(k)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1)) - 1
				if k >= count {
					return
				}
				f(k)
			}
		}()
	}
	wg.Wait()
}

func sumOf(v []float64) float64 {
	var s float64
	for _, a := range v {
		s += a
	}
	return s
}

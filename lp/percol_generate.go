package lp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/optdp/optdp/run"
)

// violCheckCtx is how many pairs generateColumns checks for violations
// (each in every column) between checks of its ctx.
const violCheckCtx = 1 << 12

// generateColumns is Generate with per-column pair sets (GenerateOptions.
// PerColumn, docs/MATH.md §11.7). Every column starts from the pairs
// marked in start. A round solves the relaxation in which column o has
// only its own pairs (solveColumns: its certified dual value bounds p's
// optimum, since every column keeps a subset of p's constraints), repairs
// its answer against every pair of p (Repair: a feasible X and a lower
// bound), and adds to each column the pairs it violates: for every row,
// the most violated pair in which the row is I and the most violated in
// which it is H.
func generateColumns(ctx context.Context, p *Problem, g *GenerateOptions, o config, start []bool) (*GenerateResult, error) {
	n, m := p.N, p.M
	if err := o.Budget.Check(fmt.Sprintf("lp: generate: candidates of %d rows in %d columns", n, m),
		16*2*float64(n)*float64(m), ""); err != nil {
		return nil, err
	}
	var cols [][]int
	if start != nil {
		cols = make([][]int, m)
		var first []int
		for k, ok := range start {
			if ok {
				first = append(first, k)
			}
		}
		if err := o.Budget.Check(fmt.Sprintf("lp: generate: %d start pairs in %d columns", len(first), m),
			8*float64(len(first))*float64(m)+membersBytes(len(p.Pairs), len(first)), ""); err != nil {
			return nil, err
		}
		for c := range cols {
			cols[c] = slices.Clone(first)
		}
	} else {
		var err error
		if cols, err = towardStart(p, g.Toward, o.Budget); err != nil {
			return nil, err
		}
	}
	member, err := newColMembers(len(p.Pairs), cols)
	if err != nil {
		return nil, err
	}
	inner := o
	inner.Tol = o.Tol / 2
	// Early relaxations, which will gain many pairs, are solved loosely:
	// their bounds are as certified, only weaker, and their solutions
	// find the violated pairs as well.
	loose := inner
	loose.Tol = max(inner.Tol, looseTol)
	tight := false
	res := &GenerateResult{Result: Result{Dual: math.Inf(1)}}
	var best *Result
	x := make([]float64, n*m)
	// Per column and row, the most violated pair with the row as I and as H.
	byI, byH := make([]violCand, n*m), make([]violCand, n*m)
	ce := newColElim(m, o.Workers)
	ce.coarse = o.Tol >= pushOnlyTol
	// With a common start (a spanner's pairs in every column, the first
	// relaxation within the stretch of the full problem): early
	// relaxations solved to warmLooseTol, columns left out from round 1,
	// and each round started from the previous round's iterate (two
	// buffers, swapped; lp/percol_warm.go).
	common := start != nil
	var warmFrom, warmTo *colWarm
	// With a common start on many columns, the first relaxation has a
	// spread twelfth of them (startColsFrac); the others are priced after
	// it and come back as their prices say (colElim).
	subset := common && m >= startColsMin && m == n && !g.KeepColumns
	var lw []float64 // subset: the log-ratio table of spreadColumns
	if subset {
		var err error
		if lw, err = logRatios(p, o.Budget); err != nil {
			return nil, err
		}
		keep, err := spreadColumns(ctx, lw, n, max(startColsMin/startColsFrac, m/startColsFrac))
		if err != nil {
			return nil, err
		}
		ce.startWith(keep)
	}
	if common {
		loose.Tol = max(inner.Tol, warmLooseTol)
		warmFrom, warmTo = newColWarm(n, m, warmGapLoose), newColWarm(n, m, warmGapLoose)
	}
	var extra [][2]int // rounds that take every significant violation (takeEvery): those (pair, column)
	lastAdded, lastTotal := 0, 0
	lastGap := math.Inf(1)
	refine := false // a coarse tight round added nothing: the next is solved to inner.Tol
	for round := 1; round <= g.MaxRounds; round++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("lp: generate: interrupted in round %d: %w", round, err)
		}
		start := time.Now()
		ro := loose
		if tight {
			ro = inner
			// From a common start, the pairs a relaxation still lacks
			// move its optimum by about the gap the last round left: it
			// is solved no tighter than a share of that (coarseTight).
			if common && !refine {
				ro.Tol = max(ro.Tol, min(loose.Tol, coarseTight*lastGap))
			}
		}
		if lastGap <= closeGap*o.Tol {
			ro.Tol = min(ro.Tol, o.Tol/4)
		}
		act, q, qcols, prev := ce.restrict(p, cols)
		if warmTo != nil {
			ro.colAct, ro.colWarm, ro.colCapture = act, warmFrom, warmTo
			if float64(lastAdded) > warmAdded*float64(lastTotal) {
				ro.colWarm = nil
			}
			warmTo.taken = false
			warmTo.gap = warmGapLoose
			if tight {
				warmTo.gap = warmGapTight
			}
		}
		// The round's solver gets the budget less what generation holds:
		// the pair lists and their sorted copies (membership), the
		// iterates by column, the candidates, the log-ratio table and the
		// columns' analyses.
		listed := 0
		for _, ks := range cols {
			listed += len(ks)
		}
		held := 8*float64(len(lw)+listed+2*len(extra)) + membersBytes(len(p.Pairs), listed) + 40*float64(n)*float64(m) + ce.bytes()
		ro.Budget = o.Budget.Less(held)
		r, pc, err := solveColumns(ctx, q, qcols, ro, prev)
		if ro.colWarm != nil && (r == nil || r.warm) && errors.Is(err, run.ErrNotConverged) {
			// A warm start can stall where a cold one does not (an
			// iterate kept near the boundary of pairs whose slacks the
			// added pairs' residuals pull down): the round again, cold
			// (also when the solve stopped before any certificate, which
			// does not say whether it started warm).
			ro.colWarm = nil
			warmTo.taken = false
			res.coldAgain++
			r, pc, err = solveColumns(ctx, q, qcols, ro, pc)
		}
		warmFrom, warmTo = warmTo, warmFrom
		if r == nil {
			if errors.Is(err, run.ErrTooLarge) {
				err = fmt.Errorf("lp: generate: round %d, beside the %s that generation holds of the budget of %s: %w",
					round, run.FormatBytes(held), run.FormatBytes(float64(o.Budget.Bytes())), err)
			} else {
				err = fmt.Errorf("lp: generate: round %d: %w", round, err)
			}
			if best == nil {
				return nil, err
			}
			// The best certified answer of the rounds before.
			res.X, res.Primal, res.Mix = best.X, best.Primal, best.Mix
			res.Gap = relGap(res.Primal, res.Dual)
			return res, err
		}
		if r.warm {
			res.warmRounds++
		}
		if tight && ro.Tol > inner.Tol {
			res.coarse++
		}
		ce.store(act, pc, r, x)
		if subset && round == 1 {
			ce.seed(pc.Pairs[0], pc.Cols[0])
		}
		res.ActiveColumns = len(act)
		// The certified bound over every column: the inactive ones priced
		// against the active ones' row multipliers (docs/MATH.md §11.7).
		t0 := time.Now()
		sl, ex := ce.slack(p, r.Y)
		yAct := r.Y
		r.Dual, r.Y = ce.bound(p)
		if elimDebug != nil {
			elimDebug("round %d: %d active columns, pricing %.3gs, bound %.10g (active columns %.10g)", round, len(act), time.Since(t0).Seconds(), r.Dual, sumOf(yAct))
		}
		res.Rounds = round
		res.Iterations += r.Iterations
		res.ColumnPairs = res.ColumnPairs[:0]
		for _, ks := range cols {
			res.ColumnPairs = append(res.ColumnPairs, len(ks))
		}
		res.Pairs = slices.Max(res.ColumnPairs)
		prevDual := res.Dual
		if r.Dual < res.Dual {
			res.Dual, res.Y = r.Dual, r.Y
		}
		// From a common start, the loose rounds end once the bound moves
		// by less than they resolve (boundStalled).
		stalled := common && !tight && boundStalled(prevDual, res.Dual, ro.Tol)
		// Violations of the relaxation's solution, per column.
		for k := range byI {
			byI[k], byH[k] = violCand{-1, 0}, violCand{-1, 0}
		}
		// Violations whose repair costs far below the tolerance are not
		// worth a round; tight rounds, each costly, take all that could
		// matter at once.
		thresh := o.Tol / 64
		if tight {
			thresh = o.Tol / 1024
		}
		// Only the columns of the relaxation: the others are 0 in x.
		var viol int
		// A tight round takes every significant violation only when its
		// relaxation was solved below looseTol: a coarser one is centred,
		// and its many small violations are of the centring (docs/MATH.md
		// §11.7, Separation).
		every := takeEvery(tight, ro.Tol)
		viol, extra, err = scanViolations(ctx, p, x, act, member, tight, every, thresh, byI, byH, extra[:0], o.Workers)
		if err != nil {
			return nil, fmt.Errorf("lp: generate: interrupted in round %d: %w", round, err)
		}
		res.Violated = append(res.Violated, viol)
		// A feasible answer: the best of the solution raised and trimmed
		// (trimRepair), lowered or raised to its feasible minorant or
		// majorant per column and renormalised (closureRepair, when it
		// fits closureWorkMax), and repaired against every pair by mixing
		// with the uniform matrix (Repair).
		var cands [][]float64
		var ts []float64
		for _, up := range []bool{false, true} {
			cx, ct, cok, err := closureRepair(ctx, p, x, o.Margin, up)
			if err != nil {
				return nil, err
			}
			if cok {
				cands, ts = append(cands, cx), append(ts, ct)
			}
		}
		// Raise and trim (within trimWorkMax).
		tx, tt, tok, err := trimRepair(ctx, p, x, o.Margin)
		if err != nil {
			return nil, err
		}
		if tok {
			cands, ts = append(cands, tx), append(ts, tt)
		}
		tr, err := repairCtx(ctx, p, x, o.Margin)
		if err != nil {
			return nil, err
		}
		v := p.objective(x)
		for k, cx := range cands {
			cv := p.objective(cx)
			if elimDebug != nil {
				elimDebug("round %d: closure repair %d: %.10g (mix %.3g) against %.10g", round, k, cv, ts[k], v)
			}
			if cv > v {
				x, v, tr = cx, cv, ts[k]
			}
		}
		if best == nil || v > best.Primal {
			best = &Result{X: slices.Clone(x), Primal: v, Mix: 1 - (1-r.Mix)*(1-tr)}
		}
		gap := relGap(best.Primal, res.Dual)
		lastGap = gap
		pr := run.NewProgress("cuts")
		pr.Iter, pr.MaxIter, pr.Gap, pr.Value = round, g.MaxRounds, gap, best.Primal
		total := 0
		for _, c := range res.ColumnPairs {
			total += c
		}
		pr.Message = fmt.Sprintf("round %d: %d pairs in %d columns (%d solved, at most %d pairs per column), %d violated, bound %.7g, round %.3gs, %d iterations",
			round, total, m, len(act), res.Pairs, viol, res.Dual, time.Since(start).Seconds(), r.Iterations)
		o.Report(pr)
		if gap <= o.Tol {
			break
		}
		revived := 0
		if !g.KeepColumns && (round >= elimFirst || common) {
			var dropped int
			dropped, revived = ce.update(p, sl, ex, r.Dual, o.Tol, tight, elimMassFor(ro.Tol, common && !subset))
			if subset {
				// A column back for the first time starts from the pairs
				// of the nearest column solved before (the binding pairs
				// of nearby outputs are alike), not from the start alone.
				for c, a := range ce.active {
					if !a || !ce.fresh[c] {
						continue
					}
					near, best := -1, math.Inf(1)
					for c2, f := range ce.fresh {
						if d := min(lw[c*n+c2], lw[c2*n+c]); !f && c2 != c && d < best {
							near, best = c2, d
						}
					}
					if near < 0 {
						continue
					}
					for _, k := range cols[near] {
						if !member.in(c, k) {
							member.put(c, k)
							cols[c] = append(cols[c], k)
						}
					}
					member.flush(c)
					ce.fresh[c] = false
				}
			}
			if elimDebug != nil {
				elimDebug("round %d: %d columns left out, %d brought back; gap %.3g", round, dropped, revived, gap)
			}
		}
		// Only a round solved to the inner tolerance may end generation:
		// a coarser one that finds nothing to add is solved again tightly.
		final := tight && ro.Tol <= inner.Tol
		if final && viol == 0 && revived == 0 {
			break
		}
		// Each column gains its candidates by row, then its tight
		// round's pairs (extra, in order within the column).
		byCol := extraByColumn(extra, m)
		added := 0
		for c := 0; c < m; c++ {
			inCol := 0
			for _, cs := range [2][]violCand{byI[c*n : c*n+n], byH[c*n : c*n+n]} {
				for _, b := range cs {
					if b.k < 0 || inCol >= g.MaxAdd {
						continue
					}
					if member.in(c, b.k) {
						continue // chosen for both of its rows
					}
					member.put(c, b.k)
					cols[c] = append(cols[c], b.k)
					inCol++
				}
			}
			added += inCol
			for _, e := range extra[byCol[c]:byCol[c+1]] {
				if k := e[0]; !member.in(c, k) {
					member.put(c, k)
					cols[c] = append(cols[c], k)
					added++
				}
			}
			member.flush(c)
		}
		lastAdded, lastTotal = added, total+added
		if added == 0 && revived == 0 {
			if final {
				// Every violation is below the threshold: nothing worth a round.
				break
			}
			refine = true // the same relaxation, solved tightly
			res.refined++
		}
		// Solve tightly once the loose rounds add little.
		tight = tight || viol < m || added < m || round >= g.MaxRounds/2 || stalled
	}
	res.X, res.Primal, res.Mix = best.X, best.Primal, best.Mix
	res.Gap = relGap(res.Primal, res.Dual)
	if res.Gap > o.Tol {
		return res, fmt.Errorf("lp: generate: certified gap %.3g after %d rounds (tolerance %.3g): %w", res.Gap, res.Rounds, o.Tol, run.ErrNotConverged)
	}
	return res, nil
}

// violCand is a column's most violated pair for a row so far in
// scanViolations: the pair's index k (-1 for none) and its repair weight t.
type violCand struct {
	k int
	t float64
}

// scanViolations finds the pairs of p that x (row-major, p.N×p.M) violates
// in the columns act and that are not in the column's list (member). A
// violation a = x_I − W' x_H > 0, W' = W, or W(1 − nearSlack) when not
// tight (the loose rounds also take pairs nearly violated), weighs
// t = a/(a + (W−1)/M), the share of the uniform matrix its repair needs
// (§11.3). It returns the number of
// strict violations x_I > W x_H; for each column c and row i it keeps in
// byI[c·N+i] (byH) the pair of greatest weight with I = i (H = i) among
// those of weight at least thresh, and when every it appends every such
// (pair, column) to extra. The columns are shared among workers
// goroutines, each scanning every pair in order for its own, so the
// results, and the order of extra's entries within a column, are those of
// a scan by pairs. A cancelled ctx returns its error.
func scanViolations(ctx context.Context, p *Problem, x []float64, act []int, member *colMembers, tight, every bool, thresh float64, byI, byH []violCand, extra [][2]int, workers int) (int, [][2]int, error) {
	n, m := p.N, p.M
	workers = max(1, min(workers, len(act)))
	viols := make([]int, workers)
	extras := make([][][2]int, workers)
	var stop atomic.Bool
	parallel(workers, workers, func(w int) {
		cs := act[w*len(act)/workers : (w+1)*len(act)/workers]
		held := make([]cursor, len(cs))
		for j, c := range cs {
			held[j].ks = member.sorted[c]
		}
		viol, ext := 0, extras[w]
		for k, q := range p.Pairs {
			if k%violCheckCtx == 0 && (stop.Load() || ctx.Err() != nil) {
				stop.Store(true)
				return
			}
			ri, rh := x[q.I*m:q.I*m+m], x[q.H*m:q.H*m+m]
			slack := (q.W - 1) / float64(m)
			wn := q.W
			if !tight {
				wn *= 1 - nearSlack
			}
			for j, c := range cs {
				a := ri[c] - wn*rh[c]
				if a <= 0 || held[j].at(k) {
					continue
				}
				if ri[c] > q.W*rh[c] {
					viol++
				}
				t := a / (a + slack)
				if t < thresh {
					continue
				}
				if every {
					ext = append(ext, [2]int{k, c})
				}
				if b := &byI[c*n+q.I]; t > b.t {
					*b = violCand{k, t}
				}
				if b := &byH[c*n+q.H]; t > b.t {
					*b = violCand{k, t}
				}
			}
		}
		viols[w], extras[w] = viol, ext
	})
	if stop.Load() {
		return 0, extra, ctx.Err() // set once cancelled, never cleared
	}
	viol := 0
	for w := range viols {
		viol += viols[w]
		extra = append(extra, extras[w]...)
	}
	return viol, extra, nil
}

// takeEvery reports whether a round, tight or not, whose relaxation was
// solved to the relative gap tol adds every significant violation of its
// answer (scanViolations' every): only a tight one solved below looseTol.
func takeEvery(tight bool, tol float64) bool {
	return tight && tol < looseTol
}

// closeGap: once a round's certified gap is within closeGap·Tol, the next
// round may be the last, and generateColumns solves its relaxation to
// Tol/4 whether loose or tight: a round's answer and bound are no closer
// than its relaxation's own gap. A loose round solved to warmLooseTol
// (1e-2) cannot certify a tolerance of 1e-2 however good its repair: on
// 2,500 random points (Tol 1e-2) round 5 ended at 0.0108.
const closeGap = 4

// boundStalled reports whether a round's certified bound, prev before it
// and cur after, moved by less than tol·|cur|: the relative gap to which
// the round's relaxation was solved. A loose relaxation's bound places
// its optimum no closer than that, so the pairs such rounds still add
// change it by less than they can see, and generateColumns solves the
// rounds after tightly. From a common start (loose rounds to
// warmLooseTol; random points, two hot spots, eps 1, Tol 1e-6, 2 cores,
// side by side): 200 points 9 → 7 rounds and 222 → 203 iterations, 400
// points 8 → 7 rounds and 315 → 304 iterations; 1,000 points 7, 8 and 8
// rounds in three runs against 9, in about the same time (the tight
// rounds ruled it; see coarseTight). From the toward start (loose rounds
// to looseTol, whose bound resolves more) the rule lost: on the 20×20
// Euclidean grid with hot spots 441 → 653 iterations.
func boundStalled(prev, cur, tol float64) bool {
	return prev-cur < tol*math.Abs(cur)
}

// coarseTight: a tight round of generateColumns solves its relaxation to
// no less than coarseTight times the certified gap of the round before
// (and at most to the loose rounds' tolerance): the pairs its answer
// still violates, whose repair made that gap, move the full problem's
// optimum by about as much, so a tighter solve buys digits the next
// round discards. Random points, two hot spots, eps 1, Tol 1e-6, 2
// cores, side by side: 1,000 points 708 → 478-572 iterations and 848 →
// 571-629 s in three runs (the first tight round 100 → 54 iterations,
// and the pairs per column of the tight rounds after it at most 26,301
// instead of 39,477); 400 points 304 → 280 iterations, 200 points 203 →
// 174. From the toward start of grids the rule was mixed (Euclidean
// grids, iterations: 12×12 uniform 112 → 139, hot spots 229 → 251; 20×20
// uniform 211 → 198, hot spots 441 → 420) and is not applied. A variable
// so that tests can take the other paths.
var coarseTight = 1e-2

// looseTol is the relative gap to which generateColumns solves the
// relaxations while they still gain many pairs.
const looseTol = 1e-3

// The rounds of generateColumns from a common start (a spanner's pairs in
// every column; random planar points, two hot spots, eps 1, distance loss,
// Tol 1e-6, load 8-11 on 2 cores: 200 points 380 → 237-244 iterations,
// 400 points 539 → 393 iterations and 79 → 65 CPU s): the loose rounds
// are solved to warmLooseTol; a round starts from the previous round's
// iterate kept at the relative gap warmGapLoose (a loose round) or
// warmGapTight (a tight one) when the round added at most warmAdded of
// the pairs (more, and the added pairs' large residuals make the first
// steps short: 86 iterations against 44 cold with 23 % added).
const (
	warmLooseTol = 1e-2
	warmGapLoose = 1e-1
	warmGapTight = 1e-3
	warmAdded    = 0.02
)

// nearSlack: a loose relaxation's solution is centred, not a vertex, and
// misses some pairs that the tight one will violate; the loose rounds also
// add the pairs within this relative slack, x_I > (1-nearSlack) W x_H.
var nearSlack = 0.02

// towardStart returns, for every column o = 0..M-1 of a square problem, the
// start of per-column generation: for every row h != o, the k pairs (i, h)
// of p (X[i][o] <= W X[h][o]) whose row i lies most nearly between h and o,
// by the triangle excess log W(i,h) + log W(o,i) - log W(o,h) (ties by the
// smaller ratio), among h's 4k pairs of smallest ratio. On a location grid
// these bound the decay of column o away from o, the constraints that
// bind at the optimum; each column's graph is nearly a tree, whose
// factorisation has little fill. The log-ratios of the pairs (o, i) are
// kept in an N×N table (checked against budget); an absent pair counts as
// an infinite excess, and a row without candidates gets its k pairs of
// smallest ratio.
func towardStart(p *Problem, k int, budget run.Budget) ([][]int, error) {
	n, m := p.N, p.M
	lw, err := logRatios(p, budget)
	if err != nil {
		return nil, err
	}
	byH := make([][]int, n) // pairs by H, ascending ratio
	for j, q := range p.Pairs {
		byH[q.H] = append(byH[q.H], j)
	}
	pool := 4 * k
	for h, js := range byH {
		slices.SortFunc(js, func(a, b int) int {
			if c := cmp.Compare(p.Pairs[a].W, p.Pairs[b].W); c != 0 {
				return c
			}
			return p.Pairs[a].I - p.Pairs[b].I
		})
		byH[h] = js[:min(pool, len(js))]
	}
	cols := make([][]int, m)
	type scored struct {
		j int
		e float64
	}
	var cand []scored
	for o := range cols {
		for h := 0; h < n; h++ {
			if h == o && o < n {
				continue
			}
			cand = cand[:0]
			for _, j := range byH[h] {
				q := p.Pairs[j]
				e := math.Inf(1)
				if o < n {
					a, b, c := lw[q.I*n+q.H], lw[o*n+q.I], lw[o*n+h]
					e = a + b - c
					// Rows on a geodesic (collinear on a grid) have
					// excess 0 up to the rounding of the logs: a tie,
					// which the smaller ratio breaks.
					if e <= 1e-12*(a+b+c) {
						e = 0
					}
				}
				cand = append(cand, scored{j, e})
			}
			slices.SortStableFunc(cand, func(a, b scored) int { return cmp.Compare(a.e, b.e) })
			for _, c := range cand[:min(k, len(cand))] {
				cols[o] = append(cols[o], c.j)
			}
		}
	}
	return cols, nil
}

// extraByColumn sorts extra's (pair, column) entries by column, stably, and
// returns the offsets: column c's entries are extra[off[c]:off[c+1]].
func extraByColumn(extra [][2]int, m int) []int {
	off := make([]int, m+1)
	for _, e := range extra {
		off[e[1]+1]++
	}
	for c := 0; c < m; c++ {
		off[c+1] += off[c]
	}
	sorted := make([][2]int, len(extra))
	next := slices.Clone(off[:m])
	for _, e := range extra {
		sorted[next[e[1]]] = e
		next[e[1]]++
	}
	copy(extra, sorted)
	return off
}

package ldl

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/optdp/optdp/run"
)

// spannerTol is the relative slack of the spanner test: a pair whose
// log-ratio is matched by a chain up to this factor counts as implied (the
// rounding of exp and of the chain's sum). The rounding it admits is removed
// by the final Repair against the full set of pairs.
const spannerTol = 1e-12

// Spanner returns a subset of the pairs ps on n rows that implies every pair
// of ps up to the stretch delta >= 1, chosen by the greedy spanner algorithm
// (Althöfer et al. 1993; for privacy constraints Bordenabe, Chatzikokolakis
// and Palamidessi, CCS 2014) on the directed graph with edge lengths
// log W: every pair (i,h,W) of ps has a chain i = v_0 -> v_1 -> ... -> v_r = h
// of returned pairs with
//
//	sum_t log W_{v_t v_{t+1}} <= delta · log W · (1 + 1e-12).
//
// Consequences (docs/MATH.md §11.5): with delta = 1 the returned pairs
// define the same feasible set as ps up to the rounding of the ratios (for a
// Manhattan grid's complete list of pairs they are its 4-neighbour edges);
// with the returned ratios replaced by W^{1/delta} (Stretch) every X
// satisfying them satisfies all of ps, so the spanner LP's solutions are
// private for the full metric.
//
// Pairs are scanned by increasing ratio (ties by rows); a pair is added when
// the current graph has no chain short enough, which Dijkstra's algorithm
// decides from cached distances (Farshi–Gudmundsson: a cached distance is an
// upper bound, so only a failed test recomputes), or, with
// opts.Lower, by a search toward the pair's second row guided by that
// bound (A*). While the graph is symmetric (every pair kept with its
// reverse), the reverse of a pair just kept, which comes next in the
// order, is kept without a search: a chain for it would be one for the
// pair, reversed. The cache holds n² float64
// values: Spanner refuses (wrapping run.ErrTooLarge) when they, with 64 bytes
// per pair, exceed opts.Budget, and for more than 2²¹−1 rows (the sort's packed
// keys). Errors also for delta < 1 or not finite, and for malformed pairs.
//
// Spanner also returns the stretch it observed, stretch <= delta(1+1e-12):
// the largest ratio of a chain's log-length (as bounded when the pair was
// tested) to log W. The pairs imply ps at that stretch, which can be far
// below delta (1 for a Manhattan grid whatever delta), and Stretch with it
// loses less.
//
// With a group opts.Symmetry of symmetries of ps (permutations of the rows
// mapping every pair to a pair of the same ratio; nil for none), every
// pair added comes with its whole orbit, so the returned list is invariant
// under the group. Since the graph stays
// invariant, the images of a pair that needs adding need it too: the
// result is the greedy spanner of one order of the pairs, whole orbits at
// a time. A cancelled ctx stops the search with its error.
func Spanner(ctx context.Context, n int, ps []Pair, delta float64, opts *SpannerOptions) ([]Pair, float64, error) {
	var budget run.Budget
	var elems [][]int
	var start []Pair
	maxPairs, landmarks := 0, 0
	var lowerFn func(i, h int) float64
	if opts != nil {
		budget, elems, maxPairs, start, landmarks = opts.Budget, opts.Symmetry, opts.MaxPairs, opts.Start, opts.Landmarks
		if elems == nil {
			lowerFn = opts.Lower
		}
	}
	if err := budget.Validate(); err != nil {
		return nil, 0, fmt.Errorf("ldl: spanner: %w", err)
	}
	if !(delta >= 1) || math.IsInf(delta, 1) {
		return nil, 0, fmt.Errorf("ldl: spanner stretch %v: want a finite delta >= 1: %w", delta, run.ErrBadInput)
	}
	if n < 1 {
		return nil, 0, fmt.Errorf("ldl: spanner on %d rows: %w", n, run.ErrBadInput)
	}
	if n > spanKeyRows {
		return nil, 0, fmt.Errorf("ldl: spanner on %d rows, at most %d: %w", n, spanKeyRows, run.ErrTooLarge)
	}
	for k, q := range ps {
		if q.I < 0 || q.I >= n || q.H < 0 || q.H >= n || q.I == q.H || !(q.W > 1) || math.IsInf(q.W, 1) {
			return nil, 0, fmt.Errorf("ldl: spanner: pair %d = (%d,%d,%v) malformed: %w", k, q.I, q.H, q.W, run.ErrBadInput)
		}
	}
	for k, q := range start {
		if q.I < 0 || q.I >= n || q.H < 0 || q.H >= n || q.I == q.H || !(q.W > 1) || math.IsInf(q.W, 1) {
			return nil, 0, fmt.Errorf("ldl: spanner: start pair %d = (%d,%d,%v) malformed: %w", k, q.I, q.H, q.W, run.ErrBadInput)
		}
	}
	what := "dropping implied pairs"
	if delta > 1 {
		what = fmt.Sprintf("the %.3g-spanner", delta)
	}
	if maxPairs > 0 {
		// Every row that is the I of a pair needs a chain from it: one
		// kept pair at least (start's pairs are kept).
		from := make([]bool, n)
		rows := 0
		for _, list := range [2][]Pair{start, ps} {
			for _, q := range list {
				if !from[q.I] {
					from[q.I] = true
					rows++
				}
			}
		}
		if rows > maxPairs {
			return nil, 0, fmt.Errorf("ldl: %s keeps at least %d pairs (one from each of %d rows), more than the %d its caller can hold: %w", what, rows, rows, maxPairs, ErrMaxPairs)
		}
	}
	// The distances (N² values), the sort keys (24 bytes per pair, kept
	// through the search), the result (up to 24).
	if err := budget.Check(fmt.Sprintf("ldl: spanner of %d pairs on %d rows", len(ps), n), run.DenseBytes(n, n, 1)+64*float64(len(ps)), ""); err != nil {
		return nil, 0, err
	}
	// A landmark's chains are kept up to the largest bound of ps.
	reach := 0.0
	if landmarks > 0 {
		for _, q := range ps {
			reach = max(reach, delta*math.Log(q.W)*(1+spannerTol))
		}
	}
	marks, err := newSpanMarks(n, landmarks, reach, budget.Less(run.DenseBytes(n, n, 1)+64*float64(len(ps))))
	if err != nil {
		return nil, 0, err
	}
	// The pairs by ratio, then by their rows (the smaller, the larger,
	// then I): sorted as keys held in place, not as indices into ps (each
	// comparison two reads at random in ps). The ratios are finite and
	// > 1, so their bits order them; the rows fit in 21 bits each below
	// spanKeyRows rows, whose N² distances no budget allows.
	keys := make([]spanKey, len(ps))
	for k, q := range ps {
		lo, hi := min(q.I, q.H), max(q.I, q.H)
		keys[k] = spanKey{w: math.Float64bits(q.W), rows: uint64(lo)<<42 | uint64(hi)<<21 | uint64(q.I), k: k}
	}
	// With MaxPairs, only a prefix is sorted first (a spanner too large
	// is found within it), the rest if the search gets there.
	sorted := len(keys)
	if maxPairs > 0 && maxPairs < len(keys)/spanPrefix {
		sorted = spanPrefix * maxPairs
		selectSmallest(keys, sorted)
	}
	slices.SortFunc(keys[:sorted], compareSpanKeys)
	g := &digraph{adj: make([][]arc, n)}
	// cache[i][h] bounds the chain from i to h; 0 (as allocated) for no
	// bound yet: chains between distinct rows are longer (log W > 0).
	cache := make([][]float64, n)
	out := slices.Clone(start)
	stretch := 1.0
	d := newDijkstra(n)
	var added map[int64]bool
	if elems != nil {
		added = make(map[int64]bool)
	}
	for _, q := range start {
		g.adj[q.I] = append(g.adj[q.I], arc{to: q.H, l: math.Log(q.W)})
		if marks != nil {
			marks.arc(q.I, q.H, math.Log(q.W))
		}
		if added != nil {
			added[int64(q.I)*int64(n)+int64(q.H)] = true
		}
	}
	if maxPairs > 0 && len(out) > maxPairs {
		return nil, 0, fmt.Errorf("ldl: %s keeps more than %d pairs, the most its caller can hold (%d given to start from): %w", what, maxPairs, len(out), ErrMaxPairs)
	}
	// keep adds q, of log-ratio l, to the spanner.
	keep := func(q Pair, l float64) {
		g.adj[q.I] = append(g.adj[q.I], arc{to: q.H, l: l})
		if c := cache[q.I]; c != nil {
			c[q.H] = lowerBound(c[q.H], l)
		}
		if marks != nil {
			marks.arc(q.I, q.H, l)
			marks.keep(g, d, q.I, q.H, l)
		}
		out = append(out, q)
	}
	// over is the error once more pairs are kept than MaxPairs, after
	// the test of the t-th.
	over := func(t int) error {
		if maxPairs > 0 && len(out) > maxPairs {
			return fmt.Errorf("ldl: %s keeps more than %d pairs, the most its caller can hold (%d of %d pairs tested): %w", what, maxPairs, t+1, len(keys), ErrMaxPairs)
		}
		return nil
	}
	// sym: the graph is symmetric (every arc's reverse, of the same
	// length, in it) but for the pair kept at test kept, whose reverse,
	// if it comes next, is kept without a search.
	sym, kept := elems == nil && Symmetric(start), -2
	runs := 0
	var progress func(run.Progress)
	if opts != nil {
		progress = opts.Progress
	}
	report := func(t int) {
		if progress != nil {
			pr := run.NewProgress(run.StagePrune)
			pr.Iter, pr.MaxIter, pr.Frac = t, len(keys), float64(t)/float64(len(keys))
			pr.Message = fmt.Sprintf("%s: %d of %d pairs tested, %d kept", what, t, len(keys), len(out))
			progress(pr)
		}
	}
	for t := range keys {
		if t == sorted {
			slices.SortFunc(keys[t:], compareSpanKeys)
			sorted = len(keys)
		}
		k := keys[t].k
		if t%spanCheckCtx == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, fmt.Errorf("ldl: spanner: %w", err)
			}
			if t%(64*spanCheckCtx) == 0 {
				report(t)
			}
		}
		q := ps[k]
		l := math.Log(q.W)
		if sym && kept == t-1 {
			if p := out[len(out)-1]; q.I == p.H && q.H == p.I && q.W == p.W {
				// The reverse of the pair just kept, on a symmetric
				// graph: a chain from q.I to q.H would be one from p.I
				// to p.H reversed, of the same arcs, which has none.
				keep(q, l)
				if err := over(t); err != nil {
					return nil, 0, err
				}
				continue
			}
			sym = false // a pair kept without its reverse
		}
		bound := delta * l * (1 + spannerTol)
		if lowerFn != nil {
			c, ok := 0.0, false
			if marks != nil {
				c, ok = marks.chain(q.I, q.H, bound)
			}
			if !ok {
				if runs++; runs%spanCheckRuns == 0 {
					if err := ctx.Err(); err != nil {
						return nil, 0, fmt.Errorf("ldl: spanner: %w", err)
					}
					report(t)
				}
				h := q.H
				c = d.toward(g, q.I, h, bound, func(v int) float64 { return lowerFn(v, h) })
			}
			if c <= bound {
				stretch = max(stretch, c/l)
				continue
			}
			keep(q, l)
			kept = t
			if err := over(t); err != nil {
				return nil, 0, err
			}
			continue
		}
		if c := cache[q.I]; c != nil && c[q.H] > 0 && c[q.H] <= bound {
			stretch = max(stretch, c[q.H]/l)
			continue
		}
		if marks != nil {
			if c, ok := marks.chain(q.I, q.H, bound); ok {
				stretch = max(stretch, c/l)
				continue
			}
		}
		if runs++; runs%spanCheckRuns == 0 {
			// Each search costs up to O(pairs added · log n): check
			// ctx between searches too, and report.
			if err := ctx.Err(); err != nil {
				return nil, 0, fmt.Errorf("ldl: spanner: %w", err)
			}
			report(t)
		}
		if cache[q.I] == nil {
			cache[q.I] = make([]float64, n)
		}
		// Recompute from I, far enough ahead for the next pairs of I; the
		// bounds beyond stay (the graph only grows: still bounds).
		d.lower(g, q.I, 2*bound, cache[q.I])
		if c := cache[q.I][q.H]; c > 0 && c <= bound {
			stretch = max(stretch, c/l)
			continue
		}
		if elems == nil {
			keep(q, l)
			kept = t
		}
		for _, e := range elems { // with symmetries, the whole orbit
			i, h := e[q.I], e[q.H]
			if added[int64(i)*int64(n)+int64(h)] {
				continue
			}
			added[int64(i)*int64(n)+int64(h)] = true
			g.adj[i] = append(g.adj[i], arc{to: h, l: l})
			if marks != nil {
				marks.arc(i, h, l)
				marks.keep(g, d, i, h, l)
			}
			if c := cache[i]; c != nil {
				c[h] = lowerBound(c[h], l)
			}
			out = append(out, Pair{I: i, H: h, W: q.W})
		}
		if err := over(t); err != nil {
			return nil, 0, err
		}
	}
	return out, stretch, nil
}

// ErrMaxPairs is wrapped by the error of Spanner when the spanner keeps
// more than SpannerOptions.MaxPairs pairs; it wraps run.ErrTooLarge (and
// reads as it).
var ErrMaxPairs = fmt.Errorf("%w", run.ErrTooLarge)

// SpannerOptions are the settings of Spanner; nil means the zero value.
type SpannerOptions struct {
	// Settings: Budget bounds the distance cache (n² float64 values and 64
	// bytes per pair; 0 = run.DefaultBudget, run.Unlimited = no limit,
	// negative = run.ErrBadInput).
	// Progress, when set, receives reports with Stage run.StagePrune, Iter
	// the pairs tested so far of MaxIter, and in Message what is built
	// ("dropping implied pairs" at delta 1, "the 1.2-spanner") and the
	// pairs kept.
	run.Settings
	// Symmetry is a group of permutations of the rows under which ps is
	// invariant, the identity included (nil: none).
	Symmetry [][]int
	// Start, when not nil, is the greedy spanner (of the same stretch and
	// symmetries) of pairs that all come before those of ps in the
	// search's order (by ratio, then rows): the search continues from
	// it, and returns it followed by the pairs it adds. The stretch
	// returned is then that of the pairs of ps alone.
	Start []Pair
	// Landmarks, when > 0, is how many of the first pairs the search
	// keeps serve as landmarks: for each, (a,b), it keeps the chains to a
	// and from b when it keeps the pair, up to the largest bound of ps
	// (two searches, 24n bytes, within Budget), and where the distance
	// cache cannot show a pair (i,h) implied, it tries the chains
	// i → a → b → h before it searches from i. The pairs kept are the
	// same; the searches far fewer when the pairs tested are long and
	// few are kept, as between clusters of points far apart, where each
	// search from a point covers its cluster.
	Landmarks int
	// Lower, when not nil, bounds from below the length of every chain
	// from row i to row h (for a metric's pairs, eps · d(i,h) below the
	// clamp, by the triangle inequality): each pair is then tested by a
	// search from I toward H guided by it (A*), which reaches only rows
	// whose chains could be short enough, instead of from the distance
	// cache. The pairs kept are the same, but where chains of equal
	// length round differently by the order of their sums. Not used with
	// Symmetry.
	Lower func(i, h int) float64
	// MaxPairs, when > 0, is the most pairs the caller can use: Spanner
	// stops with an error wrapping ErrMaxPairs as soon as it keeps
	// more (the greedy order keeps the short pairs first, so a spanner
	// too large for the caller is known after a small part of the
	// search), and at once when more rows than MaxPairs are the I of some
	// pair (each needs a kept pair of its own).
	MaxPairs int
}

// spanCheckCtx is how many pairs Spanner tests between checks of its ctx,
// spanCheckRuns how many shortest-path searches (each up to a pass over
// the pairs kept).
const (
	spanCheckCtx  = 1024
	spanCheckRuns = 16
)

// spanKey is a pair's place in the greedy spanner's order: the bits of
// its ratio, its rows packed as (min(I,H), max(I,H), I) in 21 bits each,
// and its index k in the list.
type spanKey struct {
	w, rows uint64
	k       int
}

// compareSpanKeys orders keys by ratio, then by rows.
func compareSpanKeys(a, b spanKey) int {
	if a.w != b.w {
		if a.w < b.w {
			return -1
		}
		return 1
	}
	return cmp.Compare(a.rows, b.rows)
}

// spanPrefix: with MaxPairs, Spanner sorts the spanPrefix·MaxPairs
// smallest keys first. Random planar points (4,000, the 2-spanner under
// room for 10,602 pairs): the search stopped after 34,641 pairs tested.
const spanPrefix = 64

// selectSmallest reorders keys (distinct) so that keys[:k] are the k
// smallest by compareSpanKeys, in no particular order: quickselect with
// the median of three as the pivot, sorting what is left after
// 2·log2(len) partitions (a bad run of pivots) or once it is short.
func selectSmallest(keys []spanKey, k int) {
	lo, hi := 0, len(keys) // keys[:lo] < keys[lo:hi] < keys[hi:]
	for left := 2 * bits.Len(uint(len(keys))); lo < k && k < hi; left-- {
		if hi-lo <= 16 || left == 0 {
			slices.SortFunc(keys[lo:hi], compareSpanKeys)
			return
		}
		switch p := lo + partitionSpanKeys(keys[lo:hi]); {
		case p == k:
			return
		case p < k:
			lo = p + 1
		default:
			hi = p
		}
	}
}

// partitionSpanKeys moves the median of a's first, middle and last keys to
// its place p, the smaller keys before it and the larger after, and
// returns p.
func partitionSpanKeys(a []spanKey) int {
	m, last := len(a)/2, len(a)-1
	if compareSpanKeys(a[m], a[0]) < 0 {
		a[m], a[0] = a[0], a[m]
	}
	if compareSpanKeys(a[last], a[0]) < 0 {
		a[last], a[0] = a[0], a[last]
	}
	if compareSpanKeys(a[m], a[last]) < 0 {
		a[m], a[last] = a[last], a[m]
	}
	piv, i := a[last], 0
	for j := range a[:last] {
		if compareSpanKeys(a[j], piv) < 0 {
			a[i], a[j] = a[j], a[i]
			i++
		}
	}
	a[i], a[last] = a[last], a[i]
	return i
}

// spanKeyRows is the most rows spanKey packs.
const spanKeyRows = 1<<21 - 1

// Stretch returns the pairs with every ratio W replaced by W^{1/delta}
// (never below the smallest float64 above 1): on the pairs of a spanner of
// stretch delta this tightens the constraints so that they imply the full
// set (see Spanner).
func Stretch(ps []Pair, delta float64) []Pair {
	out := make([]Pair, len(ps))
	for k, q := range ps {
		w := math.Exp(math.Log(q.W) / delta)
		out[k] = Pair{I: q.I, H: q.H, W: max(w, math.Nextafter(1, 2))}
	}
	return out
}

// lowerBound is the smaller of the chain bounds c (0 for none) and l.
func lowerBound(c, l float64) float64 {
	if c == 0 {
		return l
	}
	return min(c, l)
}

// Symmetric reports whether every pair (I,H,W) of ps has its reverse
// (H,I,W) in ps: then the chains of ps have the same lengths both ways,
// up to the order of their sums.
func Symmetric(ps []Pair) bool {
	w := make(map[[2]int]float64, len(ps))
	for _, q := range ps {
		w[[2]int{q.I, q.H}] = q.W
	}
	for _, q := range ps {
		if r, ok := w[[2]int{q.H, q.I}]; !ok || r != q.W {
			return false
		}
	}
	return true
}

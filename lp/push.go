package lp

import (
	"cmp"
	"container/heap"
	"math"
	"slices"
)

// pushArc is one pair (I, H, W) in I's list of pairsByI: index k in the
// problem's pairs, row h = H and ratio w = W, side by side so that
// pushExcess reads a row's pairs in order from one block of memory.
type pushArc struct {
	w    float64
	k, h int32
}

// pairsByI lists the pairs by their row I, each row's list by ascending
// ratio W (ties by index): the order in which pushExcess tries them. It
// returns nil for more than math.MaxInt32 pairs (far beyond any budget:
// the pairs alone would take 48 GiB), which pushExcess takes as no pair.
func pairsByI(pairs []Pair, n int) [][]pushArc {
	if len(pairs) > math.MaxInt32 {
		return nil
	}
	count := make([]int, n)
	for _, q := range pairs {
		count[q.I]++
	}
	all := make([]pushArc, len(pairs))
	byI := make([][]pushArc, n)
	off := 0
	for i, c := range count {
		byI[i] = all[off : off : off+c]
		off += c
	}
	for k, q := range pairs {
		byI[q.I] = append(byI[q.I], pushArc{w: q.W, k: int32(k), h: int32(q.H)})
	}
	for _, as := range byI {
		slices.SortFunc(as, func(a, b pushArc) int {
			return cmp.Or(cmp.Compare(a.w, b.w), cmp.Compare(a.k, b.k))
		})
	}
	return byI
}

// pushExcess lowers the excess of t over y by raising multipliers along
// the pairs: a multiplier d on pair (i, h) lowers t_i by d and raises t_h
// by W_ih d (raise(k, d) records it). Which rows' excess goes where is a
// generalised transportation problem: the rows i with t_i > y_i supply
// their excess, the rows h with t_h < y_h take up to their room y_h - t_h,
// a unit sent along (i, h) using W_ih units of room. pushExcess sends
// along the cheapest pairs first (smallest W over every row with excess,
// byI from pairsByI), each as far as the supply and the room allow
// (roomKeep of the room, so that a filled row stays below y despite
// rounding), until every excess is placed or no pair of an excess row has
// room left. One hop is enough: on a metric's pairs W_ih <= W_ij W_jh, so
// no route through a third row sends more.
//
// Greedy is not optimal in general, but any multipliers >= 0 keep the
// bound valid (§11.2). On 2,500 random points in the first relaxation of
// per-column generation (500 of 2,500 columns solved), it placed all of
// the excess of each of the eight columns left out with the most, as the
// exact transportation LP (HiGHS) did. After the second relaxation, where
// such columns use up the room exactly, it left up to 2e-4 per column
// that HiGHS placed.
func pushExcess(byI [][]pushArc, t, y []float64, raise func(k int, d float64)) {
	if byI == nil {
		return
	}
	h := make(arcHeap, 0, 64)
	for i := range t {
		if t[i] > y[i] && len(byI[i]) > 0 {
			h = append(h, arc{w: byI[i][0].w, i: i})
		}
	}
	heap.Init(&h)
	for len(h) > 0 {
		a := &h[0]
		as := byI[a.i]
		q := as[a.pos]
		if room := (y[q.h] - t[q.h]) * roomKeep / q.w; room > 0 {
			d := min(t[a.i]-y[a.i], room)
			raise(int(q.k), d)
			t[a.i] -= d
			t[q.h] += q.w * d
		}
		if !(t[a.i] > y[a.i]) {
			heap.Pop(&h)
			continue
		}
		// A row without room keeps none: a row with room only receives
		// (up to its room) and a row with excess only sends (down to y).
		// So the pairs into such rows are passed over at once, without
		// the heap: they would place nothing whenever their turn came.
		pos := a.pos + 1
		for pos < len(as) && !(y[as[pos].h]-t[as[pos].h] > 0) {
			pos++
		}
		if pos == len(as) {
			heap.Pop(&h)
			continue
		}
		a.pos, a.w = pos, as[pos].w
		heap.Fix(&h, 0)
	}
}

// roomKeep is the share of a row's room pushExcess fills.
const roomKeep = 1 - 1.0/(1<<20)

// arc is row i's next pair to try in pushExcess: byI[i][pos], ratio w.
type arc struct {
	w      float64
	i, pos int
}

type arcHeap []arc

func (h arcHeap) Len() int { return len(h) }
func (h arcHeap) Less(a, b int) bool {
	return h[a].w < h[b].w || h[a].w == h[b].w && h[a].i < h[b].i
}
func (h arcHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *arcHeap) Push(x any)   { *h = append(*h, x.(arc)) }
func (h *arcHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

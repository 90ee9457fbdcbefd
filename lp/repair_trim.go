package lp

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
)

// trimRepair returns a feasible X built from x (an answer that violates
// some pairs, e.g. a relaxation's) by moving mass within rows only where
// the pairs require it, and the weight t of the final mix with the
// uniform matrix (0 unless rounding or a row that could not be balanced
// needs it) (docs/MATH.md §11.3, "Raise and trim"):
//
//  1. rows normalised; the columns whose mass is below trimDrop·N/M set
//     to 0 (their mass is made up in step 4);
//  2. per column, the smallest v >= x[·][o] satisfying every pair,
//     v_H = max over chains I → … → H of x[I][o]/(prod W), by passes
//     v_H <- max(v_H, v_I/W) over the pairs until one changes nothing
//     (Bellman–Ford: one pass and a check when the pairs are closed under
//     composition, as every pair of a metric is);
//  3. trim: an entry (i, o) can fall by its down-room, min over the pairs
//     (I, i) of v_i − v_I/W, without breaking a pair, and lowering it only
//     loosens the pairs in which i is I, so every entry may fall by its own
//     room at once (trimmer.move); a row over 1 loses its excess where the
//     gain C[i][o] is smallest;
//  4. fill: likewise an entry can rise by its up-room, min over the pairs
//     (i, H) of W·v_H − v_i; a row under 1 (by the columns dropped) gains
//     its deficit where the gain is largest;
//  5. Repair with margin: a row still off 1 is rescaled and the matrix
//     mixed with U as Repair does; otherwise t is 0 up to rounding.
//
// Steps 2 to 4 work with the ratios W(1−margin), those Repair checks, so
// that an entry left tight does not count as a violation there.
//
// A relaxation's answer mostly violates pairs (I, H) by a tail x[H][o]
// below x[I][o]/W far from the column's peak: raising it costs the mass of
// the tail, trimmed from the row's least useful outputs, where mixing with
// U costs a/(a+(W−1)/M) times C·U − C·x (Repair). ok is false (and
// nothing computed) when a pass over the pairs and the columns kept would
// exceed trimWorkMax; a cancelled ctx returns its error.
func trimRepair(ctx context.Context, p *Problem, x []float64, margin float64) (y []float64, t float64, ok bool, err error) {
	n, m := p.N, p.M
	y = make([]float64, n*m)
	copy(y, x)
	rowSums := make([]float64, n)
	for i := 0; i < n; i++ {
		row := y[i*m : i*m+m]
		var s float64
		for o, v := range row {
			if !(v > 0) || math.IsInf(v, 1) {
				row[o] = 0
			}
			s += row[o]
		}
		rowSums[i] = s
		if s > 0 {
			for o := range row {
				row[o] /= s
			}
		}
	}
	// Columns kept: mass at least trimDrop·n/m.
	var act []int
	for o := 0; o < m; o++ {
		var s float64
		for i := 0; i < n; i++ {
			s += y[i*m+o]
		}
		if s >= trimDrop*float64(n)/float64(m) {
			act = append(act, o)
		}
	}
	a := len(act)
	if a == 0 || float64(len(p.Pairs))*float64(a) > trimWorkMax {
		return nil, 0, false, nil
	}
	// v: the kept columns, compacted (n×a).
	v := make([]float64, n*a)
	for i := 0; i < n; i++ {
		for k, o := range act {
			v[i*a+k] = y[i*m+o]
		}
	}
	f := &trimmer{p: p, v: v, act: act, a: a, keep: 1 - margin, workers: runtime.GOMAXPROCS(0)}
	f.bs = min(repairBlock, max(8, (a+f.workers-1)/f.workers))
	defer context.AfterFunc(ctx, func() { f.stop.Store(true) })()
	f.stop.Store(ctx.Err() != nil)
	f.raise()
	f.balance(true, rowSums)
	f.balance(false, rowSums)
	if f.stop.Load() {
		return nil, 0, false, fmt.Errorf("lp: repair: %w", context.Cause(ctx))
	}
	clear(y)
	for i := 0; i < n; i++ {
		for k, o := range act {
			y[i*m+o] = v[i*a+k]
		}
	}
	// 5. Exactly feasible in floating point, rows stochastic.
	t, err = repairCtx(ctx, p, y, margin)
	if err != nil {
		return nil, 0, false, err
	}
	return y, t, true, nil
}

// trimDrop: trimRepair sets to 0 the columns whose mass is below
// trimDrop·N/M (an interior-point iterate has every entry positive, and
// an unused column's mass is of the order of the solver's tolerance).
const trimDrop = 1e-7

// trimWorkMax caps len(Pairs) times the columns kept for trimRepair: one
// pass over the pairs on every column (the raising takes two when the
// pairs are closed under composition, and computes the down-rooms in
// them; the fill takes one for the up-rooms).
const trimWorkMax = 4e10

// trimmer holds trimRepair's kept columns: v is N×a, column k of v is
// column act[k] of the problem; the pairs go over blocks of bs columns
// in parallel, and give up once stop is set.
type trimmer struct {
	p       *Problem
	v       []float64
	act     []int
	a, bs   int
	keep    float64 // 1 − margin: the ratios worked with are W·keep
	workers int
	stop    atomic.Bool
	room    []float64
}

// pairs calls f for every pair on every block of columns [lo, hi), the
// blocks shared among the workers.
func (f *trimmer) pairs(each func(lo, hi int) bool) {
	nb := (f.a + f.bs - 1) / f.bs
	parallel(nb, f.workers, func(b int) {
		lo, hi := b*f.bs, min(f.a, (b+1)*f.bs)
		for !f.stop.Load() && each(lo, hi) {
		}
	})
}

// raise lifts v to its smallest feasible majorant, v_H <- max(v_H,
// v_I/W), by passes over the pairs until one changes nothing (at most N),
// and sets f.room to the down-rooms of the result (see move), computed in
// the same passes: those of the last pass, which changed nothing, are
// exact.
func (f *trimmer) raise() {
	a, n := f.a, f.p.N
	f.room = make([]float64, n*a)
	passes := make([]int, (f.a+f.bs-1)/f.bs)
	f.pairs(func(lo, hi int) bool {
		for i := 0; i < n; i++ {
			r := f.room[i*a+lo : i*a+hi]
			for c := range r {
				r[c] = math.Inf(1)
			}
		}
		changed := false
		for k, q := range f.p.Pairs {
			if k%stopEvery == 0 && f.stop.Load() {
				return false
			}
			vi, vh, rh := f.v[q.I*a+lo:q.I*a+hi], f.v[q.H*a+lo:q.H*a+hi], f.room[q.H*a+lo:q.H*a+hi]
			vh, rh = vh[:len(vi)], rh[:len(vi)]
			iw := 1 / (q.W * f.keep)
			for c, i := range vi {
				low, h := i*iw, vh[c]
				if low > h {
					vh[c], h = low, low
					changed = true
				}
				if r := h - low; r < rh[c] {
					rh[c] = r
				}
			}
		}
		b := lo / f.bs
		passes[b]++
		return changed && passes[b] < n
	})
}

// balance brings the rows of v to sum 1, down (rows over 1) or up (rows
// under 1), by moves (move) until no row is off by more than trimSlack,
// a move brings them no nearer, or trimPasses moves were made. A row left
// off 1 by a move was held by its rooms; the same move shifted entries of
// other rows, which may have loosened the pairs that held it, so the
// rooms of the rows still off are computed again (rooms) before the next
// move. On 1,600 random points (two hot spots, eps 1), the first
// relaxation's answer raised had 1,595 rows over 1; after one move 926
// (by up to 0.118), after 15 none.
func (f *trimmer) balance(down bool, rowSums []float64) {
	off := make([]bool, f.p.N)
	last := math.Inf(1)
	for pass := 0; pass < trimPasses; pass++ {
		var left float64
		rows := 0
		for i := range off {
			var s float64
			for _, e := range f.v[i*f.a : i*f.a+f.a] {
				s += e
			}
			d := 1 - s
			if down {
				d = -d
			}
			off[i] = rowSums[i] > 0 && d > trimSlack
			if off[i] {
				left += d
				rows++
			}
		}
		if rows == 0 || !(left < last) {
			return
		}
		last = left
		if pass > 0 || !down { // raise left the down-rooms of every row
			f.rooms(down, off)
		}
		f.move(down, rowSums)
		if f.stop.Load() {
			return
		}
	}
}

// trimSlack is how far from 1 balance leaves a row (Repair settles it);
// trimPasses caps balance's moves.
const (
	trimSlack  = 1e-13
	trimPasses = 64
)

// rooms sets f.room, for the entries of the rows marked in rows, to their
// down-rooms (down: min over the pairs (I, i) of v_i − v_I/W) or up-rooms
// (min over the pairs (i, H) of W·v_H − v_i), with the ratios W·keep.
func (f *trimmer) rooms(down bool, rows []bool) {
	a := f.a
	for i := 0; i < f.p.N; i++ {
		if rows[i] {
			r := f.room[i*a : i*a+a]
			for c := range r {
				r[c] = math.Inf(1)
			}
		}
	}
	f.pairs(func(lo, hi int) bool {
		for k, q := range f.p.Pairs {
			if k%stopEvery == 0 && f.stop.Load() {
				return false
			}
			row := q.I
			if down {
				row = q.H
			}
			if !rows[row] {
				continue
			}
			vi, vh, rr := f.v[q.I*a+lo:q.I*a+hi], f.v[q.H*a+lo:q.H*a+hi], f.room[row*a+lo:row*a+hi]
			vh, rr = vh[:len(vi)], rr[:len(vi)]
			if down {
				iw := 1 / (q.W * f.keep)
				for c, i := range vi {
					if r := vh[c] - i*iw; r < rr[c] {
						rr[c] = r
					}
				}
				continue
			}
			w := q.W * f.keep
			for c, h := range vh {
				if r := w*h - vi[c]; r < rr[c] {
					rr[c] = r
				}
			}
		}
		return false
	})
}

// move brings every row of v towards sum 1: down (lowering entries, for
// rows over 1) or up (raising them, rows under 1), each entry by at most
// its room in f.room, taking the mass where the gain C is smallest (down)
// or largest (up). The rooms are those of v before the move, so that every
// pair holds after it: an entry may rise by its up-room, and raising it
// only loosens the pairs in which it is H; it may fall by its down-room,
// and lowering it only loosens the pairs in which it is I. Rows whose
// input summed to 0 are left alone.
func (f *trimmer) move(down bool, rowSums []float64) {
	a, n, m := f.a, f.p.N, f.p.M
	room := f.room
	if f.stop.Load() {
		return
	}
	sign := 1.0
	if down {
		sign = -1
	}
	parallel(n, f.workers, func(i int) {
		vi, ri := f.v[i*a:i*a+a], room[i*a:i*a+a]
		var s float64
		for _, e := range vi {
			s += e
		}
		need := sign * (1 - s) // mass to move, in the direction of sign
		if !(rowSums[i] > 0 && need > 0) {
			return
		}
		order := make([]int, 0, a)
		for k, r := range ri {
			if r > 0 {
				order = append(order, k)
			}
		}
		c := f.p.C[i*m : i*m+m]
		slices.SortFunc(order, func(k1, k2 int) int {
			if r := cmp.Compare(sign*c[f.act[k2]], sign*c[f.act[k1]]); r != 0 {
				return r
			}
			return k1 - k2
		})
		for _, k := range order {
			d := min(ri[k], need)
			if down {
				d = min(d, vi[k]) // a room of at most vi[k], up to rounding
			}
			vi[k] += sign * d
			if need -= d; need <= 0 {
				break
			}
		}
	})
}

package lp

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"

	"github.com/optdp/optdp/lp/internal/kernel"
)

// Repair makes the row-major N×M matrix x an exactly feasible point of p, in
// place, and returns the mixing weight t it used.
//
// Negative entries are set to 0 and rows rescaled to sum to 1 (a row with no
// mass becomes uniform). Then x is replaced by the convex combination
// (1-t)·x + t·U with the uniform matrix U[i][o] = 1/M, with the smallest t
// that satisfies every ratio constraint with the tightened ratio
// W' = W(1-margin). This is provably enough: for each constraint and column,
//
//	x'[I][o] - W' x'[H][o] = (1-t)(x[I][o] - W' x[H][o]) + t(1-W')/M,
//
// and U's term is strictly negative when W' > 1, so the smallest t making it
// <= 0 is a/(a+(W'-1)/M) for the violation a > 0. Rows stay stochastic. The
// result is then checked against the exact ratios W in floating point; should
// rounding defeat the check, t is raised (t = 1, the uniform matrix itself,
// always passes). When no pair is violated at W(1-margin) (t = 0), x passes
// at W without a further check, rounding being monotone. margin must be in [0, 1) with W(1-margin) > 1 for every pair.
//
// The objective changes by t·(C·U - C·x): for a nearly feasible x, t is of
// the order of its largest violation. The scans over the pairs use
// runtime.GOMAXPROCS(0) goroutines, on blocks of columns (their result does
// not depend on the number).
func Repair(p *Problem, x []float64, margin float64) (float64, error) {
	return repair(p, x, margin, nil)
}

// repairCtx is Repair stopped by ctx: its scans over the pairs give up
// within stopEvery pairs per worker once ctx is cancelled, and it returns
// ctx's error, wrapped.
func repairCtx(ctx context.Context, p *Problem, x []float64, margin float64) (float64, error) {
	var stop atomic.Bool
	stop.Store(ctx.Err() != nil)
	defer context.AfterFunc(ctx, func() { stop.Store(true) })()
	t, err := repair(p, x, margin, &stop)
	if errors.Is(err, errStopped) && ctx.Err() != nil {
		return 0, fmt.Errorf("lp: repair: %w", ctx.Err())
	}
	return t, err
}

// stopEvery is how many pairs the scans of Repair (mixWeight,
// feasibleBy) take between two reads of their stop flag: the flag costs
// one atomic load per stopEvery calls of the block kernel.
const stopEvery = 1024

// repair is Repair with a stop flag (nil: never set): once it is set, the
// scans give up within stopEvery pairs and repair returns errStopped, x
// unchanged or normalised.
func repair(p *Problem, x []float64, margin float64, stop *atomic.Bool) (float64, error) {
	if err := p.validate(); err != nil {
		return 0, err
	}
	if len(x) != p.N*p.M {
		return 0, fmt.Errorf("lp: repair: matrix has %d entries, want %d", len(x), p.N*p.M)
	}
	if !(margin >= 0 && margin < 1) {
		return 0, fmt.Errorf("lp: repair: margin %v not in [0,1)", margin)
	}
	n, m := p.N, p.M
	u := 1 / float64(m)
	for i := 0; i < n; i++ {
		row := x[i*m : i*m+m]
		var sum float64
		for o, v := range row {
			if !(v > 0) { // also catches NaN
				row[o] = 0
			}
			sum += row[o]
		}
		if !(sum > 0) || math.IsInf(sum, 0) {
			for o := range row {
				row[o] = u
			}
			continue
		}
		for o := range row {
			row[o] /= sum
		}
	}
	for _, q := range p.Pairs {
		if !(q.W*(1-margin) > 1) {
			return 0, fmt.Errorf("lp: repair: pair (%d,%d) with ratio %v leaves no room for margin %v", q.I, q.H, q.W, margin)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	// A column 0 in every row is t/M in every row after the mix, which
	// satisfies every pair (W > 1): the scans take the other columns only,
	// gathered (xs, n×ms), most of the columns when a relaxation leaves
	// out most outputs.
	live := make([]bool, m)
	nLive := 0
	for i := 0; i < n && nLive < m; i++ {
		for o, v := range x[i*m : i*m+m] {
			if v != 0 && !live[o] {
				live[o] = true
				nLive++
			}
		}
	}
	xs, ms := x, m
	gather := func(x []float64) []float64 { return x }
	if nLive < m {
		cols := make([]int, 0, nLive)
		for o, l := range live {
			if l {
				cols = append(cols, o)
			}
		}
		ms = nLive
		gather = func(x []float64) []float64 {
			g := make([]float64, n*ms)
			for i := 0; i < n; i++ {
				for k, o := range cols {
					g[i*ms+k] = x[i*m+o]
				}
			}
			return g
		}
		xs = gather(x)
	}
	t := mixWeightOn(p.Pairs, xs, ms, u, margin, workers, stop)
	bump := 1e-15
	for range 100 {
		if stop != nil && stop.Load() {
			return 0, errStopped
		}
		if t == 0 {
			// No x[I][o] exceeds fl(W(1-margin))·x[H][o] (or, should the
			// product be fused, the exact one), and fl(W(1-margin)) <= W:
			// rounding is monotone, so x[I][o] <= fl(W·x[H][o]) too, and x is
			// feasible without a second pass.
			return 0, nil
		}
		mixed := make([]float64, len(x))
		for k, v := range x {
			mixed[k] = (1-t)*v + t*u
		}
		if t >= 1 || feasibleOn(p.Pairs, gather(mixed), ms, workers, stop) {
			copy(x, mixed)
			return t, nil
		}
		// Rounding defeated the exact check: move further towards U.
		t = min(1, t+bump)
		bump *= 4
	}
	return 0, errors.New("lp: repair: could not reach a feasible point") // not reached: t hits 1
}

// feasible reports whether x satisfies every ratio constraint exactly in
// floating point (x >= 0 is assumed).
func feasible(p *Problem, x []float64) bool { return feasibleBy(p, x, 1, nil) }

// repairBlock is the number of columns that Repair's scans take at a time:
// every pair is checked on one block of columns before the next, so that
// the block (N × repairBlock values, 1.3 MB at N = 2500) stays in cache
// while the pairs go over it, instead of two whole rows of x per pair
// (6.2 million pairs of the 50×50 Euclidean grid read 250 GB that way).
const repairBlock = 64

// mixBlock is the number of columns per block of mixWeight's scan: the
// AVX kernel (kernel.ViolMax) takes one pair on one block per call, and wider
// blocks spread the call over more columns (BenchmarkRepairFullMetric,
// 50×50 Euclidean, 6.2 million pairs: 16, 32, 64, 128 and 256 columns
// 5.7, 5.0, 3.2-4.4, 2.1-2.5 and 2.2 s, against 8.4 s for the Go loop on
// blocks of 64).
const mixBlock = 256

// mixWeight is the smallest t in [0, 1) with which (1-t)·x + t·U satisfies
// every pair at the ratio W(1-margin) (see Repair): the largest a/(a+slack)
// over the violations a = x[I][o] - W' x[H][o] > 0, slack = (W'-1)/M. The
// blocks of columns are shared among workers; the maximum does not depend on
// which took which. Once stop (nil: never) is set, the scans give up
// within stopEvery pairs and the result is meaningless.
func mixWeight(p *Problem, x []float64, margin float64, workers int, stop *atomic.Bool) float64 {
	return mixWeightOn(p.Pairs, x, p.M, 1/float64(p.M), margin, workers, stop)
}

// mixWeightOn is mixWeight on the columns of x (N×m, any subset of the
// problem's) with the uniform value u = 1/M of the whole problem.
func mixWeightOn(pairs []Pair, x []float64, m int, u, margin float64, workers int, stop *atomic.Bool) float64 {
	// Narrower blocks when there are fewer than mixBlock per worker.
	bs := min(mixBlock, max(16, (m+workers-1)/max(workers, 1)))
	nb := (m + bs - 1) / bs
	ts := make([]float64, nb)
	parallel(nb, workers, func(b int) {
		lo, hi := b*bs, min(m, (b+1)*bs)
		var t float64
		for k, q := range pairs {
			if k%stopEvery == 0 && stop != nil && stop.Load() {
				return
			}
			w := q.W * (1 - margin)
			// a/(a+slack) grows with a: only the largest violation counts.
			amax := kernel.ViolMax(x[q.I*m+lo:q.I*m+hi], x[q.H*m+lo:q.H*m+hi], w)
			if amax > 0 {
				t = max(t, amax/(amax+(w-1)*u))
			}
		}
		ts[b] = t
	})
	var t float64
	for _, v := range ts {
		t = max(t, v)
	}
	return t
}

// feasibleBy is feasible with the blocks of columns shared among workers,
// false once stop (nil: never) is set.
func feasibleBy(p *Problem, x []float64, workers int, stop *atomic.Bool) bool {
	return feasibleOn(p.Pairs, x, p.M, workers, stop)
}

// feasibleOn is feasibleBy on the columns of x (N×m, any subset of the
// problem's).
func feasibleOn(pairs []Pair, x []float64, m int, workers int, stop *atomic.Bool) bool {
	nb := (m + repairBlock - 1) / repairBlock
	var bad atomic.Bool
	parallel(nb, workers, func(b int) {
		if bad.Load() {
			return
		}
		lo, hi := b*repairBlock, min(m, (b+1)*repairBlock)
		for k, q := range pairs {
			if k%stopEvery == 0 && stop != nil && stop.Load() {
				bad.Store(true)
				return
			}
			ri, rh := x[q.I*m+lo:q.I*m+hi], x[q.H*m+lo:q.H*m+hi]
			rh = rh[:len(ri)]
			for o, v := range ri {
				if v > q.W*rh[o] {
					bad.Store(true)
					return
				}
			}
		}
	})
	return !bad.Load()
}

// dualBound returns an upper bound on the optimum of p from the ratio
// multipliers lam (column o's multipliers at lam[o*P:(o+1)*P], P = len(Pairs);
// negative ones are treated as 0), with the row multipliers y that make the
// dual exactly feasible:
//
//	y_i = max_o ( C[i][o] - (G^T lam_o)_i ),  bound = sum_i y_i,
//
// where (G^T lam)_i = sum_{k: I_k=i} lam_k - sum_{k: H_k=i} W_k lam_k. Weak
// duality: for feasible X, C·X <= sum_{i,o} X[i][o] (y_i + (G^T lam_o)_i)
// = sum_i y_i + sum_o lam_o·(G x_o) <= sum_i y_i, since G x_o <= 0.
func dualBound(p *Problem, lam []float64) (float64, []float64) {
	np := len(p.Pairs)
	return dualBoundBy(p, func(o int) ([]Pair, []float64) { return p.Pairs, lam[o*np : o*np+np] })
}

// termsBlock adds (G^T lam_o)_i to gl[i*w+k] for the columns o = lo+k < hi
// (w = hi-lo), negative multipliers as 0, cols(o) giving column o's pairs
// and multipliers: the terms of the dual bound on a block of columns
// (dualBoundBy, scaledTerms).
func termsBlock(lo, hi int, cols func(o int) ([]Pair, []float64), gl []float64) {
	w := hi - lo
	for k := 0; k < w; k++ {
		pairs, lam := cols(lo + k)
		for e, q := range pairs {
			l := max(lam[e], 0)
			gl[q.I*w+k] += l
			gl[q.H*w+k] -= q.W * l
		}
	}
}

// dualBoundBy is dualBound for column-dependent constraints: cols(o)
// returns column o's pairs and their multipliers.
func dualBoundBy(p *Problem, cols func(o int) ([]Pair, []float64)) (float64, []float64) {
	n, m := p.N, p.M
	// Blocks of columns, shared among the processors: each block's
	// (G^T lam_o) for its columns, then its maximum per row over them,
	// reading C by rows; the blocks' maxima are combined in order (a
	// maximum is exact, so the bound does not depend on the workers).
	nb := (m + repairBlock - 1) / repairBlock
	yb := make([]float64, nb*n)
	parallel(nb, runtime.GOMAXPROCS(0), func(b int) {
		lo, hi := b*repairBlock, min(m, (b+1)*repairBlock)
		w := hi - lo
		gl := make([]float64, w*n) // gl[i*w+k]: column lo+k
		termsBlock(lo, hi, cols, gl)
		y := yb[b*n : b*n+n]
		for i := range y {
			c, g := p.C[i*m+lo:i*m+hi], gl[i*w:i*w+w]
			v := math.Inf(-1)
			for k, ck := range c {
				v = max(v, ck-g[k])
			}
			y[i] = v
		}
	})
	y := make([]float64, n)
	copy(y, yb[:n])
	for b := 1; b < nb; b++ {
		for i, v := range yb[b*n : b*n+n] {
			y[i] = max(y[i], v)
		}
	}
	var sum float64
	for _, v := range y {
		sum += v
	}
	return sum, y
}

// closureWorkMax caps len(Pairs)·M for closureRepair (a few seconds of
// shortest-path searches).
const closureWorkMax = 4e8

// closureRepair returns a feasible X built from x (an answer that violates
// some pairs, e.g. a relaxation's) that loses far less than mixing x
// itself with the uniform matrix when the violations are large relative
// to the entries they involve but carry little mass (constraint
// generation's early relaxations: Repair mixes in 75 % of U, closureRepair
// under 1 % on 200 random points), and the weight t of the final mix:
//
//  1. per column o, the largest v <= x[·][o] satisfying every pair:
//     v_i = min over chains i = v_0 -> ... -> v_r = h of the pairs of
//     (prod W) x[h][o], a shortest-path search in log-space from every
//     row at once (Dijkstra, smallest value first);
//  2. each row divided by its sum s_i (a row of zeros becomes uniform),
//     which violates a pair (I, H) by at most the factor s_H/s_I;
//  3. Repair with margin, which makes the result exactly feasible.
//
// ok is false (and nothing computed) when len(p.Pairs)·M exceeds
// closureWorkMax; a cancelled ctx returns its error.
func closureRepair(ctx context.Context, p *Problem, x []float64, margin float64, up bool) (y []float64, t float64, ok bool, err error) {
	n, m := p.N, p.M
	sign := 1.0 // the heap's order: smallest value first (lowering), largest (raising)
	if up {
		sign = -1
	}
	if float64(len(p.Pairs))*float64(m) > closureWorkMax {
		return nil, 0, false, nil
	}
	byH := make([][]int32, n) // pairs by H (lowering) or by I (raising)
	for k, q := range p.Pairs {
		if up {
			byH[q.I] = append(byH[q.I], int32(k))
		} else {
			byH[q.H] = append(byH[q.H], int32(k))
		}
	}
	y = make([]float64, n*m)
	workers := runtime.GOMAXPROCS(0)
	var stop atomic.Bool
	parallel(workers, workers, func(w int) {
		v := make([]float64, n)
		done := make([]bool, n)
		h := &valHeap{}
		for o := w * m / workers; o < (w+1)*m/workers; o++ {
			if stop.Load() || ctx.Err() != nil {
				stop.Store(true)
				return
			}
			*h = (*h)[:0]
			for i := 0; i < n; i++ {
				v[i] = max(x[i*m+o], 0)
				done[i] = false
				*h = append(*h, valRow{sign * v[i], i})
			}
			heap.Init(h)
			for h.Len() > 0 {
				e := heap.Pop(h).(valRow)
				k := e.row
				if done[k] || e.v != sign*v[k] {
					continue
				}
				done[k] = true
				for _, j := range byH[k] {
					q := p.Pairs[j]
					if up {
						if c := v[k] / q.W; c > v[q.H] && !done[q.H] {
							v[q.H] = c
							heap.Push(h, valRow{-c, q.H})
						}
					} else if c := q.W * v[k]; c < v[q.I] && !done[q.I] {
						v[q.I] = c
						heap.Push(h, valRow{c, q.I})
					}
				}
			}
			for i := 0; i < n; i++ {
				y[i*m+o] = v[i]
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, 0, false, fmt.Errorf("lp: repair: %w", err)
	}
	for i := 0; i < n; i++ {
		row := y[i*m : i*m+m]
		var s float64
		for _, v := range row {
			s += v
		}
		for o := range row {
			if s > 0 {
				row[o] /= s
			} else {
				row[o] = 1 / float64(m)
			}
		}
	}
	t, err = repairCtx(ctx, p, y, margin)
	if err != nil {
		return nil, 0, false, err
	}
	return y, t, true, nil
}

// valHeap is a min-heap of (value, row) entries (a row pushed again with
// a smaller value; the stale entries are skipped by closureRepair).
type valHeap []valRow

type valRow struct {
	v   float64
	row int
}

func (h valHeap) Len() int           { return len(h) }
func (h valHeap) Less(a, b int) bool { return h[a].v < h[b].v }
func (h valHeap) Swap(a, b int)      { h[a], h[b] = h[b], h[a] }
func (h *valHeap) Push(r any)        { *h = append(*h, r.(valRow)) }
func (h *valHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	*h = old[:len(old)-1]
	return r
}

package sdp

import (
	"cmp"
	"context"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/optdp/optdp/run"
)

// roundRuns is the number of L-BFGS runs of one round of searchWeights on
// d attributes beyond its dense random start: about 2^23 operations per
// iteration of all of them together (146 at d = 12, 7 at d = 16), at
// least 4 and at most maxRoundRuns.
//
// maxRoundRuns caps it on few attributes, where a run is cheap but the
// local search would otherwise go on for thousands of runs.
const maxRoundRuns = 600

func roundRuns(d int) int { return max(4, min(maxRoundRuns, (1<<23)/((d+2)<<d))) }

// sparsePerRound is the number of sparse random starts of one round of
// searchWeights (at most half its runs).
const sparsePerRound = 64

// laterRoundShare divides the runs of the rounds of searchWeights after
// the first: extra restarts explore other random designs, sparse starts
// and kicks at a sixteenth of the first round's cost each.
const laterRoundShare = 16

// maxDesignBlocks bounds the marginals of a partitionStart design.
const maxDesignBlocks = 64

// binomial returns C(n, k).
func binomial(n, k int) int {
	c := 1
	for i := 0; i < k; i++ {
		c = c * (n - i) / (i + 1)
	}
	return c
}

// maxLocalRounds bounds the passes of one local descent, maxKicks the
// perturbations of one round of searchWeights.
const (
	maxLocalRounds = 20
	maxKicks       = 16
)

// descents is the number of best starts of a round of searchWeights that
// the local search descends from, fewer when the round has less than
// runsPerDescent runs for each (on 12 attributes and more).
const (
	descents       = 4
	runsPerDescent = 150
)

// point is a local minimum of the weighted-marginals objective and its
// value.
type point struct {
	x []float64
	v float64
}

// weightSearch is the state of one round of searchWeights.
type weightSearch struct {
	ctx   context.Context
	s     *marginalSpectrum
	o     *L1Options
	need  []uint
	left  int // runs left in the round
	iters int
}

// run minimises from x in place and returns the value reached.
func (w *weightSearch) run(x []float64, report func(int, float64)) (float64, error) {
	v, it, err := lbfgsB(w.ctx, w.s.eval, x, w.o.MaxIter, 1e-10, report)
	w.iters += it
	return v, err
}

// descend is a local search from x (value v): the unions next to the
// current support (neighbours) are re-optimised, and the first pass that
// improves by a relative 1e-9 is followed by another, while runs are left.
func (w *weightSearch) descend(x []float64, v float64) ([]float64, float64, error) {
	for pass := 0; pass < maxLocalRounds && w.left > 0; pass++ {
		prev := v
		for _, nb := range neighbours(x, w.need, w.s.d) {
			if w.left == 0 {
				break
			}
			w.left--
			y := denseTheta(nb, w.s.d)
			u, err := w.run(y, nil)
			if err != nil {
				return nil, 0, err
			}
			if u < v*(1-1e-12) {
				x, v = y, u
			}
		}
		if !(v < prev*(1-1e-9)) {
			break
		}
	}
	return x, v, nil
}

// kick returns x moved by two random neighbour steps (nil if there is
// none).
func (w *weightSearch) kick(x []float64, rng *rand.Rand) []float64 {
	for step := 0; step < 2; step++ {
		nb := neighbours(x, w.need, w.s.d)
		if len(nb) == 0 {
			return nil
		}
		x = denseTheta(nb[rng.IntN(len(nb))], w.s.d)
	}
	return x
}

// weightsBytes estimates the memory of optimizeWeights on d attributes:
// vectors of 2^d entries for the spectrum (4), L-BFGS (2·10 of history and
// 8 more) and the starts of one round held at once (at most 3 + 2d +
// sparsePerRound), and the neighbours of a local-search pass (sparse, a
// few hundred bytes each).
func weightsBytes(d int) float64 {
	return run.DenseBytes(1<<d, 1, 4+28+3+2*d+sparsePerRound) + float64(64*d*d*1024)
}

// searchWeights minimises s.eval over θ >= 0 by projected L-BFGS from
// many starts and returns the best point (nil if none is finite) and the
// iteration count (docs/MATH.md §15.10). It runs o.Restarts rounds; round
// r starts from
//
//   - a dense random θ (uniform in [0,1), stream r; the only start before
//     covering designs and local search were added),
//   - in round 0, the identity and the workload's own marginals,
//   - a covering design (coverStart, stream r) of each marginal size from
//     the largest needed mask's to d-1,
//   - the unions of k of t parts of a random balanced partition
//     (partitionStart; k the largest needed mask's size) for each t > k
//     with at most maxDesignBlocks such unions,
//   - sparse random unions (sparseStart),
//
// then descends from the round's `descents` best points (fewer when runs
// are short; descend: a
// marginal grown, shrunk, dropped or with an attribute swapped,
// re-optimised, while one improves; each with an equal share of the runs)
// and, while runs are left, perturbs the best by two random such moves and
// descends again, keeping the better (an iterated local search). The runs
// beyond the dense start are capped at roundRuns(d) in round 0 and a
// laterRoundShare-th of it (at least 4) in later rounds. A round
// does not depend on o.Restarts, and the best round is kept, so more
// restarts never give a worse result.
func searchWeights(ctx context.Context, s *marginalSpectrum, identity, own []float64, o *L1Options) ([]float64, int, error) {
	nm := len(s.c)
	h := make([]float64, nm)
	for m := range h {
		h[m] = s.mult[m] * s.g[m]
	}
	need := neededMasks(h, s.d)
	lo := 0
	for _, m := range need {
		lo = max(lo, bits.OnesCount(m))
	}
	var best []float64
	bestV := math.Inf(1)
	iters := 0
	for r := 0; r < o.Restarts; r++ {
		left := roundRuns(s.d)
		if r > 0 {
			left = max(4, left/laterRoundShare)
		}
		w := &weightSearch{ctx: ctx, s: s, o: o, need: need, left: left}
		starts := [][]float64{randomTheta(1, nm, o.Seed, uint64(r)).RawMatrix().Data}
		if r == 0 {
			starts = append(starts, append([]float64(nil), identity...), append([]float64(nil), own...))
		}
		if len(need) > 0 {
			for b := lo; b < s.d; b++ {
				rng := rand.New(rand.NewPCG(o.Seed, 1<<32+uint64(b)<<16+uint64(r)))
				starts = append(starts, coverStart(need, s.d, b, rng))
			}
			for t := lo + 1; t <= s.d && binomial(t, lo) <= maxDesignBlocks; t++ {
				rng := rand.New(rand.NewPCG(o.Seed, 1<<34+uint64(t)<<16+uint64(r)))
				starts = append(starts, partitionStart(need, s.dims, t, lo, rng))
			}
			rng := rand.New(rand.NewPCG(o.Seed, 1<<33+uint64(r)))
			for k := 0; k < min(sparsePerRound, w.left/2); k++ {
				starts = append(starts, sparseStart(need, s.d, rng))
			}
		}
		var pts []point
		for k, x := range starts {
			if k > 0 {
				if w.left == 0 {
					break
				}
				w.left--
			}
			v, err := w.run(x, lbfgsReporter(&o.Settings, "l1 marginal weights", r, o.Restarts, o.MaxIter))
			if err != nil {
				return nil, 0, err
			}
			if v < math.Inf(1) {
				pts = append(pts, point{x, v})
			}
		}
		slices.SortStableFunc(pts, func(a, b point) int { return cmp.Compare(a.v, b.v) })
		var rb []float64
		rv := math.Inf(1)
		nd := max(1, min(descents, roundRuns(s.d)/runsPerDescent))
		for i, pt := range pts {
			if rb != nil && i >= nd {
				break
			}
			if len(need) == 0 {
				rb, rv = pt.x, pt.v
				break
			}
			// Each descent gets an equal share of the runs left for the
			// descents still to come and the kicks.
			total := w.left
			w.left = total / (min(nd, len(pts)) - i + 1)
			spare := total - w.left
			x, v, err := w.descend(pt.x, pt.v)
			if err != nil {
				return nil, 0, err
			}
			w.left += spare
			if v < rv*(1-1e-12) {
				rb, rv = x, v
			}
		}
		if rb != nil && len(need) > 0 {
			rng := rand.New(rand.NewPCG(o.Seed, 1<<35+uint64(r)))
			for k := 0; k < maxKicks && w.left > 0; k++ {
				x := w.kick(rb, rng)
				if x == nil {
					break
				}
				w.left--
				v, err := w.run(x, nil)
				if err != nil {
					return nil, 0, err
				}
				if x, v, err = w.descend(x, v); err != nil {
					return nil, 0, err
				}
				if v < rv*(1-1e-12) {
					rb, rv = x, v
				}
			}
		}
		iters += w.iters
		if rv < bestV {
			best, bestV = rb, rv
		}
	}
	return best, iters, nil
}

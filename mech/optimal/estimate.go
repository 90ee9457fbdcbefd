package optimal

import (
	"fmt"
	"math"
	"runtime"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// cubeSeconds is a range of wall-clock seconds per n³ for a whole solve on
// 2 cores: n points take between lo·n³ and hi·n³ seconds.
type cubeSeconds struct{ lo, hi float64 }

// cubeRange is the range of cubeSeconds of method on a lattice or not, to
// a loose tolerance (1e-3 or looser) or not; ok is false for a method
// without one. Each range is around the whole solves of bench/README.md on the 2-core AMD EPYC VM (2026-11-30,
// quiet; ×1e-8 s per n³, the measured wall time in brackets):
//
//   - exact, a lattice (grid) with at most autoDenseDegree pairs per row,
//     Tol 1e-6: Manhattan 20×20 hot spots 4.5 (2.87 s), 50×50 uniform with
//     its symmetry 0.38 (60.0 s), 50×50 hot spots 1.9 (300 s);
//   - exact, another sparse graph (roads, graph files), Tol 1e-6: roads
//     32×32 31 (329 s); roads 20×20 about 59 at load 9–17;
//   - generate, Tol below 1e-3: random points with two hot spots, 400 and
//     1,000 points 24 and 28 (15.6 s, 282 s); visit counts 90–105 and 144
//     (57–67 s, 24 min); two hot spots at 200 points on the Intel VM 44–84;
//   - generate, Tol 1e-3 or looser: two hot spots, 2,500 points 4.8
//     (12.5 min), 1,600 points on the Intel VM 7.5 (307 s);
//   - spanner: 1,600 uniform points 2.6 (105 s), the Euclidean 50×50 grid
//     uniform and hot spots 1.4 and 3.6 (218 s, 566 s), 2,500 points on the
//     Intel VM 7.4 (19 min).
//
// A prior of wide range (visit counts) takes the upper end of generate's
// range (docs/MATH.md §11.4, "Priors of wide range").
func cubeRange(method Method, lattice, loose bool) (cubeSeconds, bool) {
	switch {
	case method == MethodExact && lattice:
		return cubeSeconds{0.25e-8, 8e-8}, true
	case method == MethodExact:
		return cubeSeconds{1e-7, 1e-6}, true
	case method == MethodGenerate && loose:
		return cubeSeconds{3e-8, 1.5e-7}, true
	case method == MethodGenerate:
		return cubeSeconds{1.5e-7, 2.5e-6}, true
	case method == MethodSpanner:
		return cubeSeconds{0.8e-8, 1.5e-7}, true
	}
	return cubeSeconds{}, false
}

// estimateFor is timeRange for method on p, the pairs privacyPairs lists
// for m.
func estimateFor(method Method, m metric.Metric, p *lp.Problem, tol float64, workers int) (lo, hi float64, ok bool) {
	_, lattice := m.(metric.Lattice)
	return timeRange(method, p.N, float64(len(p.Pairs))/math.Max(1, float64(p.N)), lattice, tol, workers)
}

// timeRange estimates the wall-clock seconds that method takes on n points
// with deg pairs per row (a lattice or not) to the tolerance tol on the
// given number of workers (0: GOMAXPROCS): [lo, hi] from cubeRange,
// scaled by 2/workers at the low end (more cores may help, by up to their
// number) and at both ends for one worker. ok is false where no benchmark
// calibrates it: the exact LP on a dense metric.
func timeRange(method Method, n int, deg float64, lattice bool, tol float64, workers int) (lo, hi float64, ok bool) {
	if method == MethodExact && deg > autoDenseDegree {
		return 0, 0, false
	}
	c, ok := cubeRange(method, lattice, tol >= autoLooseTol)
	if !ok {
		return 0, 0, false
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	w := float64(workers)
	n3 := float64(n) * float64(n) * float64(n)
	return c.lo * n3 * 2 / w, c.hi * n3 * max(1, 2/w), true
}

// reportEstimate reports, through o.Progress, the time that method is
// estimated to take on p (estimateFor): Stage run.StageEstimate, Value the
// upper end in seconds, Message both ends in words. It reports nothing
// without a Progress or an estimate.
func reportEstimate(o Options, method Method, m metric.Metric, p *lp.Problem, lo *lp.Options) {
	if o.Progress == nil {
		return
	}
	a, b, ok := estimateFor(method, m, p, lo.Tol, lo.Workers)
	if !ok {
		return
	}
	pr := run.NewProgress(run.StageEstimate)
	pr.Value = b
	pr.Message = fmt.Sprintf("%s on %d points to a gap of %.3g: about %s to %s (the benchmarks' range on 2 cores; a prior of wide range, such as visit counts, takes the longer end)",
		method, p.N, lo.Tol, run.FormatSeconds(a), run.FormatSeconds(b))
	o.Report(pr)
}

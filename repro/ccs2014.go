package repro

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/optimal"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// ccs2014Experiment compares, as Bordenabe, Chatzikokolakis and Palamidessi
// (CCS 2014) do, the expected distance (quality loss) of the optimal
// geo-indistinguishable mechanism, of the mechanisms built on a
// delta-spanner, and of planar Laplace with its optimal remap, on a grid.
func ccs2014Experiment() Experiment {
	return Experiment{
		Name:  "ccs2014",
		Title: "Optimal geo-indistinguishable mechanisms: LP optimum vs delta-spanner vs planar Laplace (expected distance)",
		Paper: "Bordenabe, Chatzikokolakis, Palamidessi, Optimal Geo-Indistinguishable Mechanisms for Location Privacy, CCS 2014, §4-6",
		Claim: "The optimal mechanism (an LP) has a lower expected distance than planar Laplace with its optimal remap for the same eps; " +
			"a delta-spanner cuts the constraints and gives an eps-geo-indistinguishable mechanism whose loss approaches the optimum as delta -> 1.",
		Slow: true,
		Run:  runCCS2014,
	}
}

func runCCS2014(ctx context.Context, cfg *Config) (*Result, error) {
	r := newResult()
	side := 9
	epsList := []float64{0.3, 0.5, 0.7, 1.0, 1.3}
	if cfg.Quick {
		side, epsList = 5, []float64{0.5, 1.0}
	}
	deltas := []float64{1.2, 2}
	g, err := metric.Grid(side, side, 1, metric.Euclid)
	if err != nil {
		return nil, err
	}
	n := g.Len()
	prior := make([]float64, n)
	for i := range prior {
		prior[i] = 1 / float64(n)
	}
	r.md("Grid %d x %d (n = %d cells), step 1 km, Euclidean distance, uniform prior, loss = expected distance in km between the true and the reported cell (after the optimal remap for planar Laplace; the LP mechanisms' own outputs are already optimal guesses). Every mechanism passes `mech.Audit` at eps with zero tolerance against the full metric.\n", side, side, n)
	var rows [][]string
	opt := make([]float64, len(epsList))
	lap := make([]float64, len(epsList))
	bound := make([]float64, len(epsList))
	sp := make([][]float64, len(deltas))
	for d := range sp {
		sp[d] = make([]float64, len(epsList))
	}
	better, approach := true, true
	for k, eps := range epsList {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		frac := float64(k) / float64(len(epsList))
		cfg.progress(frac, "eps %.1f: optimal LP", eps)
		o := &optimal.Options{Gain: optimal.GainDistance, Tol: 1e-7}
		o.Settings = run.Settings{Budget: cfg.Budget, Progress: func(p run.Progress) {
			cfg.progress(frac, "eps %.1f: %s iteration %d, gap %.1e", eps, p.Stage, p.Iter, p.Gap)
		}}
		t0 := time.Now()
		ro, err := optimal.Solve(ctx, g, eps, prior, o)
		if err != nil {
			return nil, err
		}
		optSecs := time.Since(t0).Seconds()
		opt[k], bound[k] = -ro.Utility, -ro.Dual
		row := []string{ff(eps), ff(opt[k]), ff(bound[k]), fmt.Sprint(ro.Pairs)}
		for d, delta := range deltas {
			cfg.progress(frac, "eps %.1f: %g-spanner", eps, delta)
			so := &optimal.Options{Gain: optimal.GainDistance, Tol: 1e-7, Method: optimal.MethodSpanner, Delta: delta}
			so.Settings = run.Settings{Budget: cfg.Budget}
			rs, err := optimal.Solve(ctx, g, eps, prior, so)
			if err != nil {
				return nil, err
			}
			sp[d][k] = -rs.Utility
			// The spanner mechanism is feasible, so no better than the
			// optimum (up to the certified gap).
			if sp[d][k] < opt[k]*(1-1e-6) {
				return nil, fmt.Errorf("ccs2014: %g-spanner loss %v below the optimum %v at eps %v", delta, sp[d][k], opt[k], eps)
			}
			row = append(row, ff(sp[d][k]), fmt.Sprint(rs.Pairs))
		}
		cfg.progress(frac, "eps %.1f: planar Laplace", eps)
		x, err := mech.PlanarLaplace(side, side, 1, eps)
		if err != nil {
			return nil, err
		}
		lap[k] = remappedDistance(x, prior, g)
		row = append(row, ff(lap[k]), ff(optSecs))
		rows = append(rows, row)
		better = better && opt[k] < lap[k]
		approach = approach && sp[0][k] <= sp[1][k]*(1+1e-9)
	}
	header := []string{"eps_per_km", "optimal_loss_km", "optimal_loss_lower_bound_km", "optimal_pairs"}
	for _, d := range deltas {
		header = append(header, fmt.Sprintf("spanner%g_loss_km", d), fmt.Sprintf("spanner%g_pairs", d))
	}
	header = append(header, "planar_laplace_loss_km", "optimal_seconds")
	if err := r.writeCSV(cfg, "ccs2014_loss.csv", header, rows); err != nil {
		return nil, err
	}
	ss := []series{{Name: "optimal (LP)", X: epsList, Y: opt}}
	for d, delta := range deltas {
		ss = append(ss, series{Name: fmt.Sprintf("%g-spanner at eps/stretch", delta), X: epsList, Y: sp[d]})
	}
	ss = append(ss, series{Name: "planar Laplace, optimal remap", X: epsList, Y: lap})
	if err := r.linePlot(cfg, "ccs2014_loss", fmt.Sprintf("Expected distance on a %dx%d grid (1 km), uniform prior", side, side),
		"eps (per km)", "expected distance (km)", ss, plotOpts{}); err != nil {
		return nil, err
	}
	r.md("| eps (1/km) | optimal | %g-spanner | %g-spanner | planar Laplace | Laplace / optimal |\n|---:|---:|---:|---:|---:|---:|", deltas[0], deltas[1])
	for k, e := range epsList {
		r.md("| %.1f | %.4f | %.4f | %.4f | %.4f | %.2f |", e, opt[k], sp[0][k], sp[1][k], lap[k], lap[k]/opt[k])
	}
	r.md("")
	r.md("The optimal loss is certified: the LP's dual bound is at most a relative %.1g below it. The optimum beats planar Laplace at every eps: %v; the %g-spanner is at least as good as the %g-spanner at every eps: %v.\n", 1e-7, better, deltas[0], deltas[1], approach)
	if !better {
		r.differ("ccs2014: planar Laplace with its optimal remap is not worse than the LP optimum at some eps")
	}
	if !approach {
		r.differ("ccs2014: the %g-spanner loses more than the %g-spanner at some eps", deltas[0], deltas[1])
	}
	r.Values["optimal_loss_eps0.5"], r.Values["planar_laplace_loss_eps0.5"] = opt[indexOf(epsList, 0.5)], lap[indexOf(epsList, 0.5)]
	r.Values[fmt.Sprintf("spanner%g_loss_eps0.5", deltas[0])] = sp[0][indexOf(epsList, 0.5)]
	return r, nil
}

// remappedDistance is the expected distance of x for the prior after the
// optimal remap: sum_o min_k sum_i pi_i x[i][o] d(i,k).
func remappedDistance(x *mat.Dense, prior []float64, m metric.Metric) float64 {
	n, cols := x.Dims()
	var total float64
	col := make([]float64, n)
	for o := 0; o < cols; o++ {
		for i := 0; i < n; i++ {
			col[i] = prior[i] * x.At(i, o)
		}
		best := math.Inf(1)
		for k := 0; k < m.Len(); k++ {
			var s float64
			for i, v := range col {
				s += v * m.Dist(i, k)
			}
			best = math.Min(best, s)
		}
		total += best
	}
	return total
}

func indexOf(xs []float64, v float64) int {
	for i, x := range xs {
		if x == v {
			return i
		}
	}
	return 0
}

package repro

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/tight"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/solve"
	"gonum.org/v1/gonum/mat"
)

// utilityExperiment is Fig. 6 of the tight-constraints paper (and of the
// generalized-dp paper): utility of the tight-constraints mechanism vs the
// geometric mechanism for the sum query and for two counting queries.
func utilityExperiment() Experiment {
	return Experiment{
		Name:  "utility",
		Title: "Utility curves: tight-constraints vs truncated geometric (sum query u=150, v=5; 2-count query u=30)",
		Paper: "tight-constraints-region-of-priors §6 Fig. 6(a),(b); generalized-dp-regions-of-priors §6 Fig. 6",
		Claim: "\"We found that the minimum eps for which a tight-constraints mechanism exists (and is in fact unique since Phi is " +
			"invertible) is 0.8\" for the sum query (u = 150, v = 5), and 0.9 for the 2-count query (u = 30), both found with a " +
			"step of 0.01; from there to eps = 1.3 the tight-constraints mechanism has significantly higher utility (uniform prior, " +
			"optimal remap) than the geometric mechanism (applied to each count independently for the 2-count query).",
		Slow: true,
		Run:  runUtility,
	}
}

type utilityQuery struct {
	name     string
	label    string
	m        metric.Lattice
	paperEps float64 // the paper's reported threshold
	epsFrom  float64
	geom     func(eps float64) (*mat.Dense, error)
}

func runUtility(ctx context.Context, cfg *Config) (*Result, error) {
	r := newResult()
	su, sv, ku := 150, 5, 30
	if cfg.Quick {
		su, ku = 30, 10
	}
	sum, err := metric.Sum(su, sv)
	if err != nil {
		return nil, err
	}
	kc, err := metric.KCount(ku, 2)
	if err != nil {
		return nil, err
	}
	qs := []utilityQuery{
		{name: "sum", label: fmt.Sprintf("sum query u=%d, v=%d (n=%d)", su, sv, sum.Len()), m: sum, paperEps: 0.8, epsFrom: 0.8,
			geom: func(eps float64) (*mat.Dense, error) { return mech.TruncatedGeometric(sum.Len(), eps, sv) }},
		{name: "2count", label: fmt.Sprintf("2-count query u=%d (n=%d)", ku, kc.Len()), m: kc, paperEps: 0.9, epsFrom: 0.9,
			geom: func(eps float64) (*mat.Dense, error) { return mech.GeometricPerCount(ku, 2, eps) }},
	}
	if cfg.Quick {
		r.md("Quick mode: the sum query is scaled down to u = %d and the 2-count query to u = %d; the paper's claims refer to u = 150 and u = 30.\n", su, ku)
	}
	r.md("Utility is for the uniform prior with the optimal remap. For the tight-constraints mechanism it is mean(z) where Phi z = 1 (docs/MATH.md §3.4), reported only where z >= 0 (the mechanism exists); the geometric's is sum_o max_i X[i][o]/n from its matrix.\n")
	step := 0.02
	if cfg.Quick {
		step = 0.05
	}
	for qi, q := range qs {
		base := float64(qi) / float64(len(qs))
		cfg.progress(base, "%s: threshold", q.name)
		th, err := tight.Threshold(ctx, q.m, &tight.ThresholdOptions{Lo: 0.2, Hi: 3, Tol: 1e-5, Steps: 12})
		if err != nil {
			return nil, fmt.Errorf("%s threshold: %w", q.name, err)
		}
		epsStar := th.EpsStar
		grid01 := math.Ceil(epsStar*100-1e-9) / 100 // first eps on the paper's 0.01 grid where it exists
		r.Values[q.name+"_eps_star"] = epsStar
		r.Values[q.name+"_eps_star_grid001"] = grid01
		// Sign of min z at the paper's eps, two ways.
		tp, err := tight.Solve(ctx, q.m, q.paperEps, &tight.Options{NoMechanism: true})
		if err != nil {
			return nil, err
		}
		zs, sres, err := latticeZ(ctx, q.m, q.paperEps, solve.Options{})
		if err != nil {
			return nil, err
		}
		smin, sat, _ := minMean(zs)
		r.Values[q.name+"_minz_paper_eps_dense"] = tp.MinZ
		r.Values[q.name+"_minz_paper_eps_toeplitz"] = smin
		// Curves.
		var eps, ut, ug, mins, means []float64
		var rows [][]string
		hi := 1.3
		lo := math.Min(q.epsFrom, grid01)
		var grid []float64
		for k := 0; lo+float64(k)*step <= hi+1e-9; k++ {
			grid = append(grid, math.Round((lo+float64(k)*step)*1e6)/1e6)
		}
		if epsStar > lo && epsStar < hi {
			grid = append(grid, epsStar) // the threshold itself
			slices.Sort(grid)
		}
		for _, e := range grid {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			cfg.progress(base+(e-lo)/(hi-lo)/float64(len(qs)), "%s: eps %.2f", q.name, e)
			t, err := tight.Solve(ctx, q.m, e, &tight.Options{NoMechanism: true})
			if err != nil {
				return nil, err
			}
			g, err := q.geom(e)
			if err != nil {
				return nil, err
			}
			_, ugv, err := mech.OptimalRemap(g, uniformPrior(q.m.Len()))
			if err != nil {
				return nil, err
			}
			tu := math.NaN()
			if t.Exists == tight.Yes {
				tu = t.Utility
			}
			rows = append(rows, []string{ff(e), fv(t.Exists), ff(t.MinZ), ffOrEmpty(tu), ff(ugv)})
			eps = append(eps, e)
			mins, means = append(mins, t.MinZ), append(means, t.Utility)
			ut = append(ut, tu)
			ug = append(ug, ugv)
		}
		if err := r.writeCSV(cfg, "utility_"+q.name+".csv", []string{"eps", "tight_exists", "tight_min_z", "tight_utility", "geometric_utility"}, rows); err != nil {
			return nil, err
		}
		var te, tv []float64
		for i := range eps {
			if !math.IsNaN(ut[i]) {
				te, tv = append(te, eps[i]), append(tv, ut[i])
			}
		}
		r.Values[q.name+"_tight_utility_1.3"] = tv[len(tv)-1]
		r.Values[q.name+"_geometric_utility_1.3"] = ug[len(ug)-1]
		if err := r.linePlot(cfg, "utility_"+q.name, "Utility vs eps: "+q.label, "eps (privacy parameter per unit of graph distance)",
			"utility (uniform prior, optimal remap)",
			[]series{{Name: "tight-constraints (where it exists)", X: te, Y: tv}, {Name: "geometric", X: eps, Y: ug},
				{Name: "mean(z) where min z < 0 (a bound; no mechanism)", X: eps, Y: boundOnly(means, mins), Dashed: true}}, plotOpts{}); err != nil {
			return nil, err
		}
		// Cross-check of the tight mechanism at the last eps: build X, audit
		// it, and compute its utility with the optimal remap from X itself.
		var xcheck string
		if q.m.Len() <= 1000 {
			t, err := tight.Solve(ctx, q.m, hi, nil)
			if err != nil {
				return nil, err
			}
			if t.X != nil {
				_, ux, err := mech.OptimalRemap(t.X, uniformPrior(q.m.Len()))
				if err != nil {
					return nil, err
				}
				r.Values[q.name+"_tight_utility_from_X_1.3"] = ux
				xcheck = fmt.Sprintf(" At eps = %.2f the mechanism X built from z passes the DP audit (measured eps %.6g) and its utility computed from X with the optimal remap is %.6f (mean(z) = %.6f).", hi, t.Audit.Eps, ux, t.Utility)
			}
		}
		r.md("### %s\n", q.label)
		r.md("| quantity | paper | optdp |\n|---|---:|---:|")
		r.md("| threshold eps* (tight.Threshold, bisection to 1e-5) | %.2f | %.5f (bracket [%.6f, %.6f], %d solves) |", q.paperEps, epsStar, th.Lo, th.Hi, th.Evaluations)
		r.md("| first eps on the 0.01 grid where the mechanism exists | %.2f | %.2f |", q.paperEps, grid01)
		r.md("| min z at eps = %.2f, %s | (>= 0 implied) | %.6g (error bound %.2g) |", q.paperEps, tp.Solver, tp.MinZ, tp.ZErr)
		r.md("| min z at eps = %.2f, %s (%d iterations, residual %.1e) | | %.6g (at index %d) |", q.paperEps, sres.Solver, sres.Iterations, sres.Residual, smin, sat)
		r.md("| tight utility at eps = 1.3 | higher than geometric | %.4f |", tv[len(tv)-1])
		r.md("| geometric utility at eps = 1.3 | | %.4f |", ug[len(ug)-1])
		r.md("")
		if len(th.Crossings) > 1 {
			r.md("The scan found %d sign changes of min z: existence is not monotone in eps here.", len(th.Crossings))
		}
		r.md("Tight beats geometric at every eps where it exists: %v.%s\n", dominates(ut, ug), xcheck)
		if math.Abs(grid01-q.paperEps) > 0.005 && !cfg.Quick {
			r.differ("%s: the paper's threshold is %.2f, optdp finds eps* = %.4f; at eps = %.2f min z = %.4g (%s) and %.4g (%s), both negative, so no tight-constraints mechanism exists there",
				q.label, q.paperEps, epsStar, q.paperEps, tp.MinZ, tp.Solver, smin, sres.Solver)
			r.md("**Discrepancy.** The paper reports %.2f; optdp finds %.4f. Evidence: at eps = %.2f two independent solves of Phi z = 1 — a dense factorisation, %s (%s), and a matrix-free %s iteration — agree that min z = %.4g < 0 (well beyond the error bound %.1g). Since the solution is unique and has a negative entry, no z >= 0 exists, i.e. the uniform prior is not regular and no tight-constraints mechanism exists at %.2f. The paper's curve for eps < %.3f therefore cannot be the utility of a tight-constraints mechanism; the dashed curve shows mean(z) there, which is only the bound sum(y) of docs/MATH.md §5.5 (see §16.1).\n",
				q.paperEps, epsStar, q.paperEps, tp.Solver, uniqueNote(tp), sres.Solver, tp.MinZ, tp.ZErr, q.paperEps, epsStar)
		}
	}
	return r, nil
}

// dominates reports whether a[i] > b[i] wherever a[i] is defined.
func dominates(a, b []float64) bool {
	for i := range a {
		if !math.IsNaN(a[i]) && !(a[i] > b[i]) {
			return false
		}
	}
	return true
}

// uniqueNote says why the dense solution is the only one.
func uniqueNote(t *tight.Result) string {
	switch {
	case t.Solver == "dense-cholesky":
		return "Cholesky succeeded, so Phi is positive definite and the solution is unique"
	case t.Unique:
		return fmt.Sprintf("Phi is nonsingular, rcond %.2g, so the solution is unique", t.RCond)
	}
	return "Phi is numerically singular"
}

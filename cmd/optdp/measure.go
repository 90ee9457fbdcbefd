package main

// optdp measure: the quantitative-information-flow measures of any channel
// (mech/qif.go, mech/capacity.go, mech/compose.go; docs/MATH.md §6, §18).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	optrun "github.com/optdp/optdp/run"

	"gonum.org/v1/gonum/mat"
)

func measureCommand() command {
	return command{
		name:    "measure",
		summary: "every leakage measure of a channel (CSV or .npy): Bayes, g-, Shannon, guessing, capacities, refinement",
		usage: "--matrix FILE [--cascade FILE | --parallel FILE] [--prior SPEC] [--metric SPEC] [--gain file:G.csv|binary] " +
			"[--loss file:L.csv|distance] [--refined-by FILE] [--capacity-tol T] [--progress] [--json]",
		examples: []string{
			"optdp tight --metric line:n=6 --eps 0.7 --out x.csv && optdp measure --matrix x.csv --metric line:n=6 --loss distance",
			"optdp measure --matrix x.csv --prior file:prior.txt --gain file:gain.csv --json",
			"optdp measure --matrix planar.csv --metric grid:w=10,h=10,bbox=48.8,2.25,48.9,2.42 --prior points:checkins.csv,pseudo=0.5",
		},
		fields: measureFields,
		run:    runMeasure,
	}
}

// measureFields documents the JSON output of optdp measure (bits are
// base-2 logarithms; the formulas are in docs/MATH.md §6 and §18).
var measureFields = []string{
	"n                     number of secrets (rows of the channel)",
	"outputs               number of outputs (columns) of the channel measured",
	"composed              with --cascade D or --parallel R: \"cascade with FILE\" or \"parallel with FILE\" (C·D or C‖R is measured)",
	"metric                the --metric spec, normalised; absent without --metric",
	"prior                 the --prior spec",
	"map_prior             for points:/raster: priors: {kind, file, pseudo, points, inside, outside} (points outside the grid are dropped)",
	"  kind, file, pseudo, points, inside, outside",
	"bayes                 the identity gain (one guess, right or wrong):",
	"  prior_vulnerability       V(pi) = max_x pi_x",
	"  posterior_vulnerability   V[pi,C] = sum_y max_x pi_x C[x][y]",
	"  min_entropy_bits          -log2 V(pi)",
	"  cond_min_entropy_bits     -log2 V[pi,C]",
	"  leakage_bits              min-entropy (multiplicative Bayes) leakage log2(V[pi,C]/V(pi))",
	"  additive_leakage          V[pi,C] - V(pi)",
	"  min_capacity_bits         max over priors of leakage_bits = log2 sum_y max_x C[x][y]",
	"shannon               Shannon entropy and mutual information (bits):",
	"  entropy_bits              H(pi)",
	"  cond_entropy_bits         H(pi | C)",
	"  leakage_bits              mutual information I(pi; C) = H(pi) - H(pi | C)",
	"  capacity_lower_bits       Blahut–Arimoto bracket on max over priors of I: lower end (a prior's I)",
	"  capacity_upper_bits       upper end (max_x D(C[x] || q)); null when --capacity-tol is 0 (not computed)",
	"  capacity_converged        upper - lower <= --capacity-tol",
	"  capacity_iterations       Blahut–Arimoto steps",
	"guessing                    Massey's guessing entropy (expected number of guesses):",
	"  prior                     G(pi) = sum_i i pi_(i), pi sorted decreasingly",
	"  posterior                 G(pi | C) = sum_y p(y) G(pi | y)",
	"gain                  with --gain: g-vulnerability, G[x][w] = gain of guess w for secret x:",
	"  source                    the --gain spec",
	"  guesses                   number of guesses (columns of G)",
	"  prior_vulnerability       V_g(pi) = max_w sum_x pi_x G[x][w]",
	"  posterior_vulnerability   V_g[pi,C] = sum_y max_w sum_x pi_x C[x][y] G[x][w]",
	"  additive_leakage          V_g[pi,C] - V_g(pi)",
	"  multiplicative_leakage_bits  log2(V_g[pi,C]/V_g(pi)); null when V_g(pi) <= 0",
	"  capacity_lower_bits       multiplicative g-capacity max over priors of log2(V_g[pi,C]/V_g(pi)): lower end",
	"  capacity_upper_bits       upper end (the min-capacity when not exact); both null for a gain with negative entries",
	"                            or when k·(n+k) > 2^21 (the LP tableau too large for a report)",
	"  capacity_exact            every strategy was tried (one LP each): lower = upper = the capacity",
	"loss                  with --loss: expected loss (Bayes risk), L[x][w] = loss of guess w for secret x:",
	"  source                    the --loss spec",
	"  guesses                   number of guesses (columns of L)",
	"  prior_risk                U_l(pi) = min_w sum_x pi_x L[x][w]",
	"  posterior_risk            U_l[pi,C] = sum_y min_w sum_x pi_x C[x][y] L[x][w]",
	"  risk_reduction            U_l(pi) - U_l[pi,C] (>= 0)",
	"  multiplicative_leakage_bits  log2(U_l(pi)/U_l[pi,C]); null when either is <= 0",
	"refinement            with --refined-by R: is the channel C refined by R (R = C·D for a stochastic D)?",
	"  refined_by                the file of R",
	"  verdict                   yes, no or borderline",
	"  distance                  min over stochastic D of sum |C·D - R| (0 exactly when refined)",
	"  distance_is_bound         true when a fast witness search decided 'no': distance is then a lower bound",
	"  residual                  max |C·D - R| for the D found",
	"  witness_gap               when not refined: V_g[u,R] - V_g[u,C] > 0 for a witness gain g, uniform u; else null",
}

// measureOutput is the JSON output of optdp measure.
type measureOutput struct {
	N          int               `json:"n"`
	Outputs    int               `json:"outputs"`
	Composed   string            `json:"composed,omitempty"`
	Metric     string            `json:"metric,omitempty"`
	Prior      string            `json:"prior"`
	MapPrior   *mapPriorInfo     `json:"map_prior,omitempty"`
	Bayes      bayesMeasures     `json:"bayes"`
	Shannon    shannonMeasures   `json:"shannon"`
	Guessing   guessingMeasures  `json:"guessing"`
	Gain       *gainMeasures     `json:"gain,omitempty"`
	Loss       *lossMeasures     `json:"loss,omitempty"`
	Refinement *refinementOutput `json:"refinement,omitempty"`
}

type bayesMeasures struct {
	PriorVulnerability num `json:"prior_vulnerability"`
	PostVulnerability  num `json:"posterior_vulnerability"`
	MinEntropy         num `json:"min_entropy_bits"`
	CondMinEntropy     num `json:"cond_min_entropy_bits"`
	Leakage            num `json:"leakage_bits"`
	AdditiveLeakage    num `json:"additive_leakage"`
	MinCapacity        num `json:"min_capacity_bits"`
}

type shannonMeasures struct {
	Entropy           num  `json:"entropy_bits"`
	CondEntropy       num  `json:"cond_entropy_bits"`
	Leakage           num  `json:"leakage_bits"`
	CapacityLower     *num `json:"capacity_lower_bits"`
	CapacityUpper     *num `json:"capacity_upper_bits"`
	CapacityConverged bool `json:"capacity_converged"`
	CapacityIter      int  `json:"capacity_iterations"`
}

type guessingMeasures struct {
	Prior     num `json:"prior"`
	Posterior num `json:"posterior"`
}

type gainMeasures struct {
	Source                string `json:"source"`
	Guesses               int    `json:"guesses"`
	PriorVulnerability    num    `json:"prior_vulnerability"`
	PostVulnerability     num    `json:"posterior_vulnerability"`
	AdditiveLeakage       num    `json:"additive_leakage"`
	MultiplicativeLeakage *num   `json:"multiplicative_leakage_bits"`
	CapacityLower         *num   `json:"capacity_lower_bits"`
	CapacityUpper         *num   `json:"capacity_upper_bits"`
	CapacityExact         bool   `json:"capacity_exact"`
}

type lossMeasures struct {
	Source                string `json:"source"`
	Guesses               int    `json:"guesses"`
	PriorRisk             num    `json:"prior_risk"`
	PostRisk              num    `json:"posterior_risk"`
	Reduction             num    `json:"risk_reduction"`
	MultiplicativeLeakage *num   `json:"multiplicative_leakage_bits"`
}

type refinementOutput struct {
	RefinedBy  string `json:"refined_by"`
	Verdict    string `json:"verdict"`
	Distance   num    `json:"distance"`
	DistBound  bool   `json:"distance_is_bound"`
	Residual   num    `json:"residual"`
	WitnessGap *num   `json:"witness_gap"`
}

func runMeasure(env *runEnv, args []string) error {
	fs := newFlags(env, "measure")
	file := fs.String("matrix", "", "channel FILE: CSV (one row per secret, rows summing to 1) or NumPy .npy float64 (required)")
	priorSpec := fs.String("prior", "uniform", priorSpecHelp+", "+mapPriorHelp)
	metricSpec := fs.String("metric", "", "answer metric (optional; needed by --loss distance and the points:/raster: priors): "+strings.TrimPrefix(metricFlagHelp, "answer metric spec (required): "))
	gainSpec := fs.String("gain", "", "gain matrix: file:G.csv (n rows = secrets, one column per guess, any finite values) or binary (the identity)")
	lossSpec := fs.String("loss", "", "loss matrix: file:L.csv (n rows = secrets, one column per guess) or distance (the metric's distances; needs --metric)")
	refinedBy := fs.String("refined-by", "", "second channel FILE R with the same rows: decide whether --matrix C is refined by R (R = C·D), by LP")
	cascade := fs.String("cascade", "", "channel FILE D (one row per output of --matrix): measure the cascade C·D (C's output post-processed by D) instead of C")
	parallel := fs.String("parallel", "", "channel FILE R with the same rows: measure the parallel composition C‖R (both outputs, independent noise) instead of C")
	capTol := fs.Float64("capacity-tol", 1e-6, "width in bits of the Shannon capacity bracket (Blahut–Arimoto); 0 skips the capacity")
	prog := fs.Bool("progress", false, "draw a progress bar on stderr even with --json")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	if *file == "" {
		return usagef("--matrix FILE is required")
	}
	if math.IsNaN(*capTol) || math.IsInf(*capTol, 0) || *capTol < 0 {
		return usagef("--capacity-tol %v: want a finite number >= 0", *capTol)
	}
	c, err := readMatrixPath(*file)
	if err != nil {
		return dataError{fmt.Errorf("--matrix: %w", err)}
	}
	if err := mech.ValidateStochastic(c, "channel"); err != nil {
		return dataError{fmt.Errorf("--matrix %s: %w", *file, err)}
	}
	var composed string
	if *cascade != "" && *parallel != "" {
		return usagef("--cascade and --parallel: give one of them")
	}
	for _, op := range []struct {
		flag, path string
		f          func(a, b *mat.Dense) (*mat.Dense, error)
	}{{"cascade", *cascade, mech.Cascade}, {"parallel", *parallel, mech.Parallel}} {
		if op.path == "" {
			continue
		}
		d, err := readMatrixPath(op.path)
		if err != nil {
			return dataError{fmt.Errorf("--%s: %w", op.flag, err)}
		}
		if c, err = op.f(c, d); err != nil {
			return dataError{fmt.Errorf("--%s %s: %w", op.flag, op.path, err)}
		}
		composed = op.flag + " with " + op.path
	}
	n, outputs := c.Dims()
	res := measureOutput{N: n, Outputs: outputs, Composed: composed, Prior: *priorSpec}

	// The metric: given, or a stand-in with n answers for the prior.
	var m metric.Metric
	if *metricSpec != "" {
		if m, err = parseMetricFlag(*metricSpec, true); err != nil {
			return err
		}
		if m.Len() != n {
			return dataError{fmt.Errorf("--matrix %s has %d rows but %s has %d answers (want one row per answer)", *file, n, m, m.Len())}
		}
		res.Metric = m.String()
	} else if m, err = metric.Clique(n); err != nil {
		return dataError{fmt.Errorf("--matrix %s: %w", *file, err)}
	}
	var prior []float64
	if isMapPrior(*priorSpec) {
		ps, info, _, err := readMapPrior(*priorSpec, m)
		if err != nil {
			return priorError(*priorSpec, err)
		}
		prior, res.MapPrior = ps.prior, info
	} else {
		ps, err := parsePrior(*priorSpec, m, true)
		if err != nil {
			return priorError(*priorSpec, err)
		}
		prior = ps.prior
	}

	if err := bayesAndShannon(&res, c, prior); err != nil {
		return err
	}
	if *gainSpec != "" {
		g, err := readGainSpec("gain", *gainSpec, n, m, *metricSpec != "")
		if err != nil {
			return err
		}
		if res.Gain, err = gainOf(c, prior, g, *gainSpec); err != nil {
			return err
		}
	}
	if *lossSpec != "" {
		l, err := readGainSpec("loss", *lossSpec, n, m, *metricSpec != "")
		if err != nil {
			return err
		}
		if res.Loss, err = lossOf(c, prior, l, *lossSpec); err != nil {
			return err
		}
	}
	enabled := progressEnabled(*asJSON, *prog)
	if *capTol > 0 {
		capRes, err := busy(env, "Shannon capacity", enabled, func(bar *progress) (*mech.CapacityResult, error) {
			opts := &mech.CapacityOptions{Tol: *capTol}
			opts.Progress = func(p optrun.Progress) {
				bar.Update(-1, fmt.Sprintf("step %d, bracket width %.3g bits", p.Iter, p.Gap))
			}
			return mech.ShannonCapacity(context.Background(), c, opts)
		})
		if err != nil && !errors.Is(err, optrun.ErrNotConverged) {
			return err
		}
		res.Shannon.CapacityLower, res.Shannon.CapacityUpper = numPtr(capRes.Lower), numPtr(capRes.Upper)
		res.Shannon.CapacityConverged, res.Shannon.CapacityIter = err == nil, capRes.Iter
	}
	if *refinedBy != "" {
		r, err := readMatrixPath(*refinedBy)
		if err != nil {
			return dataError{fmt.Errorf("--refined-by: %w", err)}
		}
		ref, err := busy(env, "refinement LP", enabled, func(*progress) (*mech.Refinement, error) {
			return mech.RefinedBy(context.Background(), c, r, nil)
		})
		if err != nil {
			return dataError{fmt.Errorf("--refined-by %s: %w", *refinedBy, err)}
		}
		res.Refinement = &refinementOutput{RefinedBy: *refinedBy, Verdict: string(ref.Verdict), Distance: num(ref.Distance), DistBound: ref.DistanceBound, Residual: num(ref.Residual)}
		if ref.Gain != nil {
			res.Refinement.WitnessGap = numPtr(ref.WitnessGap)
		}
	}
	if *asJSON {
		return writeJSON(env.stdout, res)
	}
	printMeasure(env.stdout, &res)
	return nil
}

// bayesAndShannon fills the measures that need no gain.
func bayesAndShannon(res *measureOutput, c *mat.Dense, prior []float64) error {
	id := []func() (float64, error){
		func() (float64, error) { return maxProb(prior), nil },
		func() (float64, error) { _, u, err := mech.OptimalRemap(c, prior); return u, err },
		func() (float64, error) { return mech.MinEntropy(prior) },
		func() (float64, error) { return mech.CondMinEntropy(c, prior) },
		func() (float64, error) { return mech.Leakage(c, prior) },
		func() (float64, error) { return mech.MinCapacity(c) },
		func() (float64, error) { return mech.ShannonEntropy(prior) },
		func() (float64, error) { return mech.CondShannonEntropy(c, prior) },
		func() (float64, error) { return mech.ShannonLeakage(c, prior) },
		func() (float64, error) { return mech.GuessingEntropy(prior) },
		func() (float64, error) { return mech.CondGuessingEntropy(c, prior) },
	}
	v := make([]float64, len(id))
	for i, f := range id {
		x, err := f()
		if err != nil {
			return dataError{err}
		}
		v[i] = x
	}
	res.Bayes = bayesMeasures{num(v[0]), num(v[1]), num(v[2]), num(v[3]), num(v[4]), num(v[1] - v[0]), num(v[5])}
	res.Shannon = shannonMeasures{Entropy: num(v[6]), CondEntropy: num(v[7]), Leakage: num(v[8])}
	res.Guessing = guessingMeasures{num(v[9]), num(v[10])}
	return nil
}

// maxProb is max_i p_i.
func maxProb(p []float64) float64 {
	m := 0.0
	for _, v := range p {
		m = math.Max(m, v)
	}
	return m
}

// readGainSpec reads --gain or --loss: file:PATH (rows = secrets), binary
// (the n x n identity) or distance (the metric's n x n distances, only with
// --metric).
func readGainSpec(what, spec string, n int, m metric.Metric, haveMetric bool) (*mat.Dense, error) {
	switch {
	case strings.HasPrefix(spec, "file:"):
		path := strings.TrimPrefix(spec, "file:")
		if path == "" {
			return nil, usagef("--%s %q: want file:PATH", what, spec)
		}
		g, err := readMatrixPath(path)
		if err != nil {
			return nil, dataError{fmt.Errorf("--%s: %w", what, err)}
		}
		if r, _ := g.Dims(); r != n {
			return nil, dataError{fmt.Errorf("--%s %s: %d rows, want %d (one per secret, a row of the channel; columns are guesses)", what, path, r, n)}
		}
		return g, nil
	case spec == "binary" || spec == "distance":
		if spec == "distance" && !haveMetric {
			return nil, usagef("--%s distance needs --metric", what)
		}
		if err := mech.ValidateDenseSize(n, n, "--"+what+" "+spec); err != nil {
			return nil, usageError{err}
		}
		g := mat.NewDense(n, n, nil)
		for x := 0; x < n; x++ {
			for w := 0; w < n; w++ {
				switch {
				case spec == "distance":
					g.Set(x, w, m.Dist(x, w))
				case x == w:
					g.Set(x, w, 1)
				}
			}
		}
		return g, nil
	}
	return nil, usagef("--%s %q: want file:PATH, binary or distance", what, spec)
}

// gainOf computes the g-vulnerabilities and leakages of c.
func gainOf(c *mat.Dense, prior []float64, g *mat.Dense, spec string) (*gainMeasures, error) {
	pre, err := mech.GVulnerability(prior, g)
	if err != nil {
		return nil, dataError{fmt.Errorf("--gain: %w", err)}
	}
	post, err := mech.PostGVulnerability(c, prior, g)
	if err != nil {
		return nil, dataError{fmt.Errorf("--gain: %w", err)}
	}
	_, k := g.Dims()
	out := &gainMeasures{Source: spec, Guesses: k, PriorVulnerability: num(pre), PostVulnerability: num(post), AdditiveLeakage: num(post - pre)}
	if ml, err := mech.MulGLeakage(c, prior, g); err == nil {
		out.MultiplicativeLeakage = numPtr(ml)
	}
	n, _ := g.Dims()
	if float64(k)*float64(n+k) > maxGCapacityTableau {
		return out, nil // the simplex tableau would be too large for a report
	}
	if gc, err := mech.MulGCapacity(context.Background(), c, g, nil); err == nil {
		out.CapacityLower, out.CapacityUpper, out.CapacityExact = numPtr(gc.Lower), numPtr(gc.Upper), gc.Exact
	} else if !errors.Is(err, optrun.ErrBadInput) {
		return nil, dataError{fmt.Errorf("--gain: %w", err)}
	}
	return out, nil
}

// maxGCapacityTableau bounds k·(n+k), the entries of the simplex tableau
// of the g-capacity LPs that measure solves (16 MiB).
const maxGCapacityTableau = 2 << 20

// lossOf computes the Bayes risks of c.
func lossOf(c *mat.Dense, prior []float64, l *mat.Dense, spec string) (*lossMeasures, error) {
	pre, err := mech.BayesRisk(prior, l)
	if err != nil {
		return nil, dataError{fmt.Errorf("--loss: %w", err)}
	}
	post, err := mech.PostBayesRisk(c, prior, l)
	if err != nil {
		return nil, dataError{fmt.Errorf("--loss: %w", err)}
	}
	_, k := l.Dims()
	out := &lossMeasures{Source: spec, Guesses: k, PriorRisk: num(pre), PostRisk: num(post), Reduction: num(pre - post)}
	if pre > 0 && post > 0 {
		out.MultiplicativeLeakage = numPtr(math.Log2(pre / post))
	}
	return out, nil
}

// printMeasure prints the human-readable table.
func printMeasure(w io.Writer, r *measureOutput) {
	f := func(v num) string { return fmt.Sprintf("%.10g", float64(v)) }
	fp := func(v *num) string {
		if v == nil {
			return "n/a"
		}
		return f(*v)
	}
	fmt.Fprintf(w, "channel   %d secrets x %d outputs", r.N, r.Outputs)
	if r.Composed != "" {
		fmt.Fprintf(w, " (%s)", r.Composed)
	}
	if r.Metric != "" {
		fmt.Fprintf(w, ", metric %s", r.Metric)
	}
	fmt.Fprintf(w, "\nprior     %s\n", r.Prior)
	if mp := r.MapPrior; mp != nil && mp.Kind == "points" {
		fmt.Fprintf(w, "          %d points, %d in the grid, %d outside (dropped), pseudo-count %g\n", mp.Points, mp.Inside, mp.Outside, mp.Pseudo)
	}
	fmt.Fprintln(w, "\nBayes (identity gain)            prior        posterior")
	fmt.Fprintf(w, "  vulnerability              %-12s %s\n", f(r.Bayes.PriorVulnerability), f(r.Bayes.PostVulnerability))
	fmt.Fprintf(w, "  min-entropy (bits)         %-12s %s\n", f(r.Bayes.MinEntropy), f(r.Bayes.CondMinEntropy))
	fmt.Fprintf(w, "  leakage: %s bits (multiplicative), %s (additive); min-capacity %s bits\n", f(r.Bayes.Leakage), f(r.Bayes.AdditiveLeakage), f(r.Bayes.MinCapacity))
	fmt.Fprintln(w, "Shannon")
	fmt.Fprintf(w, "  entropy (bits)             %-12s %s\n", f(r.Shannon.Entropy), f(r.Shannon.CondEntropy))
	fmt.Fprintf(w, "  leakage (mutual information): %s bits\n", f(r.Shannon.Leakage))
	if r.Shannon.CapacityLower != nil {
		conv := ""
		if !r.Shannon.CapacityConverged {
			conv = " (not converged)"
		}
		fmt.Fprintf(w, "  capacity in [%s, %s] bits after %d Blahut–Arimoto steps%s\n", fp(r.Shannon.CapacityLower), fp(r.Shannon.CapacityUpper), r.Shannon.CapacityIter, conv)
	}
	fmt.Fprintln(w, "Guessing entropy")
	fmt.Fprintf(w, "  expected guesses           %-12s %s\n", f(r.Guessing.Prior), f(r.Guessing.Posterior))
	if g := r.Gain; g != nil {
		fmt.Fprintf(w, "Gain %s (%d guesses)\n", g.Source, g.Guesses)
		fmt.Fprintf(w, "  g-vulnerability            %-12s %s\n", f(g.PriorVulnerability), f(g.PostVulnerability))
		fmt.Fprintf(w, "  g-leakage: %s (additive), %s bits (multiplicative)\n", f(g.AdditiveLeakage), fp(g.MultiplicativeLeakage))
		if g.CapacityLower != nil {
			exact := "bracket"
			if g.CapacityExact {
				exact = "exact"
			}
			fmt.Fprintf(w, "  multiplicative g-capacity in [%s, %s] bits (%s)\n", fp(g.CapacityLower), fp(g.CapacityUpper), exact)
		}
	}
	if l := r.Loss; l != nil {
		fmt.Fprintf(w, "Loss %s (%d guesses)\n", l.Source, l.Guesses)
		fmt.Fprintf(w, "  expected loss              %-12s %s\n", f(l.PriorRisk), f(l.PostRisk))
		fmt.Fprintf(w, "  reduction %s; multiplicative %s bits\n", f(l.Reduction), fp(l.MultiplicativeLeakage))
	}
	if rf := r.Refinement; rf != nil {
		ge := ""
		if rf.DistBound {
			ge = ">= "
		}
		fmt.Fprintf(w, "Refinement by %s: %s (distance %s%s, residual %s", rf.RefinedBy, rf.Verdict, ge, f(rf.Distance), f(rf.Residual))
		if rf.WitnessGap != nil {
			fmt.Fprintf(w, ", witness gain leaks %s more through R", f(*rf.WitnessGap))
		}
		fmt.Fprintln(w, ")")
	}
}

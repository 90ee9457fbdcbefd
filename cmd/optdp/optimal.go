package main

import (
	"context"
	"fmt"
	"math"
	"strings"

	optrun "github.com/optdp/optdp/run"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/optimal"
	"gonum.org/v1/gonum/mat"
)

func optimalCommand() command {
	return command{
		name:    "optimal",
		summary: "optimal eps-private mechanism for any prior (linear program, certified gap, audited)",
		usage:   "--metric SPEC --eps E --prior uniform|file:PATH|counts:FILE|points:FILE|raster:FILE [--gain binary|distance|file:G.csv | --loss file:L.csv] [--method auto|exact|generate|spanner] [--delta D] [--tol T] [--force] [--out FILE.csv|FILE.npy] [--plot FILE.svg|FILE.png] [--progress] [--json]",
		examples: []string{
			"optdp optimal --metric line:n=110 --eps 1 --prior uniform",
			"optdp optimal --metric sum:u=22,v=5 --eps 1 --prior file:prior.txt --gain distance --json",
			"optdp optimal --metric line:n=1000 --eps 0.5 --prior uniform --tol 1e-6 --out mech.csv --json",
			"optdp optimal --metric grid:w=20,h=20,step=1,norm=manhattan --eps 0.5 --prior uniform --gain distance --tol 1e-6",
			"optdp optimal --metric grid:w=8,h=8,step=1 --eps 0.5 --prior uniform --gain distance --method generate --tol 1e-6",
			"optdp optimal --metric grid:w=12,h=12,step=1 --eps 0.5 --prior uniform --gain distance --method spanner --delta 1.2",
			"optdp optimal --metric points:file=xy.csv --eps 1 --prior points:visits.csv,pseudo=1 --gain distance --out mech.csv --plot map.svg",
		},
		run: runOptimal,
	}
}

// optimalResult is the JSON output of optdp optimal.
type optimalResult struct {
	Metric string  `json:"metric"`
	N      int     `json:"n"`
	Eps    float64 `json:"eps"`
	Gain   string  `json:"gain"`
	Method string  `json:"method"`
	// MethodReason and Attempts: why Method answered (--method auto: the
	// structure seen and the methods tried before).
	MethodReason string            `json:"method_reason,omitempty"`
	Attempts     []optimal.Attempt `json:"attempts,omitempty"`
	Pairs        int               `json:"pairs"`
	Rounds       int               `json:"rounds,omitempty"`
	Delta        float64           `json:"delta,omitempty"`
	Utility      float64           `json:"utility"`
	Primal       float64           `json:"primal"`
	Dual         float64           `json:"dual"`
	Gap          float64           `json:"gap"`
	AuditEps     float64           `json:"audit_eps"`
	Iterations   int               `json:"iterations"`
	Symmetry     int               `json:"symmetry"`
	Mix          float64           `json:"mix"`
	TimeS        float64           `json:"time_s"`
	Out          string            `json:"out,omitempty"`
	// Plot and PlotRows: the map drawn by --plot and the true locations
	// whose reports it shows.
	Plot     string `json:"plot,omitempty"`
	PlotRows []int  `json:"plot_rows,omitempty"`
}

func runOptimal(env *runEnv, args []string) error {
	fs := newFlags(env, "optimal")
	metricSpec := fs.String("metric", "", metricFlagHelp)
	eps := fs.Float64("eps", 0, epsFlagHelp)
	prior := fs.String("prior", "", "prior on the answers (required): uniform; file:PATH with n probabilities summing to 1 separated by commas, spaces or newlines; "+mapPriorHelp)
	gain := fs.String("gain", "binary", "gain: binary (probability of reporting the true answer), distance (minus the expected distance), or file:PATH, an n×n gain matrix g(i,k) (CSV or .npy; the value is the g-vulnerability)")
	loss := fs.String("loss", "", "file:PATH: an n×n loss matrix l(i,k) (CSV or .npy) instead of --gain; the utility is minus the expected loss")
	method := fs.String("method", "auto", "auto (default: exact for sparse constraint graphs, generate for dense metrics (beyond 1,200 points only to a gap of 1e-3 or looser, and when its memory, estimated from the size and the prior's effective number of locations, fits the budget), spanner for the largest, continuing with the next when one stalls, and with a wider spanner (1.5, then 2) when its LP does not fit the memory budget; the JSON says which answered and why), exact (every pair not implied by others), generate (exact optimum by constraint generation: relaxations with the violated pairs added) or spanner (pairs of a greedy delta-spanner at eps/delta: exactly private, near optimal, with a bound)")
	delta := fs.Float64("delta", 1.2, "stretch of --method spanner, >= 1 (given, auto keeps it too)")
	force := fs.Bool("force", false, "raise the memory budget from 4 GiB to the machine's physical memory")
	tol := fs.Float64("tol", 0, "target relative gap between the certified primal and dual values (default 1e-8; with --method spanner the spanner LP's own gap, default 1e-4)")
	out := fs.String("out", "", "write the mechanism to FILE: CSV, or NumPy .npy (float64) when FILE ends in .npy")
	plotPath := fs.String("plot", "", "draw the map of the prior and of where the mechanism sends the 3 most probable true locations to FILE.svg or FILE.png (metrics with places: grid, points:, latlon:; optdp plot draws other rows)")
	prog := fs.Bool("progress", false, "draw a progress bar on stderr even with --json")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	m, err := metricAndEps(fs, *metricSpec, *eps)
	if err != nil {
		return err
	}
	var loc metric.Locator
	if *plotPath != "" {
		// Before the solve: a map that cannot be drawn is known at once.
		if err := checkImagePath("--plot", *plotPath); err != nil {
			return err
		}
		if loc, err = mapLocator(m); err != nil {
			return err
		}
	}
	if !flagsGiven(fs)["prior"] {
		return usagef("--prior is required (uniform, file:PATH, counts:FILE, points:FILE or raster:FILE)")
	}
	given := flagsGiven(fs)
	opts := &optimal.Options{Tol: *tol, Method: optimal.Method(*method)}
	if given["delta"] {
		// Unset, the library's default: 1.2, widened by auto when the
		// spanner's LP does not fit.
		opts.Delta = *delta
	}
	opts.Settings = budget(*force)
	gainName := *gain
	switch {
	case given["loss"] && given["gain"]:
		return usagef("--gain and --loss exclude each other")
	case given["loss"]:
		if !strings.HasPrefix(*loss, "file:") || len(*loss) == len("file:") {
			return usagef("--loss %q: want file:PATH", *loss)
		}
		l, err := readMatrixPath(strings.TrimPrefix(*loss, "file:"))
		if err != nil {
			return fmt.Errorf("--loss: %w", err)
		}
		opts.LossMatrix, gainName = l, "loss:"+*loss
	case strings.HasPrefix(*gain, "file:"):
		if len(*gain) == len("file:") {
			return usagef("--gain %q: want file:PATH", *gain)
		}
		g, err := readMatrixPath(strings.TrimPrefix(*gain, "file:"))
		if err != nil {
			return fmt.Errorf("--gain: %w", err)
		}
		opts.GainMatrix = g
	case *gain == string(optimal.GainBinary) || *gain == string(optimal.GainDistance):
		opts.Gain = optimal.Gain(*gain)
	default:
		return usagef("--gain %q: want binary, distance or file:PATH", *gain)
	}
	switch optimal.Method(*method) {
	case optimal.MethodExact, optimal.MethodGenerate:
		if given["delta"] {
			return usagef("--delta applies to --method spanner (or auto, when it chooses the spanner)")
		}
	case optimal.MethodAuto, optimal.MethodSpanner:
		if !(*delta >= 1) || math.IsInf(*delta, 1) {
			return usagef("--delta %v: want a finite number >= 1", *delta)
		}
	default:
		return usagef("--method %q: want auto, exact, generate or spanner", *method)
	}
	for _, g := range []struct {
		flag, spec string
		x          *mat.Dense
	}{{"--gain", *gain, opts.GainMatrix}, {"--loss", *loss, opts.LossMatrix}} {
		if g.x == nil {
			continue
		}
		if r, c := g.x.Dims(); r != m.Len() || c != m.Len() {
			return fmt.Errorf("%s %s: matrix is %d×%d, want %d×%d (one row and column per answer)", g.flag, g.spec, r, c, m.Len(), m.Len())
		}
	}
	if given["tol"] && !(*tol > 0 && *tol < 1) {
		return usagef("--tol %v: want a number in (0, 1)", *tol)
	}
	if strings.HasPrefix(*prior, "product:") {
		return usagef("--prior %q: optimal takes uniform, file:PATH, counts:FILE, points:FILE or raster:FILE", *prior)
	}
	ps, err := parsePrior(*prior, m, true)
	if err != nil {
		return priorError(*prior, err)
	}
	pi := ps.prior
	bar := newProgress(env, "optimal", progressEnabled(*asJSON, *prog))
	const announceSeconds = 10.0 // estimates whose upper end is shorter stay unsaid
	round := ""
	opts.Progress = func(p optrun.Progress) {
		switch p.Stage {
		case optrun.StagePrune:
			bar.Update(p.Frac, p.Message)
		case optrun.StageEstimate:
			// A method's time before it starts, when it may be long.
			if p.Value >= announceSeconds {
				bar.Note("estimate: " + p.Message)
			}
		case optrun.StageCuts:
			// One line per round of constraint generation: the certified
			// gap so far and the violated pairs.
			round = fmt.Sprintf("round %d, ", p.Iter+1)
			bar.Update(-1, fmt.Sprintf("%s; certified gap %.2g", p.Message, p.Gap))
		default:
			bar.Update(-1, fmt.Sprintf("%siteration %d of at most %d, gap %.2g", round, p.Iter, p.MaxIter, p.Gap))
		}
	}
	r, err := optimal.Solve(context.Background(), m, *eps, pi, opts)
	bar.Done()
	if r == nil {
		return tooLarge(err, tooLargeHint(opts.Method, opts.Delta))
	}
	// With run.ErrNotConverged the result is still certified (private, with
	// valid bounds) but its gap exceeds --tol: print it, then fail.
	solveErr := err
	res := optimalResult{Metric: m.String(), N: m.Len(), Eps: *eps, Gain: gainName, Utility: r.Utility,
		Method: string(r.Method), MethodReason: r.MethodReason, Attempts: r.Attempts, Pairs: r.Pairs, Rounds: r.Rounds, Delta: r.Delta,
		Primal: r.Primal, Dual: r.Dual, Gap: r.Gap, AuditEps: r.AuditEps, Iterations: r.Iterations,
		Symmetry: r.Symmetry, Mix: r.Mix, TimeS: r.TimeS, Out: *out}
	if *out != "" {
		if err := writeMatrixPath(*out, r.X); err != nil {
			return err
		}
	}
	if loc != nil {
		rows, _ := plotRows("", pi, m.Len())
		if err := drawMap(loc, m.String(), pi, r.X, rows, *plotPath); err != nil {
			return err
		}
		res.Plot, res.PlotRows = *plotPath, rows
	}
	if *asJSON {
		if err := writeJSON(env.stdout, res); err != nil {
			return err
		}
		return solveErr
	}
	w := env.stdout
	fmt.Fprintf(w, "metric     %s (n = %d), eps = %g, gain %s\n", res.Metric, res.N, res.Eps, res.Gain)
	fmt.Fprintf(w, "utility    %.12g  (certified: optimum in [%.12g, %.12g], relative gap %.2g)\n", res.Utility, res.Primal, res.Dual, res.Gap)
	fmt.Fprintf(w, "audit      eps = %.12g (<= %g), uniform mixed in: %.2g\n", res.AuditEps, res.Eps, res.Mix)
	switch optimal.Method(res.Method) {
	case optimal.MethodGenerate:
		fmt.Fprintf(w, "solver     constraint generation: %d rounds, %d pairs in the last relaxation, %d interior-point iterations, %.3g s\n", res.Rounds, res.Pairs, res.Iterations, res.TimeS)
	case optimal.MethodSpanner:
		fmt.Fprintf(w, "solver     %g-spanner: %d pairs at eps/stretch (exactly eps-private for every pair); the gap bounds the loss against the optimum; %d interior-point iterations, %.3g s\n", res.Delta, res.Pairs, res.Iterations, res.TimeS)
	default:
		fmt.Fprintf(w, "solver     %d pairs, %d interior-point iterations, %.3g s\n", res.Pairs, res.Iterations, res.TimeS)
	}
	if res.Symmetry > 1 {
		fmt.Fprintf(w, "symmetry   the LP was reduced by a group of %d symmetries of the metric, prior and gain (one output per orbit)\n", res.Symmetry)
	}
	if res.MethodReason != "" && res.MethodReason != "requested" {
		fmt.Fprintf(w, "method     %s: %s\n", res.Method, res.MethodReason)
	}
	if *out != "" {
		fmt.Fprintf(w, "mechanism  written to %s\n", *out)
	}
	if res.Plot != "" {
		fmt.Fprintf(w, "map        drawn to %s: the prior and the reports from locations %v\n", res.Plot, res.PlotRows)
	}
	return solveErr
}

// tooLargeHint is the command line's advice when optimal refuses a
// problem for memory: --force always; the spanner when another method was
// asked for; a wider --delta when the spanner's was given below 2 (auto
// without --delta tries the 1.2-, 1.5- and 2-spanners itself).
func tooLargeHint(method optimal.Method, delta float64) string {
	hint := "--force raises the budget to the machine's memory"
	switch method {
	case optimal.MethodExact, optimal.MethodGenerate:
		hint += "; --method spanner constrains fewer pairs, and a larger --delta (e.g. 1.5) fewer still"
	case optimal.MethodSpanner:
		if delta < 2 {
			hint += "; a larger --delta (e.g. 2) constrains fewer pairs"
		}
	default:
		if delta > 0 && delta < 2 {
			hint += "; a larger --delta (e.g. 2) constrains fewer pairs"
		}
	}
	return hint
}

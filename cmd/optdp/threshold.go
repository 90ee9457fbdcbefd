package main

import (
	"context"
	"fmt"
	"math"
	"time"

	optrun "github.com/optdp/optdp/run"

	"github.com/optdp/optdp/mech/tight"
)

func thresholdCommand() command {
	return command{
		name:    "threshold",
		summary: "smallest eps at which the tight-constraints mechanism of a metric exists (bracketing and bisection)",
		usage:   "--metric SPEC [--lo L --hi H --tol T --steps S] [--structured] [--force] [--progress] [--json]",
		examples: []string{
			"optdp threshold --metric sum:u=2,v=2",
			"optdp threshold --metric sum:u=150,v=5 --tol 1e-6 --json",
			"optdp threshold --metric kcount:u=30,k=2 --lo 0.5 --hi 2",
		},
		fields: thresholdFields,
		run:    runThreshold,
	}
}

// thresholdFields documents the JSON output of optdp threshold.
var thresholdFields = []string{
	"metric       the metric spec, normalised",
	"n            number of answers",
	"status       \"bracketed\", \"exists-for-all-eps\" (a theorem; nothing solved) or \"exists-at-lo\" (exists on all of [lo, hi])",
	"bracketed    status is \"bracketed\"",
	"eps_star     the threshold: the upper end of the final bracket; 0 for exists-for-all-eps, --lo for exists-at-lo",
	"lo, hi       the final bracket around eps_star (width <= --tol); null unless bracketed",
	"min_z        min z at eps_star; null when nothing was solved (exists-for-all-eps)",
	"exists       the existence verdict at eps_star: true, false or \"borderline\"",
	"reason       why the mechanism exists for every eps (exists-for-all-eps); absent otherwise",
	"evaluations  number of solves of Phi z = 1",
	"solver       \"dense\" or \"toeplitz\"; absent when nothing was solved",
	"crossings    every sign change of min z found; more than one means existence is not monotone in eps:",
	"  lo, hi     the bracket of the sign change (width <= --tol)",
	"  up         true when the mechanism starts to exist at hi, false when it stops",
	"scan_eps     the eps of the coarse scan; null when nothing was solved",
	"scan_min_z   min z at each scan_eps; null when nothing was solved",
	"time_s       wall-clock seconds",
}

// thresholdOutput is the JSON output of optdp threshold: the fields and
// JSON names of tight.ThresholdResult, with the crossings given lower-case
// keys and the bracket and min z null when they were not computed.
type thresholdOutput struct {
	Metric string `json:"metric"`
	N      int    `json:"n"`
	*tight.ThresholdResult
	Lo        *float64         `json:"lo"`
	Hi        *float64         `json:"hi"`
	MinZ      *num             `json:"min_z"`
	Crossings []crossingOutput `json:"crossings"`
	TimeS     float64          `json:"time_s"`
}

// crossingOutput is a sign change of min z(eps): the mechanism exists at
// one end of [lo, hi] and not at the other (up: it starts to exist).
type crossingOutput struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	Up bool    `json:"up"`
}

func runThreshold(env *runEnv, args []string) error {
	fs := newFlags(env, "threshold")
	metricSpec := fs.String("metric", "", metricFlagHelp)
	lo := fs.Float64("lo", 0.01, "lower end of the eps search interval (> 0)")
	hi := fs.Float64("hi", 10, "upper end of the eps search interval (> lo)")
	tol := fs.Float64("tol", 1e-6, "width of the final bracket around eps*")
	steps := fs.Int("steps", 16, "intervals of the coarse geometric scan of [lo, hi] that brackets sign changes")
	force := fs.Bool("force", false, "raise the dense memory limit from 4 GiB to the machine's physical memory")
	structured := fs.Bool("structured", false, "allow the Toeplitz search on lattices above 10^5 points (30-40 certified solves of several seconds each)")
	prog := fs.Bool("progress", false, "draw a progress bar on stderr even with --json")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	set := flagsGiven(fs)
	m, err := parseMetricFlag(*metricSpec, set["metric"])
	if err != nil {
		return err
	}
	if err := checkEpsFlag("lo", *lo, true); err != nil {
		return err
	}
	if err := checkEpsFlag("hi", *hi, true); err != nil {
		return err
	}
	if *hi <= *lo {
		return usagef("--hi %s must be above --lo %s", fmtFloat(*hi), fmtFloat(*lo))
	}
	if !(*tol > 0) || math.IsInf(*tol, 0) {
		return usagef("--tol %s: want a finite width > 0", fmtFloat(*tol))
	}
	if *steps < 1 {
		return usagef("--steps %d: want >= 1", *steps)
	}
	opts := &tight.ThresholdOptions{Lo: *lo, Hi: *hi, Tol: *tol, Steps: *steps, Settings: budget(*force), Structured: *structured}
	start := time.Now()
	r, err := busy(env, "threshold", progressEnabled(*asJSON, *prog), func(bar *progress) (*tight.ThresholdResult, error) {
		// Each evaluation reports its count, eps and min z (p.Message).
		opts.Progress = func(p optrun.Progress) { bar.Update(-1, p.Message) }
		return tight.Threshold(context.Background(), m, opts)
	})
	if err != nil {
		hint := "--structured runs the certified Toeplitz search on large lattices"
		if !*force {
			hint += "; --force raises the dense memory budget to the machine's physical memory"
		}
		return tooLarge(err, hint)
	}
	res := thresholdOutput{Metric: m.String(), N: m.Len(), ThresholdResult: r, Crossings: []crossingOutput{}, TimeS: time.Since(start).Seconds()}
	if r.Bracketed {
		res.Lo, res.Hi = &r.Lo, &r.Hi
	}
	if r.Status != tight.ThresholdAlways {
		res.MinZ = numPtr(r.MinZ)
	}
	for _, c := range r.Crossings {
		res.Crossings = append(res.Crossings, crossingOutput{Lo: c.Lo, Hi: c.Hi, Up: c.Up})
	}
	if *asJSON {
		return writeJSON(env.stdout, res)
	}
	w := env.stdout
	fmt.Fprintf(w, "metric       %s (n = %d)\n", res.Metric, res.N)
	switch r.Status {
	case tight.ThresholdAlways:
		fmt.Fprintf(w, "eps*         0: the mechanism exists for every eps > 0 (%s)\n", r.Reason)
	case tight.ThresholdAtLo:
		fmt.Fprintf(w, "eps*         <= %s: the mechanism exists everywhere in [%s, %s]; lower --lo to learn more\n", fmtFloat(r.EpsStar), fmtFloat(*lo), fmtFloat(*hi))
	default:
		fmt.Fprintf(w, "eps*         %.10g (bracket [%.10g, %.10g], tol %s)\n", r.EpsStar, r.Lo, r.Hi, fmtFloat(*tol))
		fmt.Fprintf(w, "min z        %.6g at eps* (exists: %s)\n", r.MinZ, verdictText(r.Verdict))
	}
	if len(r.Crossings) > 1 {
		fmt.Fprintf(w, "warning      existence is not monotone in eps on [%s, %s]: %d sign changes of min z:\n", fmtFloat(*lo), fmtFloat(*hi), len(r.Crossings))
		for _, c := range r.Crossings {
			dir := "down (stops existing)"
			if c.Up {
				dir = "up (starts existing)"
			}
			fmt.Fprintf(w, "               [%.10g, %.10g] %s\n", c.Lo, c.Hi, dir)
		}
	}
	fmt.Fprintf(w, "evaluations  %d %s solves, %.3g s\n", r.Evaluations, r.Solver, res.TimeS)
	return nil
}

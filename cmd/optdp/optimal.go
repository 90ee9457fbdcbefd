package main

import (
	"context"
	"fmt"
	"strings"

	optrun "github.com/optdp/optdp/solve/run"

	"github.com/optdp/optdp/mech/optimal"
)

func optimalCommand() command {
	return command{
		name:    "optimal",
		summary: "optimal eps-private mechanism for any prior (linear program, certified gap, audited)",
		usage:   "--metric SPEC --eps E --prior uniform|file:PATH [--gain binary|distance] [--tol T] [--out FILE.csv|FILE.npy] [--progress] [--json]",
		examples: []string{
			"optdp optimal --metric line:n=110 --eps 1 --prior uniform",
			"optdp optimal --metric sum:u=22,v=5 --eps 1 --prior file:prior.txt --gain distance --json",
			"optdp optimal --metric line:n=1000 --eps 0.5 --prior uniform --tol 1e-6 --out mech.csv --json",
		},
		run: runOptimal,
	}
}

// optimalResult is the JSON output of optdp optimal.
type optimalResult struct {
	Metric     string  `json:"metric"`
	N          int     `json:"n"`
	Eps        float64 `json:"eps"`
	Gain       string  `json:"gain"`
	Utility    float64 `json:"utility"`
	Primal     float64 `json:"primal"`
	Dual       float64 `json:"dual"`
	Gap        float64 `json:"gap"`
	AuditEps   float64 `json:"audit_eps"`
	Iterations int     `json:"iterations"`
	Mix        float64 `json:"mix"`
	TimeS      float64 `json:"time_s"`
	Out        string  `json:"out,omitempty"`
}

func runOptimal(env *runEnv, args []string) error {
	fs := newFlags(env, "optimal")
	metricSpec := fs.String("metric", "", metricFlagHelp)
	eps := fs.Float64("eps", 0, epsFlagHelp)
	prior := fs.String("prior", "", "prior on the answers (required): uniform, or file:PATH with n probabilities summing to 1 separated by commas, spaces or newlines")
	gain := fs.String("gain", "binary", "gain: binary (probability of reporting the true answer) or distance (minus the expected distance)")
	tol := fs.Float64("tol", 1e-8, "target relative gap between the certified primal and dual values")
	out := fs.String("out", "", "write the mechanism to FILE: CSV, or NumPy .npy (float64) when FILE ends in .npy")
	prog := fs.Bool("progress", false, "draw a progress bar on stderr even with --json")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	m, err := metricAndEps(fs, *metricSpec, *eps)
	if err != nil {
		return err
	}
	if !flagsGiven(fs)["prior"] {
		return usagef("--prior is required (uniform or file:PATH)")
	}
	if *gain != string(optimal.GainBinary) && *gain != string(optimal.GainDistance) {
		return usagef("--gain %q: want binary or distance", *gain)
	}
	if !(*tol > 0 && *tol < 1) {
		return usagef("--tol %v: want a number in (0, 1)", *tol)
	}
	if strings.HasPrefix(*prior, "product:") {
		return usagef("--prior %q: optimal takes uniform or file:PATH", *prior)
	}
	ps, err := parsePrior(*prior, m, true)
	if err != nil {
		return priorError(*prior, err)
	}
	pi := ps.prior
	bar := newProgress(env, "optimal", progressEnabled(*asJSON, *prog))
	opts := &optimal.Options{Gain: optimal.Gain(*gain), Tol: *tol}
	opts.Progress = func(p optrun.Progress) {
		bar.Update(-1, fmt.Sprintf("iteration %d, gap %.2g", p.Iter, p.Gap))
	}
	r, err := optimal.Solve(context.Background(), m, *eps, pi, opts)
	bar.Done()
	if r == nil {
		return err
	}
	// With lp.ErrNotConverged the result is still certified (private, with
	// valid bounds) but its gap exceeds --tol: print it, then fail.
	solveErr := err
	res := optimalResult{Metric: m.String(), N: m.Len(), Eps: *eps, Gain: *gain, Utility: r.Utility,
		Primal: r.Primal, Dual: r.Dual, Gap: r.Gap, AuditEps: r.AuditEps, Iterations: r.Iterations,
		Mix: r.Mix, TimeS: r.TimeS, Out: *out}
	if *out != "" {
		if err := writeMatrixPath(*out, r.X); err != nil {
			return err
		}
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
	fmt.Fprintf(w, "solver     %d interior-point iterations, %.3g s\n", res.Iterations, res.TimeS)
	if *out != "" {
		fmt.Fprintf(w, "mechanism  written to %s\n", *out)
	}
	return solveErr
}

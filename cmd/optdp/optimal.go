package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/optdp/optdp/mech"
)

func optimalCommand() command {
	return command{
		name:    "optimal",
		summary: "optimal eps-private mechanism for any prior (linear program, certified gap, audited)",
		usage:   "--metric SPEC --eps E --prior uniform|file:PATH [--gain binary|distance] [--tol T] [--out FILE] [--json]",
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
	metric := fs.String("metric", "", "answer metric spec, e.g. line:n=N, sum:u=U,v=V, grid:w=W,h=H, graph:file=PATH (required; kinds: "+strings.Join(mech.MetricKinds(), ", ")+")")
	eps := fs.Float64("eps", 0, "privacy parameter eps > 0 (required)")
	prior := fs.String("prior", "", "prior on the answers: uniform, or file:PATH with n numbers summing to 1 separated by spaces, commas or newlines (required)")
	gain := fs.String("gain", "binary", "gain: binary (probability of reporting the true answer) or distance (minus the expected distance)")
	tol := fs.Float64("tol", 1e-8, "target relative gap between the certified primal and dual values")
	out := fs.String("out", "", "write the mechanism to FILE as CSV (n rows of n probabilities)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	set := setFlags(fs)
	for _, name := range []string{"metric", "eps", "prior"} {
		if !set[name] {
			return usagef("--%s is required", name)
		}
	}
	if *gain != string(mech.GainBinary) && *gain != string(mech.GainDistance) {
		return usagef("--gain %q: want binary or distance", *gain)
	}
	if !(*tol > 0 && *tol < 1) {
		return usagef("--tol %v: want a number in (0, 1)", *tol)
	}
	m, err := mech.ParseMetric(*metric)
	if err != nil {
		return fmt.Errorf("--metric: %w", err)
	}
	pi, err := readPriorSpec(*prior, m.Len())
	if err != nil {
		return fmt.Errorf("--prior: %w", err)
	}
	bar := newProgress(env, "optimal", true)
	opts := &mech.OptimalOptions{Gain: mech.Gain(*gain), Tol: *tol, Progress: func(it, maxIter int, gap float64) {
		bar.Update(-1, fmt.Sprintf("iteration %d, gap %.2g", it, gap))
	}}
	r, err := mech.Optimal(context.Background(), m, *eps, pi, opts)
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
		if err := writeMechanismCSV(*out, r); err != nil {
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

// readPriorSpec reads a prior spec: "uniform" on n answers, or "file:PATH"
// holding n numbers separated by whitespace or commas.
func readPriorSpec(spec string, n int) ([]float64, error) {
	if spec == "uniform" {
		p := make([]float64, n)
		for i := range p {
			p[i] = 1 / float64(n)
		}
		return p, nil
	}
	path, ok := strings.CutPrefix(spec, "file:")
	if !ok || path == "" {
		return nil, fmt.Errorf("%q: want uniform or file:PATH", spec)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fields := strings.FieldsFunc(string(data), func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	})
	if len(fields) != n {
		return nil, fmt.Errorf("%s holds %d numbers, want %d (one per answer)", path, len(fields), n)
	}
	p := make([]float64, n)
	for i, f := range fields {
		if p[i], err = strconv.ParseFloat(f, 64); err != nil {
			return nil, fmt.Errorf("%s: entry %d: %w", path, i+1, err)
		}
	}
	return p, nil
}

// writeMechanismCSV writes X as CSV with full precision.
func writeMechanismCSV(path string, r *mech.OptimalResult) error {
	n, _ := r.X.Dims()
	var b strings.Builder
	for i := 0; i < n; i++ {
		for k, v := range r.X.RawRowView(i) {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

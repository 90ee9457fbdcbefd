package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	optrun "github.com/optdp/optdp/run"

	"github.com/optdp/optdp/mech/tight"
)

func tightCommand() command {
	return command{
		name:    "tight",
		summary: "tight-constraints mechanism of a metric: does it exist at eps, its utility, the noise matrix",
		usage:   "--metric SPEC --eps E [--solver NAME] [--out FILE.csv|FILE.npy] [--force] [--progress] [--json]",
		examples: []string{
			"optdp tight --metric line:n=6 --eps 0.6931471805599453",
			"optdp tight --metric sum:u=150,v=5 --eps 1 --json",
			"optdp tight --metric grid:w=10,h=10,step=1,norm=euclid --eps 0.5 --out mech.npy",
		},
		fields: tightFields,
		run:    runTight,
	}
}

// tightFields documents the JSON output of optdp tight.
var tightFields = []string{
	"metric       the metric spec, normalised",
	"n            number of answers",
	"eps          privacy level per unit of distance",
	"exists       true, false, or \"borderline\" (|min_z| <= z_err: rounding could flip the answer)",
	"constant_z   true when every z_k is equal (ball-symmetric metrics)",
	"min_z        min_k z_k of the solution of Phi z = 1 (the mechanism exists iff z >= 0)",
	"z_err        bound on the error of each computed z_k; \"+Inf\" when Phi is singular",
	"unique       true when Phi is nonsingular, so the mechanism (if it exists) is unique",
	"utility      the utility for the uniform prior (identity remap) of the mechanism audited: mean(z) for X, the hardened matrix-free mechanism's (mean z at its build level) when X is not built; null unless exists is true",
	"solver       the method used (dense-cholesky, closed-form-line, kron, toeplitz-pcg-strang, banded-cholesky, ...)",
	"backend      the linear-algebra backend",
	"rcond        reciprocal condition estimate of Phi; null when not computed (closed forms, structured solvers)",
	"certificate  what settled the verdict (error-bound, diagonal-dominance, farkas, closed-form, ...); absent if none",
	"note         caveats, e.g. why the matrix X was not built; absent if none",
	"iterations   iterations of an iterative solver; absent for direct solvers",
	"residual     relative residual ||1 - Phi z|| / ||1|| of an iterative solver; absent for direct solvers",
	"mix          weight of the uniform row mixed into X so that its float64 entries pass the exact audit; absent when none",
	"audit_eps    the privacy level measured by auditing X (or the matrix-free mechanism); null when not audited",
	"private      audit_eps <= eps; null when not audited",
	"time_s       wall-clock seconds",
	"out          the file written by --out; absent without --out",
}

// tightOutput is the JSON output of optdp tight: tight.Result's own fields
// and JSON names, with the numbers that may be infinite or not computed
// shadowed by fields that encode them safely (num: "+Inf"; null when not
// computed).
type tightOutput struct {
	Metric string `json:"metric"`
	*tight.Result
	MinZ    num   `json:"min_z"`
	ZErr    num   `json:"z_err"`
	Utility *num  `json:"utility"`
	RCond   *num  `json:"rcond"`
	Audit   *bool `json:"audit,omitempty"` // hides tight.Result.Audit: see audit_eps, private
	// AuditEps and Private are tight.Result.Audit's Eps and Private, when
	// an audit ran.
	AuditEps *num    `json:"audit_eps"`
	Private  *bool   `json:"private"`
	TimeS    float64 `json:"time_s"`
	Out      string  `json:"out,omitempty"`
}

// newTightOutput is the JSON form of r for the metric named spec.
func newTightOutput(spec string, r *tight.Result, secs float64) tightOutput {
	res := tightOutput{Metric: spec, Result: r, MinZ: num(r.MinZ), ZErr: num(r.ZErr), TimeS: secs}
	if r.Exists == tight.Yes {
		res.Utility = numPtr(r.Utility)
	}
	if r.RCond > 0 && !strings.HasPrefix(string(r.Solver), string(tight.SolverClosedForm)) {
		res.RCond = numPtr(r.RCond)
	}
	if r.X != nil || (r.Free != nil && r.Audit.Pairs > 0) {
		res.AuditEps = numPtr(r.Audit.Eps)
		res.Private = &r.Audit.Private
	}
	return res
}

// tightSolverList is tight.Solvers joined by ", ".
func tightSolverList() string {
	names := make([]string, 0, len(tight.Solvers()))
	for _, s := range tight.Solvers() {
		names = append(names, string(s))
	}
	return strings.Join(names, ", ")
}

func runTight(env *runEnv, args []string) error {
	fs := newFlags(env, "tight")
	metricSpec := fs.String("metric", "", metricFlagHelp)
	eps := fs.Float64("eps", 0, epsFlagHelp)
	solver := fs.String("solver", string(tight.SolverAuto), "solver: "+tightSolverList()+" (auto picks a closed form or structured solver when one applies, else dense)")
	out := fs.String("out", "", "write the noise matrix X to FILE: CSV, or NumPy .npy (float64) when FILE ends in .npy")
	force := fs.Bool("force", false, "raise the dense memory limit from 4 GiB to the machine's physical memory, and with --out build X for n above 4096")
	noMatrix := fs.Bool("no-matrix", false, "skip building and auditing X (faster for large n; audit_eps is then null)")
	prog := fs.Bool("progress", false, "draw a progress bar on stderr even with --json")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	m, err := metricAndEps(fs, *metricSpec, *eps)
	if err != nil {
		return err
	}
	if !slices.Contains(tight.Solvers(), tight.Solver(*solver)) {
		return usagef("--solver %q: want one of %s", *solver, tightSolverList())
	}
	opts := &tight.Options{Solver: tight.Solver(*solver), Settings: budget(*force), NoMechanism: *noMatrix && *out == ""}
	if *force && *out != "" {
		opts.MaxMechanismN = m.Len() // build X for --out whatever n, within the memory limit
	}
	announceDense(env, m, opts, progressEnabled(*asJSON, *prog))
	start := time.Now()
	r, err := busy(env, "tight", progressEnabled(*asJSON, *prog), func(bar *progress) (*tight.Result, error) {
		// An iterative solver reports its iteration and relative residual;
		// the bar fills as log10 of the residual approaches the 1e-12 target.
		opts.Progress = func(p optrun.Progress) {
			bar.Update(min(1, max(0, math.Log10(p.Gap)/-12)), fmt.Sprintf("iteration %d, residual %.1e", p.Iter, p.Gap))
		}
		return tight.Solve(context.Background(), m, *eps, opts)
	})
	if err != nil {
		hint := "--solver auto picks a structured solver where the metric has one (lattices, separable or ball-symmetric metrics, banded graphs)"
		if tight.Solver(*solver) == tight.SolverAuto {
			hint = "no structured solver applies to this metric at this size"
		}
		if !*force {
			hint += "; --force raises the memory budget to the machine's physical memory"
		}
		return tooLarge(err, hint)
	}
	res := newTightOutput(m.String(), r, time.Since(start).Seconds())
	if *out != "" {
		switch {
		case r.Exists != tight.Yes:
			return fmt.Errorf("--out %s: no mechanism to write: at eps = %s the tight-constraints mechanism of %s %s (min z = %.6g)",
				*out, fmtFloat(*eps), m, existsPhrase(r.Exists), r.MinZ)
		case r.X == nil:
			hint := ""
			if !*force {
				hint = " (--force builds X for any n that fits in memory)"
			}
			return fmt.Errorf("--out %s: the mechanism exists but its matrix was not built: %s%s", *out, r.Note, hint)
		}
		if err := writeMatrixPath(*out, r.X); err != nil {
			return err
		}
		res.Out = *out
	}
	if *asJSON {
		return writeJSON(env.stdout, res)
	}
	w := env.stdout
	fmt.Fprintf(w, "metric       %s (n = %d), eps = %s\n", res.Metric, r.N, fmtFloat(r.Eps))
	fmt.Fprintf(w, "exists       %s\n", verdictText(r.Exists))
	fmt.Fprintf(w, "min z        %.12g (error bound %.3g)\n", r.MinZ, r.ZErr)
	if res.Utility != nil {
		of := ""
		if r.X == nil && r.Free != nil && r.Free.Hardened() {
			of = fmt.Sprintf(", of the hardened mechanism built at eps_b = %.17g", r.Free.BuildEps())
		}
		fmt.Fprintf(w, "utility      %.12g (uniform prior, identity remap%s)\n", r.Utility, of)
	}
	fmt.Fprintf(w, "unique       %v\n", r.Unique)
	if res.RCond != nil {
		fmt.Fprintf(w, "solver       %s on %s (rcond %.3g, certificate %s)\n", r.Solver, r.Backend, r.RCond, orDash(r.Certificate))
	} else { // structured solvers have no condition estimate
		fmt.Fprintf(w, "solver       %s on %s (certificate %s)\n", r.Solver, r.Backend, orDash(r.Certificate))
	}
	if r.Iterations > 0 {
		fmt.Fprintf(w, "iterations   %d (relative residual %.3g)\n", r.Iterations, r.Residual)
	}
	if res.AuditEps != nil {
		fmt.Fprintf(w, "audit        eps = %.12g, private %v\n", r.Audit.Eps, r.Audit.Private)
	}
	if r.Note != "" {
		fmt.Fprintf(w, "note         %s\n", r.Note)
	}
	if res.Out != "" {
		fmt.Fprintf(w, "mechanism    written to %s\n", res.Out)
	}
	fmt.Fprintf(w, "time         %.3g s\n", res.TimeS)
	return nil
}

// verdictText is a verdict for people.
func verdictText(v tight.Verdict) string {
	switch v {
	case tight.Yes:
		return "yes"
	case tight.No:
		return "no"
	}
	return "borderline (rounding could flip the answer)"
}

// existsPhrase completes "the mechanism ...".
func existsPhrase(v tight.Verdict) string {
	if v == tight.No {
		return "does not exist"
	}
	return "is borderline (rounding could decide whether it exists)"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

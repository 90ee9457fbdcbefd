package main

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	optrun "github.com/optdp/optdp/run"

	"github.com/optdp/optdp/repro"
)

func reproduceCommand() command {
	return command{
		name:    "reproduce",
		summary: "regenerate the papers' tables, figures and worked examples into a report (CSV, PNG/SVG, REPORT.md)",
		usage:   "[--out DIR] [--only NAME[,NAME...]] [--quick] [--list] [--json]",
		examples: []string{
			"optdp reproduce",
			"optdp reproduce --list",
			"optdp reproduce --only cities,voters --out /tmp/repro",
			"optdp reproduce --quick --json",
		},
		fields: reproduceFields,
		run:    runReproduce,
	}
}

// reproduceFields documents the JSON output of optdp reproduce (the
// repro.Report; with --list, an array of the experiments' name, title,
// paper, claim and slow).
var reproduceFields = []string{
	"date            start time (UTC, RFC 3339)",
	"machine         OS, architecture, CPU count and model, host",
	"go              Go version",
	"backend         the linear-algebra backend",
	"threads         threads of the backend",
	"quick           true with --quick (sizes scaled down)",
	"dir             the output directory",
	"seconds         total wall-clock time",
	"failed          number of experiments that failed (optdp then exits with code 1)",
	"results         one entry per experiment, in report order:",
	"  name, title, paper, claim   the experiment, its source in the papers and the paper's claim",
	"  csvs, plots   files written, relative to dir (each plot also as .svg)",
	"  values        headline numbers of this run, by name (finite numbers only)",
	"  not_computed  names of headline values that do not exist in this run (e.g. the utility of a",
	"                mechanism below its threshold eps*); absent if none",
	"  discrepancies where optdp and the paper differ, one line each",
	"  skipped       what is missing when the experiment could not run; absent otherwise",
	"  seconds       wall-clock time of the experiment",
	"  error         the error message when it failed; absent otherwise",
	"with --list: an array of experiments, each with name, title, paper, claim and",
	"  slow        true when the experiment takes more than a few seconds at full size",
}

func runReproduce(env *runEnv, args []string) error {
	fs := newFlags(env, "reproduce")
	out := fs.String("out", "reproduce-out", "output directory for REPORT.md, the CSV files and the plots")
	only := fs.String("only", "", "run only these experiments (comma-separated names; see --list)")
	quick := fs.Bool("quick", false, "scale the expensive experiments down (seconds instead of minutes; the report says so)")
	list := fs.Bool("list", false, "list the experiments and exit")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	exps, err := repro.Select(names)
	if err != nil {
		return usagef("--only: %v", err)
	}
	if *list {
		if *asJSON {
			return writeJSON(env.stdout, exps)
		}
		for _, e := range exps {
			slow := ""
			if e.Slow {
				slow = " (slow at full size; --quick scales it down)"
			}
			fmt.Fprintf(env.stdout, "%-9s %s\n          %s%s\n", e.Name, e.Title, e.Paper, slow)
		}
		return nil
	}
	if *out == "" {
		return usagef("--out must name a directory")
	}
	var bar *progress
	cfg := &repro.Config{Dir: *out, Quick: *quick}
	cfg.Progress = func(p optrun.Progress) {
		frac := p.Frac
		if math.IsNaN(frac) {
			frac = -1
		}
		bar.Update(frac, p.Message)
	}
	rep, err := repro.Run(context.Background(), exps, cfg, func(i int, e repro.Experiment) {
		bar.Done()
		fmt.Fprintf(env.stderr, "[%d/%d] %s: %s\n", i+1, len(exps), e.Name, e.Title)
		bar = newProgress(env, e.Name, true)
	})
	bar.Done()
	if err != nil {
		return err
	}
	if *asJSON {
		if err := writeJSON(env.stdout, rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(env.stdout, "%-9s %9s  %-8s %s\n", "EXPERIMENT", "TIME (s)", "STATUS", "DISCREPANCIES WITH THE PAPER")
		for _, r := range rep.Results {
			st := "ok"
			switch {
			case r.Err != "":
				st = "FAILED"
			case r.Skipped != "":
				st = "skipped"
			}
			fmt.Fprintf(env.stdout, "%-10s %8.2f  %-8s %d\n", r.Name, r.Seconds, st, len(r.Discrepancies))
		}
		fmt.Fprintf(env.stdout, "total %.1f s, backend %s; report: %s\n", rep.Seconds, rep.Backend, filepath.Join(*out, "REPORT.md"))
	}
	if rep.Failed > 0 {
		var failed []string
		for _, r := range rep.Results {
			if r.Err != "" {
				failed = append(failed, r.Name+": "+r.Err)
			}
		}
		return fmt.Errorf("%d experiment(s) failed (the report records them): %s", rep.Failed, strings.Join(failed, "; "))
	}
	return nil
}

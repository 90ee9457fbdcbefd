package repro

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/optdp/optdp/run"

	"github.com/optdp/optdp/backend"
)

// Config is what an experiment needs to run.
type Config struct {
	// Dir is the output directory (created by Run); experiments write their
	// CSV and plot files into it.
	Dir string
	// Quick scales the expensive experiments down (smaller queries, grids
	// and domains, fewer eps points) so that the whole suite runs in
	// seconds; the report says which sizes were used.
	Quick bool
	// Settings: Progress, if not nil, receives run.Progress reports with
	// Frac = the fraction of the current experiment done (NaN when
	// unknown) and Message = a short status line. Budget is passed on to
	// the library calls that take one.
	run.Settings
}

func (c *Config) progress(frac float64, format string, a ...any) {
	if c.Progress != nil {
		p := run.NewProgress(run.StageReproduce)
		if frac >= 0 {
			p.Frac = frac
		}
		p.Message = fmt.Sprintf(format, a...)
		c.Progress(p)
	}
}

// Experiment is one reproduced table, figure or worked example.
type Experiment struct {
	// Name identifies the experiment on the command line (--only NAME).
	Name string `json:"name"`
	// Title is a one-line description.
	Title string `json:"title"`
	// Paper names the source and the place in it (section, figure, table).
	Paper string `json:"paper"`
	// Claim is the paper's statement, quoted or paraphrased.
	Claim string `json:"claim"`
	// Slow marks experiments that take more than a few seconds at full
	// size (they still run in Quick mode, scaled down).
	Slow bool `json:"slow"`
	// Run computes the experiment, writing its files into cfg.Dir.
	Run func(ctx context.Context, cfg *Config) (*Result, error) `json:"-"`
}

// Result is what one experiment produced.
type Result struct {
	// Name, Title, Paper and Claim are copied from the Experiment.
	Name  string `json:"name"`
	Title string `json:"title"`
	Paper string `json:"paper"`
	Claim string `json:"claim"`
	// CSVs and Plots are the files written, relative to Config.Dir (each
	// plot as .png and .svg; Plots lists the .png names).
	CSVs  []string `json:"csvs"`
	Plots []string `json:"plots"`
	// Values are the headline numbers computed in this run, by name: finite
	// numbers only (JSON has no NaN or infinity).
	Values map[string]float64 `json:"values"`
	// NotComputed names the headline values that do not exist in this run
	// (for example the utility of a mechanism at an eps below its
	// threshold, where there is no mechanism): Run moves any value that is
	// not a finite number here.
	NotComputed []string `json:"not_computed,omitempty"`
	// Markdown is the experiment's section of REPORT.md (without the
	// heading).
	Markdown string `json:"-"`
	// Discrepancies lists, one line each, where optdp and the paper differ.
	Discrepancies []string `json:"discrepancies"`
	// Skipped is non-empty when the experiment could not run in this build
	// (a library function it needs is missing); it says what is missing.
	Skipped string `json:"skipped,omitempty"`
	// Seconds is the wall-clock time of the run.
	Seconds float64 `json:"seconds"`
	// Err is the error message when the experiment failed.
	Err string `json:"error,omitempty"`
}

// Report is a whole reproduction run: where and how it ran, and each
// experiment's result in order.
type Report struct {
	// Date is the start time (UTC, RFC 3339); Machine the OS, CPU count and
	// model; GoVersion, Backend and Threads the toolchain and the
	// linear-algebra backend.
	Date      string `json:"date"`
	Machine   string `json:"machine"`
	GoVersion string `json:"go"`
	Backend   string `json:"backend"`
	Threads   int    `json:"threads"`
	// Quick reports scaled-down sizes; Dir is the output directory;
	// Seconds the total wall-clock time.
	Quick   bool    `json:"quick"`
	Dir     string  `json:"dir"`
	Seconds float64 `json:"seconds"`
	// Results holds one entry per experiment run.
	Results []*Result `json:"results"`
	// Failed counts the experiments that returned an error.
	Failed int `json:"failed"`
}

// Experiments returns every experiment in report order.
func Experiments() []Experiment {
	return []Experiment{
		citiesExperiment(),
		votersExperiment(),
		utilityExperiment(),
		geoExperiment(),
		ccs2014Experiment(),
		leakageExperiment(),
		regionsExperiment(),
		singularExperiment(),
		matrixExperiment(),
		productDomainExperiment(),
	}
}

// Select returns the experiments named in names (all of them when names is
// empty), in report order. An unknown name is an error that lists the
// valid ones.
func Select(names []string) ([]Experiment, error) {
	all := Experiments()
	if len(names) == 0 {
		return all, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		found := false
		for _, e := range all {
			if e.Name == n {
				found = true
			}
		}
		if !found {
			valid := make([]string, len(all))
			for i, e := range all {
				valid[i] = e.Name
			}
			return nil, fmt.Errorf("unknown experiment %q (valid: %s)", n, strings.Join(valid, ", "))
		}
		want[n] = true
	}
	if len(want) == 0 {
		return nil, errors.New("no experiment named")
	}
	var out []Experiment
	for _, e := range all {
		if want[e.Name] {
			out = append(out, e)
		}
	}
	return out, nil
}

// Run runs the experiments into cfg.Dir (created if needed) and writes
// cfg.Dir/REPORT.md. An experiment that fails is recorded in the report
// (and counted in Report.Failed) and the others still run; Run returns an
// error only when the directory or the report cannot be written or ctx is
// cancelled. start is called before each experiment (may be nil).
func Run(ctx context.Context, exps []Experiment, cfg *Config, start func(i int, e Experiment)) (*Report, error) {
	if cfg.Dir == "" {
		return nil, errors.New("reproduce: no output directory")
	}
	if err := cfg.Budget.Validate(); err != nil {
		return nil, fmt.Errorf("reproduce: %w", err)
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("reproduce: %w", err)
	}
	t0 := time.Now()
	rep := &Report{
		Date:      t0.UTC().Format(time.RFC3339),
		Machine:   machine(),
		GoVersion: runtime.Version(),
		Backend:   backend.Name(),
		Threads:   backend.Threads(),
		Quick:     cfg.Quick,
		Dir:       cfg.Dir,
	}
	for i, e := range exps {
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("reproduce: %w", err)
		}
		if start != nil {
			start(i, e)
		}
		t := time.Now()
		r, err := e.Run(ctx, cfg)
		if r == nil {
			r = &Result{}
		}
		r.Name, r.Title, r.Paper, r.Claim = e.Name, e.Title, e.Paper, e.Claim
		r.moveNotFinite()
		r.Seconds = time.Since(t).Seconds()
		if err != nil {
			if ctx.Err() != nil {
				return rep, fmt.Errorf("reproduce %s: %w", e.Name, err)
			}
			r.Err = err.Error()
			rep.Failed++
		}
		rep.Results = append(rep.Results, r)
	}
	rep.Seconds = time.Since(t0).Seconds()
	if err := writeReport(filepath.Join(cfg.Dir, "REPORT.md"), rep); err != nil {
		return rep, err
	}
	return rep, nil
}

// moveNotFinite moves the values that are not finite numbers (NaN: not
// computed) from Values to NotComputed, sorted.
func (r *Result) moveNotFinite() {
	for k, v := range r.Values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			delete(r.Values, k)
			if !slices.Contains(r.NotComputed, k) {
				r.NotComputed = append(r.NotComputed, k)
			}
		}
	}
	sort.Strings(r.NotComputed)
}

// machine describes the host: OS, architecture, CPU count and model.
func machine() string {
	s := fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				if k := strings.Index(l, ":"); k >= 0 {
					s += ", " + strings.TrimSpace(l[k+1:])
				}
				break
			}
		}
	}
	if h, err := os.Hostname(); err == nil {
		s += " (host " + h + ")"
	}
	return s
}

// writeReport writes REPORT.md.
func writeReport(path string, rep *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# optdp reproduction report\n\n")
	fmt.Fprintf(&b, "Every value below was computed by `optdp reproduce` in this run; the papers' numbers appear only as quoted claims. "+
		"In the CSV files an empty cell is a value that does not exist in this run (for example the utility of a mechanism below its threshold), "+
		"and verdicts are true, false or borderline.\n\n")
	fmt.Fprintf(&b, "| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| date (UTC) | %s |\n| machine | %s |\n| Go | %s |\n| backend | %s (%d threads) |\n| mode | %s |\n| total time | %.1f s |\n\n",
		rep.Date, rep.Machine, rep.GoVersion, rep.Backend, rep.Threads, modeName(rep.Quick), rep.Seconds)
	fmt.Fprintf(&b, "## Summary\n\n| experiment | paper | time (s) | status | discrepancies |\n|---|---|---:|---|---:|\n")
	for _, r := range rep.Results {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %.2f | %s | %d |\n", r.Name, anchor(r.Name), r.Paper, r.Seconds, status(r), len(r.Discrepancies))
	}
	b.WriteString("\n")
	var disc []string
	for _, r := range rep.Results {
		for _, d := range r.Discrepancies {
			disc = append(disc, fmt.Sprintf("- **%s**: %s", r.Name, d))
		}
	}
	if len(disc) > 0 {
		fmt.Fprintf(&b, "## Discrepancies between the papers and optdp\n\n%s\n\n", strings.Join(disc, "\n"))
	}
	for _, r := range rep.Results {
		fmt.Fprintf(&b, "## %s\n\n", r.Name)
		fmt.Fprintf(&b, "**%s** — %s. Time: %.2f s.\n\n", r.Title, r.Paper, r.Seconds)
		fmt.Fprintf(&b, "**Paper's claim.** %s\n\n", r.Claim)
		switch {
		case r.Err != "":
			fmt.Fprintf(&b, "**Failed:** %s\n\n", r.Err)
		case r.Skipped != "":
			fmt.Fprintf(&b, "**Not available in this build:** %s\n\n", r.Skipped)
		}
		if r.Markdown != "" {
			b.WriteString(strings.TrimRight(r.Markdown, "\n"))
			b.WriteString("\n\n")
		}
		for _, p := range r.Plots {
			fmt.Fprintf(&b, "![%s](%s)\n\n", p, p)
		}
		if len(r.CSVs) > 0 {
			fmt.Fprintf(&b, "Data: %s\n\n", strings.Join(links(r.CSVs), ", "))
		}
		if len(r.Values) > 0 {
			keys := make([]string, 0, len(r.Values))
			for k := range r.Values {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			fmt.Fprintf(&b, "<details><summary>headline values</summary>\n\n| name | value |\n|---|---:|\n")
			for _, k := range keys {
				fmt.Fprintf(&b, "| %s | %.10g |\n", k, r.Values[k])
			}
			fmt.Fprintf(&b, "\n</details>\n\n")
		}
		if len(r.NotComputed) > 0 {
			fmt.Fprintf(&b, "Not computed in this run (no such value exists here): %s.\n\n", strings.Join(r.NotComputed, ", "))
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("reproduce: writing report: %w", err)
	}
	return nil
}

func modeName(quick bool) string {
	if quick {
		return "quick (sizes scaled down)"
	}
	return "full (the papers' sizes)"
}

func status(r *Result) string {
	switch {
	case r.Err != "":
		return "FAILED"
	case r.Skipped != "":
		return "skipped"
	}
	return "ok"
}

func anchor(s string) string { return strings.ToLower(s) }

func links(files []string) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = fmt.Sprintf("[%s](%s)", f, f)
	}
	return out
}

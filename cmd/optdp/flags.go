package main

// Shared flag handling for the mechanism commands (tight, threshold, regular,
// compare, bound, audit): metric specs, eps, memory limits, matrix checks,
// non-finite JSON numbers and progress. The file decoders are in decode.go.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"math"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"

	optrun "github.com/optdp/optdp/run"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/tight"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/mech"
	"gonum.org/v1/gonum/mat"
)

// metricFlagHelp is the help text of --metric.
var metricFlagHelp = "answer metric spec (required): line:n=N, ring:n=N, clique:n=N, sum:u=U,v=V, kcount:u=U,k=K, " +
	"hamming:u=U,v=V, grid:w=W,h=H,step=S,norm=euclid|manhattan|chebyshev (or bbox=SOUTH,WEST,NORTH,EAST in degrees instead of step: km from the map), " +
	"graph:file=PATH (edge list), dist:file=PATH[,repair=TOL] (CSV distances), points:file=PATH, latlon:file=PATH, roads:file=PATH; Ctrl-C stops a long build (a distance file's triangle check is cubic)"

// epsFlagHelp is the help text of the --eps flag of the mechanism commands.
const epsFlagHelp = "privacy level eps > 0 per unit of distance: per hop for graphs, per km for grids (required)"

// metricAndEps validates the --metric and --eps flags of fs, which parseFlags
// has parsed, and returns the metric: both are required; the metric spec is
// parsed by metric.Parse and eps checked by metric.CheckEps.
func metricAndEps(fs *flag.FlagSet, spec string, eps float64) (metric.Metric, error) {
	set := flagsGiven(fs)
	m, err := parseMetricFlag(spec, set["metric"])
	if err != nil {
		return nil, err
	}
	if err := checkEpsFlag("eps", eps, set["eps"]); err != nil {
		return nil, err
	}
	return m, nil
}

// flagsGiven returns the names of the flags set on the command line.
func flagsGiven(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// parseMetricFlag builds the metric of --metric with metric.ParseContext,
// stopped by Ctrl-C (see parseMetricFlagContext).
func parseMetricFlag(spec string, given bool) (metric.Metric, error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return parseMetricFlagContext(ctx, spec, given)
}

// parseMetricFlagContext builds the metric of --metric with
// metric.ParseContext(ctx, spec). A missing flag, an unknown kind or a bad
// parameter is a command-line mistake (exit 2); a graph or distance file
// that cannot be read or is not valid is a data problem (exit 1); a build
// stopped by ctx (Ctrl-C) is an error wrapping ctx's, saying "cancelled"
// (exit 1).
func parseMetricFlagContext(ctx context.Context, spec string, given bool) (metric.Metric, error) {
	if !given || strings.TrimSpace(spec) == "" {
		return nil, usagef("--metric is required (kinds: %s)", strings.Join(metric.Kinds(), ", "))
	}
	m, err := metric.ParseContext(ctx, spec)
	if err == nil {
		return m, nil
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil, fmt.Errorf("--metric: building the metric cancelled: %w", err)
	}
	err = fmt.Errorf("--metric: %w", err)
	if metricFileError(spec, err) {
		return nil, dataError{err}
	}
	return nil, usageError{err}
}

// metricFileError reports whether err, from metric.Parse(spec), is about
// the file a graph:, dist:, points:, latlon: or roads: spec names (it cannot be opened, or its
// contents are invalid) rather than about the spec itself. metric.Parse
// prefixes the messages about a file's contents with its path.
func metricFileError(spec string, err error) bool {
	var pe *iofs.PathError
	if errors.As(err, &pe) {
		return true
	}
	kind, rest, _ := strings.Cut(strings.TrimSpace(spec), ":")
	switch kind {
	case "graph", "dist", "points", "latlon", "roads":
	default:
		return false
	}
	for kv := range strings.SplitSeq(rest, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.TrimSpace(k) == "file" && v != "" {
			return strings.Contains(err.Error(), strings.TrimSpace(v)+": ")
		}
	}
	return false
}

// checkEpsFlag validates a required privacy parameter with the library's
// one check (metric.CheckEps: finite and > 0). A missing or bad value is a
// command-line mistake.
func checkEpsFlag(name string, v float64, given bool) error {
	if !given {
		return usagef("--%s is required (a privacy level > 0, e.g. --%s 0.693)", name, name)
	}
	if err := metric.CheckEps(v); err != nil {
		return usageError{fmt.Errorf("--%s %s: %w", name, fmtFloat(v), err)}
	}
	return nil
}

// forcedMaxBytes is the dense memory limit under --force: the machine's
// physical memory (from /proc/meminfo), or 64 GiB when that is unknown. It
// still refuses requests that could not possibly be allocated.
func forcedMaxBytes() int64 {
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for line := range strings.SplitSeq(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				f := strings.Fields(rest)
				if len(f) >= 1 {
					if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil && kb > 0 {
						return kb * 1024
					}
				}
			}
		}
	}
	return 64 << 30
}

// budget is the memory budget of --force (the default budget without it).
// It is also the process's soft memory limit (debug.SetMemoryLimit), unless
// GOMEMLIMIT sets one: the command owns its process, and the collector then
// keeps the heap within the budget the work was sized for, instead of
// letting it grow to about twice the live data between collections.
func budget(force bool) optrun.Settings {
	s := optrun.Settings{}
	if force {
		s.Budget = optrun.Budget(forcedMaxBytes())
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(s.Budget.Bytes())
	}
	return s
}

// checkNoiseMatrix validates a noise matrix read from a file against the
// metric: one row per answer, and row-stochastic (mech.ValidateStochastic).
func checkNoiseMatrix(x *mat.Dense, m metric.Metric) error {
	if r, _ := x.Dims(); r != m.Len() {
		return fmt.Errorf("the matrix has %d rows but %s has %d answers (want one row per true answer)", r, m, m.Len())
	}
	return mech.ValidateStochastic(x, "noise matrix")
}

// num is a float64 that marshals to JSON as a number when finite and as the
// string "+Inf", "-Inf" or "NaN" otherwise (JSON has no such numbers).
type num float64

// MarshalJSON implements json.Marshaler.
func (v num) MarshalJSON() ([]byte, error) {
	f := float64(v)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Inf"`), nil
	}
	return json.Marshal(f)
}

// numPtr is a pointer to v as a num (for optional fields).
func numPtr(v float64) *num { n := num(v); return &n }

// busy shows a progress display labelled label on stderr while f runs
// (see progress: nothing before a second, then the last status f reported
// through bar.Update, "working" until then, with the elapsed time moving),
// then ends it.
func busy[T any](env *runEnv, label string, enabled bool, f func(bar *progress) (T, error)) (T, error) {
	bar := newProgress(env, label, enabled)
	v, err := f(bar)
	bar.Done()
	return v, err
}

// progressEnabled is whether to draw progress: by default unless --json,
// always with --progress.
func progressEnabled(asJSON, progressFlag bool) bool { return !asJSON || progressFlag }

// announceDense prints, before a dense tight-constraints solve of n >= 1000
// answers starts, its memory and an estimate of its time on the active
// backend (tight.Estimate), so nobody waits blind. It prints nothing for the
// structured solvers, or when quiet (--json without --progress).
func announceDense(env *runEnv, m metric.Metric, opts *tight.Options, enabled bool) {
	if !enabled {
		return
	}
	p, err := tight.Estimate(m, opts)
	if err != nil || p.Solver != tight.SolverDense || p.N < 1000 {
		return
	}
	if opts != nil && opts.Budget.Check("", p.DenseBytes, "") != nil {
		return // the solve will be refused with the estimate in its message
	}
	fmt.Fprintf(env.stderr, "dense solve of n = %d: %.3g GB of memory, about %s on %s (a structured solver applies only to lattice, separable or ball-symmetric metrics)\n",
		p.N, p.DenseBytes/1e9, optrun.FormatSeconds(p.DenseSeconds), backend.Name())
}

// priorError classifies an error of parsePrior for the --prior spec: the
// contents of a file:PATH prior are data (exit 1); a prior written on the
// command line (product:p1,...,pv) that is not a distribution is a
// command-line mistake (exit 2).
func priorError(spec string, err error) error {
	if err == nil {
		return nil
	}
	if strings.HasPrefix(spec, "file:") || isMapPrior(spec) { // points:, raster:, counts: (prior_map.go)
		return asData(err)
	}
	var u usageError
	if errors.As(err, &u) {
		return err
	}
	return usageError{err}
}

// specError classifies an error from parsing a workload or strategy spec
// (parseWorkload, parseStrategy): a spec naming a file (file:PATH) failed on
// the file's contents or reading it, a data problem (exit 1); any other
// spec is a command-line mistake (exit 2), unless the computation behind
// it said no (run.ErrTooLarge, run.ErrNotConverged, cancelled: exit 1).
func specError(spec string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, optrun.ErrTooLarge) || errors.Is(err, optrun.ErrNotConverged) || errors.Is(err, context.Canceled) {
		return err // the computation said no (exit 1), with the library's advice
	}
	if strings.HasPrefix(strings.TrimSpace(spec), "file:") {
		return asData(err)
	}
	var u usageError
	if errors.As(err, &u) {
		return err
	}
	return usageError{err}
}

// tooLarge adds what to do on the command line to an error that wraps
// run.ErrTooLarge (the library's advice names its options); other errors
// pass unchanged.
func tooLarge(err error, hint string) error {
	if err == nil || hint == "" || !errors.Is(err, optrun.ErrTooLarge) {
		return err
	}
	return fmt.Errorf("%w; on the command line: %s", err, hint)
}

// checkDeltaFlag validates --delta when it was given: (eps, delta)-DP needs
// 0 < delta < 1. A bad value is a command-line mistake.
func checkDeltaFlag(fs *flag.FlagSet, delta float64) error {
	if flagsGiven(fs)["delta"] && !(delta > 0 && delta < 1) {
		return usagef("--delta %s: want a number in (0, 1)", fmtFloat(delta))
	}
	return nil
}

package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/optdp/optdp/mech/linear"
	runpkg "github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// defaultOptSeed is the seed of the L1 optimiser's random restarts when
// --seed is not given, so that runs are reproducible.
const defaultOptSeed = 1

// maxOutEntries bounds the strategy written by --out (4Mi entries, about
// 100 MB of CSV).
const maxOutEntries = 1 << 22

func optimizeCommand() command {
	return command{
		name:    "optimize",
		summary: "optimise a matrix-mechanism strategy for a workload (eps-DP Laplace, or (eps, delta)-DP Gaussian with a certificate)",
		usage:   "--workload WSPEC --eps E [--delta D [--loss sum|max]] [--restarts R] [--seed S] [--max-iter K] [--out FILE] [--force] [--json] [--progress]",
		examples: []string{
			"optdp optimize --workload allrange:n=256 --eps 1",
			"optdp optimize --workload allrange:n=256 --eps 1 --delta 1e-6 --json",
			"optdp optimize --workload range2d:n=64 --eps 1 --out strategy.csv",
			"optdp optimize --workload census --eps 1",
			"optdp optimize --workload marginals:dims=2x2x2x2x2x2x2x2x2x2x2x2x2x2x2,k=2 --eps 1 --delta 1e-6",
			"optdp optimize --workload marginals:dims=10^100,k=3 --eps 1 --delta 1e-6 --loss max",
		},
		run: runOptimize,
	}
}

// optimizeResult is the JSON output of optdp optimize.
type optimizeResult struct {
	Workload string `json:"workload"`
	Strategy string `json:"strategy"`
	// Method is the optimiser (linear.OptimizeResult.Method); Baseline is
	// set when a standard strategy was returned because nothing beat it.
	Method   string  `json:"method"`
	Baseline string  `json:"baseline,omitempty"`
	M        int     `json:"m"`
	N        int     `json:"n"`
	P        int     `json:"p"`
	Eps      float64 `json:"eps"`
	Delta    float64 `json:"delta,omitempty"`
	// TSE is the total squared error: Laplace, or the analytic Gaussian
	// calibration with --delta; TSEClassic uses the paper's σ.
	TSE        num  `json:"tse"`
	RMSE       num  `json:"rmse"`
	TSEClassic *num `json:"tse_classic,omitempty"`
	// Objective is the optimiser's objective: D1² tr(W^T W (A^T A)^-1) for
	// Laplace; with --delta it equals Trace.
	Objective num `json:"objective"`
	// Trace, Dual, Gap and RelGap (with --delta): tr(W^T W X^{-1}) with unit
	// column norms, a lower bound on it, and the certified gap.
	Trace      *num                   `json:"trace,omitempty"`
	Dual       *num                   `json:"dual,omitempty"`
	Gap        *num                   `json:"gap,omitempty"`
	RelGap     *num                   `json:"rel_gap,omitempty"`
	Baselines  []linear.BaselineError `json:"baselines"`
	Iterations int                    `json:"iterations"`
	Restarts   int                    `json:"restarts"`
	Seed       uint64                 `json:"seed"`
	TimeS      float64                `json:"time_s"`
	// Out lists the files written by --out.
	Out []string `json:"out,omitempty"`
	// Blocks describes a union strategy (method l1-union or l2-union):
	// one entry per block, each answering its own group of the workload's
	// Kronecker terms.
	Blocks []optBlock `json:"blocks,omitempty"`
}

// optBlock is one block of a union strategy in optdp optimize's output.
type optBlock struct {
	// Strategy names the block (its budget multiplier times the optimised
	// Kronecker product), P is its number of queries and Terms the number
	// of distinct workload Kronecker terms it answers.
	Strategy string `json:"strategy"`
	P        int    `json:"p"`
	Terms    int    `json:"terms"`
	// Share is the block's part of the privacy budget: D1(B)/Σ D1 of eps
	// (Laplace), D2(B)²/Σ D2² of the zCDP budget (Gaussian).
	Share float64 `json:"share"`
}

// unionBlocks describes the blocks of a union strategy (nil otherwise).
func unionBlocks(s *linear.Strategy, gaussian bool) []optBlock {
	bs := s.Union()
	if bs == nil {
		return nil
	}
	sens := func(b *linear.Strategy) float64 {
		if gaussian {
			return b.L2() * b.L2()
		}
		return b.L1()
	}
	total := 0.0
	for _, b := range bs {
		total += sens(b.Strategy)
	}
	out := make([]optBlock, len(bs))
	for i, b := range bs {
		p, _ := b.Strategy.Dims()
		out[i] = optBlock{Strategy: b.Strategy.String(), P: p, Terms: b.Terms, Share: sens(b.Strategy) / total}
	}
	return out
}

// optFlags are the optimiser's flags.
type optFlags struct {
	delta                   *float64
	restarts, seed, maxIter *int
	out                     *string
	asJSON, progress, force *bool
}

func runOptimize(env *runEnv, args []string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return runOptimizeCtx(ctx, env, args)
}

// runOptimizeCtx is runOptimize with a caller's context (Ctrl-C cancels it).
func runOptimizeCtx(ctx context.Context, env *runEnv, args []string) error {
	fs := newFlags(env, "optimize")
	workload := fs.String("workload", "", workloadSpecHelp)
	eps := fs.Float64("eps", 0, "privacy parameter eps > 0 (required)")
	of := optFlags{
		delta:    fs.Float64("delta", 0, "optimise for (eps, delta)-DP Gaussian noise (the convex L2 problem); delta in (0, 1)"),
		restarts: fs.Int("restarts", 1, "random restarts of the eps-DP optimiser (the best is kept)"),
		seed:     fs.Int("seed", defaultOptSeed, "seed of the restarts' random starting points (fixed by default: runs are reproducible)"),
		maxIter:  fs.Int("max-iter", 0, "iterations per restart (L-BFGS) or Newton iterations (--delta); 0 = default"),
		out:      fs.String("out", "", "write the strategy matrix to FILE (CSV, or .npy); a large Kronecker strategy is written as one file per factor, FILE.k1.csv, ...; a marginal plan of the residual planner is written as JSON"),
		asJSON:   fs.Bool("json", false, "print JSON"),
		progress: fs.Bool("progress", false, "draw the progress bar on stderr even with --json"),
		force:    fs.Bool("force", false, "raise the memory budget from 4 GiB to the machine's physical memory (e.g. allrange:n=4096 without --delta)"),
	}
	loss := fs.String("loss", linear.LossSum, "with --delta: minimise the sum of the queries' variances (sum) or the largest variance (max; marginal workloads only, planned in the residual basis with a certified gap)")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	set := flagsGiven(fs)
	for _, name := range []string{"workload", "eps"} {
		if !set[name] {
			return usagef("--%s is required", name)
		}
	}
	if err := checkEpsFlag("eps", *eps, true); err != nil {
		return err
	}
	if set["delta"] && !(*of.delta > 0 && *of.delta < 1) {
		return usagef("--delta %s: want a number in (0, 1)", fmtFloat(*of.delta))
	}
	if *of.restarts < 1 || *of.seed < 0 || *of.maxIter < 0 {
		return usagef("--restarts must be >= 1, --seed and --max-iter >= 0 (got %d, %d, %d)", *of.restarts, *of.seed, *of.maxIter)
	}
	if *of.restarts > linear.MaxRestarts || *of.maxIter > linear.MaxOptimizeIter {
		return usagef("--restarts %d, --max-iter %d: at most %d restarts and %d iterations", *of.restarts, *of.maxIter, linear.MaxRestarts, linear.MaxOptimizeIter)
	}
	if *loss != linear.LossSum && *loss != linear.LossMax {
		return usagef("--loss %q: want sum or max", *loss)
	}
	if *of.delta > 0 {
		// A marginal workload beyond the dense limits, or the max loss:
		// the residual planner, which never forms the domain.
		attrs, ms, queries, ok, err := parseMarginalSpec(*workload)
		if err != nil {
			return specError(*workload, err)
		}
		if ok && (*loss == linear.LossMax || beyondDense(attrs)) {
			return runMarginalPlan(ctx, env, *workload, attrs, ms, queries, *eps, *loss, of)
		}
	}
	if *loss == linear.LossMax {
		return usagef("--loss max needs --delta and a marginal workload (marginals:dims=...,k=K, or a workload file of marginals)")
	}
	w, err := parseWorkload(*workload)
	if err != nil {
		return specError(*workload, err)
	}
	bar := newProgress(env, "optimize", progressEnabled(*of.asJSON, *of.progress))
	opts := &linear.OptimizeOptions{Settings: budget(*of.force), Eps: *eps, Delta: *of.delta, Restarts: *of.restarts, Seed: uint64(*of.seed),
		MaxIter: *of.maxIter}
	opts.Progress = progressReporter(bar)
	res, err := linear.Optimize(ctx, w, opts)
	bar.Done()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("optimisation cancelled: %w", err)
		}
		return fileSpecError(tooLarge(err, "--force raises the budget to the machine's memory"), *workload)
	}
	m, n := w.Dims()
	p, _ := res.Strategy.Dims()
	out := optimizeResult{Workload: w.String(), Strategy: res.Strategy.String(), Method: res.Method, Baseline: res.Baseline,
		M: m, N: n, P: p, Eps: *eps, Delta: *of.delta, TSE: num(res.TSE), RMSE: num(res.RMSE), Objective: num(res.Objective),
		Baselines: res.Baselines, Iterations: res.Iterations, Restarts: *of.restarts, Seed: uint64(*of.seed),
		TimeS: res.Time.Seconds(), Blocks: unionBlocks(res.Strategy, *of.delta > 0)}
	if *of.delta > 0 {
		out.TSEClassic = numPtr(res.ClassicTSE)
		out.Trace, out.Dual, out.Gap, out.RelGap = numPtr(res.Objective), numPtr(res.Dual), numPtr(res.Gap), numPtr(res.RelGap)
	}
	if *of.out != "" {
		if out.Out, err = writeStrategy(*of.out, res.Strategy); err != nil {
			return err
		}
	}
	if *of.asJSON {
		return writeJSON(env.stdout, out)
	}
	printOptimize(env, out)
	return nil
}

// progressReporter turns the optimisers' run.Progress reports into
// progress-bar updates.
func progressReporter(bar *progress) func(runpkg.Progress) {
	return func(pr runpkg.Progress) {
		msg := fmt.Sprintf("%s iteration %d objective %.8g", pr.Stage, pr.Iter, pr.Value)
		if !math.IsNaN(pr.Gap) {
			msg += fmt.Sprintf(" relative gap %.3g", pr.Gap)
		}
		frac := -1.0
		if !math.IsNaN(pr.Frac) {
			frac = pr.Frac
		}
		bar.Update(frac, msg)
	}
}

// writeStrategy writes s to path (dense, when at most maxOutEntries
// entries), or, for a larger Kronecker product, each factor to
// path-without-extension.kN.ext; it returns the files written.
func writeStrategy(path string, s *linear.Strategy) ([]string, error) {
	p, n := s.Dims()
	if float64(p)*float64(n) <= maxOutEntries {
		d, err := s.Dense()
		if err != nil {
			return nil, fmt.Errorf("--out: %w", err)
		}
		if err := writeMatrixPath(path, d); err != nil {
			return nil, err
		}
		return []string{path}, nil
	}
	fs := s.Factors()
	if len(fs) <= 1 {
		return nil, fmt.Errorf("--out: the %d x %d strategy has %.3g entries, more than the limit of %d for writing a dense matrix", p, n, float64(p)*float64(n), maxOutEntries)
	}
	ext := filepath.Ext(path)
	if !strings.EqualFold(ext, ".npy") {
		ext = ".csv"
	}
	base := strings.TrimSuffix(path, filepath.Ext(path))
	var files []string
	for i, f := range fs {
		r, c := f.Dims()
		if r*c > maxOutEntries {
			return nil, fmt.Errorf("--out: Kronecker factor %d is %d x %d, more than the limit of %d entries", i+1, r, c, maxOutEntries)
		}
		name := fmt.Sprintf("%s.k%d%s", base, i+1, ext)
		if err := writeMatrixPath(name, mat.DenseCopyOf(f)); err != nil {
			return nil, err
		}
		files = append(files, name)
	}
	return files, nil
}

// printOptimize prints the human-readable report.
func printOptimize(env *runEnv, r optimizeResult) {
	out := env.stdout
	fmt.Fprintf(out, "workload     %s  (m = %d queries, n = %d counts)\n", r.Workload, r.M, r.N)
	which := "optimised"
	if r.Baseline != "" {
		which = "baseline " + r.Baseline + " (nothing beat it)"
	}
	fmt.Fprintf(out, "strategy     %s  (p = %d queries; %s by %s)\n", r.Strategy, r.P, which, r.Method)
	if len(r.Blocks) > 0 {
		fmt.Fprintf(out, "union        %d blocks, each answering its own workload terms (estimates per block; budget split by composition)\n", len(r.Blocks))
		for i, b := range r.Blocks {
			fmt.Fprintf(out, "  block %-3d  %5.1f%% of the budget, %d term(s), p = %d: %s\n", i+1, 100*b.Share, b.Terms, b.P, b.Strategy)
		}
	}
	if r.Trace != nil {
		fmt.Fprintf(out, "noise        gaussian, eps = %g, delta = %g (analytic calibration; classic TSE %.10g)\n", r.Eps, r.Delta, float64(*r.TSEClassic))
		what := "tr(W^T W X^-1)"
		if len(r.Blocks) > 0 {
			what = "D2^2 sum_g tr(W_g^T W_g (B_g^T B_g)^-1) = (sum_g sqrt(e_g))^2"
		}
		fmt.Fprintf(out, "trace        %s = %.10g, lower bound %.10g, gap %.3g (relative %.3g)\n", what,
			float64(*r.Trace), float64(*r.Dual), float64(*r.Gap), float64(*r.RelGap))
	} else if len(r.Blocks) > 0 {
		fmt.Fprintf(out, "noise        laplace, eps = %g; objective D1^2 sum_g tr(W_g^T W_g (B_g^T B_g)^-1) = (sum_g e_g^(1/3))^3 = %.10g\n", r.Eps, float64(r.Objective))
	} else {
		fmt.Fprintf(out, "noise        laplace, eps = %g; objective D1^2 tr(W^T W (A^T A)^-1) = %.10g\n", r.Eps, float64(r.Objective))
	}
	fmt.Fprintf(out, "total error  TSE = %.10g   RMSE = %.6g per query\n", float64(r.TSE), float64(r.RMSE))
	fmt.Fprintf(out, "search       %d iterations, %d restart(s), seed %d, %.3gs\n", r.Iterations, r.Restarts, r.Seed, r.TimeS)
	fmt.Fprintln(out, "baselines")
	for _, b := range r.Baselines {
		fmt.Fprintf(out, "  %-40s TSE = %.10g  (%.4g × optimised)\n", b.Name, b.TSE, b.TSE/float64(r.TSE))
	}
	if len(r.Out) == 1 {
		fmt.Fprintf(out, "wrote        %s\n", r.Out[0])
	} else if len(r.Out) > 1 {
		fmt.Fprintf(out, "wrote        the strategy is a Kronecker product too large to write densely; its factors, in order: %s\n", strings.Join(r.Out, ", "))
	}
}

// optStrategy builds the strategy "opt[:restarts=R,seed=S]" for optdp matrix
// and answer: linear.Optimize for w at eps (and delta when the command's
// --delta flag is given), cancelled by Ctrl-C.
func optStrategy(p *linear.Spec, fs *flag.FlagSet, w linear.Workload, eps float64) (*linear.Strategy, error) {
	spec := p.String()
	restarts, err := p.Int("restarts", false, 1)
	if err != nil {
		return nil, err
	}
	seed, err := p.Int("seed", false, defaultOptSeed)
	if err != nil {
		return nil, err
	}
	if err := p.Done(); err != nil {
		return nil, err
	}
	if restarts < 1 || seed < 0 {
		return nil, fmt.Errorf("strategy %q: restarts must be >= 1 and seed >= 0", spec)
	}
	delta := 0.0
	if flagsGiven(fs)["delta"] {
		if f := fs.Lookup("delta"); f != nil {
			if _, err := fmt.Sscan(f.Value.String(), &delta); err != nil {
				return nil, fmt.Errorf("--delta: %w", err)
			}
			if !(delta > 0 && delta < 1) {
				return nil, fmt.Errorf("--delta must be in (0, 1), got %v", delta)
			}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := linear.Optimize(ctx, w, &linear.OptimizeOptions{Eps: eps, Delta: delta, Restarts: restarts, Seed: uint64(seed)})
	if err != nil {
		return nil, fmt.Errorf("strategy %q: %w", spec, err)
	}
	return res.Strategy, nil
}

package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/mech/linear/tables"
)

// marginalPlanResult is optdp optimize's JSON output for a marginal
// workload planned in the residual basis (linear.PlanGaussianMarginals).
type marginalPlanResult struct {
	Workload string `json:"workload"`
	// Method is "residual-planner"; Loss "sum" or "max".
	Method     string  `json:"method"`
	Loss       string  `json:"loss"`
	Attributes int     `json:"attributes"`
	Marginals  int     `json:"marginals"`
	Queries    float64 `json:"queries"`
	Subspaces  int     `json:"subspaces"`
	// AttrQueries is each attribute's query type when one is prefix or
	// allrange (omitted otherwise).
	AttrQueries []string `json:"attr_queries,omitempty"`
	Eps         float64  `json:"eps"`
	Delta       float64  `json:"delta"`
	// Sigma is the analytic Gaussian σ for L2 sensitivity 1; TSE, RMSE and
	// MaxVariance the plan's errors (weighted queries).
	Sigma       num `json:"sigma"`
	TSE         num `json:"tse"`
	RMSE        num `json:"rmse"`
	MaxVariance num `json:"max_variance"`
	// Objective is the loss in units of σ², Dual its certified lower
	// bound over all Gaussian linear strategies, Gap and RelGap the gap.
	Objective  num     `json:"objective"`
	Dual       num     `json:"dual"`
	Gap        num     `json:"gap"`
	RelGap     num     `json:"rel_gap"`
	Iterations int     `json:"iterations"`
	TimeS      float64 `json:"time_s"`
	// Out is the plan file written by --out (the linear.MarginalPlan as
	// JSON: subspaces, shares and per-marginal variances).
	Out []string `json:"out,omitempty"`
}

// parseMarginalSpec recognises a marginal workload spec or file
// (linear.ParseMarginalWorkloadQueries), with its attributes' query types
// (nil when all identity); ok is false for any other workload.
func parseMarginalSpec(spec string) ([]linear.Attribute, []linear.WeightedMarginal, []string, bool, error) {
	return linear.ParseMarginalWorkloadQueries(spec, func(path string) ([]byte, error) {
		b, err := readBounded(path, maxWorkloadFileBytes)
		if err != nil {
			return nil, fmt.Errorf("workload file: %w", err)
		}
		return b, nil
	})
}

// beyondDense reports whether the Kronecker/dense path cannot represent
// the domain (more than 64 attributes or 2^40 cells): the residual
// planner then plans the L2 problem.
func beyondDense(attrs []linear.Attribute) bool {
	cells := 1.0
	for _, a := range attrs {
		cells *= float64(a.Size)
	}
	return len(attrs) > 64 || cells > 1<<40
}

// runMarginalPlan plans a marginal workload with linear.PlanGaussianMarginals
// and prints the result.
func runMarginalPlan(ctx context.Context, env *runEnv, spec string, attrs []linear.Attribute, ms []linear.WeightedMarginal, queries []string, eps float64, loss string, of optFlags) error {
	dims := make([]int, len(attrs))
	for i, a := range attrs {
		dims[i] = a.Size
	}
	bar := newProgress(env, "optimize", progressEnabled(*of.asJSON, *of.progress))
	opts := &linear.MarginalPlanOptions{Settings: budget(*of.force), Eps: eps, Delta: *of.delta, Loss: loss, MaxIter: *of.maxIter, AttrQueries: queries}
	opts.Progress = progressReporter(bar)
	p, err := linear.PlanGaussianMarginals(ctx, dims, ms, opts)
	bar.Done()
	if err != nil && p == nil {
		if ctx.Err() != nil {
			return fmt.Errorf("optimisation cancelled: %w", err)
		}
		return fileSpecError(tooLarge(err, "--force raises the budget to the machine's memory"), spec)
	}
	if err != nil { // not converged: report the plan with its certified gap
		fmt.Fprintf(env.stderr, "optdp optimize: warning: %v\n", err)
	}
	out := marginalPlanResult{Workload: spec, Method: "residual-planner", Loss: p.Loss, Attributes: len(dims), Marginals: len(p.Marginals),
		Queries: p.Queries, Subspaces: len(p.Subspaces), AttrQueries: p.AttrQueries, Eps: eps, Delta: *of.delta, Sigma: num(p.Sigma), TSE: num(p.TSE), RMSE: num(p.RMSE),
		MaxVariance: num(p.MaxVariance), Objective: num(p.Objective), Dual: num(p.Dual), Gap: num(p.Gap), RelGap: num(p.RelGap),
		Iterations: p.Iterations, TimeS: p.Time.Seconds()}
	if *of.out != "" {
		f, err := os.Create(*of.out)
		if err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		if err := writeJSON(f, p); err != nil {
			f.Close()
			return fmt.Errorf("--out: %w", err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		out.Out = []string{*of.out}
	}
	if *of.asJSON {
		return writeJSON(env.stdout, out)
	}
	w := env.stdout
	fmt.Fprintf(w, "workload     %s  (%d attributes, %d marginals, %.10g queries)\n", out.Workload, out.Attributes, out.Marginals, out.Queries)
	fmt.Fprintf(w, "strategy     residual basis, %d subspaces (optimal %s-variance plan by the residual planner; no cell of the domain formed)\n", out.Subspaces, out.Loss)
	fmt.Fprintf(w, "noise        gaussian, eps = %g, delta = %g (analytic calibration, sigma = %.10g for sensitivity 1)\n", eps, *of.delta, float64(out.Sigma))
	what := "sum of variances / sigma^2"
	if out.Loss == linear.LossMax {
		what = "max variance / sigma^2"
	}
	fmt.Fprintf(w, "objective    %s = %.10g, lower bound %.10g, gap %.3g (relative %.3g)\n", what, float64(out.Objective), float64(out.Dual), float64(out.Gap), float64(out.RelGap))
	fmt.Fprintf(w, "total error  TSE = %.10g   RMSE = %.6g per query   max variance = %.10g\n", float64(out.TSE), float64(out.RMSE), float64(out.MaxVariance))
	fmt.Fprintf(w, "search       %d iterations, %.3gs\n", out.Iterations, out.TimeS)
	if len(out.Out) == 1 {
		fmt.Fprintf(w, "wrote        %s (the plan as JSON)\n", out.Out[0])
	}
	return nil
}

// marginalAnswerResult is optdp answer's JSON output for --strategy
// residual (linear.AnswerGaussianMarginals).
type marginalAnswerResult struct {
	Workload  string       `json:"workload"`
	Strategy  string       `json:"strategy"`
	Loss      string       `json:"loss"`
	Eps       float64      `json:"eps"`
	Delta     float64      `json:"delta"`
	Noise     linear.Noise `json:"noise"`
	Subspaces int          `json:"subspaces"`
	Seeded    bool         `json:"seeded"`
	// Attributes names the attributes the marginals' attrs index (from
	// the workload file, or a0, a1, ... for a spec).
	Attributes []linear.Attribute      `json:"attributes"`
	Marginals  []linear.MarginalAnswer `json:"marginals"`
}

// writeTypedMarginal prints marginal i of a plan with prefix or allrange
// attributes: a header with its largest variance, then one line per
// query: its label (linear.MarginalPlan.QueryLabel), the private answer
// and its variance.
func writeTypedMarginal(w io.Writer, plan *linear.MarginalPlan, attrs []linear.Attribute, i int, m linear.MarginalAnswer) error {
	fmt.Fprintf(w, "# marginal %s (largest variance %.6g)\n", marginalNames(attrs, m.Attrs), m.Variance)
	for q, v := range m.Answers {
		label, err := plan.QueryLabel(attrs, i, q)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s %s %.6g\n", label, fmtFloat(v), m.Variances[q])
	}
	return nil
}

// marginalNames joins the names of the attributes idx.
func marginalNames(attrs []linear.Attribute, idx []int) string {
	names := make([]string, len(idx))
	for k, a := range idx {
		names[k] = attrs[a].Name
	}
	return strings.Join(names, ",")
}

// runMarginalAnswer answers a marginal workload with the residual plan:
// optdp answer --strategy residual[:loss=max] --delta D (--records FILE |
// --histogram FILE). The table's rows are kept as columns
// (tables.ReadMarginal: 4 bytes per attribute and row), never counted into
// the histogram over the product domain.
func runMarginalAnswer(env *runEnv, fs *flag.FlagSet, mf matrixFlags, strat *linear.Spec, delta float64, tab tableSource, src linear.Source, seeded bool, out answerOutput) error {
	p := strat
	p.Use("loss")
	loss := linear.LossSum
	if v, ok := p.Params["loss"]; ok {
		loss = v
	}
	if err := p.Done(); err != nil {
		return err
	}
	given := flagsGiven(fs)
	if !given["delta"] {
		return usagef("--strategy residual needs --delta (the release is (eps, delta)-DP with discrete Gaussian noise)")
	}
	if err := checkEpsFlag("eps", *mf.eps, true); err != nil {
		return err
	}
	attrs, ms, queries, ok, err := parseMarginalSpec(*mf.workload)
	if err != nil {
		return specError(*mf.workload, err)
	}
	if !ok {
		return usagef("--strategy residual needs a marginal workload (marginals:dims=...,k=K, or a workload file of marginals), not %q", *mf.workload)
	}
	dims := make([]int, len(attrs))
	for i, a := range attrs {
		dims[i] = a.Size
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	plan, err := linear.PlanGaussianMarginals(ctx, dims, ms, &linear.MarginalPlanOptions{Eps: *mf.eps, Delta: delta, Loss: loss, AttrQueries: queries})
	if err != nil && plan == nil {
		return fileSpecError(err, *mf.workload, *mf.strategy)
	}
	bar := newProgress(env, "answer: reading "+tab.opts.Kind.String(), out.progress)
	tab.opts.Progress = tableProgress(bar)
	table, err := tables.ReadMarginal(ctx, attrs, tab.path, tab.opts)
	bar.Done()
	if err != nil {
		// An error in the table is the data saying no (exit 1), as for the
		// matrix mechanism.
		return dataError{fmt.Errorf("%s file %s: %w", tab.opts.Kind, tab.path, err)}
	}
	rel, err := linear.AnswerGaussianMarginals(ctx, plan, table.Data, src, 0)
	if err != nil {
		return fileSpecError(err, *mf.workload, *mf.strategy)
	}
	res := marginalAnswerResult{Workload: *mf.workload, Strategy: "residual", Loss: plan.Loss, Eps: *mf.eps, Delta: delta,
		Noise: rel.Noise, Subspaces: rel.Subspaces, Seeded: seeded, Attributes: attrs, Marginals: rel.Marginals}
	switch {
	case out.json:
		return writeJSON(env.stdout, res)
	case out.csv:
		return writeMarginalCSV(env.stdout, plan, attrs, res.Marginals)
	}
	w := env.stdout
	fmt.Fprintf(w, "# workload %s, residual plan (%s variance, %d subspaces), eps = %g, delta = %g\n", res.Workload, res.Loss, res.Subspaces, res.Eps, res.Delta)
	fmt.Fprintf(w, "# noise: exact %s, sigma %.6g for sensitivity 1 (zCDP calibration)\n", res.Noise.Mechanism, res.Noise.Scale)
	// One block per marginal: its attributes and variance, then one line
	// per cell: the attributes' values and the private count; with prefix
	// or allrange attributes one line per query: its label, the private
	// answer and its variance.
	for i, m := range res.Marginals {
		if m.Variances != nil {
			if err := writeTypedMarginal(env.stdout, plan, attrs, i, m); err != nil {
				return err
			}
			continue
		}
		names := make([]string, len(m.Attrs))
		for k, a := range m.Attrs {
			names[k] = attrs[a].Name
		}
		fmt.Fprintf(w, "# marginal %s (variance %.6g per cell)\n", strings.Join(names, ","), m.Variance)
		eachCell(attrs, m, func(vals []int, v float64) {
			parts := make([]string, len(vals))
			for k, x := range vals {
				parts[k] = strconv.Itoa(x)
			}
			fmt.Fprintf(w, "%s %s\n", strings.Join(parts, ","), fmtFloat(v))
		})
	}
	return nil
}

// eachCell calls f with the values of m's attributes and the answer of
// each of m's cells, in row-major order (the first attribute slowest).
func eachCell(attrs []linear.Attribute, m linear.MarginalAnswer, f func(vals []int, answer float64)) {
	vals := make([]int, len(m.Attrs))
	for _, v := range m.Answers {
		f(vals, v)
		for k := len(vals) - 1; k >= 0; k-- {
			if vals[k]++; vals[k] < attrs[m.Attrs[k]].Size {
				break
			}
			vals[k] = 0
		}
	}
}

// writeMarginalCSV prints the released marginals as optdp answer --csv
// prints a matrix release: a header, then query,label,answer per answer,
// the queries numbered across the marginals in order and labelled by
// plan.QueryLabel as linear.Labels labels queries ("age=2 & sex=0",
// "age=0..2 & sex=1"; "total" for the empty marginal).
func writeMarginalCSV(w io.Writer, plan *linear.MarginalPlan, attrs []linear.Attribute, ms []linear.MarginalAnswer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"query", "label", "answer"})
	q := 0
	for i, m := range ms {
		for k, v := range m.Answers {
			label, err := plan.QueryLabel(attrs, i, k)
			if err != nil {
				return err
			}
			cw.Write([]string{strconv.Itoa(q), label, fmtFloat(v)})
			q++
		}
	}
	cw.Flush()
	return cw.Error()
}

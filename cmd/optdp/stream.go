package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/stream"
	optrun "github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

func streamCommand() command {
	return command{
		name:    "stream",
		summary: "matrix factorisation for streams and private training: optimise C for prefix sums under a participation schema, compare with the baselines, release a stream",
		usage:   "--workload prefix:n=N [--participation SCHEMA] [--family dense|toeplitz|blt] [--bands B] [--buffers D] [--loss total|max] [--tol T] [--out FILE] [--release FILE --eps E --delta D [--seed S]] [--force] [--json] [--progress]",
		examples: []string{
			"optdp stream --workload prefix:n=256",
			"optdp stream --workload prefix:n=256 --participation epochs:k=4,b=64 --json",
			"optdp stream --workload prefix:n=100000 --participation minsep:k=4,b=64 --family toeplitz --bands 64",
			"optdp stream --workload prefix:n=100000 --family blt --buffers 4",
			"optdp stream --workload prefix:n=64 --family toeplitz --bands 8 --out c.npy --release data.txt --eps 1 --delta 1e-6",
		},
		fields: streamFields,
		run:    runStream,
	}
}

// streamFields documents the JSON output of optdp stream.
var streamFields = []string{
	"workload       the workload spec (prefix:n=N)",
	"n              stream length",
	"participation  the schema (single, epochs:k=K,b=B, minsep:k=K,b=B)",
	"loss           total (total squared error, RMSE) or max (max variance)",
	"strategy       the optimised strategy:",
	"  name           dense, toeplitz:bands=B or blt:buffers=D",
	"  sens2          exact squared sensitivity under the schema, scalar contributions (1 after scaling)",
	"  vector2        bound for vector contributions; vector_exact: whether it is exact",
	"  total, rmse, max  errors for noise multiplier 1 (Gaussian σ = sensitivity)",
	"  sens_method    how the sensitivity was computed (diagonal, enumeration, banded dp, branch and bound)",
	"  primal, dual, rel_gap  the certificate (dense only): primal = total (max with --loss max), dual <= every strategy's",
	"  iterations     optimiser iterations",
	"  coef           the Toeplitz coefficients c_0..c_{B-1} (toeplitz; all n for blt)",
	"  blt            blt only: scale, alpha, lambda (c_t = scale·Σ alpha_i lambda_i^(t-1)), p, q (C(x) = scale·P(x)/Q(x))",
	"  recurrence     the online noise recurrence",
	"banded         the optimised banded Toeplitz strategy (dense runs only; bands = min(n, b, --bands), b the separation)",
	"baselines      identity, binary tree, honaker, sqrt: name, sens2, vector2, vector_exact, total, rmse, max, note (numbers absent when skipped)",
	"bounds         single participation: nuclear, total_lower, max_lower, sqrt_max, log_over_pi",
	"time_s         optimisation time in seconds",
	"out            the file written by --out (C, or the Toeplitz coefficients)",
	"release        with --release: eps, delta, sigma (noise std of y), grid, sens2, steps [{t, y, estimate}]",
}

// streamStrategy is the optimised strategy in optdp stream's output.
type streamStrategy struct {
	Name        string    `json:"name"`
	Sens2       float64   `json:"sens2"`
	Vector2     float64   `json:"vector2"`
	VectorExact bool      `json:"vector_exact"`
	SensMethod  string    `json:"sens_method"`
	Total       float64   `json:"total"`
	RMSE        float64   `json:"rmse"`
	Max         float64   `json:"max"`
	Primal      *num      `json:"primal,omitempty"`
	Dual        *num      `json:"dual,omitempty"`
	RelGap      *num      `json:"rel_gap,omitempty"`
	Iterations  int       `json:"iterations"`
	Coef        []float64 `json:"coef,omitempty"`
	BLT         *bltOut   `json:"blt,omitempty"`
	Recurrence  string    `json:"recurrence"`
}

// bltOut is a BLT's parameters in the output.
type bltOut struct {
	Scale  float64   `json:"scale"`
	Alpha  []float64 `json:"alpha"`
	Lambda []float64 `json:"lambda"`
	P      []float64 `json:"p"`
	Q      []float64 `json:"q"`
}

// streamBaseline is one baseline in the output; the numbers are absent
// when the baseline was skipped (Note says why).
type streamBaseline struct {
	Name        string `json:"name"`
	Sens2       *num   `json:"sens2,omitempty"`
	Vector2     *num   `json:"vector2,omitempty"`
	VectorExact bool   `json:"vector_exact"`
	Total       *num   `json:"total,omitempty"`
	RMSE        *num   `json:"rmse,omitempty"`
	Max         *num   `json:"max,omitempty"`
	Note        string `json:"note,omitempty"`
}

// baselineOut converts a stream.Report.
func baselineOut(r stream.Report) streamBaseline {
	b := streamBaseline{Name: r.Name, VectorExact: r.VectorExact, Note: r.Note}
	if !math.IsNaN(r.Total) {
		b.Sens2, b.Vector2, b.Total, b.RMSE, b.Max = numPtr(r.Sens2), numPtr(r.Vector2), numPtr(r.Total), numPtr(r.RMSE), numPtr(r.Max)
	}
	return b
}

// streamRelease is the --release part of the output.
type streamRelease struct {
	Eps   float64       `json:"eps"`
	Delta float64       `json:"delta"`
	Sigma float64       `json:"sigma"`
	Grid  float64       `json:"grid"`
	Sens2 float64       `json:"sens2"`
	Steps []stream.Step `json:"steps"`
}

// streamOutput is the JSON output of optdp stream.
type streamOutput struct {
	Workload      string               `json:"workload"`
	N             int                  `json:"n"`
	Participation string               `json:"participation"`
	Loss          string               `json:"loss"`
	Strategy      streamStrategy       `json:"strategy"`
	Banded        *streamStrategy      `json:"banded,omitempty"`
	Baselines     []streamBaseline     `json:"baselines"`
	Bounds        *stream.PrefixBounds `json:"bounds,omitempty"`
	TimeS         float64              `json:"time_s"`
	Out           string               `json:"out,omitempty"`
	Release       *streamRelease       `json:"release,omitempty"`
}

// parsePrefix reads "prefix:n=N".
func parsePrefix(spec string) (int, error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(spec), "prefix:n=")
	n, err := strconv.Atoi(rest)
	if !ok || err != nil || n < 1 {
		return 0, usagef("--workload %q: want prefix:n=N with N >= 1 (the prefix sums of an N-step stream)", spec)
	}
	return n, nil
}

func runStream(env *runEnv, args []string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fs := newFlags(env, "stream")
	workload := fs.String("workload", "", "prefix:n=N, the prefix sums of an N-step stream (required)")
	part := fs.String("participation", "single", "participation schema: single, epochs:k=K,b=B (k participations b steps apart), minsep:k=K,b=B (at most k, at least b apart)")
	family := fs.String("family", "", "dense (the certified optimum; minsep while its patterns number at most 2·10^6), toeplitz (banded Toeplitz, any n; its RMSE is at least sqrt(k·n/(2·bands)), so on long streams the sqrt baseline can be better) or blt (buffered linear Toeplitz, any n, O(buffers) per step); default dense for n <= 2048 and not minsep")
	buffers := fs.Int("buffers", 4, "buffers of the blt strategy (1..32)")
	bands := fs.Int("bands", 0, "bands of the Toeplitz strategy (default min(n, b, 64); b the schema's separation)")
	lossFlag := fs.String("loss", "total", "loss: total (total squared error / RMSE) or max (max variance; dense: single participation only, certified)")
	tol := fs.Float64("tol", 0, "relative duality gap of the dense optimum (default 1e-9 single, 1e-6 epochs)")
	out := fs.String("out", "", "write C (dense: the n×n lower-triangular factor) or the Toeplitz coefficients to FILE (CSV, or .npy)")
	relFile := fs.String("release", "", "release the prefix sums of the integer stream in FILE (one value per line or comma-separated)")
	eps := fs.Float64("eps", 0, "privacy eps > 0 for --release")
	delta := fs.Float64("delta", 0, "privacy delta in (0, 1) for --release")
	seed := fs.Int("seed", -1, "seed the release's randomness (experiments only; default crypto randomness)")
	force := fs.Bool("force", false, "allow dense work up to the machine's memory")
	asJSON := fs.Bool("json", false, "print JSON")
	progressFlag := fs.Bool("progress", false, "show progress on stderr even with --json")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	set := flagsGiven(fs)
	if !set["workload"] {
		return usagef("--workload is required (prefix:n=N)")
	}
	n, err := parsePrefix(*workload)
	if err != nil {
		return err
	}
	schema, err := stream.ParseSchema(*part)
	if err != nil {
		return usageError{err}
	}
	var loss stream.Loss
	switch *lossFlag {
	case "total":
	case "max":
		loss = stream.MaxVariance
	default:
		return usagef("--loss %q: want total or max", *lossFlag)
	}
	fam := *family
	if fam == "" {
		fam = "toeplitz"
		if n <= 2048 && (schema.Kind != stream.MinSep || schema.K == 1) && loss == stream.TotalSquared {
			fam = "dense"
		}
	}
	if fam != "dense" && fam != "toeplitz" && fam != "blt" {
		return usagef("--family %q: want dense, toeplitz or blt", fam)
	}
	if *buffers < 1 || *buffers > 32 {
		return usagef("--buffers %d: want 1..32", *buffers)
	}
	if fam == "dense" && loss == stream.MaxVariance && schema.Kind != stream.Single {
		return usagef("--loss max: the dense max-variance optimum is for single participation; use --family toeplitz or blt")
	}
	if set["bands"] && *bands < 1 {
		return usagef("--bands %d: want >= 1", *bands)
	}
	if !(*tol >= 0) || math.IsInf(*tol, 0) {
		return usagef("--tol %s: want a finite relative gap >= 0 (0: the default)", fmtFloat(*tol))
	}
	if !set["release"] {
		for _, f := range []string{"eps", "delta", "seed"} {
			if set[f] {
				return usagef("--%s applies to --release (the privacy of the released stream)", f)
			}
		}
	}
	if set["release"] {
		if err := checkEpsFlag("eps", *eps, set["eps"]); err != nil {
			return err
		}
		if !(*delta > 0 && *delta < 1) {
			return usagef("--delta %s: want a value in (0, 1) for --release", fmtFloat(*delta))
		}
	}
	nb := *bands
	if !set["bands"] {
		nb = min(n, 64)
		if schema.Kind != stream.Single && schema.K > 1 {
			nb = min(nb, schema.B)
		}
	}
	settings := budget(*force)
	res := streamOutput{Workload: *workload, N: n, Participation: schema.String(), Loss: loss.String()}
	start := time.Now()
	var strat mat.Matrix
	res.Strategy, err = busy(env, "stream", progressEnabled(*asJSON, *progressFlag), func(bar *progress) (streamStrategy, error) {
		settings.Progress = func(p optrun.Progress) {
			msg := fmt.Sprintf("%s, iteration %d: %.8g", strings.TrimPrefix(p.Stage.String(), "stream "), p.Iter, p.Value)
			if !math.IsNaN(p.Gap) && !math.IsInf(p.Gap, 0) {
				msg += fmt.Sprintf(" (gap %.2g)", p.Gap)
			}
			bar.Update(-1, msg)
		}
		var s streamStrategy
		var err error
		switch fam {
		case "dense":
			s, strat, err = runStreamDense(ctx, n, schema, loss, *tol, settings)
		case "blt":
			s, strat, err = runStreamBLT(ctx, n, *buffers, schema, loss, settings)
		default:
			s, strat, err = runStreamToeplitz(ctx, n, nb, schema, loss, settings)
		}
		return s, err
	})
	if err != nil {
		return tooLarge(err, "use --family toeplitz (banded, O(n·bands)) or --force")
	}
	res.TimeS = time.Since(start).Seconds()
	if fam == "dense" {
		bs := n
		if set["bands"] {
			bs = min(n, *bands)
		}
		if schema.Kind != stream.Single && schema.K > 1 {
			bs = min(bs, schema.B)
		}
		quiet := settings
		quiet.Progress = nil
		b, _, err := runStreamToeplitz(ctx, n, bs, schema, loss, quiet)
		if err != nil {
			return err
		}
		res.Banded = &b
	}
	reps, err := stream.Baselines(ctx, n, schema, nil)
	if err != nil {
		return err
	}
	for _, r := range reps {
		res.Baselines = append(res.Baselines, baselineOut(r))
	}
	if schema.Kind == stream.Single {
		b := stream.Bounds(n)
		res.Bounds = &b
	}
	if *out != "" {
		var m *mat.Dense
		if t, ok := strat.(*stream.Toeplitz); ok {
			m = mat.NewDense(1, len(t.Coef), append([]float64(nil), t.Coef...))
		} else {
			m = mat.DenseCopyOf(strat)
		}
		if err := writeMatrixPath(*out, m); err != nil {
			return err
		}
		res.Out = *out
	}
	if set["release"] {
		r, err := streamReleaseFile(ctx, *relFile, n, strat, schema, *eps, *delta, *seed)
		if err != nil {
			return err
		}
		res.Release = r
	}
	if *asJSON {
		return writeJSON(env.stdout, res)
	}
	printStream(env, res)
	return nil
}

// runStreamDense runs the certified dense optimum.
func runStreamDense(ctx context.Context, n int, s stream.Schema, loss stream.Loss, tol float64, settings optrun.Settings) (streamStrategy, mat.Matrix, error) {
	opt := &stream.DenseOptions{Settings: settings, RelGap: tol}
	var r *stream.DenseResult
	var err error
	if loss == stream.MaxVariance {
		r, err = stream.OptimizeDenseMax(ctx, n, opt)
	} else {
		r, err = stream.OptimizeDense(ctx, n, s, opt)
	}
	if err != nil {
		return streamStrategy{}, nil, err
	}
	return streamStrategy{
		Name: "dense", Sens2: r.Sens.Sens2, Vector2: r.Sens.Vector2, VectorExact: r.Sens.VectorExact, SensMethod: r.Sens.Method,
		Total: r.Errors.Total, RMSE: r.Errors.RMSE, Max: r.Errors.Max,
		Primal: numPtr(r.Primal), Dual: numPtr(r.Dual), RelGap: numPtr(r.RelGap), Iterations: r.Iterations,
		Recurrence: "w_t = (z_t - sum_{s<t} C[t,s] w_s) / C[t,t]; estimate_t = sum_{s<=t} (x_s + w_s)",
	}, r.C, nil
}

// runStreamToeplitz runs the banded Toeplitz optimisation.
func runStreamToeplitz(ctx context.Context, n, bands int, s stream.Schema, loss stream.Loss, settings optrun.Settings) (streamStrategy, mat.Matrix, error) {
	r, err := stream.OptimizeToeplitz(ctx, n, bands, s, &stream.ToeplitzOptions{Settings: settings, Loss: loss})
	if err != nil {
		return streamStrategy{}, nil, err
	}
	return streamStrategy{
		Name: fmt.Sprintf("toeplitz:bands=%d", len(r.C.Coef)), Sens2: r.Sens.Sens2, Vector2: r.Sens.Vector2, VectorExact: r.Sens.VectorExact, SensMethod: r.Sens.Method,
		Total: r.Errors.Total, RMSE: r.Errors.RMSE, Max: r.Errors.Max, Iterations: r.Iterations, Coef: r.C.Coef,
		Recurrence: fmt.Sprintf("w_t = (z_t - sum_{s=1}^{%d} c_s w_{t-s}) / c_0; estimate_t = sum_{s<=t} (x_s + w_s)", len(r.C.Coef)-1),
	}, r.C, nil
}

// runStreamBLT runs the BLT optimisation.
func runStreamBLT(ctx context.Context, n, buffers int, s stream.Schema, loss stream.Loss, settings optrun.Settings) (streamStrategy, mat.Matrix, error) {
	r, err := stream.OptimizeBLT(ctx, n, buffers, s, &stream.BLTOptions{Settings: settings, Loss: loss})
	if err != nil {
		return streamStrategy{}, nil, err
	}
	p, q := r.BLT.Recurrence()
	return streamStrategy{
		Name: fmt.Sprintf("blt:buffers=%d", buffers), Sens2: r.Sens.Sens2, Vector2: r.Sens.Vector2, VectorExact: r.Sens.VectorExact, SensMethod: r.Sens.Method,
		Total: r.Errors.Total, RMSE: r.Errors.RMSE, Max: r.Errors.Max, Iterations: r.Iterations,
		Coef:       r.C.Coef,
		BLT:        &bltOut{Scale: r.BLT.Scale, Alpha: r.BLT.Alpha, Lambda: r.BLT.Lambda, P: p, Q: q},
		Recurrence: "w_t = (sum_{s<=d} q_s z_{t-s}) / scale - sum_{s=1}^{d} p_s w_{t-s}; estimate_t = sum_{s<=t} (x_s + w_s)",
	}, r.C, nil
}

// streamReleaseFile releases the stream in path with strategy c.
func streamReleaseFile(ctx context.Context, path string, n int, c mat.Matrix, s stream.Schema, eps, delta float64, seed int) (*streamRelease, error) {
	// Bounded as --data is (64 bytes a value): /dev/zero or an endless
	// pipe stops at the limit instead of growing the buffer.
	data, err := readBounded(path, priorFileBytes(n))
	if err != nil {
		return nil, dataError{fmt.Errorf("--release: %w", err)}
	}
	fields := strings.FieldsFunc(string(data), func(r rune) bool { return r == ',' || r == '\n' || r == '\r' || r == ' ' || r == '\t' })
	if len(fields) > n {
		return nil, dataError{fmt.Errorf("--release %s: %d values, more than the n = %d steps", path, len(fields), n)}
	}
	var src mech.Source
	if seed >= 0 {
		src = mech.SeededSource(uint64(seed))
	}
	st, err := stream.NewStreamer(ctx, c, s, eps, delta, src)
	if err != nil {
		return nil, err
	}
	r := &streamRelease{Eps: eps, Delta: delta, Sigma: st.Sigma, Grid: st.Grid, Sens2: st.Sens2}
	for i, f := range fields {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, dataError{fmt.Errorf("--release %s: value %d = %q is not an integer", path, i+1, f)}
		}
		step, err := st.Next(v)
		if err != nil {
			return nil, err
		}
		r.Steps = append(r.Steps, step)
	}
	return r, nil
}

// printStream prints the human-readable report.
func printStream(env *runEnv, r streamOutput) {
	w := env.stdout
	fmt.Fprintf(w, "workload       %s  (participation %s, loss %s)\n", r.Workload, r.Participation, r.Loss)
	line := func(s streamStrategy) {
		fmt.Fprintf(w, "%-14s total %-12.6g rmse %-10.5g max %-10.5g sens² %.6g (%s", s.Name, s.Total, s.RMSE, s.Max, s.Sens2, s.SensMethod)
		if !s.VectorExact {
			fmt.Fprintf(w, "; vector contributions <= %.6g", s.Vector2)
		}
		fmt.Fprintln(w, ")")
	}
	line(r.Strategy)
	if r.Strategy.Dual != nil {
		fmt.Fprintf(w, "  certificate  dual %.10g, relative gap %.2g (%d iterations, %.2f s)\n", float64(*r.Strategy.Dual), float64(*r.Strategy.RelGap), r.Strategy.Iterations, r.TimeS)
	} else if r.Strategy.BLT != nil {
		fmt.Fprintf(w, "  %d iterations, %.2f s (no certificate: a local optimum of the BLT family)\n", r.Strategy.Iterations, r.TimeS)
	} else {
		fmt.Fprintf(w, "  %d iterations, %.2f s (no certificate: a local optimum of the banded family, whose RMSE is at least about √(k·n/(2·bands)))\n", r.Strategy.Iterations, r.TimeS)
	}
	if r.Banded != nil {
		line(*r.Banded)
	}
	for _, b := range r.Baselines {
		if b.Total == nil {
			fmt.Fprintf(w, "%-14s %s\n", b.Name, b.Note)
			continue
		}
		line(streamStrategy{Name: b.Name, Total: float64(*b.Total), RMSE: float64(*b.RMSE), Max: float64(*b.Max), Sens2: float64(*b.Sens2), Vector2: float64(*b.Vector2), VectorExact: b.VectorExact, SensMethod: b.Note})
	}
	if b := r.Bounds; b != nil {
		fmt.Fprintf(w, "bounds         total >= %.6g (nuclear²/n); max variance in [%.5g, %.5g], √ = ln(n)/π + O(1) = %.4g + O(1)\n", b.TotalLower, b.MaxLower, b.SqrtMax, b.LogOverPi)
	}
	if r.Out != "" {
		fmt.Fprintf(w, "wrote          %s\n", r.Out)
	}
	if rel := r.Release; rel != nil {
		fmt.Fprintf(w, "release        eps %s, delta %s: discrete Gaussian σ = %.6g on the grid %.3g\n", fmtFloat(rel.Eps), fmtFloat(rel.Delta), rel.Sigma, rel.Grid)
		for _, s := range rel.Steps {
			fmt.Fprintf(w, "  t=%-6d estimate %.6g\n", s.T, s.Estimate)
		}
	}
}

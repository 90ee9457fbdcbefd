package main

import (
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/optdp/optdp/mech/linear"
	"gonum.org/v1/gonum/mat"
)

const workloadSpecHelp = linear.WorkloadSpecHelp

const strategySpecHelp = linear.StrategySpecHelp

func matrixCommand() command {
	return command{
		name:    "matrix",
		summary: "exact error of the matrix mechanism for a workload of linear queries and a strategy",
		usage:   "--workload WSPEC --strategy SSPEC --eps E [--delta D [--calibration analytic|classic]] [--json]",
		examples: []string{
			"optdp matrix --workload allrange:n=256 --strategy hier:b=16,root=false --eps 1",
			"optdp matrix --workload range2d:n=256 --strategy wavelet --eps 1 --json",
			"optdp matrix --workload marginals:dims=2x2x2,k=2 --strategy identity --eps 1 --delta 1e-6",
			"optdp matrix --workload allrange:n=256 --strategy opt:restarts=2 --eps 1",
			"optdp matrix --workload census --strategy identity --eps 1",
		},
		run: runMatrix,
	}
}

// matrixFlags are the flags shared by matrix and answer.
type matrixFlags struct {
	workload, strategy *string
	eps                *float64
}

func addMatrixFlags(fs *flag.FlagSet) matrixFlags {
	return matrixFlags{
		workload: fs.String("workload", "", workloadSpecHelp),
		strategy: fs.String("strategy", "", strategySpecHelp),
		eps:      fs.Float64("eps", 0, "privacy parameter eps > 0 (required)"),
	}
}

// build parses the workload and strategy specs and checks eps.
func (mf matrixFlags) build(fs *flag.FlagSet) (linear.Workload, *linear.Strategy, error) {
	set := flagsGiven(fs)
	for _, name := range []string{"workload", "strategy", "eps"} {
		if !set[name] {
			return nil, nil, usagef("--%s is required", name)
		}
	}
	if err := checkEpsFlag("eps", *mf.eps, true); err != nil {
		return nil, nil, err
	}
	if d := fs.Lookup("delta"); d != nil {
		if v, err := strconv.ParseFloat(d.Value.String(), 64); err == nil {
			if err := checkDeltaFlag(fs, v); err != nil {
				return nil, nil, err
			}
		}
	}
	w, err := parseWorkload(*mf.workload)
	if err != nil {
		return nil, nil, specError(*mf.workload, err)
	}
	if s, err := linear.SplitSpec(*mf.strategy); err == nil && s.Kind == "opt" {
		a, err := optStrategy(s, fs, w, *mf.eps)
		if err != nil {
			return nil, nil, specError(*mf.strategy, err)
		}
		return w, a, nil
	}
	a, err := parseStrategy(*mf.strategy, w)
	if err != nil {
		return nil, nil, specError(*mf.strategy, err)
	}
	return w, a, nil
}

// maxWorkloadFileBytes bounds a JSON workload file (64 MiB).
const maxWorkloadFileBytes = linear.MaxWorkloadFileBytes

// readWorkloadFile reads a JSON workload file (linear.ParseWorkloadJSON);
// matrix files it names are read relative to its directory, as CSV or .npy.
func readWorkloadFile(path string) (linear.Workload, []linear.Attribute, error) {
	data, err := readBounded(path, maxWorkloadFileBytes) // a pipe stops at the limit too
	if err != nil {
		return nil, nil, fmt.Errorf("workload file: %w", err)
	}
	dir := filepath.Dir(path)
	load := func(p string) (*mat.Dense, error) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return readMatrixPath(p)
	}
	w, attrs, err := linear.ParseWorkloadJSON(data, load)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return w, attrs, nil
}

func readMatrixFile(path, what string) (*linear.Strategy, linear.Workload, error) {
	a, err := readMatrixPath(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s file: %w", what, err)
	}
	if what == "strategy" {
		s, err := linear.StrategyFromMatrix(a)
		if err != nil {
			return nil, nil, fmt.Errorf("strategy file %s: %w", path, err)
		}
		return s, nil, nil
	}
	w, err := linear.FromMatrix(a)
	if err != nil {
		return nil, nil, fmt.Errorf("workload file %s: %w", path, err)
	}
	return nil, w, nil
}

// parseWorkloadSpec builds the workload of a spec (linear.ParseWorkload),
// reading file:PATH as a JSON workload file or a CSV/.npy matrix.
func parseWorkloadSpec(spec string) (linear.Workload, error) {
	return linear.ParseWorkload(spec, func(path string) (linear.Workload, error) {
		if strings.EqualFold(filepath.Ext(path), ".json") {
			w, _, err := readWorkloadFile(path)
			return w, err
		}
		_, w, err := readMatrixFile(path, "workload")
		return w, err
	})
}

// parseStrategy builds the strategy named by spec for workload w
// (linear.ParseStrategy), reading file:PATH as a CSV/.npy matrix.
func parseStrategy(spec string, w linear.Workload) (*linear.Strategy, error) {
	return linear.ParseStrategy(spec, w, func(path string) (*linear.Strategy, error) {
		a, _, err := readMatrixFile(path, "strategy")
		return a, err
	})
}

// parseWorkload builds the workload named by spec (see workloadSpecHelp).
func parseWorkload(spec string) (linear.Workload, error) {
	w, _, err := parseWorkloadAttrs(spec)
	return w, err
}

// parseWorkloadAttrs builds the workload named by spec and names its
// attributes: those of a JSON workload file, the census's, or a0, a1, ...
// for the dimensions of linear.Shape (the columns of a records file, in
// order).
func parseWorkloadAttrs(spec string) (linear.Workload, []linear.Attribute, error) {
	if s, err := linear.SplitSpec(spec); err == nil && s.Kind == "file" && strings.EqualFold(filepath.Ext(s.Path), ".json") {
		return readWorkloadFile(s.Path)
	}
	w, err := parseWorkloadSpec(spec)
	if err != nil {
		return nil, nil, err
	}
	var attrs []linear.Attribute
	if s, err := linear.SplitSpec(spec); err == nil && strings.HasPrefix(s.Kind, "census") {
		for i, name := range linear.CensusSF1Attributes {
			attrs = append(attrs, linear.Attribute{Name: name, Size: linear.CensusSF1Dims[i]})
		}
		return w, attrs, nil
	}
	for i, n := range linear.Shape(w) {
		attrs = append(attrs, linear.Attribute{Name: fmt.Sprintf("a%d", i), Size: n})
	}
	return w, attrs, nil
}

// matrixResult is the JSON output of optdp matrix.
type matrixResult struct {
	Workload    string       `json:"workload"`
	Strategy    string       `json:"strategy"`
	M           int          `json:"m"`
	N           int          `json:"n"`
	P           int          `json:"p"`
	Eps         float64      `json:"eps"`
	Delta       float64      `json:"delta,omitempty"`
	Sensitivity float64      `json:"sensitivity"`
	Noise       linear.Noise `json:"noise"`
	Trace       float64      `json:"trace"`
	TSE         float64      `json:"tse"`
	RMSE        float64      `json:"rmse"`
	// TSEIdentity is the error of the identity strategy under the same
	// noise mechanism: Var(D=1)·tr(W^T W).
	TSEIdentity float64 `json:"tse_identity"`
	// Ratio is TSE / TSEIdentity; null when TSEIdentity is 0 (a workload
	// of all-zero queries, which every strategy answers without error).
	Ratio *float64 `json:"ratio_to_identity"`
}

func runMatrix(env *runEnv, args []string) error {
	fs := newFlags(env, "matrix")
	mf := addMatrixFlags(fs)
	delta := fs.Float64("delta", 0, "use (eps, delta)-DP Gaussian noise; delta in (0, 1)")
	calib := fs.String("calibration", "analytic", "Gaussian calibration: analytic (Balle–Wang, exact) or classic (the paper's sigma = D2 sqrt(2 ln(2/delta))/eps)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	w, a, err := mf.build(fs)
	if err != nil {
		return err
	}
	eps := *mf.eps
	gaussian := flagsGiven(fs)["delta"]
	var nz linear.Noise
	idVar := 2 / (eps * eps) // the identity strategy's noise variance
	if gaussian {
		var sig1 float64
		switch *calib {
		case "analytic":
			nz, err = linear.AnalyticGaussianNoise(a, eps, *delta)
			if err == nil {
				sig1, err = linear.AnalyticGaussianSigma(1, eps, *delta)
			}
		case "classic":
			nz, err = linear.GaussianNoise(a, eps, *delta)
			if err == nil {
				sig1, err = linear.ClassicGaussianSigma(1, eps, *delta)
			}
		default:
			return usagef("--calibration %q: want analytic or classic", *calib)
		}
		if err != nil {
			return fmt.Errorf("--delta: %w", err)
		}
		idVar = sig1 * sig1
	} else if nz, err = linear.LaplaceNoise(a, eps); err != nil {
		return fileSpecError(err, *mf.workload, *mf.strategy)
	}
	rep, err := linear.Evaluate(w, a, nz)
	if err != nil {
		return fileSpecError(err, *mf.workload, *mf.strategy)
	}
	res := matrixResult{Workload: rep.Workload, Strategy: rep.Strategy, M: rep.M, N: rep.N, P: rep.P,
		Eps: eps, Delta: nz.Delta, Sensitivity: nz.Sensitivity, Noise: nz, Trace: rep.Trace,
		TSE: rep.TSE, RMSE: rep.RMSE, TSEIdentity: idVar * w.Gram().Trace()}
	// A workload of all-zero queries has no error under any strategy:
	// TSE = TSEIdentity = 0 and the ratio 0/0 is undefined (null, "-"),
	// never NaN.
	if r := res.TSE / res.TSEIdentity; res.TSEIdentity > 0 && !math.IsNaN(r) && !math.IsInf(r, 0) {
		res.Ratio = &r
	}
	if *asJSON {
		return writeJSON(env.stdout, res)
	}
	out := env.stdout
	fmt.Fprintf(out, "workload     %s  (m = %d queries, n = %d counts)\n", res.Workload, res.M, res.N)
	fmt.Fprintf(out, "strategy     %s  (p = %d queries)\n", res.Strategy, res.P)
	if gaussian {
		fmt.Fprintf(out, "noise        gaussian (%s), eps = %g, delta = %g: D2 = %.6g, sigma = %.6g\n", *calib, eps, nz.Delta, nz.Sensitivity, nz.Scale)
	} else {
		fmt.Fprintf(out, "noise        laplace, eps = %g: D1 = %.6g, scale b = %.6g\n", eps, nz.Sensitivity, nz.Scale)
	}
	fmt.Fprintf(out, "trace        tr(W^T W (A^T A)^-1) = %.10g\n", res.Trace)
	fmt.Fprintf(out, "total error  TSE = %.10g   RMSE = %.6g per query\n", res.TSE, res.RMSE)
	ratio := "-"
	if res.Ratio != nil {
		ratio = fmt.Sprintf("%.4g", *res.Ratio)
	}
	fmt.Fprintf(out, "identity     TSE = %.10g   (this strategy: %s × identity)\n", res.TSEIdentity, ratio)
	return nil
}

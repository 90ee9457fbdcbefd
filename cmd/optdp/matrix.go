package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/optdp/optdp/mech/linear"
	"gonum.org/v1/gonum/mat"
)

const workloadSpecHelp = "workload: identity:n=N, total:n=N, allrange:n=N, prefix:n=N, width:n=N,k=K, " +
	"random:n=N,m=M,seed=S, range2d:n=N, marginals:dims=2x3x4,k=K (all K-way marginals, attributes of any sizes), " +
	"census (the 2010 Census SF1 Persons tables of the HDMM paper: 4151 queries over 2x2x64x17x115 cells), " +
	"file:PATH.json (a workload file: a weighted union of Kronecker products of per-attribute blocks, see linear.ParseWorkloadJSON), " +
	"file:PATH (an explicit matrix, CSV or .npy)"

const strategySpecHelp = "strategy: identity, hier:b=B[,root=false], wavelet, workload, eigen, file:PATH (CSV matrix), " +
	"opt[:restarts=R,seed=S] (optimised for the workload, eps and delta, as by optdp optimize; default restarts=1, seed=1); " +
	"identity, hier and wavelet are built per dimension of a multi-dimensional domain and combined by Kronecker product"

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
	if kind, params, _, err := splitSpec(*mf.strategy); err == nil && kind == "opt" {
		a, err := optStrategy(*mf.strategy, params, fs, w, *mf.eps)
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

// splitSpec splits "kind:k1=v1,k2=v2" into kind and parameters. For
// "file:PATH" the whole rest is the path.
func splitSpec(spec string) (kind string, params map[string]string, path string, err error) {
	kind, rest, _ := strings.Cut(spec, ":")
	kind = strings.ToLower(strings.TrimSpace(kind))
	params = map[string]string{}
	if kind == "file" {
		if rest == "" {
			return "", nil, "", fmt.Errorf("spec %q: file needs a path, e.g. file:W.csv", spec)
		}
		return kind, params, rest, nil
	}
	if rest == "" {
		return kind, params, "", nil
	}
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return "", nil, "", fmt.Errorf("spec %q: parameter %q is not key=value", spec, kv)
		}
		if _, dup := params[k]; dup {
			return "", nil, "", fmt.Errorf("spec %q: parameter %q given twice", spec, k)
		}
		params[k] = v
	}
	return kind, params, "", nil
}

// specParams reads integer parameters, requiring exactly the names given
// (optional ones may be missing, with default def).
type specParams struct {
	spec   string
	params map[string]string
	used   map[string]bool
}

func (p *specParams) int(name string, required bool, def int) (int, error) {
	p.used[name] = true
	v, ok := p.params[name]
	if !ok {
		if required {
			return 0, fmt.Errorf("spec %q: missing %s=...", p.spec, name)
		}
		return def, nil
	}
	i, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("spec %q: %s=%q is not an integer", p.spec, name, v)
	}
	return i, nil
}

func (p *specParams) done() error {
	for k := range p.params {
		if !p.used[k] {
			return fmt.Errorf("spec %q: unknown parameter %q", p.spec, k)
		}
	}
	return nil
}

// maxWorkloadFileBytes bounds a JSON workload file (64 MiB).
const maxWorkloadFileBytes = 64 << 20

// readWorkloadFile reads a JSON workload file (linear.ParseWorkloadJSON);
// matrix files it names are read relative to its directory, as CSV or .npy.
func readWorkloadFile(path string) (linear.Workload, []linear.Attribute, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("workload file: %w", err)
	}
	if st.Size() > maxWorkloadFileBytes {
		return nil, nil, fmt.Errorf("workload file %s has %d bytes, the limit is %d", path, st.Size(), maxWorkloadFileBytes)
	}
	data, err := os.ReadFile(path)
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
	if kind, _, path, err := splitSpec(spec); err == nil && kind == "file" && strings.EqualFold(filepath.Ext(path), ".json") {
		return readWorkloadFile(path)
	}
	w, err := parseWorkloadSpec(spec)
	if err != nil {
		return nil, nil, err
	}
	var attrs []linear.Attribute
	if kind, _, _, _ := splitSpec(spec); strings.HasPrefix(kind, "census") {
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

// parseWorkloadSpec builds the workload of a spec other than a JSON file.
func parseWorkloadSpec(spec string) (linear.Workload, error) {
	kind, params, path, err := splitSpec(spec)
	if err != nil {
		return nil, err
	}
	p := &specParams{spec: spec, params: params, used: map[string]bool{}}
	var w linear.Workload
	switch kind {
	case "file":
		if strings.EqualFold(filepath.Ext(path), ".json") {
			w, _, err = readWorkloadFile(path)
			return w, err
		}
		_, w, err = readMatrixFile(path, "workload")
		return w, err
	case "census", "census-sf1", "census-sf1-persons":
		if w, err = linear.CensusSF1Persons(); err != nil {
			return nil, fmt.Errorf("workload %q: %w", spec, err)
		}
	case "identity", "total", "allrange", "prefix", "range2d", "width", "random":
		n, err := p.int("n", true, 0)
		if err != nil {
			return nil, err
		}
		switch kind {
		case "identity":
			w, err = linear.Identity(n)
		case "total":
			w, err = linear.Total(n)
		case "allrange":
			w, err = linear.AllRange(n)
		case "prefix":
			w, err = linear.Prefix(n)
		case "range2d":
			w, err = linear.Range2D(n)
		case "width":
			var k int
			if k, err = p.int("k", true, 0); err == nil {
				w, err = linear.WidthRange(n, k)
			}
		case "random":
			var m, seed int
			if m, err = p.int("m", true, 0); err == nil {
				if seed, err = p.int("seed", false, 1); err == nil {
					w, err = linear.RandomRange(n, m, uint64(seed))
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("workload %q: %w", spec, err)
		}
	case "marginals":
		p.used["dims"] = true
		ds, ok := params["dims"]
		if !ok {
			return nil, fmt.Errorf("spec %q: missing dims=AxBx...", spec)
		}
		var dims []int
		for _, s := range strings.Split(ds, "x") {
			d, err := strconv.Atoi(s)
			if err != nil {
				return nil, fmt.Errorf("spec %q: dims=%q is not a list like 2x3x4", spec, ds)
			}
			dims = append(dims, d)
		}
		k, err := p.int("k", true, 0)
		if err != nil {
			return nil, err
		}
		if w, err = linear.Marginals(dims, k); err != nil {
			return nil, fmt.Errorf("workload %q: %w", spec, err)
		}
	default:
		return nil, fmt.Errorf("unknown workload %q; want %s", spec, workloadSpecHelp)
	}
	if err := p.done(); err != nil {
		return nil, err
	}
	return w, nil
}

// parseStrategy builds the strategy named by spec for workload w (see
// strategySpecHelp).
func parseStrategy(spec string, w linear.Workload) (*linear.Strategy, error) {
	kind, params, path, err := splitSpec(spec)
	if err != nil {
		return nil, err
	}
	p := &specParams{spec: spec, params: params, used: map[string]bool{}}
	var a *linear.Strategy
	switch kind {
	case "file":
		a, _, err = readMatrixFile(path, "strategy")
		return a, err
	case "opt":
		return nil, errors.New("strategy opt is optimised for eps (and delta): build it with matrixFlags.build or optStrategy")
	case "workload":
		a, err = linear.WorkloadStrategy(w)
	case "eigen":
		a, err = linear.Eigen(w)
	case "identity", "hier", "wavelet":
		b, root := 0, true
		if kind == "hier" {
			if b, err = p.int("b", false, 2); err != nil {
				return nil, err
			}
			p.used["root"] = true
			if r, ok := params["root"]; ok {
				if root, err = strconv.ParseBool(r); err != nil {
					return nil, fmt.Errorf("spec %q: root=%q is not true or false", spec, r)
				}
			}
		}
		var fs []*linear.Strategy
		for _, n := range linear.Shape(w) {
			var f *linear.Strategy
			switch kind {
			case "identity":
				f, err = linear.IdentityStrategy(n)
			case "hier":
				f, err = linear.Hierarchical(n, b, root)
			case "wavelet":
				f, err = linear.Wavelet(n)
			}
			if err != nil {
				return nil, fmt.Errorf("strategy %q: %w", spec, err)
			}
			fs = append(fs, f)
		}
		if len(fs) == 1 {
			a = fs[0]
		} else {
			a, err = linear.KronStrategy(fs...)
		}
	default:
		return nil, fmt.Errorf("unknown strategy %q; want %s", spec, strategySpecHelp)
	}
	if err != nil {
		return nil, fmt.Errorf("strategy %q: %w", spec, err)
	}
	if err := p.done(); err != nil {
		return nil, err
	}
	return a, nil
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
	// Ratio is TSE / TSEIdentity.
	Ratio float64 `json:"ratio_to_identity"`
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
		return err
	}
	rep, err := linear.Evaluate(w, a, nz)
	if err != nil {
		return err
	}
	res := matrixResult{Workload: rep.Workload, Strategy: rep.Strategy, M: rep.M, N: rep.N, P: rep.P,
		Eps: eps, Delta: nz.Delta, Sensitivity: nz.Sensitivity, Noise: nz, Trace: rep.Trace,
		TSE: rep.TSE, RMSE: rep.RMSE, TSEIdentity: idVar * w.Gram().Trace()}
	res.Ratio = res.TSE / res.TSEIdentity
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
	fmt.Fprintf(out, "identity     TSE = %.10g   (this strategy: %.4g × identity)\n", res.TSEIdentity, res.Ratio)
	return nil
}

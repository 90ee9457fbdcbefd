package main

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/linear"
)

// readStrategy reads a strategy CSV written by --out.
func readStrategy(t *testing.T, path string) *linear.Strategy {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := linear.ReadMatrix(f)
	if err != nil {
		t.Fatal(err)
	}
	s, err := linear.StrategyFromMatrix(a)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOptimizeCLIContract: the JSON fields are present; the strategy written
// by --out reads back to a strategy whose linear.TSE is the reported tse;
// rmse = sqrt(tse/m) with m = 32·33/2 = 528; the tse is below every reported
// baseline, and below H_4 without root recomputed by linear.TSE.
func TestOptimizeCLIContract(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.csv")
	v := matrixJSON(t, "optimize", "--workload", "allrange:n=32", "--eps", "1", "--out", out)
	for _, f := range []string{"tse", "rmse", "time_s", "iterations", "baselines", "method", "seed"} {
		if _, ok := v[f]; !ok {
			t.Errorf("JSON lacks %q", f)
		}
	}
	for _, f := range []string{"trace", "gap"} {
		if _, ok := v[f]; ok {
			t.Errorf("Laplace JSON has the L2 field %q", f)
		}
	}
	tse := v["tse"].(float64)
	if rmse := math.Sqrt(tse / 528); !relClose(v["rmse"].(float64), rmse, 1e-15) {
		t.Errorf("rmse %v, want sqrt(tse/528) = %v", v["rmse"], rmse)
	}
	w, _ := linear.AllRange(32)
	back, err := linear.TSE(w, readStrategy(t, out), 1)
	if err != nil || !relClose(back, tse, 1e-9) {
		t.Errorf("--out strategy has linear.TSE %v (%v), JSON tse %v", back, err, tse)
	}
	h, _ := linear.Hierarchical(32, 4, false)
	if ht, _ := linear.TSE(w, h, 1); tse > ht {
		t.Errorf("tse %v above H_4's %v", tse, ht)
	}
	bs := v["baselines"].([]any)
	if len(bs) < 3 {
		t.Fatalf("baselines %v", bs)
	}
	for _, b := range bs {
		m := b.(map[string]any)
		if m["name"] == "" || m["tse"].(float64) < tse {
			t.Errorf("baseline %v: empty name or better than the optimised tse %v", m, tse)
		}
	}
	// Deterministic with the default seed.
	if v2 := matrixJSON(t, "optimize", "--workload", "allrange:n=32", "--eps", "1"); v2["tse"] != v["tse"] {
		t.Errorf("second run tse %v, first %v", v2["tse"], v["tse"])
	}
}

// TestOptimizeCLIGaussian: with --delta the identity workload's trace is n
// (closed form) with a zero gap, and tse = σ² n for the analytic σ of
// sensitivity 1.
func TestOptimizeCLIGaussian(t *testing.T) {
	v := matrixJSON(t, "optimize", "--workload", "identity:n=16", "--eps", "1", "--delta", "1e-6")
	sig, _ := linear.AnalyticGaussianSigma(1, 1, 1e-6)
	csig, _ := linear.ClassicGaussianSigma(1, 1, 1e-6)
	if !relClose(v["trace"].(float64), 16, 1e-9) || v["gap"].(float64) > 1e-8 ||
		!relClose(v["tse"].(float64), sig*sig*16, 1e-9) || !relClose(v["tse_classic"].(float64), csig*csig*16, 1e-9) {
		t.Errorf("trace %v gap %v tse %v classic %v; want 16, 0, %v, %v", v["trace"], v["gap"], v["tse"], v["tse_classic"], sig*sig*16, csig*csig*16)
	}
}

// TestOptimizeCLIKronOut: a small Kronecker strategy is written densely; a
// large one (2-D ranges 64×64: p·n > 4Mi) as one file per factor, which
// read back and recombined give the reported tse.
func TestOptimizeCLIKronOut(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s.csv")
	v := matrixJSON(t, "optimize", "--workload", "range2d:n=8", "--eps", "1", "--out", out)
	w, _ := linear.Range2D(8)
	if back, err := linear.TSE(w, readStrategy(t, out), 1); err != nil || !relClose(back, v["tse"].(float64), 1e-9) {
		t.Errorf("dense 2-D strategy: linear.TSE %v (%v), tse %v", back, err, v["tse"])
	}

	out = filepath.Join(dir, "big.csv")
	v = matrixJSON(t, "optimize", "--workload", "range2d:n=64", "--eps", "1", "--out", out)
	files := v["out"].([]any)
	want := []string{filepath.Join(dir, "big.k1.csv"), filepath.Join(dir, "big.k2.csv")}
	if len(files) != 2 || files[0] != want[0] || files[1] != want[1] {
		t.Fatalf("out %v, want %v", files, want)
	}
	a, err := linear.KronStrategy(readStrategy(t, want[0]), readStrategy(t, want[1]))
	if err != nil {
		t.Fatal(err)
	}
	w, _ = linear.Range2D(64)
	if back, err := linear.TSE(w, a, 1); err != nil || !relClose(back, v["tse"].(float64), 1e-9) {
		t.Errorf("factor files: linear.TSE %v (%v), tse %v", back, err, v["tse"])
	}
	// Human output says what was written.
	code, text, _ := runMatrixCLI("optimize", "--workload", "range2d:n=64", "--eps", "1", "--out", out)
	if code != 0 || !strings.Contains(text, "factors") || !strings.Contains(text, want[1]) {
		t.Errorf("exit %d, text %q", code, text)
	}
}

// TestOptimizeCLIWriteLimit: a single dense strategy above the limit is
// refused with a clear error and nothing is written.
func TestOptimizeCLIWriteLimit(t *testing.T) {
	id, _ := linear.IdentityStrategy(2049) // 2049² > 4Mi entries
	path := filepath.Join(t.TempDir(), "x.csv")
	_, err := writeStrategy(path, id)
	if err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("error %v, want one about the size limit", err)
	}
	if _, serr := os.Stat(path); serr == nil {
		t.Errorf("%s was written", path)
	}
}

// TestOptimizeCLIErrors: bad inputs give clear errors (exit 1, or 2 for
// usage errors).
func TestOptimizeCLIErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--workload", "allrange:n=8", "--eps", "0"}, 2, "--eps"},
		{[]string{"--workload", "allrange:n=8", "--eps", "NaN"}, 2, "--eps"},
		{[]string{"--workload", "allrange:n=8", "--eps", "1", "--delta", "1"}, 2, "--delta"},
		{[]string{"--workload", "allrange:n=8", "--eps", "1", "--delta", "0"}, 2, "--delta"},
		{[]string{"--workload", "nosuch:n=8", "--eps", "1"}, 2, "unknown workload"},
		{[]string{"--workload", "allrange:n=8", "--eps", "1", "--restarts", "0"}, 2, "--restarts"},
		{[]string{"--eps", "1"}, 2, "--workload is required"},
		// Over the 4 GiB default (OptimizeBytes about 6.4 GiB at n = 4096,
		// eps-DP): refused before any work, naming --force.
		{[]string{"--workload", "allrange:n=4096", "--eps", "1"}, 1, "--force raises the budget"},
	}
	for _, c := range cases {
		code, _, errs := runMatrixCLI(append([]string{"optimize"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, errs, c.code, c.want)
		}
	}
}

// TestOptimizeCLICancel: a cancelled context (what Ctrl-C does) stops the
// command with an error wrapping context.Canceled.
func TestOptimizeCLICancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	err := runOptimizeCtx(ctx, &runEnv{stdout: &out, stderr: &errb}, []string{"--workload", "allrange:n=128", "--eps", "1"})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("error %v, want a cancellation", err)
	}
}

// TestMatrixOptStrategy: optdp matrix --strategy opt evaluates the
// optimised strategy: its Laplace tse is below H_4 without root (linear.TSE),
// and with --delta its trace is optdp optimize's trace (D2 = 1).
func TestMatrixOptStrategy(t *testing.T) {
	v := matrixJSON(t, "matrix", "--workload", "allrange:n=32", "--strategy", "opt:restarts=2,seed=3", "--eps", "1")
	w, _ := linear.AllRange(32)
	h, _ := linear.Hierarchical(32, 4, false)
	if ht, _ := linear.TSE(w, h, 1); v["tse"].(float64) > ht {
		t.Errorf("opt tse %v above H_4's %v", v["tse"], ht)
	}
	m := matrixJSON(t, "matrix", "--workload", "allrange:n=32", "--strategy", "opt", "--eps", "1", "--delta", "1e-6")
	o := matrixJSON(t, "optimize", "--workload", "allrange:n=32", "--eps", "1", "--delta", "1e-6")
	if !relClose(m["trace"].(float64), o["trace"].(float64), 1e-9) || !relClose(m["tse"].(float64), o["tse"].(float64), 1e-9) {
		t.Errorf("matrix opt trace %v tse %v, optimize trace %v tse %v", m["trace"], m["tse"], o["trace"], o["tse"])
	}
	code, _, errs := runMatrixCLI("matrix", "--workload", "allrange:n=8", "--strategy", "opt:bogus=1", "--eps", "1")
	if code == 0 || !strings.Contains(errs, "bogus") {
		t.Errorf("opt:bogus=1: exit %d, stderr %q", code, errs)
	}
}

func relClose(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Abs(b) }

// TestOptimizeCLIProductDomain: a JSON workload file (file:W.json, with a
// matrix file next to it) and the census built-in are accepted; the
// optimised tse is below every reported baseline and below the identity's
// (2/eps²)·tr(W^T W), which optdp matrix reports; with --delta a marginal
// workload gets the closed form with a tight certificate; a domain whose
// Gram matrix would not fit is refused with the estimate.
func TestOptimizeCLIProductDomain(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "groups.csv"), []byte("1,1,0,0\n0,0,1,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wf := filepath.Join(dir, "w.json")
	spec := `{"attributes": [{"name": "a", "size": 4}, {"name": "b", "size": 3}, {"name": "c", "size": 2}],
	  "workload": [{"blocks": {"a": {"matrix": "groups.csv"}, "b": "identity"}},
	               {"weight": 2, "blocks": {"a": "prefix", "c": "identity"}},
	               {"marginals": 2}]}`
	if err := os.WriteFile(wf, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, wl := range []string{"file:" + wf, "census"} {
		v := matrixJSON(t, "optimize", "--workload", wl, "--eps", "1")
		id := matrixJSON(t, "matrix", "--workload", wl, "--strategy", "identity", "--eps", "1")
		tse := v["tse"].(float64)
		if !(tse <= id["tse_identity"].(float64)) || !(tse <= id["tse"].(float64)*(1+1e-12)) {
			t.Errorf("%s: optimised tse %v above the identity's %v (%v)", wl, tse, id["tse_identity"], id["tse"])
		}
		for _, b := range v["baselines"].([]any) {
			if bt := b.(map[string]any)["tse"].(float64); tse > bt {
				t.Errorf("%s: tse %v above baseline %v", wl, tse, b)
			}
		}
	}
	g := matrixJSON(t, "optimize", "--workload", "marginals:dims=3x2x2,k=2", "--eps", "1", "--delta", "1e-6")
	if g["method"] != "l2-marginals" || g["rel_gap"].(float64) > 1e-12 {
		t.Errorf("marginals with --delta: method %v, relative gap %v", g["method"], g["rel_gap"])
	}
	code, _, errs := runMatrixCLI("optimize", "--workload", "allrange:n=100000", "--eps", "1")
	if code != 1 || !strings.Contains(errs, "74.5 GiB") || !strings.Contains(errs, "memory budget") {
		t.Errorf("allrange:n=100000: exit %d, stderr %q", code, errs)
	}
}

// TestOptimizeCLIMarginalWeights: on all 2-way marginals of 8 binary
// attributes optimize returns weighted marginals (method
// l1-marginal-weights) at or below HDMM's OPT_M, TSE 13,582.82, lists the
// losing Kronecker strategy among the baselines, and writes a strategy
// whose linear.TSE is the reported one.
func TestOptimizeCLIMarginalWeights(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.csv")
	v := matrixJSON(t, "optimize", "--workload", "marginals:dims=2x2x2x2x2x2x2x2,k=2", "--eps", "1", "--out", out)
	tse := v["tse"].(float64)
	if v["method"] != "l1-marginal-weights" || tse > 13582.82 {
		t.Errorf("method %v TSE %v, want l1-marginal-weights at or below 13,582.82", v["method"], tse)
	}
	found := false
	for _, b := range v["baselines"].([]any) {
		found = found || strings.HasPrefix(b.(map[string]any)["name"].(string), "l1-marginals ")
	}
	if !found {
		t.Error("the Kronecker strategy is not among the baselines")
	}
	w, _ := linear.Marginals([]int{2, 2, 2, 2, 2, 2, 2, 2}, 2)
	if back, err := linear.TSE(w, readStrategy(t, out), 1); err != nil || !relClose(back, tse, 1e-9) {
		t.Errorf("--out strategy has linear.TSE %v (%v), JSON tse %v", back, err, tse)
	}
}

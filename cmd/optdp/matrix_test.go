package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/linear"
)

// runMatrixCLI runs optdp with args and returns the exit code, stdout and
// stderr.
func runMatrixCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func matrixJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, errs := runMatrixCLI(append(args, "--json")...)
	if code != 0 {
		t.Fatalf("optdp %v: exit %d, stderr %s", args, code, errs)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("optdp %v: bad JSON %q: %v", args, out, err)
	}
	return v
}

// TestMatrixContract: the JSON has the contract fields and its values are the
// library's: identity on all ranges (n = 256, eps = 1) has TSE 5,658,112.
func TestMatrixContract(t *testing.T) {
	v := matrixJSON(t, "matrix", "--workload", "allrange:n=256", "--strategy", "identity", "--eps", "1")
	for _, f := range []string{"tse", "rmse", "m", "n", "sensitivity", "noise", "tse_identity", "trace", "workload", "strategy"} {
		if _, ok := v[f]; !ok {
			t.Errorf("JSON lacks field %q", f)
		}
	}
	if v["tse"] != 5658112.0 || v["m"] != 32896.0 || v["n"] != 256.0 || v["sensitivity"] != 1.0 {
		t.Errorf("tse %v, m %v, n %v, sensitivity %v; want 5658112, 32896, 256, 1", v["tse"], v["m"], v["n"], v["sensitivity"])
	}
	if rmse := math.Sqrt(5658112.0 / 32896); v["rmse"] != rmse {
		t.Errorf("rmse %v, want sqrt(TSE/m) = %v", v["rmse"], rmse)
	}

	// Other specs against the library.
	w, _ := linear.AllRange(64)
	h, _ := linear.Hierarchical(64, 4, false)
	want, _ := linear.TSE(w, h, 0.5)
	v = matrixJSON(t, "matrix", "--workload", "allrange:n=64", "--strategy", "hier:b=4,root=false", "--eps", "0.5")
	if v["tse"] != want {
		t.Errorf("hier:b=4,root=false: tse %v, library %v", v["tse"], want)
	}
	w2, _ := linear.Range2D(8)
	wv, _ := linear.Wavelet(8)
	k, _ := linear.KronStrategy(wv, wv)
	want, _ = linear.TSE(w2, k, 1)
	v = matrixJSON(t, "matrix", "--workload", "range2d:n=8", "--strategy", "wavelet", "--eps", "1")
	if v["tse"] != want || v["sensitivity"] != 16.0 {
		t.Errorf("range2d wavelet: tse %v (library %v), sensitivity %v (want 4·4)", v["tse"], want, v["sensitivity"])
	}
	// Gaussian: analytic sigma for D2 = 1 (identity), identity TSE = σ²·C(3,2)·8.
	v = matrixJSON(t, "matrix", "--workload", "marginals:dims=2x2x2,k=2", "--strategy", "identity", "--eps", "1", "--delta", "1e-6")
	sig, _ := linear.AnalyticGaussianSigma(1, 1, 1e-6)
	if nz := v["noise"].(map[string]any); nz["scale"] != sig || v["tse"] != sig*sig*24 {
		t.Errorf("gaussian: scale %v (want %v), tse %v (want %v)", nz["scale"], sig, v["tse"], sig*sig*24)
	}
	v = matrixJSON(t, "matrix", "--workload", "prefix:n=8", "--strategy", "hier:b=2", "--eps", "1", "--delta", "1e-6", "--calibration", "classic")
	if nz := v["noise"].(map[string]any); nz["scale"] != 2*math.Sqrt(2*math.Log(2e6)) {
		t.Errorf("classic gaussian scale %v, want D2·sqrt(2 ln(2/δ))/eps with D2 = 2", nz["scale"])
	}
	// Human-readable output.
	code, out, _ := runMatrixCLI("matrix", "--workload", "allrange:n=256", "--strategy", "identity", "--eps", "1")
	if code != 0 || !strings.Contains(out, "TSE = 5658112") {
		t.Errorf("human output (exit %d):\n%s", code, out)
	}
}

// TestMatrixFiles: file: specs read CSV matrices.
func TestMatrixFiles(t *testing.T) {
	dir := t.TempDir()
	wf := filepath.Join(dir, "w.csv")
	af := filepath.Join(dir, "a.csv")
	os.WriteFile(wf, []byte("1,1,0\n0,1,1\n1,1,1\n"), 0o644)
	os.WriteFile(af, []byte("1,0,0\n0,1,0\n0,0,1\n"), 0o644)
	v := matrixJSON(t, "matrix", "--workload", "file:"+wf, "--strategy", "file:"+af, "--eps", "2")
	// Identity strategy: (2/eps²)·||W||_F² = 0.5·7.
	if v["tse"] != 3.5 || v["m"] != 3.0 {
		t.Errorf("file workload: tse %v, m %v; want 3.5, 3", v["tse"], v["m"])
	}
}

func TestMatrixErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("1,2\n3\n"), 0o644)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--workload", "allrange:n=0", "--strategy", "identity", "--eps", "1"}, 2, "n = 0"},
		{[]string{"--workload", "allrange:n=x", "--strategy", "identity", "--eps", "1"}, 2, "not an integer"},
		{[]string{"--workload", "cube:n=4", "--strategy", "identity", "--eps", "1"}, 2, "unknown workload"},
		{[]string{"--workload", "allrange:n=4,q=1", "--strategy", "identity", "--eps", "1"}, 2, "unknown parameter"},
		{[]string{"--workload", "allrange:n=4", "--strategy", "magic", "--eps", "1"}, 2, "unknown strategy"},
		{[]string{"--workload", "allrange:n=4", "--strategy", "opt:restarts=0", "--eps", "1"}, 2, "restarts must be"},
		{[]string{"--workload", "allrange:n=6", "--strategy", "wavelet", "--eps", "1"}, 2, "power of 2"},
		{[]string{"--workload", "allrange:n=4", "--strategy", "identity", "--eps", "0"}, 2, "eps"},
		{[]string{"--workload", "allrange:n=4", "--strategy", "identity", "--eps", "NaN"}, 2, "eps"},
		{[]string{"--workload", "allrange:n=4", "--strategy", "identity"}, 2, "--eps is required"},
		{[]string{"--strategy", "identity", "--eps", "1"}, 2, "--workload is required"},
		{[]string{"--workload", "allrange:n=4", "--strategy", "identity", "--eps", "1", "--delta", "0"}, 2, "delta"},
		{[]string{"--workload", "allrange:n=4", "--strategy", "identity", "--eps", "1", "--delta", "1.5"}, 2, "delta"},
		{[]string{"--workload", "allrange:n=4", "--strategy", "identity", "--eps", "1", "--delta", "0.1", "--calibration", "x"}, 2, "calibration"},
		{[]string{"--workload", "file:" + filepath.Join(dir, "none.csv"), "--strategy", "identity", "--eps", "1"}, 1, "no such file"},
		{[]string{"--workload", "file:" + bad, "--strategy", "identity", "--eps", "1"}, 1, "line 2"},
		{[]string{"--workload", "marginals:dims=2xy,k=1", "--strategy", "identity", "--eps", "1"}, 2, "dims"},
		{[]string{"--workload", "prefix:n=20000", "--strategy", "identity", "--eps", "1"}, 1, "GiB"},
	}
	for _, c := range cases {
		code, _, errs := runMatrixCLI(append([]string{"matrix"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("matrix %v: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, errs, c.code, c.msg)
		}
		if strings.Contains(errs, "goroutine") {
			t.Errorf("matrix %v: stack trace", c.args)
		}
	}
}

func writeCounts(t *testing.T, x []float64) string {
	t.Helper()
	var b strings.Builder
	for _, v := range x {
		b.WriteString(strconv.FormatFloat(v, 'f', -1, 64) + "\n")
	}
	p := filepath.Join(t.TempDir(), "x.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAnswerMonteCarloCLI: over seeded runs of `optdp answer`, the mean total
// squared error matches the reported exact expected_tse within 5 standard
// errors, and the answers are unbiased in aggregate.
func TestAnswerMonteCarloCLI(t *testing.T) {
	x := []float64{4, 0, 9, 1, 1, 30, 2, 5}
	data := writeCounts(t, x)
	w, _ := linear.AllRange(8)
	truth, _ := w.MulVec(x)
	const runs = 300
	var sq []float64
	var expected float64
	for s := 1; s <= runs; s++ {
		code, out, errs := runMatrixCLI("answer", "--workload", "allrange:n=8", "--strategy", "hier:b=2",
			"--eps", "1", "--data", data, "--seed", strconv.Itoa(s), "--json")
		if code != 0 {
			t.Fatalf("answer: exit %d: %s", code, errs)
		}
		if s == 1 && !strings.Contains(errs, "warning") {
			t.Errorf("seeded answer printed no warning on stderr: %q", errs)
		}
		var v struct {
			Answers     []float64 `json:"answers"`
			ExpectedTSE float64   `json:"expected_tse"`
			Seeded      bool      `json:"seeded"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatal(err)
		}
		if len(v.Answers) != 36 || !v.Seeded {
			t.Fatalf("%d answers (want 36), seeded %v", len(v.Answers), v.Seeded)
		}
		e := 0.0
		for q, a := range v.Answers {
			e += (a - truth[q]) * (a - truth[q])
		}
		sq = append(sq, e)
		expected = v.ExpectedTSE
	}
	h, _ := linear.Hierarchical(8, 2, true)
	if want, _ := linear.TSE(w, h, 1); math.Abs(expected-want) > 1e-9*want {
		t.Errorf("expected_tse %v, library Laplace TSE %v", expected, want)
	}
	mean, v := 0.0, 0.0
	for _, e := range sq {
		mean += e
	}
	mean /= runs
	for _, e := range sq {
		v += (e - mean) * (e - mean)
	}
	se := math.Sqrt(v / (runs - 1) / runs)
	if math.Abs(mean-expected) > 5*se || se > 0.1*expected {
		t.Errorf("Monte Carlo TSE %.5g ± %.2g over %d runs, expected %.6g", mean, se, runs, expected)
	}
}

func TestAnswerCLI(t *testing.T) {
	data := writeCounts(t, []float64{5, 6, 7, 8})
	args := []string{"answer", "--workload", "prefix:n=4", "--strategy", "wavelet", "--eps", "1", "--data", data}
	code, out1, errs := runMatrixCLI(append(args, "--seed", "3")...)
	_, out2, _ := runMatrixCLI(append(args, "--seed", "3")...)
	if code != 0 || out1 != out2 {
		t.Errorf("same seed gave different output or failed (exit %d, %s)", code, errs)
	}
	// Two comment lines, a header, and one line per query: its index, the
	// answer, which reads back as the JSON answer of the same seed, and
	// its label (prefix:n=4's queries are the ranges [0, r]).
	lines := strings.Split(strings.TrimSpace(out1), "\n")
	js := matrixJSON(t, append(args, "--seed", "3")...)
	ans, _ := js["answers"].([]any)
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "#") || !strings.HasPrefix(lines[2], "# query") || len(ans) != 4 {
		t.Fatalf("human output: want 2 comment lines, a header and 4 answers, got\n%s", out1)
	}
	for k, l := range lines[3:] {
		f := strings.Fields(l)
		label := []string{"a0=0", "a0=0..1", "a0=0..2", "total"}[k]
		if len(f) != 3 || f[0] != fmt.Sprint(k) || f[1] != strconv.FormatFloat(ans[k].(float64), 'g', -1, 64) || f[2] != label {
			t.Errorf("answer line %d %q, want %d, %v and %s", k, l, k, ans[k], label)
		}
	}
	code, _, errs = runMatrixCLI(args...)
	if code != 0 || strings.Contains(errs, "warning") {
		t.Errorf("crypto answer: exit %d, stderr %q", code, errs)
	}
	// Gaussian: the noise is the discrete Gaussian with the library's σ.
	v := matrixJSON(t, append(args, "--delta", "1e-6", "--seed", "1")...)
	nz := v["noise"].(map[string]any)
	w, _ := linear.Prefix(4)
	a, _ := linear.Wavelet(4)
	rel, _ := linear.AnswerGaussian(w, a, []float64{5, 6, 7, 8}, 1, 1e-6, linear.SeededSource(1))
	if nz["mechanism"] != "discrete-gaussian" || nz["scale"] != rel.Noise.Scale || v["expected_tse"] != rel.Expected.TSE {
		t.Errorf("gaussian answer: noise %v, expected_tse %v; library %+v, %v", nz, v["expected_tse"], rel.Noise, rel.Expected.TSE)
	}
	short := writeCounts(t, []float64{1, 2, 3})
	frac := filepath.Join(t.TempDir(), "f.csv")
	os.WriteFile(frac, []byte("1, 2.5, 3, 4\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--workload", "prefix:n=4", "--strategy", "wavelet", "--eps", "1", "--data", short}, 1, "has 3 counts"},
		{[]string{"--workload", "prefix:n=4", "--strategy", "wavelet", "--eps", "1", "--data", frac}, 1, "not an integer"},
		{[]string{"--workload", "prefix:n=4", "--strategy", "wavelet", "--eps", "1"}, 2, "give one of --data, --records and --histogram"},
		{[]string{"--workload", "prefix:n=4", "--strategy", "wavelet", "--eps", "-1", "--data", data}, 2, "eps"},
		{[]string{"--workload", "prefix:n=4", "--strategy", "wavelet", "--eps", "1", "--delta", "2", "--data", data}, 2, "delta"},
		{[]string{"--workload", "prefix:n=4", "--strategy", "wavelet", "--eps", "1", "--data", data + ".none"}, 1, "no such file"},
	} {
		code, _, errs := runMatrixCLI(append([]string{"answer"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("answer %v: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, errs, c.code, c.msg)
		}
	}
}

// TestAnswerRecordsCLI: --records counts data records into the cells of the
// workload file's domain (3×2, columns by header name); the seeded answers
// equal linear.Answer on the histogram counted here.
func TestAnswerRecordsCLI(t *testing.T) {
	dir := t.TempDir()
	wf := filepath.Join(dir, "w.json")
	os.WriteFile(wf, []byte(`{"attributes": [{"name": "a", "size": 3}, {"name": "b", "size": 2}],
	  "workload": [{"marginals": 1}, {"blocks": {"a": "prefix", "b": "identity"}}]}`), 0o644)
	rf := filepath.Join(dir, "r.csv")
	os.WriteFile(rf, []byte("b,a\n1,0\n1,2\n0,2\n1,2\n"), 0o644)
	v := matrixJSON(t, "answer", "--workload", "file:"+wf, "--strategy", "identity", "--eps", "1", "--records", rf, "--seed", "5")
	x := []float64{0, 1, 0, 0, 1, 2} // cell a·2 + b: (0,1), (2,1), (2,0), (2,1)
	w, _, err := linear.ParseWorkloadJSON([]byte(`{"attributes": [{"name": "a", "size": 3}, {"name": "b", "size": 2}],
	  "workload": [{"marginals": 1}, {"blocks": {"a": "prefix", "b": "identity"}}]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	i3, _ := linear.IdentityStrategy(3)
	i2, _ := linear.IdentityStrategy(2)
	a, _ := linear.KronStrategy(i3, i2)
	rel, err := linear.Answer(w, a, x, 1, linear.SeededSource(5))
	if err != nil {
		t.Fatal(err)
	}
	got := v["answers"].([]any)
	if len(got) != len(rel.Answers) {
		t.Fatalf("%d answers, want %d", len(got), len(rel.Answers))
	}
	for i := range got {
		if got[i].(float64) != rel.Answers[i] {
			t.Fatalf("answer %d = %v, library %v", i, got[i], rel.Answers[i])
		}
	}
	code, _, errs := runMatrixCLI("answer", "--workload", "file:"+wf, "--strategy", "identity", "--eps", "1", "--records", rf, "--data", rf)
	if code != 2 || !strings.Contains(errs, "one of --data, --records and --histogram") {
		t.Errorf("both --data and --records: exit %d, stderr %q", code, errs)
	}
}

// TestMatrixZeroWorkloadNoNaN: a workload of all-zero queries has no error
// under any strategy; the ratio to identity (0/0) is null in JSON and a dash
// in text, never NaN (which failed the JSON encoder).
func TestMatrixZeroWorkloadNoNaN(t *testing.T) {
	p := filepath.Join(t.TempDir(), "w.csv")
	if err := os.WriteFile(p, []byte("0,0,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"matrix", "--workload", "file:" + p, "--strategy", "identity", "--eps", "1", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var doc map[string]any
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if v, ok := doc["ratio_to_identity"]; !ok || v != nil {
		t.Errorf("ratio_to_identity = %v, want null", v)
	}
	out.Reset()
	if code := run([]string{"matrix", "--workload", "file:" + p, "--strategy", "identity", "--eps", "1"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if s := out.String(); strings.Contains(s, "NaN") || !strings.Contains(s, "- × identity") {
		t.Errorf("text output:\n%s", s)
	}
}

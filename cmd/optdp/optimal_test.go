package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/optimal"
)

func runOptimalCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(append([]string{"optimal"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// TestOptimalContract: the JSON carries the contract fields, and on the
// line 0..4 with eps = ln 2 and the uniform prior the utility is the
// truncated geometric mechanism's (alpha = 1/2): (2·(2/3) + 3·(1/3))/5 = 7/15.
// A prior file and --out are read and written.
func TestOptimalContract(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "mech.csv")
	code, stdout, stderr := runOptimalCLI("--metric", "line:n=5", "--eps", strconv.FormatFloat(math.Ln2, 'g', -1, 64),
		"--prior", "uniform", "--out", out, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("bad JSON %q: %v", stdout, err)
	}
	for _, f := range []string{"utility", "gap", "audit_eps", "time_s", "primal", "dual", "iterations"} {
		if _, ok := v[f]; !ok {
			t.Errorf("JSON lacks %q", f)
		}
	}
	if u := v["utility"].(float64); math.Abs(u-7.0/15) > 1e-8 {
		t.Errorf("utility %v, want 7/15", u)
	}
	if g := v["gap"].(float64); !(g >= -1e-15 && g <= 1e-8) {
		t.Errorf("gap %v", g)
	}
	if a := v["audit_eps"].(float64); !(a <= math.Ln2) {
		t.Errorf("audit eps %v > ln 2", a)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(rows) != 5 {
		t.Fatalf("--out has %d rows, want 5", len(rows))
	}
	for i, r := range rows {
		var s float64
		for _, f := range strings.Split(r, ",") {
			x, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatal(err)
			}
			s += x
		}
		if math.Abs(s-1) > 1e-12 {
			t.Errorf("row %d sums to %v", i, s)
		}
	}

	// A peaked (not regular) prior from a file: answer 0 with 0.96. For every
	// output of the geometric mechanism pi_0 G[0][o] beats the true answer's
	// 0.01 G[o][o] (e.g. o = 4: 0.96/24 > 0.01·2/3), so the best remap always
	// guesses 0 and the optimum is max pi = 0.96: no mechanism beats guessing.
	prior := filepath.Join(dir, "prior.txt")
	if err := os.WriteFile(prior, []byte("0.96, 0.01\n0.01 0.01 0.01\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runOptimalCLI("--metric", "line:n=5", "--eps", strconv.FormatFloat(math.Ln2, 'g', -1, 64),
		"--prior", "file:"+prior, "--json")
	if code != 0 {
		t.Fatalf("prior file: exit %d: %s", code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatal(err)
	}
	want := 0.96
	if u := v["utility"].(float64); math.Abs(u-want) > 1e-8 {
		t.Errorf("prior file: utility %v, want %v", u, want)
	}
}

// TestOptimalCLIErrors: usage errors exit 2, bad input exits 1, with a message.
func TestOptimalCLIErrors(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short.txt")
	os.WriteFile(short, []byte("0.5 0.5"), 0o644)
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("0.5 x 0 0 0.5"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--eps", "1", "--prior", "uniform"}, 2, "--metric is required"},
		{[]string{"--metric", "line:n=5", "--prior", "uniform"}, 2, "--eps is required"},
		{[]string{"--metric", "line:n=5", "--eps", "1"}, 2, "--prior is required"},
		{[]string{"--metric", "line:n=5", "--eps", "1", "--prior", "uniform", "--gain", "hamming"}, 2, "--gain"},
		{[]string{"--metric", "line:n=5", "--eps", "1", "--prior", "uniform", "--tol", "0"}, 2, "--tol"},
		{[]string{"--metric", "lines:n=5", "--eps", "1", "--prior", "uniform"}, 2, "unknown kind"},
		{[]string{"--metric", "line:n=5", "--eps", "-1", "--prior", "uniform"}, 2, "--eps -1"},
		{[]string{"--metric", "line:n=5", "--eps", "1", "--prior", "peaked"}, 2, "want uniform, file:PATH"},
		{[]string{"--metric", "line:n=5", "--eps", "1", "--prior", "product:0.5,0.5"}, 2, "optimal takes uniform, file:PATH, counts:FILE, points:FILE or raster:FILE"},
		{[]string{"--metric", "line:n=5", "--eps", "1", "--prior", "file:" + short}, 1, "holds 2 probabilities, want 5"},
		{[]string{"--metric", "line:n=5", "--eps", "1", "--prior", "file:" + bad}, 1, `"x" is not a number`},
		{[]string{"--metric", "line:n=5", "--eps", "1", "--prior", "file:" + filepath.Join(dir, "none")}, 1, "no such file"},
	} {
		code, _, stderr := runOptimalCLI(c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, stderr, c.code, c.msg)
		}
	}
	// A prior that does not sum to 1 is refused by the library.
	off := filepath.Join(dir, "off.txt")
	os.WriteFile(off, []byte("0.5 0.5 0.5 0 0"), 0o644)
	if code, _, stderr := runOptimalCLI("--metric", "line:n=5", "--eps", "1", "--prior", "file:"+off); code != 1 || !strings.Contains(stderr, "sums to 1.5, not 1") {
		t.Errorf("prior summing to 1.5: exit %d, %q", code, stderr)
	}
}

// TestOptimalNotConverged: a tolerance beyond double precision cannot be
// met; the certified result is still printed, and the command fails.
func TestOptimalNotConverged(t *testing.T) {
	code, stdout, stderr := runOptimalCLI("--metric", "line:n=8", "--eps", "1", "--prior", "uniform", "--tol", "1e-17", "--json")
	if code != 1 || !strings.Contains(stderr, "did not converge") || !strings.Contains(stderr, "tolerance 1e-17") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("bad JSON %q: %v", stdout, err)
	}
	if g := v["gap"].(float64); !(g < 1e-8) {
		t.Errorf("gap %v", g)
	}
}

// TestOptimalMethodsCLI: on a 3×3 Euclidean grid with the distance gain,
// --method generate reaches the exact optimum within the gaps, --method
// spanner is exactly private with a bound no lower than the optimum, a
// loss file holding d(i,k) gives the distance gain's utility, and a gain
// file holding -d(i,k) the same.
func TestOptimalMethodsCLI(t *testing.T) {
	dir := t.TempDir()
	grid := "grid:w=3,h=3,step=1"
	n := 9
	var lossCSV, gainCSV strings.Builder
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			d := math.Hypot(float64(i%3-k%3), float64(i/3-k/3))
			sep := ","
			if k == n-1 {
				sep = "\n"
			}
			lossCSV.WriteString(strconv.FormatFloat(d, 'g', -1, 64) + sep)
			gainCSV.WriteString(strconv.FormatFloat(-d, 'g', -1, 64) + sep)
		}
	}
	lossFile, gainFile := filepath.Join(dir, "L.csv"), filepath.Join(dir, "G.csv")
	os.WriteFile(lossFile, []byte(lossCSV.String()), 0o644)
	os.WriteFile(gainFile, []byte(gainCSV.String()), 0o644)
	get := func(args ...string) map[string]any {
		t.Helper()
		code, stdout, stderr := runOptimalCLI(append([]string{"--metric", grid, "--eps", "0.7", "--prior", "uniform", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(stdout), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	ex := get("--gain", "distance")
	gen := get("--gain", "distance", "--method", "generate")
	sp := get("--gain", "distance", "--method", "spanner", "--delta", "1.5")
	spDefault := get("--gain", "distance", "--method", "spanner")
	loss := get("--loss", "file:"+lossFile)
	gain := get("--gain", "file:"+gainFile)
	f := func(v map[string]any, k string) float64 { return v[k].(float64) }
	if f(gen, "primal") > f(ex, "dual") || f(ex, "primal") > f(gen, "dual") || gen["method"] != "generate" || f(gen, "rounds") < 1 {
		t.Errorf("generate %v vs exact %v", gen, ex)
	}
	if f(sp, "primal") > f(ex, "dual") || f(sp, "dual") < f(ex, "primal") || !(f(sp, "audit_eps") <= 0.7) || f(sp, "delta") != 1.5 {
		t.Errorf("spanner %v vs exact %v", sp, ex)
	}
	// Without --delta the library's default stretch, 1.2.
	if f(spDefault, "delta") != 1.2 || f(spDefault, "primal") > f(ex, "dual") {
		t.Errorf("spanner without --delta: %v", spDefault)
	}
	for _, v := range []map[string]any{loss, gain} {
		if math.Abs(f(v, "utility")-f(ex, "utility")) > 1e-7*math.Abs(f(ex, "utility")) {
			t.Errorf("%s: utility %v, distance gain %v", v["gain"], f(v, "utility"), f(ex, "utility"))
		}
	}
	small := filepath.Join(dir, "S.csv")
	os.WriteFile(small, []byte("1,0\n0,1\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--gain", "distance", "--loss", "file:" + lossFile}, 2, "exclude each other"},
		{[]string{"--loss", "distance"}, 2, "want file:PATH"},
		{[]string{"--method", "simplex"}, 2, "--method"},
		{[]string{"--method", "spanner", "--delta", "0.5"}, 2, "--delta 0.5"},
		{[]string{"--method", "exact", "--delta", "1.5"}, 2, "--delta applies to --method spanner"},
		{[]string{"--gain", "file:" + small}, 1, "matrix is 2×2, want 9×9"},
		{[]string{"--loss", "file:" + filepath.Join(dir, "none.csv")}, 1, "no such file"},
	} {
		code, _, stderr := runOptimalCLI(append([]string{"--metric", grid, "--eps", "0.7", "--prior", "uniform"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, stderr, c.code, c.msg)
		}
	}
}

// TestTooLargeHint: the advice after a refusal for memory names only what
// was not tried: the spanner after the exact LP or generation, a wider
// --delta after a narrower spanner, nothing but --force after auto (which
// tries the 1.2-, 1.5- and 2-spanners itself) or the 2-spanner.
func TestTooLargeHint(t *testing.T) {
	for _, c := range []struct {
		method      optimal.Method
		delta       float64
		spanner, dl bool
	}{
		{optimal.MethodExact, 0, true, true},
		{optimal.MethodGenerate, 0, true, true},
		{optimal.MethodSpanner, 0, false, true},
		{optimal.MethodSpanner, 1.5, false, true},
		{optimal.MethodSpanner, 2, false, false},
		{"", 0, false, false},
		{optimal.MethodAuto, 1.2, false, true},
	} {
		h := tooLargeHint(c.method, c.delta)
		if !strings.HasPrefix(h, "--force") || strings.Contains(h, "--method spanner") != c.spanner || strings.Contains(h, "--delta") != c.dl {
			t.Errorf("method %q delta %v: hint %q", c.method, c.delta, h)
		}
	}
}

package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/metric"

	"github.com/optdp/optdp/mech"
	"gonum.org/v1/gonum/mat"
)

// ln2 is the papers' eps = ln 2, written out for the command line.
var ln2 = fmt.Sprint(math.Ln2)

// cli runs optdp in-process and returns the exit code, stdout and stderr.
func cli(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// cliJSON runs optdp with --json, fails the test on a non-zero exit and
// decodes the output.
func cliJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, errs := cli(append(args, "--json")...)
	if code != 0 {
		t.Fatalf("optdp %s: exit %d, stderr %q", strings.Join(args, " "), code, errs)
	}
	if errs != "" {
		t.Errorf("optdp %s --json: stderr not quiet: %q", strings.Join(args, " "), errs)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("optdp %s: output is not JSON: %v\n%s", strings.Join(args, " "), err, out)
	}
	return v
}

// float is v[key] as a number, failing the test otherwise.
func float(t *testing.T, v map[string]any, key string) float64 {
	t.Helper()
	f, ok := v[key].(float64)
	if !ok {
		t.Fatalf("field %q = %#v, want a number (in %v)", key, v[key], v)
	}
	return f
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

func TestTightCLI(t *testing.T) {
	// Line(6) at eps = ln 2 is the truncated geometric mechanism: a = 1/2,
	// z_end = 1/(1+a) = 2/3, z_mid = (1-a)/(1+a) = 1/3, utility
	// (2·2/3 + 4·1/3)/6 = 4/9 (the papers' 5-voter counting query).
	v := cliJSON(t, "tight", "--metric", "line:n=6", "--eps", ln2)
	if v["exists"] != true || v["unique"] != true {
		t.Errorf("line: exists %v unique %v, want true true", v["exists"], v["unique"])
	}
	if u := float(t, v, "utility"); !near(u, 4.0/9, 1e-12) {
		t.Errorf("line: utility %v, want 4/9", u)
	}
	// z_err is a bound on the error of each z_k: it must cover the
	// distance from the computed min z to the exact 1/3, and be positive.
	if z, ze := float(t, v, "min_z"), float(t, v, "z_err"); !(ze > 0) || math.Abs(z-1.0/3) > ze || ze > 1e-12 {
		t.Errorf("line: min_z %v, z_err %v: want z_err > 0 bounding |min_z - 1/3| = %v", z, ze, math.Abs(z-1.0/3))
	}
	if a := float(t, v, "audit_eps"); a > math.Ln2*(1+1e-9) {
		t.Errorf("line: audit_eps %v > ln 2", a)
	}
	for _, k := range []string{"n", "eps", "solver", "backend", "z_err", "rcond", "time_s"} {
		if _, ok := v[k]; !ok {
			t.Errorf("line: field %q missing", k)
		}
	}
	// Clique(6) at ln 2: z = 1/(1 + 5·e^-eps) = 1/(1+5/2) = 2/7 (6 cities).
	v = cliJSON(t, "tight", "--metric", "clique:n=6", "--eps", ln2)
	if u := float(t, v, "utility"); !near(u, 2.0/7, 1e-12) {
		t.Errorf("clique: utility %v, want 2/7", u)
	}
	// The dense solver gives the same answer on the line.
	v = cliJSON(t, "tight", "--metric", "line:n=6", "--eps", ln2, "--solver", "dense")
	if u := float(t, v, "utility"); !near(u, 4.0/9, 1e-12) || !strings.HasPrefix(v["solver"].(string), "dense") {
		t.Errorf("line dense: utility %v solver %v, want 4/9 dense-*", u, v["solver"])
	}
	// Human-readable output.
	code, out, _ := cli("tight", "--metric", "line:n=6", "--eps", ln2)
	if code != 0 || !strings.Contains(out, "exists       yes") || !strings.Contains(out, "0.444444444444") {
		t.Errorf("text output (exit %d):\n%s", code, out)
	}
}

// TestTightSingularCube is the 3-cube with antipodal edges at e^-eps = 1/3.
// The graph is K_{4,4} (every edge flips the parity of x), so each vertex
// has 4 vertices at distance 1 and the 3 others of its side at distance 2:
// Phi = [[I + (J-I)/9, J/3], [J/3, I + (J-I)/9]], and on the vector +1 on
// one side, -1 on the other, Phi has eigenvalue 1 + 3/9 - 4/3 = 0: Phi is
// singular. The constant z = 1/(1 + 4/3 + 3/9) = 3/8 solves Phi z = 1, so
// the mechanism exists but is not unique.
func TestTightSingularCube(t *testing.T) {
	var b strings.Builder
	for x := 0; x < 8; x++ {
		for _, y := range []int{x ^ 1, x ^ 2, x ^ 4, x ^ 7} {
			if x < y {
				fmt.Fprintf(&b, "%d %d\n", x, y)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "cube.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	v := cliJSON(t, "tight", "--metric", "graph:file="+path, "--eps", fmt.Sprint(math.Log(3)))
	if v["exists"] != true || v["unique"] != false {
		t.Errorf("cube: exists %v unique %v, want true false (%v)", v["exists"], v["unique"], v)
	}
	if z, ze := float(t, v, "min_z"), float(t, v, "z_err"); !(ze > 0) || math.Abs(z-3.0/8) > ze || ze > 1e-12 {
		t.Errorf("cube: min_z %v, z_err %v: want z_err > 0 bounding |min_z - 3/8| = %v", z, ze, math.Abs(z-3.0/8))
	}
	if u := float(t, v, "utility"); !near(u, 3.0/8, 1e-12) {
		t.Errorf("cube: utility %v, want 3/8", u)
	}
	// The dense solver must detect the singularity itself and settle
	// existence by the feasibility test; a JSON z_err of +Inf is the string
	// "+Inf" (JSON has no infinity).
	v = cliJSON(t, "tight", "--metric", "graph:file="+path, "--eps", fmt.Sprint(math.Log(3)), "--solver", "dense")
	if v["exists"] != true || v["unique"] != false {
		t.Errorf("cube dense: exists %v unique %v, want true false (%v)", v["exists"], v["unique"], v)
	}
	// (z is not unique, so no bound on z_k holds: exactly "+Inf"; min z of
	// the feasible z found must still be >= 0.)
	if ze := v["z_err"]; ze != "+Inf" {
		t.Errorf("cube dense: z_err %#v, want \"+Inf\"", ze)
	}
	if z := float(t, v, "min_z"); z < 0 {
		t.Errorf("cube dense: min_z %v < 0 but exists", z)
	}
}

func TestThresholdCLI(t *testing.T) {
	// sum:u=2,v=2: answers 0..4, d = ceil(|i-j|/2). The threshold is
	// ln((1+sqrt 5)/2), the log of the golden ratio.
	want := math.Log((1 + math.Sqrt(5)) / 2)
	v := cliJSON(t, "threshold", "--metric", "sum:u=2,v=2")
	if e := float(t, v, "eps_star"); math.Abs(e-want) > 1e-6 {
		t.Errorf("eps_star %v, want ln(golden ratio) = %v", e, want)
	}
	if v["status"] != "bracketed" || v["bracketed"] != true {
		t.Errorf("status %v bracketed %v", v["status"], v["bracketed"])
	}
	if float(t, v, "evaluations") < 1 {
		t.Errorf("evaluations %v", v["evaluations"])
	}
	cs, _ := v["crossings"].([]any)
	if len(cs) != 1 || cs[0].(map[string]any)["up"] != true || float(t, cs[0].(map[string]any), "hi") != float(t, v, "eps_star") {
		t.Errorf("crossings %v, want one upward crossing ending at eps_star", v["crossings"])
	}
	// The mechanism exists at eps* and not just below (tight checks).
	e := float(t, v, "eps_star")
	if w := cliJSON(t, "tight", "--metric", "sum:u=2,v=2", "--eps", fmt.Sprint(e+1e-6)); w["exists"] != true {
		t.Errorf("tight at eps*+1e-6: exists %v", w["exists"])
	}
	if w := cliJSON(t, "tight", "--metric", "sum:u=2,v=2", "--eps", fmt.Sprint(want-1e-4)); w["exists"] != false {
		t.Errorf("tight just below ln φ: exists %v", w["exists"])
	}
	// A line's mechanism exists for every eps: no search.
	v = cliJSON(t, "threshold", "--metric", "line:n=10")
	if float(t, v, "eps_star") != 0 || v["status"] != "exists-for-all-eps" {
		t.Errorf("line threshold: %v", v)
	}
	if code, _, _ := cli("threshold", "--metric", "sum:u=2,v=2", "--lo", "2", "--hi", "1"); code != 2 {
		t.Errorf("--lo > --hi: exit %d, want 2", code)
	}
}

func TestRegularCLI(t *testing.T) {
	tight := cliJSON(t, "tight", "--metric", "line:n=6", "--eps", ln2)
	v := cliJSON(t, "regular", "--metric", "line:n=6", "--eps", ln2, "--prior", "uniform")
	if v["regular"] != true {
		t.Fatalf("uniform on line: regular %v", v["regular"])
	}
	// For the uniform prior y = z/n, so sum y is the tight utility, 4/9.
	ub := float(t, v, "utility_bound")
	if !near(ub, float(t, tight, "utility"), 1e-12) || !near(ub, 4.0/9, 1e-12) {
		t.Errorf("utility_bound %v, want the tight utility 4/9", ub)
	}
	// Leakage bound log2(sum y / max pi) = log2((4/9)·6) = log2(8/3).
	if l := float(t, v, "leakage_bound_bits"); !near(l, math.Log2(8.0/3), 1e-12) {
		t.Errorf("leakage_bound_bits %v, want log2(8/3)", l)
	}
}

// TestRegularProductCLI is the papers' database example: 5 individuals,
// values with probabilities 0.3/0.27/0.23/0.2. On one individual (clique
// K_4, a = e^-eps) y1 (1-a) + a·sum(y1) = p, sum(y1) = 1/(1+3a), so
// y1_j = (p_j - a/(1+3a))/(1-a) >= 0 iff min p = 0.2 >= a/(1+3a), i.e.
// a <= 1/2: eps >= ln 2. sum y = (1+3a)^-u.
func TestRegularProductCLI(t *testing.T) {
	p := "product:0.3,0.27,0.23,0.2"
	for _, c := range []struct {
		eps  float64
		want bool
	}{{1, true}, {0.5, false}, {math.Ln2 + 1e-6, true}, {math.Ln2 - 1e-6, false}} {
		v := cliJSON(t, "regular", "--metric", "hamming:u=5,v=4", "--eps", fmt.Sprint(c.eps), "--prior", p)
		if v["regular"] != c.want {
			t.Errorf("eps %v: regular %v, want %v", c.eps, v["regular"], c.want)
		}
		a := math.Exp(-c.eps)
		if s := float(t, v, "sum_y"); !near(s, math.Pow(1+3*a, -5), 1e-12) {
			t.Errorf("eps %v: sum_y %v, want (1+3a)^-5 = %v", c.eps, s, math.Pow(1+3*a, -5))
		}
		if l := float(t, v, "leakage_bound_bits"); !near(l, 5*math.Log2(1/(1+3*a)/0.3), 1e-12) {
			t.Errorf("eps %v: leakage_bound_bits %v", c.eps, l)
		}
	}
	// The same prior written out over all 4^5 = 1024 databases and solved
	// densely agrees.
	var b strings.Builder
	probs := []float64{0.3, 0.27, 0.23, 0.2}
	for x := 0; x < 1024; x++ {
		q := 1.0
		for k, y := 0, x; k < 5; k, y = k+1, y/4 {
			q *= probs[y%4]
		}
		fmt.Fprintf(&b, "%.17g\n", q)
	}
	path := filepath.Join(t.TempDir(), "prior.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	v := cliJSON(t, "regular", "--metric", "hamming:u=5,v=4", "--eps", "1", "--prior", "file:"+path)
	if v["regular"] != true || !near(float(t, v, "sum_y"), math.Pow(1+3/math.E, -5), 1e-10) {
		t.Errorf("dense over 1024 databases: regular %v sum_y %v", v["regular"], v["sum_y"])
	}
	// 4^20 databases: only the Kronecker structure makes this possible.
	v = cliJSON(t, "regular", "--metric", "hamming:u=20,v=4", "--eps", "1", "--prior", p)
	if v["regular"] != true || !near(float(t, v, "sum_y"), math.Pow(1+3/math.E, -20), 1e-11) {
		t.Errorf("hamming u=20: regular %v sum_y %v", v["regular"], v["sum_y"])
	}
}

func TestCompareCLI(t *testing.T) {
	v := cliJSON(t, "compare", "--metric", "line:n=6", "--eps", ln2)
	ms, ok := v["mechanisms"].([]any)
	if !ok || len(ms) < 3 {
		t.Fatalf("mechanisms: %v", v["mechanisms"])
	}
	util := map[string]float64{}
	for _, e := range ms {
		e := e.(map[string]any)
		name := e["name"].(string)
		util[name] = float(t, e, "utility")
		if a := float(t, e, "audit_eps"); a > math.Ln2*(1+1e-9) || e["private"] != true {
			t.Errorf("%s: audit_eps %v private %v", name, a, e["private"])
		}
		if l := float(t, e, "leakage_bits"); !near(l, math.Log2(util[name]*6), 1e-12) {
			t.Errorf("%s: leakage %v, want log2(6·utility) for the uniform prior", name, l)
		}
	}
	// (The baselines are built at mech.BuildLevel(eps), a strict margin of
	// about 1e-9 relative below eps, so their utilities are 1e-9 close.)
	if !near(util["tight-constraints"], 4.0/9, 1e-9) || !near(util["truncated-geometric"], 4.0/9, 1e-9) {
		t.Errorf("tight %v truncated geometric %v, want both 4/9", util["tight-constraints"], util["truncated-geometric"])
	}
	// The ring closure: z = 1/(1 + 2/2 + 2/4 + 1/8) = 8/21 (papers).
	if !near(util["ring-closure"], 8.0/21, 1e-9) {
		t.Errorf("ring closure %v, want 8/21", util["ring-closure"])
	}
	if _, ok := util["exponential"]; !ok {
		t.Errorf("exponential baseline missing")
	}
	// Clique: randomized response is the tight-constraints mechanism.
	v = cliJSON(t, "compare", "--metric", "clique:n=6", "--eps", ln2)
	names := map[string]float64{}
	for _, e := range v["mechanisms"].([]any) {
		e := e.(map[string]any)
		names[e["name"].(string)] = float(t, e, "utility")
	}
	if !near(names["randomized-response"], 2.0/7, 1e-9) || !near(names["tight-constraints"], 2.0/7, 1e-9) {
		t.Errorf("clique: %v", names)
	}
	// Where the mechanism does not exist it is listed with a note.
	v = cliJSON(t, "compare", "--metric", "sum:u=2,v=2", "--eps", "0.3")
	first := v["mechanisms"].([]any)[0].(map[string]any)
	if first["name"] != "tight-constraints" || first["utility"] != nil || !strings.Contains(first["note"].(string), "does not exist") {
		t.Errorf("non-existent tight mechanism: %v", first)
	}
	// For the uniform prior the tight-constraints mechanism, when it exists,
	// is optimal among eps-private mechanisms: no baseline beats it.
	for _, c := range [][]string{{"grid:w=4,h=4,step=1,norm=euclid", "0.7"}, {"sum:u=3,v=2", "1"}, {"kcount:u=2,k=2", "2"}} {
		v := cliJSON(t, "compare", "--metric", c[0], "--eps", c[1])
		ms := v["mechanisms"].([]any)
		best := float(t, ms[0].(map[string]any), "utility")
		eps, _ := strconv.ParseFloat(c[1], 64)
		for _, e := range ms {
			e := e.(map[string]any)
			if u := float(t, e, "utility"); u > best*(1+1e-12) {
				t.Errorf("%s: %s utility %v > tight %v", c[0], e["name"], u, best)
			}
			if a := float(t, e, "audit_eps"); a > eps*(1+1e-9) || e["private"] != true {
				t.Errorf("%s: %s audit_eps %v private %v", c[0], e["name"], a, e["private"])
			}
		}
		if len(ms) < 3 {
			t.Errorf("%s: only %d mechanisms", c[0], len(ms))
		}
	}
	// A prior certain of answer 0: every mechanism has utility 1 (always
	// guess 0) and leaks nothing.
	dir := t.TempDir()
	point := filepath.Join(dir, "point.txt")
	if err := os.WriteFile(point, []byte("1\n0\n0\n0\n0\n0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v = cliJSON(t, "compare", "--metric", "line:n=6", "--eps", ln2, "--prior", "file:"+point)
	for _, e := range v["mechanisms"].([]any) {
		e := e.(map[string]any)
		if !near(float(t, e, "utility"), 1, 1e-12) || math.Abs(float(t, e, "leakage_bits")) > 1e-12 {
			t.Errorf("point prior: %s utility %v leakage %v, want 1 and 0", e["name"], e["utility"], e["leakage_bits"])
		}
	}
	if code, _, errs := cli("compare", "--metric", "line:n=5000", "--eps", "1"); code != 1 || !strings.Contains(errs, "refused above 1024") {
		t.Errorf("size guard: exit %d, %q", code, errs)
	}
}

func TestBoundCLI(t *testing.T) {
	v := cliJSON(t, "bound", "--u", "100", "--v", "2", "--eps", "5")
	b := float(t, v, "bnd_bits")
	if math.Round(b*100)/100 != 99.03 {
		t.Errorf("bnd_bits %v, want 99.03 (papers)", b)
	}
	// u·log2(v e^eps / (v-1+e^eps)).
	if !near(b, 100*math.Log2(2*math.Exp(5)/(1+math.Exp(5))), 1e-12) {
		t.Errorf("bnd_bits %v", b)
	}
	if i := float(t, v, "individual_bits"); !near(i, b/100, 1e-12) {
		t.Errorf("individual_bits %v, want bnd/u", i)
	}
	if _, ok := v["range_bits"]; ok {
		t.Errorf("range_bits without --range")
	}
	// A range of v^u = 8 outputs restricts nothing: range_bits = bnd.
	v = cliJSON(t, "bound", "--u", "3", "--v", "2", "--eps", "1", "--range", "8")
	if !near(float(t, v, "range_bits"), float(t, v, "bnd_bits"), 1e-12) {
		t.Errorf("range 8 = 2^3: %v", v)
	}
	// One output leaks nothing.
	v = cliJSON(t, "bound", "--u", "3", "--v", "2", "--eps", "1", "--range", "1")
	if float(t, v, "range_bits") != 0 {
		t.Errorf("range 1: %v", v["range_bits"])
	}
	for _, args := range [][]string{{"--u", "0", "--v", "2", "--eps", "1"}, {"--u", "3", "--v", "1", "--eps", "1"}, {"--u", "3", "--v", "2"}} {
		if code, _, _ := cli(append([]string{"bound"}, args...)...); code != 2 {
			t.Errorf("bound %v: exit %d, want 2", args, code)
		}
	}
}

func TestAuditCLI(t *testing.T) {
	dir := t.TempDir()
	csvPath, npyPath := filepath.Join(dir, "x.csv"), filepath.Join(dir, "x.npy")
	for _, p := range []string{csvPath, npyPath} {
		cliJSON(t, "tight", "--metric", "line:n=6", "--eps", ln2, "--out", p)
		v := cliJSON(t, "audit", "--metric", "line:n=6", "--eps", ln2, "--matrix", p)
		// The tight X is mixed with the uniform row by a γ below 2^-30
		// (mech.Harden) so that it passes the exact audit: its level is
		// within 1e-9 below ln 2.
		if v["private"] != true || !near(float(t, v, "audit_eps"), math.Ln2, 1e-9) || float(t, v, "pairs") != 5 {
			t.Errorf("%s: %v", p, v)
		}
		// Against a smaller eps it fails, saying where, with exit code 3
		// after the report.
		code, out, errs := cli("audit", "--metric", "line:n=6", "--eps", "0.5", "--matrix", p, "--json")
		v = map[string]any{}
		if err := json.Unmarshal([]byte(out), &v); err != nil || code != exitNotPrivate || v["private"] != false || v["worst"] == nil || !strings.Contains(errs, "NOT 0.5-private") {
			t.Errorf("%s at eps 0.5: exit %d, %v, stderr %q", p, code, v, errs)
		}
	}
	// Both files hold the truncated geometric mechanism: X[i][k] =
	// 2^-|i-k|·(1/3 inside, 2/3 at the ends), mixed with the uniform row by
	// γ < 2^-30 (mech.Harden).
	x1, err := readMatrixPath(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	x2, err := readMatrixPath(npyPath)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		for k := 0; k < 6; k++ {
			w := math.Pow(0.5, math.Abs(float64(i-k))) / 3
			if k == 0 || k == 5 {
				w *= 2
			}
			if !near(x1.At(i, k), w, 1e-9) || x1.At(i, k) != x2.At(i, k) {
				t.Errorf("X[%d][%d]: csv %v npy %v, want %v", i, k, x1.At(i, k), x2.At(i, k), w)
			}
		}
	}
	// Randomized response at eps 2(1-1e-9) on K_6 (a margin below 2, since
	// the audit is exact: e^2 rounded to float64 may exceed e^2), audited at
	// eps 1: measured 2 to 1e-9.
	e2 := math.Exp(2 * (1 - 1e-9))
	var b strings.Builder
	for i := 0; i < 6; i++ {
		for k := 0; k < 6; k++ {
			if k > 0 {
				b.WriteByte(',')
			}
			p := 1 / (e2 + 5)
			if i == k {
				p = e2 / (e2 + 5)
			}
			fmt.Fprintf(&b, "%.17g", p)
		}
		b.WriteByte('\n')
	}
	rr := filepath.Join(dir, "rr.csv")
	writeFile(t, rr, b.String())
	code, out, _ := cli("audit", "--metric", "clique:n=6", "--eps", "1", "--matrix", rr, "--json")
	v := map[string]any{}
	if err := json.Unmarshal([]byte(out), &v); err != nil || code != exitNotPrivate || v["private"] != false || !near(float(t, v, "audit_eps"), 2, 1e-8) {
		t.Errorf("rr: exit %d, %v", code, v)
	}
	// The same matrix at eps 2 is private: exit 0.
	if code, out, _ := cli("audit", "--metric", "clique:n=6", "--eps", "2", "--matrix", rr); code != 0 || !strings.Contains(out, "private    true") {
		t.Errorf("rr at eps 2: exit %d, %q", code, out)
	}
}

// TestNPYFormat checks the bytes of a written .npy against the NumPy format
// specification (version 1.0): magic, version, little-endian header length,
// a header dict ending in '\n' that aligns the data to 64 bytes, and the
// data as little-endian float64 in C order.
func TestNPYFormat(t *testing.T) {
	x := mat.NewDense(2, 3, []float64{1, 0.5, -2, math.Pi, 0, 1e-300})
	data := encodeNPY(x)
	if string(data[:6]) != "\x93NUMPY" || data[6] != 1 || data[7] != 0 {
		t.Fatalf("magic/version % x", data[:8])
	}
	hlen := int(data[8]) | int(data[9])<<8
	header := string(data[10 : 10+hlen])
	if (10+hlen)%64 != 0 || !strings.HasSuffix(header, "\n") {
		t.Errorf("header length %d: data not 64-aligned or header %q not ending in newline", hlen, header)
	}
	for _, s := range []string{"'descr': '<f8'", "'fortran_order': False", "'shape': (2, 3)"} {
		if !strings.Contains(header, s) {
			t.Errorf("header %q lacks %s", header, s)
		}
	}
	body := data[10+hlen:]
	if len(body) != 48 {
		t.Fatalf("body %d bytes, want 48", len(body))
	}
	for k, want := range []float64{1, 0.5, -2, math.Pi, 0, 1e-300} {
		if got := math.Float64frombits(binary.LittleEndian.Uint64(body[8*k:])); got != want {
			t.Errorf("entry %d: %v, want %v", k, got, want)
		}
	}
	y, err := decodeNPY(data)
	if err != nil || !mat.Equal(x, y) {
		t.Errorf("round trip: %v, %v", err, y)
	}
	// A Fortran-ordered file (column-major data) is read transposed back.
	f := bytes.Replace(data, []byte("False"), []byte("True "), 1)
	var col bytes.Buffer
	col.Write(f[:10+hlen])
	for _, v := range []float64{1, math.Pi, 0.5, 0, -2, 1e-300} {
		binary.Write(&col, binary.LittleEndian, v)
	}
	if y, err := decodeNPY(col.Bytes()); err != nil || !mat.Equal(x, y) {
		t.Errorf("fortran order: %v, %v", err, y)
	}
	for name, bad := range map[string][]byte{
		"magic":     []byte("NOTNUMPY.........."),
		"truncated": data[:len(data)-8],
		"dtype":     bytes.Replace(data, []byte("<f8"), []byte("<i8"), 1),
	} {
		if _, err := decodeNPY(bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestMechCommandErrors(t *testing.T) {
	dir := t.TempDir()
	badPrior := filepath.Join(dir, "prior.txt")
	writeFile(t, badPrior, "0.5\n0.3\n0.1\n0.05\n0.01\n0.01\n")
	notStochastic := filepath.Join(dir, "ns.csv")
	writeFile(t, notStochastic, "0.5,0.4\n0.5,0.5\n")
	ragged := filepath.Join(dir, "ragged.csv")
	writeFile(t, ragged, "0.5,0.5\n1\n")
	garbage := filepath.Join(dir, "g.csv")
	writeFile(t, garbage, "0.5,abc\n0.5,0.5\n")
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"tight", "--metric", "line:n=6", "--eps", "0"}, 2, "--eps 0: eps must be"},
		{[]string{"tight", "--metric", "line:n=6", "--eps", "NaN"}, 2, "--eps NaN: eps must be"},
		{[]string{"tight", "--metric", "line:n=6", "--eps", "-1"}, 2, "--eps -1: eps must be"},
		{[]string{"tight", "--metric", "line:n=6", "--eps", "0.9", "--solver", "closed-form", "--out", filepath.Join(dir, "no", "x.csv")}, 1, "no such file"},
		{[]string{"tight", "--metric", "line:n=6"}, 2, "--eps is required"},
		{[]string{"tight", "--eps", "1"}, 2, "--metric is required"},
		{[]string{"tight", "--metric", "moebius:n=6", "--eps", "1"}, 2, `unknown kind "moebius"`},
		{[]string{"tight", "--metric", "line:m=6", "--eps", "1"}, 2, `unknown parameter "m"`},
		{[]string{"tight", "--metric", "line:n=-3", "--eps", "1"}, 2, "line:n=-3"},
		{[]string{"tight", "--metric", "graph:file=" + ragged, "--eps", "1"}, 1, ragged},
		{[]string{"tight", "--metric", "line:n=6", "--eps", "1", "--solver", "magic"}, 2, `--solver "magic": want one of auto,`},
		{[]string{"tight", "--metric", "kcount:u=2,k=2", "--eps", "1", "--solver", "closed-form"}, 1, "does not apply"},
		{[]string{"tight", "--metric", "line:n=5000", "--eps", "1", "--out", filepath.Join(dir, "big.csv")}, 1, "n = 5000 > MaxMechanismN = 4096"},
		{[]string{"tight", "--metric", "graph:file=" + filepath.Join(dir, "nope.txt"), "--eps", "1"}, 1, "no such file"},
		{[]string{"tight", "--metric", "sum:u=2,v=2", "--eps", "0.3", "--out", filepath.Join(dir, "x.csv")}, 1, "does not exist"},
		{[]string{"regular", "--metric", "line:n=6", "--eps", "1", "--prior", "file:" + badPrior}, 1, "sums to 0.97, not 1"},
		{[]string{"regular", "--metric", "line:n=6", "--eps", "1", "--prior", "file:" + filepath.Join(dir, "nope")}, 1, "no such file"},
		{[]string{"regular", "--metric", "hamming:u=3,v=4", "--eps", "1", "--prior", "product:0.5,0.5,0.5,0.5"}, 2, "not 1"},
		{[]string{"regular", "--metric", "hamming:u=3,v=4", "--eps", "1", "--prior", "product:0.5,0.5"}, 2, "want v = 4"},
		{[]string{"regular", "--metric", "line:n=6", "--eps", "1", "--prior", "product:0.5,0.5"}, 2, "only for hamming"},
		{[]string{"regular", "--metric", "line:n=6", "--eps", "1", "--prior", "zipf"}, 2, "want uniform"},
		{[]string{"compare", "--metric", "line:n=6", "--eps", "1", "--prior", "file:" + badPrior}, 1, "not 1"},
		{[]string{"audit", "--metric", "line:n=2", "--eps", "1", "--matrix", filepath.Join(dir, "nope.csv")}, 1, "no such file"},
		{[]string{"audit", "--metric", "line:n=2", "--eps", "1", "--matrix", notStochastic}, 1, "row 0 sums to 0.9"},
		{[]string{"audit", "--metric", "line:n=3", "--eps", "1", "--matrix", ragged}, 1, "rectangular"},
		{[]string{"audit", "--metric", "line:n=3", "--eps", "1", "--matrix", garbage}, 1, `"abc" is not a number`},
		{[]string{"audit", "--metric", "line:n=3", "--eps", "1"}, 2, "--matrix FILE is required"},
		{[]string{"threshold"}, 2, "--metric is required"},
		{[]string{"threshold", "--metric", "sum:u=2,v=2", "--tol", "0"}, 2, "--tol"},
	} {
		code, _, errs := cli(c.args...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("optdp %s: exit %d, stderr %q; want exit %d and %q", strings.Join(c.args, " "), code, errs, c.code, c.msg)
		}
		if c.code == 2 && !strings.Contains(errs, "run `optdp help "+c.args[0]+"`") {
			t.Errorf("optdp %s: usage error without a hint: %q", strings.Join(c.args, " "), errs)
		}
		if strings.Contains(errs, "goroutine") || strings.Contains(errs, "panic") {
			t.Errorf("optdp %s: stack trace: %q", strings.Join(c.args, " "), errs)
		}
	}
	// audit with wrong dimensions: a 6-answer matrix against line:n=5.
	p := filepath.Join(dir, "x.npy")
	cliJSON(t, "tight", "--metric", "line:n=6", "--eps", ln2, "--out", p)
	if code, _, errs := cli("audit", "--metric", "line:n=5", "--eps", "1", "--matrix", p); code != 1 || !strings.Contains(errs, "6 rows but line:n=5 has 5 answers") {
		t.Errorf("dims: exit %d, %q", code, errs)
	}
}

// TestTooLargeRefusedBeforeAllocating: a million-point grid would need
// three 8 TB matrices; the refusal must come from the size check, not from
// the allocator.
func TestTooLargeRefusedBeforeAllocating(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, _, errs := cli("tight", "--metric", "grid:w=1000,h=1000", "--eps", "1", "--solver", "dense")
	runtime.ReadMemStats(&after)
	if code != 1 || !strings.Contains(errs, "n = 1000000") || !strings.Contains(errs, "over the memory budget") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("allocated %d bytes before refusing", grew)
	}
	// --force raises the limit to physical memory, which is still far below
	// 8 TB.
	if code, _, errs := cli("tight", "--metric", "grid:w=1000,h=1000", "--eps", "1", "--solver", "dense", "--force"); code != 1 || !strings.Contains(errs, "over the memory budget") {
		t.Errorf("--force: exit %d, %q", code, errs)
	}
	// The threshold search on a 10^6 lattice is refused up front, naming
	// the flag that runs the structured search.
	if code, _, errs := cli("threshold", "--metric", "grid:w=1000,h=1000,norm=chebyshev"); code != 1 || !strings.Contains(errs, "n = 1000000") || !strings.Contains(errs, "--structured") {
		t.Errorf("threshold: exit %d, %q", code, errs)
	}
}

func TestMechCommandHelp(t *testing.T) {
	for _, name := range []string{"tight", "threshold", "regular", "compare", "bound", "audit"} {
		code, out, _ := cli("help", name)
		if code != 0 || !strings.Contains(out, "Usage: optdp "+name) || !strings.Contains(out, "Examples:") || !strings.Contains(out, "-json") {
			t.Errorf("help %s (exit %d):\n%s", name, code, out)
		}
	}
	_, out, _ := cli("help", "tight")
	for _, s := range []string{"auto", "dense", "closed-form"} {
		if !strings.Contains(out, s) {
			t.Errorf("help tight does not list solver %q", s)
		}
	}
}

// TestCompareReportsFailedAudit: a mechanism that is not private for the
// metric is listed with private = false and its measured level, not hidden.
// Randomized response at eps 2 on K_4 (built at mech.BuildLevel(2))
// measures BuildLevel(2).
func TestCompareReportsFailedAudit(t *testing.T) {
	m, err := metric.Clique(4)
	if err != nil {
		t.Fatal(err)
	}
	c := candidate{"too-loose", func() (*mat.Dense, string, error) {
		x, err := mech.RandomizedResponse(4, 2)
		return x, "", err
	}}
	e, err := evaluateCandidate(c, m, 1, []float64{0.25, 0.25, 0.25, 0.25}, &compareScore{name: "binary"})
	if err != nil {
		t.Fatal(err)
	}
	lev := mech.BuildLevel(2)
	if e.Private == nil || *e.Private || !near(float64(*e.AuditEps), lev, 1e-12) || !strings.Contains(e.Note, "NOT 1-private") {
		t.Errorf("entry %+v", e)
	}
	// Its utility is still measured: e^lev/(e^lev+3) for the uniform prior.
	if want := math.Exp(lev) / (math.Exp(lev) + 3); !near(float64(*e.Utility), want, 1e-12) {
		t.Errorf("utility %v, want %v", *e.Utility, want)
	}
}

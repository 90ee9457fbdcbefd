package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/optdp/optdp/repro"
)

// TestHelpForms: `optdp COMMAND --help` prints what `optdp help COMMAND`
// prints (usage, examples, flags, JSON fields, exit codes) and exits 0;
// `optdp help help` works; bare `optdp` prints the usage on stderr and
// exits 2; an unknown command exits 2.
func TestHelpForms(t *testing.T) {
	for _, c := range commands() {
		code1, viaHelp, _ := cli("help", c.name)
		for _, flag := range []string{"--help", "-h", "-help"} {
			code2, viaFlag, errs := cli(c.name, flag)
			if code1 != 0 || code2 != 0 || viaHelp != viaFlag || errs != "" {
				t.Errorf("%s: help exit %d, %s exit %d, outputs equal %v, stderr %q", c.name, code1, flag, code2, viaHelp == viaFlag, errs)
			}
		}
		for _, want := range []string{"Usage: optdp " + c.name, "Examples:", "Flags:", "-json", "JSON output (--json)", "Exit codes:"} {
			if !strings.Contains(viaHelp, want) {
				t.Errorf("help %s lacks %q:\n%s", c.name, want, viaHelp)
			}
		}
	}
	if code, out, _ := cli("help", "help"); code != 0 || !strings.Contains(out, "Usage: optdp help [COMMAND]") {
		t.Errorf("help help: exit %d\n%s", code, out)
	}
	code, out, errs := cli()
	if code != exitUsage || out != "" || !strings.Contains(errs, "Usage: optdp COMMAND") || !strings.Contains(errs, "Exit codes") {
		t.Errorf("bare optdp: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := cli("help", "tihgt"); code != exitUsage || !strings.Contains(errs, `unknown command "tihgt"`) {
		t.Errorf("help of an unknown command: exit %d, %q", code, errs)
	}
	if code, _, _ := cli("tihgt"); code != exitUsage {
		t.Errorf("unknown command: exit %d", code)
	}
	_, out, _ = cli("help")
	for _, want := range []string{"0  success", "1  the computation or the data said no", "2  the command line was wrong", "3  optdp audit"} {
		if !strings.Contains(out, want) {
			t.Errorf("optdp help lacks the exit code line %q", want)
		}
	}
	// The threshold usage line names --structured.
	if _, out, _ := cli("help", "threshold"); !strings.Contains(out, "Usage: optdp threshold --metric SPEC [--lo L --hi H --tol T --steps S] [--structured]") {
		t.Errorf("threshold usage lacks --structured:\n%s", out)
	}
}

// TestExitCodeTable: the same kind of mistake gets the same code in every
// command (exitCode's table), and the message says what was wrong.
func TestExitCodeTable(t *testing.T) {
	dir := t.TempDir()
	x := filepath.Join(dir, "x.csv")
	if code, _, errs := cli("tight", "--metric", "line:n=6", "--eps", ln2, "--out", x); code != 0 {
		t.Fatalf("tight --out: exit %d, %s", code, errs)
	}
	badEdges := filepath.Join(dir, "edges.txt")
	writeFile(t, badEdges, "0 1\n1 x\n")
	bad := filepath.Join(dir, "bad.txt")
	writeFile(t, bad, "0.5\n0.6\n0.1\n0.1\n0.1\n0.1\n")
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		// Command-line mistakes: 2, whichever command and whichever layer
		// (CLI or library) noticed.
		{[]string{"tight", "--metric", "lnie:n=6", "--eps", "1"}, 2, `unknown kind "lnie"`},
		{[]string{"tight", "--metric", "line:m=6", "--eps", "1"}, 2, `unknown parameter "m"`},
		{[]string{"compare", "--metric", "line:n=x", "--eps", "1"}, 2, "not an integer"},
		{[]string{"regular", "--metric", "grid:w=3,h=3,norm=taxicab", "--eps", "1"}, 2, "taxicab"},
		{[]string{"tight", "--metric", "line:n=6", "--eps", "0"}, 2, "--eps 0"},
		{[]string{"audit", "--metric", "line:n=6", "--eps", "-2", "--matrix", x}, 2, "--eps -2"},
		{[]string{"bound", "--u", "3", "--v", "2", "--eps", "Inf"}, 2, "--eps +Inf"},
		{[]string{"threshold", "--metric", "sum:u=2,v=2", "--lo", "0"}, 2, "--lo 0"},
		{[]string{"tight", "--metric", "line:n=6", "--eps", "1", "--solver", "fast"}, 2, `--solver "fast"`},
		{[]string{"tight", "--metric", "line:n=6", "--eps", "1", "--nope"}, 2, "flag provided but not defined"},
		{[]string{"tight", "--metric", "line:n=6", "--eps", "1", "stray"}, 2, `unexpected argument "stray"`},
		{[]string{"optimize", "--workload", "allrnage:n=8", "--eps", "1"}, 2, `unknown workload "allrnage:n=8"`},
		{[]string{"matrix", "--workload", "allrnage:n=8", "--strategy", "identity", "--eps", "1"}, 2, `unknown workload "allrnage:n=8"`},
		{[]string{"matrix", "--workload", "allrange:n=8", "--strategy", "identity", "--eps", "1", "--delta", "2"}, 2, "--delta 2"},
		{[]string{"answer", "--workload", "allrange:n=8", "--strategy", "identity", "--eps", "0", "--data", x}, 2, "--eps 0"},
		{[]string{"optimize", "--workload", "allrange:n=8", "--eps", "1", "--delta", "2"}, 2, "--delta 2"},
		{[]string{"optimize", "--workload", "file:" + filepath.Join(dir, "none.csv"), "--eps", "1"}, 1, "no such file"},
		// The data said no: 1.
		{[]string{"tight", "--metric", "graph:file=" + badEdges, "--eps", "1"}, 1, badEdges},
		{[]string{"tight", "--metric", "graph:file=" + filepath.Join(dir, "none.txt"), "--eps", "1"}, 1, "no such file"},
		{[]string{"regular", "--metric", "line:n=6", "--eps", "1", "--prior", "file:" + bad}, 1, "sums to 1.5, not 1"},
		{[]string{"compare", "--metric", "line:n=6", "--eps", "1", "--prior", "file:" + bad}, 1, "sums to 1.5"},
		{[]string{"audit", "--metric", "line:n=5", "--eps", "1", "--matrix", x}, 1, "6 rows"},
		// The computation said no: 1.
		{[]string{"tight", "--metric", "sum:u=2,v=2", "--eps", "0.3", "--out", filepath.Join(dir, "y.csv")}, 1, "at eps = 0.3 the tight-constraints mechanism of sum:u=2,v=2 does not exist"},
		{[]string{"threshold", "--metric", "sum:u=2,v=2", "--lo", "0.1", "--hi", "0.2"}, 1, "raise hi"},
		// Too large: exit 1, saying what to do on the command line.
		{[]string{"tight", "--metric", "grid:w=1000,h=1000", "--eps", "1", "--solver", "dense"}, 1, "on the command line: --solver auto picks a structured solver"},
		{[]string{"threshold", "--metric", "grid:w=1000,h=1000,norm=chebyshev"}, 1, "on the command line: --structured"},
		// The audit said no: 3.
		{[]string{"audit", "--metric", "line:n=6", "--eps", "0.5", "--matrix", x}, 3, "NOT 0.5-private"},
	} {
		code, _, errs := cli(c.args...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("optdp %s: exit %d, stderr %q; want exit %d and %q", strings.Join(c.args, " "), code, errs, c.code, c.msg)
		}
		if hint := strings.Contains(errs, "run `optdp help "+c.args[0]+"`"); hint != (c.code == exitUsage) {
			t.Errorf("optdp %s: usage hint %v, want it exactly for exit 2: %q", strings.Join(c.args, " "), hint, errs)
		}
	}
	// Float noise: the user's own numbers come back as they were typed.
	if _, _, errs := cli("tight", "--metric", "sum:u=2,v=2", "--eps", "0.9", "--solver", "dense", "--out", filepath.Join(dir, "z.csv")); strings.Contains(errs, "0.9000000") {
		t.Errorf("float noise: %q", errs)
	}
}

// helpFieldNames are the JSON field names documented by `optdp help name`:
// the first column of the lines under "JSON output", split at ", ".
func helpFieldNames(t *testing.T, name string) map[string]bool {
	t.Helper()
	_, out, _ := cli("help", name)
	_, sec, ok := strings.Cut(out, "JSON output (--json)")
	if !ok {
		t.Fatalf("help %s has no JSON section", name)
	}
	sec, _, _ = strings.Cut(sec, "\nExit codes:")
	names := map[string]bool{}
	col := regexp.MustCompile(`^\s+(\S.*?)(\s{2,}|$)`)
	for _, line := range strings.Split(sec, "\n")[1:] {
		m := col.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for n := range strings.SplitSeq(m[1], ", ") {
			names[strings.TrimSpace(n)] = true
		}
	}
	return names
}

// jsonKeys collects every object key in v, nested ones included.
func jsonKeys(v any, into map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			into[k] = true
			jsonKeys(e, into)
		}
	case []any:
		for _, e := range v {
			jsonKeys(e, into)
		}
	}
}

// TestJSONFieldsDocumented runs every command with --json on inputs that
// bring out its optional fields and checks that every key it prints, nested
// ones included, is documented in `optdp help COMMAND`.
func TestJSONFieldsDocumented(t *testing.T) {
	dir := t.TempDir()
	x := filepath.Join(dir, "x.csv")
	data := filepath.Join(dir, "counts.csv")
	writeFile(t, data, "3\n1\n4\n1\n")
	runs := [][]string{
		{"version"},
		{"tight", "--metric", "line:n=6", "--eps", ln2, "--out", x},
		{"tight", "--metric", "sum:u=2,v=2", "--eps", "0.3"},
		{"tight", "--metric", "grid:w=60,h=60", "--eps", "1", "--solver", "toeplitz", "--no-matrix"},
		{"threshold", "--metric", "sum:u=2,v=2"},
		{"threshold", "--metric", "line:n=4"},
		{"regular", "--metric", "line:n=6", "--eps", ln2},
		{"regular", "--metric", "hamming:u=3,v=4", "--eps", "1", "--prior", "product:0.3,0.27,0.23,0.2"},
		{"compare", "--metric", "sum:u=2,v=2", "--eps", "0.3"},
		{"bound", "--u", "3", "--v", "2", "--eps", "1", "--range", "4"},
		{"audit", "--metric", "line:n=6", "--eps", ln2, "--matrix", x},
		{"reproduce", "--list"},
		{"matrix", "--workload", "allrange:n=8", "--strategy", "hier:b=2", "--eps", "1"},
		{"matrix", "--workload", "allrange:n=8", "--strategy", "hier:b=2", "--eps", "1", "--delta", "1e-6"},
		{"answer", "--workload", "prefix:n=4", "--strategy", "wavelet", "--eps", "1", "--data", data, "--seed", "1"},
		{"optimize", "--workload", "allrange:n=8", "--eps", "1", "--out", filepath.Join(dir, "s.csv")},
		{"optimize", "--workload", "allrange:n=8", "--eps", "1", "--delta", "1e-6"},
		{"optimal", "--metric", "line:n=5", "--eps", "1", "--prior", "uniform", "--out", filepath.Join(dir, "o.csv")},
		{"optimal", "--metric", "grid:w=3,h=3", "--eps", "1", "--prior", "uniform", "--method", "generate"},
		{"optimal", "--metric", "grid:w=3,h=3", "--eps", "1", "--prior", "uniform", "--method", "spanner"},
		{"tight", "--metric", "clique:n=6", "--eps", "1e-10", "--solver", "dense"},
	}
	for _, args := range runs {
		code, out, errs := cli(append(args, "--json")...)
		if code != 0 {
			t.Errorf("optdp %s --json: exit %d, %s", strings.Join(args, " "), code, errs)
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("optdp %s --json: not JSON: %v", strings.Join(args, " "), err)
			continue
		}
		keys := map[string]bool{}
		jsonKeys(v, keys)
		doc := helpFieldNames(t, args[0])
		for k := range keys {
			if !doc[k] {
				t.Errorf("optdp %s --json prints %q, which optdp help %s does not document", strings.Join(args, " "), k, args[0])
			}
		}
	}
}

// TestJSONNotComputed: a value that was not computed is null or absent,
// never a placeholder number.
func TestJSONNotComputed(t *testing.T) {
	// sum:u=2,v=2 at eps 0.3: no mechanism (its threshold is ln φ ≈ 0.48),
	// so no utility and no audit.
	v := cliJSON(t, "tight", "--metric", "sum:u=2,v=2", "--eps", "0.3")
	for _, k := range []string{"utility", "audit_eps", "private"} {
		if val, ok := v[k]; !ok || val != nil {
			t.Errorf("tight below the threshold: %s = %v (present %v), want null", k, val, ok)
		}
	}
	if _, ok := v["audit"]; ok {
		t.Errorf("tight: the library's zero audit leaks into the JSON: %v", v["audit"])
	}
	// A closed form computes no condition number: rcond is null, not 0
	// or 1.
	v = cliJSON(t, "tight", "--metric", "line:n=6", "--eps", ln2)
	if val, ok := v["rcond"]; !ok || val != nil {
		t.Errorf("closed-form tight: rcond = %v, want null", val)
	}
	if _, ok := v["iterations"]; ok {
		t.Errorf("direct solver: iterations present: %v", v["iterations"])
	}
	// The Toeplitz solver reports real iterations and residual.
	v = cliJSON(t, "tight", "--metric", "grid:w=60,h=60", "--eps", "1", "--solver", "toeplitz", "--no-matrix")
	if it := float(t, v, "iterations"); it < 1 || float(t, v, "residual") >= 1e-6 {
		t.Errorf("toeplitz: iterations %v residual %v", it, v["residual"])
	}
	// A line's threshold is a theorem: nothing solved, so no min z and no
	// bracket.
	v = cliJSON(t, "threshold", "--metric", "line:n=4")
	for _, k := range []string{"min_z", "lo", "hi", "scan_eps", "scan_min_z"} {
		if val, ok := v[k]; !ok || val != nil {
			t.Errorf("threshold of a line: %s = %v (present %v), want null", k, val, ok)
		}
	}
	// A bracketed threshold has both, and min z >= 0 at eps*.
	v = cliJSON(t, "threshold", "--metric", "sum:u=2,v=2")
	if lo, hi := float(t, v, "lo"), float(t, v, "hi"); !(lo < hi) || hi != float(t, v, "eps_star") || float(t, v, "min_z") < 0 {
		t.Errorf("bracketed threshold: %v", v)
	}
}

// TestReproduceQuickJSON is the example of `optdp help reproduce`: every
// experiment runs, the JSON decodes, and the geo experiment lists the
// tight utility at eps = 0.4 as not computed — on the 20x20 grid of the
// quick run the mechanism does not exist there (min z < 0 in the CSV,
// which the test reads) — instead of printing NaN.
func TestReproduceQuickJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every experiment")
	}
	dir := t.TempDir()
	code, out, errs := cli("reproduce", "--quick", "--json", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Failed  int `json:"failed"`
		Results []struct {
			Name        string             `json:"name"`
			Values      map[string]float64 `json:"values"`
			NotComputed []string           `json:"not_computed"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if rep.Failed != 0 || len(rep.Results) != len(repro.Experiments()) {
		t.Fatalf("failed %d, %d results", rep.Failed, len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.Name != "geo" {
			continue
		}
		rows := readCSVFile(t, filepath.Join(dir, "geo_utility.csv"))
		if rows[0][0] != "eps_per_km" || rows[1][0] != "0.4" || !strings.HasPrefix(rows[1][1], "-") || rows[1][2] != "false" || rows[1][3] != "" {
			t.Errorf("geo_utility.csv first row %v: want eps 0.4, min z < 0, exists false, no utility", rows[1])
		}
		if !slices.Contains(r.NotComputed, "tight_utility_eps0.4") {
			t.Errorf("geo: not_computed %v lacks tight_utility_eps0.4", r.NotComputed)
		}
		if _, ok := r.Values["tight_utility_eps0.4"]; ok {
			t.Errorf("geo: tight_utility_eps0.4 = %v, but the mechanism does not exist there", r.Values["tight_utility_eps0.4"])
		}
		if !(r.Values["planar_utility_eps0.4"] > 0) {
			t.Errorf("geo: planar utility at 0.4 = %v", r.Values["planar_utility_eps0.4"])
		}
	}
}

// readCSVFile reads a comma-separated file into rows of cells.
func readCSVFile(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		rows = append(rows, strings.Split(l, ","))
	}
	return rows
}

// TestProgressOffTerminal: when stderr is not a terminal, progress is
// plain lines (no carriage returns or escape codes), written when the
// status changes and not on every tick; the final line gives the time.
func TestProgressOffTerminal(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&runEnv{stderr: &b}, "threshold", true)
	p.mu.Lock()
	p.start = time.Now().Add(-2 * progressQuiet) // past the quiet second
	p.mu.Unlock()
	p.Update(-1, "dense solve 1 at eps 0.5: min z -0.1")
	p.Update(0.5, "dense solve 2 at eps 0.7: min z 0.02") // within progressLineEvery: not written
	p.Redraw()
	p.Done()
	out := b.String()
	if strings.ContainsAny(out, "\r\033") {
		t.Errorf("control characters off a terminal: %q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "threshold dense solve 1 at eps 0.5: min z -0.1 (") || !regexp.MustCompile(`^threshold done in \d+\.\ds$`).MatchString(lines[1]) {
		t.Errorf("lines %q", lines)
	}
	// Quick work prints nothing at all.
	b.Reset()
	p = newProgress(&runEnv{stderr: &b}, "tight", true)
	p.Update(0.5, "half")
	p.Done()
	if b.Len() != 0 {
		t.Errorf("quick work drew %q", b.String())
	}
}

// TestProgressTickerMovesTime: on a terminal the bar is redrawn by the
// ticker although the work reports nothing, so the elapsed time moves.
func TestProgressTickerMovesTime(t *testing.T) {
	var mu safeBuffer
	p := newProgress(&runEnv{stderr: &mu, stderrTTY: true}, "reproduce", true)
	p.mu.Lock()
	p.start = time.Now().Add(-2 * progressQuiet)
	p.mu.Unlock()
	p.Update(0.25, "all ranges n=1024")
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(mu.String(), "\r") < 3 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	p.Done()
	out := mu.String()
	draws := strings.Split(out, "\r")
	if len(draws) < 4 {
		t.Fatalf("%d draws in 10 s without updates: %q", len(draws)-1, out)
	}
	times := regexp.MustCompile(`\((\d+\.\d)s\)`).FindAllStringSubmatch(out, -1)
	if len(times) < 2 || times[0][1] == times[len(times)-1][1] {
		t.Errorf("elapsed time does not move: %q", out)
	}
	if !strings.Contains(draws[1], "[#######") || !strings.Contains(draws[1], "25% all ranges n=1024") {
		t.Errorf("bar %q", draws[1])
	}
}

// safeBuffer is a bytes.Buffer safe for the ticker's goroutine and the
// test reading it.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestFmtFloat: the user's numbers without float noise.
func TestFmtFloat(t *testing.T) {
	a, b := 0.1, 0.2 // variables: a constant 0.1 + 0.2 would be exactly 0.3
	for v, want := range map[float64]string{0.9: "0.9", a + b: "0.30000000000000004", math.Ln2: "0.6931471805599453", 1e-6: "1e-06", math.Inf(1): "+Inf"} {
		if got := fmtFloat(v); got != want {
			t.Errorf("fmtFloat(%v) = %q, want %q", v, got, want)
		}
	}
	if s := fmt.Sprintf("%.17g", 0.9); s == fmtFloat(0.9) {
		t.Errorf("%q: the test does not distinguish noise", s)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runReproduceCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(append([]string{"reproduce"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// TestReproduceList: --list names every experiment; --list --json is a JSON
// array with names and claims.
func TestReproduceList(t *testing.T) {
	code, out, errs := runReproduceCLI("--list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, name := range []string{"cities", "voters", "utility", "geo", "leakage", "regions", "singular", "matrix"} {
		if !strings.Contains(out, name) {
			t.Errorf("--list lacks %s:\n%s", name, out)
		}
	}
	code, out, errs = runReproduceCLI("--list", "--json", "--only", "geo")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var v []map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("bad JSON %q: %v", out, err)
	}
	if len(v) != 1 || v[0]["name"] != "geo" || v[0]["claim"] == "" || v[0]["slow"] != true {
		t.Errorf("--list --json --only geo = %v", v)
	}
}

// TestReproduceRun: two cheap experiments into a temporary directory with
// --json: the report lists both, REPORT.md and the files exist, and the
// voters experiment's utilities are the paper's 4/9 and 8/21.
func TestReproduceRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errs := runReproduceCLI("--only", "voters,cities", "--quick", "--out", dir, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Backend string `json:"backend"`
		Results []struct {
			Name   string             `json:"name"`
			Values map[string]float64 `json:"values"`
			CSVs   []string           `json:"csvs"`
			Plots  []string           `json:"plots"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("bad JSON %q: %v", out, err)
	}
	if len(rep.Results) != 2 || rep.Results[0].Name != "cities" || rep.Results[1].Name != "voters" || rep.Backend == "" {
		t.Fatalf("results %+v", rep)
	}
	v := rep.Results[1].Values
	if d := v["U_M1_geometric"] - 4.0/9; d*d > 1e-24 {
		t.Errorf("U(M1) = %v, want 4/9", v["U_M1_geometric"])
	}
	if d := v["U_M2_ring"] - 8.0/21; d*d > 1e-24 {
		t.Errorf("U(M2) = %v, want 8/21", v["U_M2_ring"])
	}
	md, err := os.ReadFile(filepath.Join(dir, "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## voters") || !strings.Contains(string(md), "## cities") || strings.Contains(string(md), "## geo") {
		t.Errorf("REPORT.md sections wrong:\n%s", md)
	}
	for _, r := range rep.Results {
		for _, f := range append(r.CSVs, r.Plots...) {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("missing %s: %v", f, err)
			}
		}
	}
	// Human-readable output.
	code, out, errs = runReproduceCLI("--only", "singular", "--out", dir)
	if code != 0 || !strings.Contains(out, "singular") || !strings.Contains(out, "REPORT.md") {
		t.Errorf("text output (exit %d): %q %q", code, out, errs)
	}
	if !strings.Contains(errs, "[1/1] singular") {
		t.Errorf("no progress line on stderr: %q", errs)
	}
}

// TestReproduceErrors: a bad --only name and a stray argument are usage
// errors (exit 2) with a clear message; an output path that is a file
// fails with exit 1.
func TestReproduceErrors(t *testing.T) {
	code, _, errs := runReproduceCLI("--only", "citiez")
	if code != 2 || !strings.Contains(errs, `unknown experiment "citiez"`) || !strings.Contains(errs, "cities") {
		t.Errorf("bad --only: exit %d, %q", code, errs)
	}
	code, _, errs = runReproduceCLI("extra")
	if code != 2 || !strings.Contains(errs, "unexpected argument") {
		t.Errorf("stray argument: exit %d, %q", code, errs)
	}
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runReproduceCLI("--only", "cities", "--out", file)
	if code != 1 || errs == "" {
		t.Errorf("--out a file: exit %d, %q", code, errs)
	}
	code, out, _ := runReproduceCLI("--help")
	if code != 0 || !strings.Contains(out, "-only") || !strings.Contains(out, "-quick") {
		t.Errorf("--help: exit %d, %q", code, out)
	}
}

package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCompareOptimalLP: for a peaked prior on a small Euclidean grid, the
// optimal-lp row (the LP optimum, binary gain) has at least the utility of
// every other audited mechanism, including the spanner mechanism; all rows
// are private.
func TestCompareOptimalLP(t *testing.T) {
	dir := t.TempDir()
	prior := filepath.Join(dir, "p.txt")
	if err := os.WriteFile(prior, []byte("0.4 0.2 0.1 0.05 0.05 0.05 0.05 0.05 0.05"), 0o644); err != nil {
		t.Fatal(err)
	}
	v := cliJSON(t, "compare", "--metric", "grid:w=3,h=3,step=1", "--eps", "0.8", "--prior", "file:"+prior)
	util := map[string]float64{}
	for _, e := range v["mechanisms"].([]any) {
		e := e.(map[string]any)
		if e["utility"] == nil {
			continue
		}
		util[e["name"].(string)] = float(t, e, "utility")
		if e["private"] != true {
			t.Errorf("%s: not private: %v", e["name"], e)
		}
	}
	best, ok := util["optimal-lp"]
	if _, sp := util["spanner-1.2"]; !ok || !sp {
		t.Fatalf("optimal-lp or spanner-1.2 missing: %v", util)
	}
	for name, u := range util {
		if u > best*(1+1e-6) {
			t.Errorf("%s: utility %v above the LP optimum %v", name, u, best)
		}
	}
}

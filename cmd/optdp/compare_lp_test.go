package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
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

// TestCompareRoadsLP: a road network of 121 junctions (above the 100
// answers of a dense metric) still gets its optimal-lp row, solved on the
// roads, with at least the utility of every other audited mechanism, and
// no spanner row (the roads are already sparse). The network is random: a
// jittered 11×11 grid's row streets, its first column street (which keep
// it connected), each other column segment with probability 0.5, and
// random diagonals.
func TestCompareRoadsLP(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const w = 11
	xs, ys := make([]float64, w*w), make([]float64, w*w)
	for i := range xs {
		xs[i], ys[i] = float64(i%w)+0.3*r.Float64(), float64(i/w)+0.3*r.Float64()
	}
	var sb strings.Builder
	road := func(u, v int) { fmt.Fprintf(&sb, "%d %d %.6f\n", u, v, math.Hypot(xs[u]-xs[v], ys[u]-ys[v])) }
	for i := range xs {
		row, col := i/w, i%w
		if col+1 < w {
			road(i, i+1)
		}
		if row+1 < w && (col == 0 || r.Float64() > 0.5) {
			road(i, i+w)
		}
		if row+1 < w && col+1 < w && r.Float64() < 0.15 {
			road(i, i+w+1)
		}
	}
	path := filepath.Join(t.TempDir(), "roads.txt")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	v := cliJSON(t, "compare", "--metric", "roads:file="+path, "--eps", "1")
	util := map[string]float64{}
	for _, e := range v["mechanisms"].([]any) {
		e := e.(map[string]any)
		if strings.HasPrefix(e["name"].(string), "spanner") {
			t.Errorf("a spanner row for a road network: %v", e)
		}
		if e["utility"] == nil {
			continue
		}
		util[e["name"].(string)] = float(t, e, "utility")
		if e["private"] != true {
			t.Errorf("%s: not private: %v", e["name"], e)
		}
	}
	best, ok := util["optimal-lp"]
	if !ok || len(util) < 2 {
		t.Fatalf("optimal-lp missing or alone: %v", util)
	}
	for name, u := range util {
		if u > best*(1+1e-6) {
			t.Errorf("%s: utility %v above the LP optimum %v", name, u, best)
		}
	}
}

package main

import (
	"math"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/metric"
)

// TestCompareLargeMatchesDense: on grids small enough for the dense path,
// the matrix-free path gives the same utility and leakage as the dense one
// (which builds X and computes the optimal remap and the leakage from it),
// and its audits pass, measuring no more than the dense audit over all pairs
// (they check a subset of the pairs). Where the mechanism does not exist
// both paths say so.
func TestCompareLargeMatchesDense(t *testing.T) {
	for _, c := range []struct {
		w, h int
		norm metric.Norm
		eps  float64
	}{{12, 12, metric.Euclid, 1}, {12, 9, metric.Euclid, 0.8}, {10, 10, metric.Manhattan, 0.7}, {12, 12, metric.Euclid, 0.4}} {
		g, err := metric.Grid(c.w, c.h, 1, c.norm)
		if err != nil {
			t.Fatal(err)
		}
		n := g.Len()
		uniform := make([]float64, n)
		for i := range uniform {
			uniform[i] = 1 / float64(n)
		}
		checked := 0
		for _, cand := range compareCandidates(g, c.eps) {
			if cand.name != "tight-constraints" && cand.name != "planar-laplace" {
				continue
			}
			checked++
			dense, err := evaluateCandidate(cand, g, c.eps, uniform, &compareScore{name: "binary"})
			if err != nil {
				t.Fatal(err)
			}
			large, err := evaluateLarge(cand.name, g, c.eps, compareMaxN)
			if err != nil {
				t.Fatal(err)
			}
			if dense.Utility == nil && strings.Contains(dense.Note, "does not exist") {
				// Euclidean 12×12 at eps 0.4: no tight-constraints mechanism.
				if large.Utility != nil || large.Note != dense.Note {
					t.Errorf("%s %s: matrix-free %+v, dense %+v", g, cand.name, large, dense)
				}
				continue
			}
			if dense.Utility == nil || large.Utility == nil || large.LeakageBits == nil || large.AuditEps == nil {
				t.Fatalf("%s %s: dense %+v large %+v", g, cand.name, dense, large)
			}
			if du, lu := float64(*dense.Utility), float64(*large.Utility); !near(lu, du, 1e-9) {
				t.Errorf("%s %s: matrix-free utility %v, dense %v", g, cand.name, lu, du)
			}
			if dl, ll := float64(*dense.LeakageBits), float64(*large.LeakageBits); !near(ll, dl, 1e-9) {
				t.Errorf("%s %s: matrix-free leakage %v, dense %v", g, cand.name, ll, dl)
			}
			if a := float64(*large.AuditEps); a > float64(*dense.AuditEps)*(1+1e-12) || a > c.eps*(1+1e-9) || a <= 0 || !*large.Private {
				t.Errorf("%s %s: matrix-free audit %v (private %v), dense %v, eps %v", g, cand.name, a, *large.Private, *dense.AuditEps, c.eps)
			}
		}
		if want := map[metric.Norm]int{metric.Euclid: 2, metric.Manhattan: 1}[c.norm]; checked != want {
			t.Errorf("%s: %d mechanisms with a matrix-free path, want %d", g, checked, want)
		}
	}
}

// TestCompareLargeCLI: a 100×100 grid (10000 answers, far above the dense
// limit) goes through the matrix-free path. The tight-constraints mechanism,
// optimal for the uniform prior, beats planar Laplace (the papers' claim);
// both pass their audits; leakage is log2(n·utility); the exponential
// mechanism is listed but not evaluated.
func TestCompareLargeCLI(t *testing.T) {
	v := cliJSON(t, "compare", "--metric", "grid:w=100,h=100,step=1", "--eps", "1")
	if float(t, v, "n") != 10000 {
		t.Fatalf("n = %v, want 10000", v["n"])
	}
	entries := map[string]map[string]any{}
	for _, e := range v["mechanisms"].([]any) {
		e := e.(map[string]any)
		entries[e["name"].(string)] = e
	}
	for _, name := range []string{"tight-constraints", "planar-laplace"} {
		e, ok := entries[name]
		if !ok {
			t.Fatalf("%s missing: %v", name, v["mechanisms"])
		}
		u := float(t, e, "utility")
		if u <= 0 || u >= 1 {
			t.Errorf("%s: utility %v outside (0, 1)", name, u)
		}
		if l := float(t, e, "leakage_bits"); !near(l, math.Log2(10000*u), 1e-12) {
			t.Errorf("%s: leakage %v, want log2(n·utility) = %v", name, l, math.Log2(10000*u))
		}
		// The audit is exact: the matrix-free tight mechanism on float64
		// Euclidean distances exceeds e^{eps d} by rounding (the distances
		// break the triangle inequality by an ulp), which the entry says.
		a := float(t, e, "audit_eps")
		rounding := name == "tight-constraints" && e["private"] == false && a <= 1+1e-12 && strings.Contains(e["note"].(string), "triangle inequality by rounding")
		if a > 1+1e-9 || a < 0.9 || (e["private"] != true && !rounding) {
			t.Errorf("%s: audit_eps %v private %v note %v, want a passed audit near 1", name, a, e["private"], e["note"])
		}
	}
	tu, pu := float(t, entries["tight-constraints"], "utility"), float(t, entries["planar-laplace"], "utility")
	if tu <= pu {
		t.Errorf("tight-constraints utility %v <= planar Laplace %v", tu, pu)
	}
	if e := entries["exponential"]; e == nil || e["utility"] != nil || e["audit_eps"] != nil || !strings.Contains(e["note"].(string), "not evaluated") {
		t.Errorf("exponential: %v, want listed with no numbers and a note", e)
	}
	// Planar Laplace out of range (eps·diagonal > 700): its note says why;
	// the tight-constraints mechanism (z ≈ 1) is still evaluated.
	v = cliJSON(t, "compare", "--metric", "grid:w=100,h=100,step=1", "--eps", "5")
	for _, e := range v["mechanisms"].([]any) {
		e := e.(map[string]any)
		switch e["name"] {
		case "tight-constraints":
			if u := float(t, e, "utility"); u <= 0.9 || u > 1 {
				t.Errorf("eps 5: tight utility %v, want in (0.9, 1]", u)
			}
		case "planar-laplace":
			if e["utility"] != nil || !strings.Contains(e["note"].(string), "700") {
				t.Errorf("eps 5: planar Laplace %v, want no numbers and the underflow note", e)
			}
		}
	}
}

// TestCompareLargeErrors: above the dense limit, a non-uniform prior, a
// non-grid metric and a grid too large for the matrix-free path are refused
// with errors saying why.
func TestCompareLargeErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--metric", "grid:w=100,h=100,step=1", "--eps", "1", "--prior", "file:/nonexistent/prior.txt"}, "uniform prior only"},
		{[]string{"--metric", "grid:w=40,h=40,step=1", "--eps", "1", "--prior", "product:0.5,0.5"}, "uniform prior only"},
		{[]string{"--metric", "line:n=2000", "--eps", "1"}, "only grid metrics have a matrix-free path"},
		{[]string{"--metric", "line:n=5000", "--eps", "1", "--force"}, "refused above 4096"},
		{[]string{"--metric", "grid:w=1000,h=1000,step=1", "--eps", "1"}, "refused above 262144"},
	} {
		code, out, errs := cli(append([]string{"compare"}, c.args...)...)
		if code != 1 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("compare %v: exit %d, stdout %q, stderr %q; want exit 1 and %q", c.args, code, out, errs, c.want)
		}
	}
}

// TestPlanarAuditPoints: the audited rows are distinct grid points: 12 on a
// large grid (3 bases, 4 points each), fewer where the grid is thin.
func TestPlanarAuditPoints(t *testing.T) {
	for _, c := range []struct{ w, h, want int }{{100, 100, 12}, {2, 2, 4}, {1, 3, 3}, {3, 1, 3}, {1, 1, 1}} {
		pts := planarAuditPoints(c.w, c.h)
		seen := map[int]bool{}
		for _, p := range pts {
			if p < 0 || p >= c.w*c.h || seen[p] {
				t.Errorf("%dx%d: point %d out of range or repeated in %v", c.w, c.h, p, pts)
			}
			seen[p] = true
		}
		if len(pts) != c.want {
			t.Errorf("%dx%d: %d points %v, want %d", c.w, c.h, len(pts), pts, c.want)
		}
	}
}

package repro

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/tight"
	"gonum.org/v1/plot"
)

// TestGeoNamesSolverUsed: REPORT.md names the solver that tight.Solve
// actually used on the geo grid (the CSV's solver column, and an
// independent tight.Solve of the same grid here), not an entry of the
// solver table; the iterations column is empty for a direct solver and a
// positive count for an iterative one.
func TestGeoNamesSolverUsed(t *testing.T) {
	r, dir := result(t, "geo")
	rows := readCSV(t, filepath.Join(dir, "geo_utility.csv"))
	col := slices.Index(rows[0], "solver")
	it := slices.Index(rows[0], "iterations")
	g, err := metric.Grid(20, 20, 1, metric.Euclid) // the quick run's grid
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tight.Solve(t.Context(), g, 0.4, &tight.Options{NoMechanism: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		if row[col] != string(ts.Solver) {
			t.Errorf("CSV solver %q, tight.Solve uses %q", row[col], ts.Solver)
		}
		if (ts.Iterations == 0) != (row[it] == "") {
			t.Errorf("iterations cell %q for solver %s (%d iterations)", row[it], ts.Solver, ts.Iterations)
		}
	}
	if want := "the solver it chose for this metric: " + string(ts.Solver) + " "; !strings.Contains(r.Markdown, want) {
		t.Errorf("report does not name the solver used (%q):\n%s", want, r.Markdown)
	}
	for _, s := range tight.Solvers() {
		if s != ts.Solver && strings.Contains(r.Markdown, "solver "+string(s)) {
			t.Errorf("report names solver %q, not used", s)
		}
	}
}

// TestNotComputedValues: a NaN headline value (no such value in this run)
// is moved to NotComputed, so the report marshals to JSON.
func TestNotComputedValues(t *testing.T) {
	r := newResult()
	r.Values["a"], r.Values["b"], r.Values["c"] = 1, math.NaN(), math.Inf(1)
	r.moveNotFinite()
	if len(r.Values) != 1 || r.Values["a"] != 1 || !slices.Equal(r.NotComputed, []string{"b", "c"}) {
		t.Fatalf("values %v, not computed %v", r.Values, r.NotComputed)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatal(err)
	}
	// The quick run's geo experiment: its 20x20 grid has no mechanism at
	// eps = 0.4 (min z < 0 in the CSV), so that utility is not computed.
	geo, dir := result(t, "geo")
	rows := readCSV(t, filepath.Join(dir, "geo_utility.csv"))
	if rows[1][0] != "0.4" || !strings.HasPrefix(rows[1][1], "-") || !slices.Contains(geo.NotComputed, "tight_utility_eps0.4") {
		t.Errorf("geo at 0.4: row %v, not computed %v", rows[1], geo.NotComputed)
	}
	b, err := os.ReadFile(filepath.Join(dir, "REPORT.md"))
	if err != nil || !strings.Contains(string(b), "Not computed in this run (no such value exists here): tight_utility_eps0.4") {
		t.Errorf("REPORT.md does not list the value not computed: %v", err)
	}
}

// TestNiceTicks: major ticks at 1-2-5 multiples, 4 to 11 of them over
// the range, labelled with no more decimals than the step needs.
func TestNiceTicks(t *testing.T) {
	for _, c := range []struct{ lo, hi float64 }{{0, 1}, {0, 0.2716}, {20, 140}, {0.8, 1.3}, {-0.23, 1.4}, {1, 8}, {0, 99.03}} {
		var major []plot.Tick
		for _, tk := range (niceTicks{}).Ticks(c.lo, c.hi) {
			if tk.Label != "" {
				major = append(major, tk)
			}
		}
		if len(major) < 4 || len(major) > 11 {
			t.Errorf("[%v, %v]: %d major ticks %v", c.lo, c.hi, len(major), major)
			continue
		}
		step := major[1].Value - major[0].Value
		m := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9))
		if math.Abs(m-1) > 1e-9 && math.Abs(m-2) > 1e-9 && math.Abs(m-5) > 1e-9 {
			t.Errorf("[%v, %v]: step %v is not 1, 2 or 5 × 10^k", c.lo, c.hi, step)
		}
		for _, tk := range major {
			v, err := strconv.ParseFloat(tk.Label, 64)
			dec := 0
			if i := strings.Index(tk.Label, "."); i >= 0 {
				dec = len(tk.Label) - i - 1
			}
			if err != nil || math.Abs(v-tk.Value) > 1e-9*step || dec != decimals(step) || tk.Value < c.lo-1e-9 || tk.Value > c.hi+1e-9 {
				t.Errorf("[%v, %v]: tick %v labelled %q (step %v)", c.lo, c.hi, tk.Value, tk.Label, step)
			}
		}
	}
}

// decimals is the number of decimals a step of 1, 2 or 5 × 10^k needs.
func decimals(step float64) int { return max(0, -int(math.Floor(math.Log10(step)+1e-9))) }

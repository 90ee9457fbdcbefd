package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func runCompareCLI(args ...string) (int, string, string) {
	return runCLI(append([]string{"compare"}, args...)...)
}

// TestCompareDistanceLoss: on line:n=3 at eps = ln 2 with the uniform
// prior the truncated geometric mechanism (rows (2/3, 1/6, 1/6),
// (1/3, 1/3, 1/3), (1/6, 1/6, 2/3)) has expected distance 5/9 as reported
// ((1/2 + 2/3 + 1/2)/3) and 5/9 with the optimal remap (the identity is
// optimal: columns weigh (4,2,1), (1,2,1), (1,2,4)); losses are reported as
// losses, in hops.
func TestCompareDistanceLoss(t *testing.T) {
	code, stdout, stderr := runCompareCLI("--metric", "line:n=3", "--eps", strconv.FormatFloat(math.Ln2, 'g', -1, 64), "--gain", "distance", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var v compareOutput
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatal(err)
	}
	if v.Gain != "distance" || v.Unit == nil || *v.Unit != "hops" {
		t.Errorf("gain %q unit %v", v.Gain, v.Unit)
	}
	found := false
	for _, e := range v.Mechanisms {
		if e.ExpectedLoss != nil && float64(*e.ExpectedLoss) < 0 {
			t.Errorf("%s: negative expected loss %v", e.Name, *e.ExpectedLoss)
		}
		if e.Name != "truncated-geometric" {
			continue
		}
		found = true
		if e.ExpectedLoss == nil || math.Abs(float64(*e.ExpectedLoss)-5.0/9) > 1e-12 ||
			e.ExpectedLossReported == nil || math.Abs(float64(*e.ExpectedLossReported)-5.0/9) > 1e-12 {
			t.Errorf("truncated geometric: expected loss %v, as reported %v; want 5/9", e.ExpectedLoss, e.ExpectedLossReported)
		}
	}
	if !found {
		t.Error("no truncated-geometric entry")
	}
	code, stdout, _ = runCompareCLI("--metric", "line:n=3", "--eps", "1", "--gain", "distance")
	if code != 0 || !strings.Contains(stdout, "EXPECTED LOSS (hops)") || !strings.Contains(stdout, "lowest expected loss among the private mechanisms: ") {
		t.Errorf("text output:\n%s", stdout)
	}
}

func TestCompareGainFlags(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "l.csv")
	if err := os.WriteFile(bad, []byte("0,1\n1,0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--gain", "distance", "--loss", "file:" + bad}, 2, "exclude each other"},
		{[]string{"--gain", "hamming"}, 2, "want binary, distance or file:PATH"},
		{[]string{"--loss", "file:" + bad}, 1, "2 rows, want 3"},
	} {
		code, _, stderr := runCompareCLI(append([]string{"--metric", "line:n=3", "--eps", "1"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, %q; want %d, %q", c.args, code, stderr, c.code, c.msg)
		}
	}
}

// TestComparePlanarLaplacePoints: on random points compare lists planar
// Laplace reported as the nearest point, private by its audit, and no
// better than the LP's optimum among all eps-private mechanisms (its
// expected distance with the optimal remap at least optimal-lp's, which
// is within 1e-8 of the optimum), nor better as reported than remapped;
// points on the sphere get it in the azimuthal equidistant plane, private
// against the great-circle distances.
func TestComparePlanarLaplacePoints(t *testing.T) {
	dir := t.TempDir()
	var xy, ll strings.Builder
	xy.WriteString("x,y\n")
	ll.WriteString("lat,lon\n")
	for i := range 12 {
		fmt.Fprintf(&xy, "%g,%g\n", math.Mod(float64(i)*3.7, 5), math.Mod(float64(i*i)*1.3, 4))
		fmt.Fprintf(&ll, "%g,%g\n", 48+math.Mod(float64(i)*0.037, 0.05), 2+math.Mod(float64(i*i)*0.013, 0.04))
	}
	pts, geo := filepath.Join(dir, "xy.csv"), filepath.Join(dir, "ll.csv")
	if err := os.WriteFile(pts, []byte(xy.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(geo, []byte(ll.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	entries := func(spec string) map[string]compareEntry {
		code, stdout, stderr := runCompareCLI("--metric", spec, "--eps", "1", "--gain", "distance", "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", spec, code, stderr)
		}
		var v compareOutput
		if err := json.Unmarshal([]byte(stdout), &v); err != nil {
			t.Fatal(err)
		}
		out := map[string]compareEntry{}
		for _, e := range v.Mechanisms {
			out[e.Name] = e
		}
		return out
	}
	es := entries("points:file=" + pts)
	pl, lp := es["planar-laplace"], es["optimal-lp"]
	if pl.Private == nil || !*pl.Private || pl.AuditEps == nil || float64(*pl.AuditEps) > 1 {
		t.Fatalf("planar-laplace: %+v", pl)
	}
	if pl.ExpectedLoss == nil || lp.ExpectedLoss == nil || float64(*pl.ExpectedLoss) < float64(*lp.ExpectedLoss)*(1-1e-7) {
		t.Errorf("planar-laplace's expected loss %v below the LP optimum's %v", pl.ExpectedLoss, lp.ExpectedLoss)
	}
	if pl.ExpectedLossReported == nil || float64(*pl.ExpectedLossReported) < float64(*pl.ExpectedLoss)*(1-1e-12) {
		t.Errorf("planar-laplace as reported %v, below its remapped %v", pl.ExpectedLossReported, pl.ExpectedLoss)
	}
	if e, ok := entries("latlon:file=" + geo)["planar-laplace"]; !ok || e.Private == nil || !*e.Private || !strings.Contains(e.Note, "azimuthal equidistant") {
		t.Errorf("points on the sphere: planar-laplace %+v", e)
	}
}

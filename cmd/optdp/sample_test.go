package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestSampleCommand: a mechanism written by optdp optimal --out on a point
// set samples records given as coordinates (snapped to the nearest point)
// and as indices; --seed reproduces the draws and says so; bad inputs are
// exit 1 (data) or 2 (command line).
func TestSampleCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	xy := write("xy.csv", "x,y\n0,0\n1,0\n0,1.5\n2,2\n3,0.5\n")
	spec := "points:file=" + xy
	mech := filepath.Join(dir, "mech.csv")
	if code, _, stderr := runCLI("optimal", "--metric", spec, "--eps", "1", "--prior", "uniform", "--gain", "distance", "--out", mech); code != 0 {
		t.Fatalf("optimal: exit %d: %s", code, stderr)
	}
	truth := write("true.csv", "t,y,x\na,0.2,0.1\nb,0.4,2.9\nc,1,1\n")
	code, out1, stderr := runCLI("sample", "--matrix", mech, "--metric", spec, "--eps", "1", "--true", truth, "--seed", "7")
	if code != 0 {
		t.Fatalf("sample: exit %d: %s", code, stderr)
	}
	_, out2, _ := runCLI("sample", "--matrix", mech, "--metric", spec, "--eps", "1", "--true", truth, "--seed", "7")
	if out1 != out2 || !strings.Contains(out1, "seeded with 7") {
		t.Errorf("seeded runs differ or do not say so:\n%s\n%s", out1, out2)
	}
	r := csv.NewReader(strings.NewReader(out1))
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != "true,reported,true_x,true_y,reported_x,reported_y" || len(recs) != 4 {
		t.Fatalf("CSV %v", recs)
	}
	// The farthest snap: (1,1) is 1 km from (1,0), on line 4 (the others
	// 0.2236 and 0.1414 km); within the places' extent, no warning.
	if !strings.Contains(out1, "the farthest 1 km from it (line 4)") || stderr != "" {
		t.Errorf("snap summary:\n%s\nstderr %q", out1, stderr)
	}
	for k, want := range []string{"0", "4", "1"} { // nearest points of (0.1,0.2), (2.9,0.4), (1,1)
		if recs[k+1][0] != want {
			t.Errorf("record %d snapped to %s, want %s", k, recs[k+1][0], want)
		}
	}
	code, out3, _ := runCLI("sample", "--matrix", mech, "--metric", spec, "--eps", "1", "--true", write("idx.txt", "0\n3\n"))
	if code != 0 || !strings.Contains(out3, "randomness crypto/rand") {
		t.Errorf("crypto run: exit %d\n%s", code, out3)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--true", write("bad.txt", "0\n5\n")}, 1, "line 2: \"5\" is not an answer index in 0..4"},
		{[]string{"--true", write("ll.csv", "lat,lon\n1,1\n")}, 1, "cannot place lat/lon"},
		{[]string{"--true", write("nan.csv", "x,y\nNaN,1\n")}, 1, "not finite"},
		{[]string{"--true", truth, "--json"}, 2, "give --out"},
		{[]string{}, 2, "--true is required"},
	} {
		code, _, stderr := runCLI(append([]string{"sample", "--matrix", mech, "--metric", spec, "--eps", "1"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d %q, want %d %q", c.args, code, stderr, c.code, c.msg)
		}
	}
	// A record from another map: snapped, with a warning, and its distance
	// in the JSON (9 km from (3,0.5), more than the places' 3.162 km).
	far := write("far.csv", "x,y\n0.1,0.2\n12,0.5\n")
	code, js, stderr := runCLI("sample", "--matrix", mech, "--metric", spec, "--eps", "1", "--true", far, "--seed", "1", "--json", "--out", filepath.Join(dir, "rep.csv"))
	var v sampleOutput
	if code != 0 || json.Unmarshal([]byte(js), &v) != nil || v.SnapMax == nil || math.Abs(*v.SnapMax-9) > 1e-12 || v.SnapMaxLine != 3 ||
		!strings.Contains(stderr, "line 3 is 9 km from the nearest place") {
		t.Errorf("far record: exit %d, %s, stderr %q", code, js, stderr)
	}
	// A grid on a map places its cells by lat, lon: x, y records (km) get
	// no distance in other units; lat, lon records one within half a
	// cell's diagonal (0.05° by 0.1° cells at 48.85°N, 5.56 by 7.33 km:
	// 4.6 km).
	gspec := "grid:w=2,h=2,bbox=48.8,2.3,48.9,2.5"
	gmech := filepath.Join(dir, "gmech.csv")
	if code, _, stderr := runCLI("optimal", "--metric", gspec, "--eps", "1", "--prior", "uniform", "--out", gmech); code != 0 {
		t.Fatalf("optimal on %s: exit %d: %s", gspec, code, stderr)
	}
	for _, c := range []struct {
		body string
		snap bool
	}{{"x,y\n1,1\n5,8\n", false}, {"lat,lon\n48.81,2.31\n48.88,2.45\n", true}} {
		code, js, stderr := runCLI("sample", "--matrix", gmech, "--metric", gspec, "--eps", "1", "--true", write("g.csv", c.body), "--seed", "1", "--json", "--out", filepath.Join(dir, "g-rep.csv"))
		var v sampleOutput
		if code != 0 || json.Unmarshal([]byte(js), &v) != nil || (v.SnapMax != nil) != c.snap || c.snap && !(*v.SnapMax < 4.61) || stderr != "" {
			t.Errorf("%q on %s: exit %d, %s, stderr %q", c.body, gspec, code, js, stderr)
		}
	}
	// At a smaller eps the matrix is not private: refused before sampling.
	if code, _, stderr := runCLI("sample", "--matrix", mech, "--metric", spec, "--eps", "0.5", "--true", truth); code != 1 || !strings.Contains(stderr, "not 0.5·d-private") {
		t.Errorf("eps 0.5: exit %d %q", code, stderr)
	}
}

// TestPlotCommand: the map of a mechanism on a point set is written as SVG;
// a metric without places and a bad --out are command-line mistakes.
func TestPlotCommand(t *testing.T) {
	dir := t.TempDir()
	xy := filepath.Join(dir, "xy.csv")
	if err := os.WriteFile(xy, []byte("x,y\n0,0\n1,0\n0,1.5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mech := filepath.Join(dir, "mech.csv")
	if code, _, stderr := runCLI("optimal", "--metric", "points:file="+xy, "--eps", "1", "--prior", "uniform", "--out", mech); code != 0 {
		t.Fatalf("optimal: exit %d: %s", code, stderr)
	}
	svg := filepath.Join(dir, "map.svg")
	if code, _, stderr := runCLI("plot", "--matrix", mech, "--metric", "points:file="+xy, "--from", "0,2", "--out", svg); code != 0 {
		t.Fatalf("plot: exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "reports from 2") {
		t.Errorf("no SVG map written: %v", err)
	}
	for _, args := range [][]string{
		{"--matrix", mech, "--metric", "line:n=3", "--out", svg},
		{"--matrix", mech, "--metric", "points:file=" + xy, "--out", filepath.Join(dir, "map.gif")},
		{"--matrix", mech, "--metric", "points:file=" + xy, "--from", "7", "--out", svg},
	} {
		if code, _, _ := runCLI(append([]string{"plot"}, args...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// sub is v[key] as an object, failing the test otherwise.
func sub(t *testing.T, v map[string]any, key string) map[string]any {
	t.Helper()
	o, ok := v[key].(map[string]any)
	if !ok {
		t.Fatalf("field %q = %#v, want an object", key, v[key])
	}
	return o
}

// TestMeasureIdentity: the identity channel under the prior
// (1/2, 1/4, 1/8, 1/8): it leaks all of H(pi) = 1.75 bits, leaves 1 guess
// of G(pi) = 1.875, posterior vulnerability 1, min-capacity log2 4 = 2, and
// the distance loss on line:n=4 goes from the median's 0.75 to 0.
func TestMeasureIdentity(t *testing.T) {
	dir := t.TempDir()
	x := filepath.Join(dir, "id.csv")
	writeFile(t, x, "1,0,0,0\n0,1,0,0\n0,0,1,0\n0,0,0,1\n")
	p := filepath.Join(dir, "prior.txt")
	writeFile(t, p, "0.5\n0.25\n0.125\n0.125\n")
	v := cliJSON(t, "measure", "--matrix", x, "--prior", "file:"+p, "--metric", "line:n=4", "--loss", "distance", "--gain", "binary")
	sh, ba, gu := sub(t, v, "shannon"), sub(t, v, "bayes"), sub(t, v, "guessing")
	checks := []struct {
		name      string
		got, want float64
	}{
		{"shannon entropy", float(t, sh, "entropy_bits"), 1.75},
		{"shannon leakage", float(t, sh, "leakage_bits"), 1.75},
		{"cond entropy", float(t, sh, "cond_entropy_bits"), 0},
		{"capacity lower", float(t, sh, "capacity_lower_bits"), 2},
		{"guessing prior", float(t, gu, "prior"), 1.875},
		{"guessing posterior", float(t, gu, "posterior"), 1},
		{"bayes prior", float(t, ba, "prior_vulnerability"), 0.5},
		{"bayes posterior", float(t, ba, "posterior_vulnerability"), 1},
		{"min-entropy leakage", float(t, ba, "leakage_bits"), 1},
		{"min-capacity", float(t, ba, "min_capacity_bits"), 2},
		{"gain posterior", float(t, sub(t, v, "gain"), "posterior_vulnerability"), 1},
		{"g-capacity (identity gain: the min-capacity)", float(t, sub(t, v, "gain"), "capacity_upper_bits"), 2},
		// The median of (1/2, 1/4, 1/8, 1/8) on 0..3 is 0 or 1: expected
		// distance from 1 is 1/2·1 + 1/8·1 + 1/8·2 = 0.875, from 0 it is
		// 1/4 + 2/8 + 3/8 = 0.875.
		{"loss prior", float(t, sub(t, v, "loss"), "prior_risk"), 0.875},
		{"loss posterior", float(t, sub(t, v, "loss"), "posterior_risk"), 0},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-6 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if up := float(t, sh, "capacity_upper_bits"); up < 2-1e-12 || up > 2+1e-6 {
		t.Errorf("capacity upper %v, want 2", up)
	}
	// Human output names the sections.
	code, out, errs := cli("measure", "--matrix", x, "--prior", "file:"+p)
	if code != 0 || !strings.Contains(out, "Shannon") || !strings.Contains(out, "Guessing entropy") {
		t.Errorf("human output: exit %d, %q, %q", code, out, errs)
	}
}

// TestMeasureBSCRefinement: the BSC(0.1) under the uniform prior leaks
// 1 - h(0.1) bits (also its capacity); it is refined by the BSC(0.3) (a
// cascade with a BSC(0.25)) and not the other way round.
func TestMeasureBSCRefinement(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	writeFile(t, a, "0.9,0.1\n0.1,0.9\n")
	writeFile(t, b, "0.7,0.3\n0.3,0.7\n")
	h := -0.1*math.Log2(0.1) - 0.9*math.Log2(0.9)
	v := cliJSON(t, "measure", "--matrix", a, "--refined-by", b)
	sh := sub(t, v, "shannon")
	if l := float(t, sh, "leakage_bits"); math.Abs(l-(1-h)) > 1e-12 {
		t.Errorf("leakage %v, want %v", l, 1-h)
	}
	lo, up := float(t, sh, "capacity_lower_bits"), float(t, sh, "capacity_upper_bits")
	if !(lo <= 1-h+1e-12 && 1-h <= up+1e-12 && up-lo <= 1e-6) {
		t.Errorf("capacity bracket [%v, %v], want 1 - h(0.1) = %v", lo, up, 1-h)
	}
	if r := sub(t, v, "refinement"); r["verdict"] != "yes" {
		t.Errorf("BSC(0.1) refined by BSC(0.3): %v", r)
	}
	v = cliJSON(t, "measure", "--matrix", b, "--refined-by", a)
	if r := sub(t, v, "refinement"); r["verdict"] != "no" || float(t, r, "witness_gap") <= 0 {
		t.Errorf("BSC(0.3) refined by BSC(0.1): %v", r)
	}
	// BSC(0.1) then BSC(0.25) is BSC(0.3): the same leakage as b.
	q := filepath.Join(dir, "q.csv")
	writeFile(t, q, "0.75,0.25\n0.25,0.75\n")
	hb := -0.3*math.Log2(0.3) - 0.7*math.Log2(0.7)
	v = cliJSON(t, "measure", "--matrix", a, "--cascade", q, "--capacity-tol", "0")
	if l := float(t, sub(t, v, "shannon"), "leakage_bits"); math.Abs(l-(1-hb)) > 1e-12 || v["composed"] != "cascade with "+q {
		t.Errorf("cascade: leakage %v, want 1 - h(0.3) = %v (%v)", l, 1-hb, v["composed"])
	}
	// Two independent BSC(0.1) views of a uniform bit: by hand,
	// V = 2·(0.5·0.81) + 2·(0.5·0.09) = 0.9 (agreeing views: guess them;
	// disagreeing ones: a coin), no better than one view.
	v = cliJSON(t, "measure", "--matrix", a, "--parallel", a, "--capacity-tol", "0")
	if vb := float(t, sub(t, v, "bayes"), "posterior_vulnerability"); math.Abs(vb-0.9) > 1e-12 || float(t, v, "outputs") != 4 {
		t.Errorf("parallel: vulnerability %v, want 0.9; %v", vb, v)
	}
}

// TestMeasureMapPrior: a points prior on a grid on a map; the constant
// channel leaves every measure at its prior value.
func TestMeasureMapPrior(t *testing.T) {
	dir := t.TempDir()
	x := filepath.Join(dir, "const.csv")
	writeFile(t, x, "1\n1\n1\n1\n")
	pts := filepath.Join(dir, "pts.csv")
	writeFile(t, pts, "lat,lon\n11.5,20.5\n11.9,21.9\n10.1,23.9\n0,0\n")
	v := cliJSON(t, "measure", "--matrix", x, "--metric", "grid:w=2,h=2,bbox=10,20,12,24", "--prior", "points:"+pts+",pseudo=1")
	mp := sub(t, v, "map_prior")
	if float(t, mp, "points") != 4 || float(t, mp, "outside") != 1 {
		t.Errorf("map prior %v", mp)
	}
	// Counts (2, 0, 0, 1) + 1 over 7: vulnerability 3/7.
	if vb := float(t, sub(t, v, "bayes"), "prior_vulnerability"); math.Abs(vb-3.0/7) > 1e-15 {
		t.Errorf("prior vulnerability %v, want 3/7", vb)
	}
	if l := float(t, sub(t, v, "shannon"), "leakage_bits"); math.Abs(l) > 1e-15 {
		t.Errorf("constant channel leaks %v", l)
	}
	// A raster prior.
	ras := filepath.Join(dir, "w.csv")
	writeFile(t, ras, "1,3\n0,4\n")
	v = cliJSON(t, "measure", "--matrix", x, "--metric", "grid:w=2,h=2", "--prior", "raster:"+ras)
	if vb := float(t, sub(t, v, "bayes"), "prior_vulnerability"); vb != 0.5 {
		t.Errorf("raster prior vulnerability %v, want 0.5", vb)
	}
}

// TestMeasureErrors: command-line mistakes exit 2, bad files exit 1.
func TestMeasureErrors(t *testing.T) {
	dir := t.TempDir()
	x := filepath.Join(dir, "x.csv")
	writeFile(t, x, "0.5,0.5\n0.2,0.8\n")
	bad := filepath.Join(dir, "bad.csv")
	writeFile(t, bad, "0.5,0.6\n0.2,0.8\n")
	g3 := filepath.Join(dir, "g3.csv")
	writeFile(t, g3, "1,0\n0,1\n0,0\n")
	pts := filepath.Join(dir, "pts.csv")
	writeFile(t, pts, "11,21\n")
	cases := []struct {
		args []string
		code int
	}{
		{[]string{"measure"}, 2},
		{[]string{"measure", "--matrix", x, "--loss", "distance"}, 2},
		{[]string{"measure", "--matrix", x, "--gain", "nonsense"}, 2},
		{[]string{"measure", "--matrix", x, "--capacity-tol", "-1"}, 2},
		{[]string{"measure", "--matrix", x, "--prior", "points:" + pts}, 2}, // not a grid
		{[]string{"measure", "--matrix", bad}, 1},
		{[]string{"measure", "--matrix", x, "--gain", "file:" + g3}, 1},
		{[]string{"measure", "--matrix", x, "--metric", "line:n=3"}, 1},
		{[]string{"measure", "--matrix", x, "--refined-by", bad}, 1},
		{[]string{"measure", "--matrix", x, "--metric", "grid:w=2,h=1", "--prior", "points:" + pts}, 1}, // no header
	}
	for _, c := range cases {
		code, _, errs := cli(c.args...)
		if code != c.code {
			t.Errorf("optdp %s: exit %d, want %d (%s)", strings.Join(c.args, " "), code, c.code, errs)
		}
	}
}

// TestMeasureJSONDocumented: every field measure prints with every option
// on is listed in `optdp help measure` (helpers of surface_test.go).
func TestMeasureJSONDocumented(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	writeFile(t, a, "0.9,0.1\n0.1,0.9\n")
	writeFile(t, b, "0.7,0.3\n0.3,0.7\n")
	pts := filepath.Join(dir, "p.csv")
	writeFile(t, pts, "x,y\n0.1,0.1\n")
	v := cliJSON(t, "measure", "--matrix", a, "--cascade", b, "--refined-by", b, "--gain", "binary", "--loss", "distance",
		"--metric", "grid:w=2,h=1", "--prior", "points:"+pts+",pseudo=1")
	keys := map[string]bool{}
	jsonKeys(v, keys)
	doc := helpFieldNames(t, "measure")
	for k := range keys {
		if !doc[k] {
			t.Errorf("optdp measure --json prints %q, which optdp help measure does not document", k)
		}
	}
	if len(keys) < 40 {
		t.Errorf("only %d fields printed: %v", len(keys), keys)
	}
}

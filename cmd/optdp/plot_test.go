package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/metric"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
)

// TestOptimalPlot: optimal --plot draws the map of the mechanism it
// computed, with the reports from the three locations of largest prior
// (here set by a counts file: 40, 30 and 20 visits at rows 4, 1 and 3);
// a metric without places or a bad extension is refused before the solve
// (even before the missing --prior is noticed).
func TestOptimalPlot(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	xy := write("xy.csv", "x,y\n0,0\n1,0\n0,1.5\n2,2\n0.5,3\n")
	counts := write("counts.txt", "5\n30\n5\n20\n40\n")
	svg := filepath.Join(dir, "map.svg")
	code, out, stderr := runCLI("optimal", "--metric", "points:file="+xy, "--eps", "1", "--prior", "counts:"+counts, "--gain", "distance", "--plot", svg, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res optimalResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Plot != svg || !slices.Equal(res.PlotRows, []int{4, 1, 3}) {
		t.Errorf("plot %q rows %v, want %q [4 1 3]", res.Plot, res.PlotRows, svg)
	}
	b, err := os.ReadFile(svg)
	if err != nil || !strings.Contains(string(b), "<svg") {
		t.Fatalf("no SVG map written: %v", err)
	}
	for _, r := range []string{"reports from 4", "reports from 1", "reports from 3"} {
		if !strings.Contains(string(b), r) {
			t.Errorf("the map has no legend %q", r)
		}
	}
	// Every colour is #RRGGBB: the rings' translucent colours are not
	// premultiplied values out of range (which wrote "#1553E3F").
	colours := regexp.MustCompile(`(stroke|fill):#([0-9A-Fa-f]*)`).FindAllStringSubmatch(string(b), -1)
	if len(colours) == 0 {
		t.Error("no colours in the SVG")
	}
	for _, c := range colours {
		if len(c[2]) != 6 {
			t.Errorf("colour %q", c[0])
		}
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--metric", "line:n=5", "--plot", svg}, "has no places to draw"},
		{[]string{"--metric", "points:file=" + xy, "--plot", filepath.Join(dir, "map.jpg")}, "want FILE.svg or FILE.png"},
	} {
		code, _, stderr := runCLI(append([]string{"optimal", "--eps", "1"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d %q, want 2 %q", c.args, code, stderr, c.msg)
		}
	}
}

// TestNewMapAxes: the map's axes have equal ground scales (planar: equal
// extents; on the sphere at latitude 60, a degree of longitude is half a
// degree of latitude), places across the antimeridian stay together (the
// longitude axis spans a fraction of a degree, not 360), and every
// labelled tick reads distinctly and within a thousandth of the spacing of
// its value, longitudes within (-180, 180].
func TestNewMapAxes(t *testing.T) {
	uniform := func(n int) []float64 {
		p := make([]float64, n)
		for i := range p {
			p[i] = 1 / float64(n)
		}
		return p
	}
	check := func(name string, m metric.Metric, xScale float64) *plot.Plot {
		t.Helper()
		n := m.Len()
		x := mat.NewDense(n, n, nil)
		for i := range n {
			x.Set(i, i, 1)
		}
		p, err := newMap(m.(metric.Locator), name, uniform(n), x, []int{0})
		if err != nil {
			t.Fatal(err)
		}
		w, h := (p.X.Max-p.X.Min)*xScale, p.Y.Max-p.Y.Min
		if math.Abs(w-h) > 1e-9*h {
			t.Errorf("%s: ground extents %v across, %v up; want equal", name, w, h)
		}
		for _, ax := range []struct {
			a    plot.Axis
			wrap bool
		}{{p.X, name == "antimeridian"}, {p.Y, false}} {
			ticks := ax.a.Tick.Marker.Ticks(ax.a.Min, ax.a.Max)
			var vals []float64
			var labels []string
			for _, k := range ticks {
				if k.Label != "" {
					vals, labels = append(vals, k.Value), append(labels, k.Label)
				}
			}
			if len(vals) < 2 {
				t.Fatalf("%s: %d labelled ticks", name, len(vals))
			}
			spacing := vals[1] - vals[0]
			for k, l := range labels {
				v, err := strconv.ParseFloat(l, 64)
				want := vals[k]
				if ax.wrap {
					want = -math.Remainder(-want, 360)
				}
				if err != nil || math.Abs(v-want) > spacing/1000 || ax.wrap && (v <= -180 || v > 180) {
					t.Errorf("%s: tick %v labelled %q", name, vals[k], l)
				}
				if k > 0 && l == labels[k-1] {
					t.Errorf("%s: ticks %v and %v both labelled %q", name, vals[k-1], vals[k], l)
				}
			}
		}
		return p
	}
	planar, err := metric.Points([]float64{0, 10, 4}, []float64{0, 1, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	check("planar", planar, 1)
	sixty, err := metric.LatLon([]float64{59.9, 60.1, 60}, []float64{10, 10.2, 10.1})
	if err != nil {
		t.Fatal(err)
	}
	check("sixty", sixty, math.Cos(60*math.Pi/180))
	// Labels of a small latitude range (gonum's default labels read 49
	// at 48.80, 48.85 and 48.90).
	paris, err := metric.LatLon([]float64{48.80, 48.90, 48.85}, []float64{2.30, 2.40, 2.35})
	if err != nil {
		t.Fatal(err)
	}
	check("paris", paris, math.Cos(48.85*math.Pi/180))
	fiji, err := metric.LatLon([]float64{-17.8, -17.85, -17.9}, []float64{179.95, -179.95, 179.9})
	if err != nil {
		t.Fatal(err)
	}
	p := check("antimeridian", fiji, math.Cos(17.85*math.Pi/180))
	if p.X.Max-p.X.Min > 1 {
		t.Errorf("antimeridian: longitudes %v to %v, want within a degree", p.X.Min, p.X.Max)
	}
}

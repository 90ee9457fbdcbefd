package main

// optdp plot: a map of the prior and of where a mechanism sends a few true
// locations (gonum/plot, PNG or SVG).

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/optdp/optdp/mech/metric"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// plotMaxN bounds the locations drawn (one glyph each per layer).
const plotMaxN = 1 << 16

func plotCommand() command {
	return command{
		name:    "plot",
		summary: "draw the prior and where a mechanism sends a few true locations, on the metric's map (PNG or SVG)",
		usage:   "--matrix M.csv|M.npy --metric SPEC [--prior P] [--from i,j,...] --out FILE.svg|FILE.png [--json]",
		examples: []string{
			"optdp plot --matrix mech.csv --metric points:file=xy.csv --prior points:visits.csv,pseudo=1 --out map.svg",
			"optdp plot --matrix mech.csv --metric grid:w=8,h=8,step=1 --from 0,27 --out map.png",
		},
		fields: []string{
			"metric          the metric spec, normalised",
			"n               number of locations",
			"rows            the true locations whose reports are drawn",
			"out             the image written",
		},
		run: runPlot,
	}
}

type plotOutput struct {
	Metric string `json:"metric"`
	N      int    `json:"n"`
	Rows   []int  `json:"rows"`
	Out    string `json:"out"`
}

func runPlot(env *runEnv, args []string) error {
	fs := newFlags(env, "plot")
	matrixPath := fs.String("matrix", "", "the mechanism: an n×n row-stochastic matrix (CSV or .npy)")
	metricSpec := fs.String("metric", "", metricFlagHelp+"; one with places: grid, points:, latlon:")
	prior := fs.String("prior", "uniform", priorSpecHelp+", "+mapPriorHelp)
	from := fs.String("from", "", "the true locations whose rows are drawn, comma-separated indices (default: the 3 most probable under the prior)")
	out := fs.String("out", "", "the image: FILE.svg or FILE.png (required)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	if err := checkImagePath("--out", *out); err != nil {
		return err
	}
	if *matrixPath == "" {
		return usagef("--matrix is required")
	}
	m, err := parseMetricFlag(*metricSpec, flagsGiven(fs)["metric"])
	if err != nil {
		return err
	}
	loc, err := mapLocator(m)
	if err != nil {
		return err
	}
	n := m.Len()
	ps, err := parsePrior(*prior, m, true)
	if err != nil {
		return priorError(*prior, err)
	}
	x, err := readMatrixPath(*matrixPath)
	if err != nil {
		return dataError{fmt.Errorf("--matrix: %w", err)}
	}
	if r, c := x.Dims(); r != n || c != n {
		return dataError{fmt.Errorf("--matrix %s: %d×%d, want %d×%d (one row and column per location of %s)", *matrixPath, r, c, n, n, m)}
	}
	rows, err := plotRows(*from, ps.prior, n)
	if err != nil {
		return err
	}
	if err := drawMap(loc, m.String(), ps.prior, x, rows, *out); err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.stdout, plotOutput{Metric: m.String(), N: n, Rows: rows, Out: *out})
	}
	fmt.Fprintf(env.stdout, "wrote %s: %d locations, rows %v\n", *out, n, rows)
	return nil
}

// checkImagePath checks that path (of flag) names an SVG or PNG image.
func checkImagePath(flag, path string) error {
	if ext := strings.ToLower(filepath.Ext(path)); ext != ".svg" && ext != ".png" {
		return usagef("%s %q: want FILE.svg or FILE.png", flag, path)
	}
	return nil
}

// mapLocator returns m's places, or why it cannot be drawn: no places, or
// more than plotMaxN of them.
func mapLocator(m metric.Metric) (metric.Locator, error) {
	loc, ok := m.(metric.Locator)
	if !ok {
		return nil, usagef("--metric %s has no places to draw (want grid:..., points:file=... or latlon:file=...)", m)
	}
	if n := m.Len(); n > plotMaxN {
		return nil, fmt.Errorf("%s has %d locations, more than the %d a map draws", m, n, plotMaxN)
	}
	return loc, nil
}

// drawMap writes to out (SVG or PNG, by its extension) the map of newMap.
func drawMap(loc metric.Locator, name string, prior []float64, x *mat.Dense, rows []int, out string) error {
	p, err := newMap(loc, name, prior, x, rows)
	if err != nil {
		return err
	}
	if err := p.Save(6*vg.Inch, 6*vg.Inch, out); err != nil {
		return fmt.Errorf("writing the map %s: %w", out, err)
	}
	return nil
}

// newMap draws loc's places, titled name: the prior as grey discs of area
// proportional to it, and for each true location of rows, a cross and the
// reports the mechanism x (n×n) sends from it, as rings of area
// proportional to the row's probabilities. The axes have the same scale
// (a square of ground is drawn square: on the sphere, a degree of
// longitude is cos(latitude) of a degree of latitude at the map's middle),
// longitudes are unwrapped about their circular mean (a map across the
// antimeridian stays in one piece; labels read within ±180), and the tick
// labels have the decimals that tell them apart (mapTicks).
func newMap(loc metric.Locator, name string, prior []float64, x *mat.Dense, rows []int) (*plot.Plot, error) {
	n := len(prior)
	pts := make(plotter.XYs, n)
	_, _, geo := loc.Place(0)
	var sin, cos float64
	for i := range pts {
		a, b, _ := loc.Place(i)
		if geo {
			a, b = b, a // lon across, lat up
			sin, cos = sin+math.Sin(a*math.Pi/180), cos+math.Cos(a*math.Pi/180)
		}
		pts[i] = plotter.XY{X: a, Y: b}
	}
	xScale := 1.0 // ground per unit across, relative to up
	if geo {
		mid := math.Atan2(sin, cos) * 180 / math.Pi
		for i := range pts {
			pts[i].X = mid + math.Remainder(pts[i].X-mid, 360)
		}
	}
	xmin, xmax, ymin, ymax := plotter.XYRange(pts)
	if geo {
		xScale = max(math.Cos((ymin+ymax)/2*math.Pi/180), 1e-3)
	}
	// Equal scales: the narrower extent widened about its middle.
	w, h := (xmax-xmin)*xScale, ymax-ymin
	side := max(w, h, 1e-9*max(math.Abs(xmax), math.Abs(ymax), 1))
	pad := 0.04 * side
	xc, yc := (xmin+xmax)/2, (ymin+ymax)/2
	p := plot.New()
	p.X.Min, p.X.Max = xc-(side/2+pad)/xScale, xc+(side/2+pad)/xScale
	p.Y.Min, p.Y.Max = yc-side/2-pad, yc+side/2+pad
	p.X.Tick.Marker = mapTicks{wrap: geo}
	p.Y.Tick.Marker = mapTicks{}
	p.Title.Text = fmt.Sprintf("%s: prior (grey) and reports from %d true locations", name, len(rows))
	p.X.Label.Text, p.Y.Label.Text = "x (km)", "y (km)"
	if geo {
		p.X.Label.Text, p.Y.Label.Text = "longitude", "latitude"
	}
	p.Add(plotter.NewGrid())
	if err := addLayer(p, pts, prior, color.RGBA{150, 150, 150, 255}, draw.CircleGlyph{}, ""); err != nil {
		return nil, err
	}
	palette := []color.RGBA{{214, 39, 40, 255}, {31, 119, 180, 255}, {44, 160, 44, 255}, {255, 127, 14, 255}, {148, 103, 189, 255}}
	for k, i := range rows {
		c := palette[k%len(palette)]
		if err := addLayer(p, pts, x.RawRowView(i), color.NRGBA{R: c.R, G: c.G, B: c.B, A: 160}, draw.RingGlyph{}, fmt.Sprintf("reports from %d", i)); err != nil {
			return nil, err
		}
		t, err := plotter.NewScatter(plotter.XYs{pts[i]})
		if err != nil {
			return nil, err
		}
		t.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(7), Shape: draw.CrossGlyph{}}
		p.Add(t)
	}
	return p, nil
}

// mapTicks is gonum/plot's default ticks, labelled with the fewest
// decimals (up to 12) that tell the labelled ticks apart and read each
// within a thousandth of their spacing; with wrap, longitudes read within
// (-180, 180].
type mapTicks struct{ wrap bool }

// Ticks implements plot.Ticker.
func (t mapTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	var vs []float64
	for _, k := range ticks {
		if k.Label != "" {
			vs = append(vs, k.Value)
		}
	}
	spacing := math.Inf(1)
	for k := 1; k < len(vs); k++ {
		spacing = min(spacing, vs[k]-vs[k-1])
	}
	label := func(v float64, dec int) string {
		if t.wrap {
			v = -math.Remainder(-v, 360) // (-180, 180]
		}
		return strconv.FormatFloat(v, 'f', dec, 64)
	}
	dec := 0
	for ; dec < 12; dec++ {
		ok := true
		for k, v := range vs {
			r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', dec, 64), 64)
			if math.Abs(r-v) > spacing/1000 || k > 0 && label(v, dec) == label(vs[k-1], dec) {
				ok = false
				break
			}
		}
		if ok {
			break
		}
	}
	for k := range ticks {
		if ticks[k].Label != "" {
			ticks[k].Label = label(ticks[k].Value, dec)
		}
	}
	return ticks
}

// addLayer draws one glyph per location with area proportional to w.
func addLayer(p *plot.Plot, pts plotter.XYs, w []float64, c color.Color, shape draw.GlyphDrawer, legend string) error {
	top := slices.Max(w)
	if !(top > 0) {
		return nil
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: c, Shape: shape, Radius: vg.Points(4)} // the legend's
	s.GlyphStyleFunc = func(i int) draw.GlyphStyle {
		return draw.GlyphStyle{Color: c, Shape: shape, Radius: vg.Points(0.5 + 8*math.Sqrt(w[i]/top))}
	}
	p.Add(s)
	if legend != "" {
		p.Legend.Add(legend, s)
	}
	return nil
}

// plotRows parses --from, or picks the 3 most probable locations.
func plotRows(from string, prior []float64, n int) ([]int, error) {
	if from == "" {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			switch {
			case prior[a] > prior[b]:
				return -1
			case prior[a] < prior[b]:
				return 1
			}
			return 0
		})
		return idx[:min(3, n)], nil
	}
	var rows []int
	for _, s := range strings.Split(from, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || i < 0 || i >= n {
			return nil, usagef("--from %q: %q is not a location index in 0..%d", from, s, n-1)
		}
		rows = append(rows, i)
	}
	if len(rows) > 10 {
		return nil, usagef("--from: at most 10 locations, got %d", len(rows))
	}
	return rows, nil
}

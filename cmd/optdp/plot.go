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
	ext := strings.ToLower(filepath.Ext(*out))
	if ext != ".svg" && ext != ".png" {
		return usagef("--out %q: want FILE.svg or FILE.png", *out)
	}
	if *matrixPath == "" {
		return usagef("--matrix is required")
	}
	m, err := parseMetricFlag(*metricSpec, flagsGiven(fs)["metric"])
	if err != nil {
		return err
	}
	loc, ok := m.(metric.Locator)
	if !ok {
		return usagef("--metric %s has no places to draw (want grid:..., points:file=... or latlon:file=...)", m)
	}
	n := m.Len()
	if n > plotMaxN {
		return fmt.Errorf("%s has %d locations, more than the %d plot draws", m, n, plotMaxN)
	}
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
	pts := make(plotter.XYs, n)
	_, _, geo := loc.Place(0)
	for i := range pts {
		a, b, _ := loc.Place(i)
		if geo {
			a, b = b, a // lon across, lat up
		}
		pts[i] = plotter.XY{X: a, Y: b}
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: prior (grey) and reports from %d true locations", m, len(rows))
	p.X.Label.Text, p.Y.Label.Text = "x (km)", "y (km)"
	if geo {
		p.X.Label.Text, p.Y.Label.Text = "longitude", "latitude"
	}
	p.Add(plotter.NewGrid())
	if err := addLayer(p, pts, ps.prior, color.RGBA{150, 150, 150, 255}, draw.CircleGlyph{}, ""); err != nil {
		return err
	}
	palette := []color.RGBA{{214, 39, 40, 255}, {31, 119, 180, 255}, {44, 160, 44, 255}, {255, 127, 14, 255}, {148, 103, 189, 255}}
	for k, i := range rows {
		c := palette[k%len(palette)]
		if err := addLayer(p, pts, x.RawRowView(i), color.RGBA{c.R, c.G, c.B, 160}, draw.RingGlyph{}, fmt.Sprintf("reports from %d", i)); err != nil {
			return err
		}
		t, err := plotter.NewScatter(plotter.XYs{pts[i]})
		if err != nil {
			return err
		}
		t.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(7), Shape: draw.CrossGlyph{}}
		p.Add(t)
	}
	if err := p.Save(6*vg.Inch, 6*vg.Inch, *out); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if *asJSON {
		return writeJSON(env.stdout, plotOutput{Metric: m.String(), N: n, Rows: rows, Out: *out})
	}
	fmt.Fprintf(env.stdout, "wrote %s: %d locations, rows %v\n", *out, n, rows)
	return nil
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

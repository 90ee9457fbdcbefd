package repro

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/optdp/optdp/solve"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// newResult starts a result with an empty value table.
func newResult() *Result { return &Result{Values: map[string]float64{}} }

// md appends a formatted line to the result's Markdown.
func (r *Result) md(format string, a ...any) {
	r.Markdown += fmt.Sprintf(format, a...) + "\n"
}

// differ records a discrepancy with the paper (the report lists them all
// in its own section).
func (r *Result) differ(format string, a ...any) {
	s := fmt.Sprintf(format, a...)
	r.Discrepancies = append(r.Discrepancies, s)
}

// writeCSV writes header and rows to cfg.Dir/name and records it.
func (r *Result) writeCSV(cfg *Config, name string, header []string, rows [][]string) error {
	f, err := os.Create(filepath.Join(cfg.Dir, name))
	if err != nil {
		return fmt.Errorf("csv %s: %w", name, err)
	}
	w := csv.NewWriter(f)
	if err := w.Write(header); err != nil {
		f.Close()
		return fmt.Errorf("csv %s: %w", name, err)
	}
	if err := w.WriteAll(rows); err != nil {
		f.Close()
		return fmt.Errorf("csv %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("csv %s: %w", name, err)
	}
	r.CSVs = append(r.CSVs, name)
	return nil
}

// ff formats a float for CSV files (shortest exact representation).
func ff(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// ffOrEmpty is ff, with an empty cell for NaN (a value not computed).
func ffOrEmpty(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return ff(v)
}

// fb formats a boolean for CSV files: true or false, as everywhere.
func fb(v bool) string { return strconv.FormatBool(v) }

// fv formats a three-way verdict for CSV files as its JSON form does:
// true, false or borderline.
func fv(v solve.Verdict) string {
	switch v {
	case solve.Yes:
		return "true"
	case solve.No:
		return "false"
	}
	return string(v)
}

// writeMatrixCSV writes a mechanism's matrix to cfg.Dir/name, as writeCSV
// does, with the inputs and outputs labelled by labels (corner "in/out").
func (r *Result) writeMatrixCSV(cfg *Config, name string, x *mat.Dense, labels []string) error {
	n, m := x.Dims()
	rows := make([][]string, n)
	for i := 0; i < n; i++ {
		row := []string{labels[i]}
		for k := 0; k < m; k++ {
			row = append(row, ff(x.At(i, k)))
		}
		rows[i] = row
	}
	return r.writeCSV(cfg, name, append([]string{"in/out"}, labels...), rows)
}

// fraction renders v as p/q with q <= maxDen when v is within 1e-9 of such
// a fraction (the best rational approximation), else as a decimal.
func fraction(v float64, maxDen int64) string {
	r := new(big.Rat)
	if r.SetFloat64(v) == nil {
		return ff(v)
	}
	// Continued-fraction convergents.
	x := v
	h0, h1 := int64(0), int64(1)
	k0, k1 := int64(1), int64(0)
	for range 40 {
		a := math.Floor(x)
		h0, h1 = h1, int64(a)*h1+h0
		k0, k1 = k1, int64(a)*k1+k0
		if k1 > maxDen {
			break
		}
		if math.Abs(float64(h1)/float64(k1)-v) <= 1e-9*math.Max(1, math.Abs(v)) {
			if k1 == 1 {
				return strconv.FormatInt(h1, 10)
			}
			return fmt.Sprintf("%d/%d", h1, k1)
		}
		if x-a == 0 {
			break
		}
		x = 1 / (x - a)
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

// mdMatrix renders a matrix as a Markdown table with row/column labels.
func mdMatrix(x *mat.Dense, corner string, labels []string, cell func(float64) string) string {
	n, m := x.Dims()
	var b strings.Builder
	b.WriteString("| " + corner + " |")
	for k := 0; k < m; k++ {
		b.WriteString(" " + labels[k] + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", m) + "\n")
	for i := 0; i < n; i++ {
		b.WriteString("| **" + labels[i] + "** |")
		for k := 0; k < m; k++ {
			b.WriteString(" " + cell(x.At(i, k)) + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// series is one named curve of a line plot.
type series struct {
	Name string
	X, Y []float64
	// Dashed draws the line dashed (e.g. bounds next to measured values).
	Dashed bool
}

// palette is a colour-blind-friendly set (Okabe–Ito).
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255},
	color.RGBA{213, 94, 0, 255},
	color.RGBA{0, 158, 115, 255},
	color.RGBA{204, 121, 167, 255},
	color.RGBA{230, 159, 0, 255},
	color.RGBA{86, 180, 233, 255},
	color.RGBA{0, 0, 0, 255},
	color.RGBA{240, 228, 66, 255},
}

func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	return p
}

// linePlot draws the series as lines with markers and saves base.png and
// base.svg.
// plotOpts tunes a plot: a logarithmic y axis and the legend's corner
// ("tl" top left, the default; "tr", "bl", "br").
type plotOpts struct {
	LogY   bool
	Legend string
	// Headroom > 1 raises the y axis maximum to Headroom × the largest
	// value, leaving space for the legend above the curves.
	Headroom float64
}

func (o plotOpts) place(p *plot.Plot) {
	p.Legend.Top = o.Legend == "" || o.Legend[0] == 't'
	p.Legend.Left = o.Legend == "" || o.Legend[1] == 'l'
	if p.Legend.Left {
		p.Legend.XOffs = vg.Points(40)
	} else {
		p.Legend.XOffs = -vg.Points(10)
	}
	if !p.Legend.Top {
		p.Legend.YOffs = vg.Points(10)
	}
}

func (r *Result) linePlot(cfg *Config, base, title, xlabel, ylabel string, ss []series, o plotOpts) error {
	p := newPlot(title, xlabel, ylabel)
	o.place(p)
	logY := o.LogY
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	for i, s := range ss {
		pts := make(plotter.XYs, 0, len(s.X))
		for k := range s.X {
			if math.IsNaN(s.Y[k]) || math.IsNaN(s.X[k]) || (logY && !(s.Y[k] > 0)) {
				continue
			}
			pts = append(pts, plotter.XY{X: s.X[k], Y: s.Y[k]})
		}
		if len(pts) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return fmt.Errorf("plot %s: %w", base, err)
		}
		c := palette[i%len(palette)]
		l.Color, sc.Color = c, c
		l.Width = vg.Points(1.5)
		sc.Shape = shapeFor(i)
		sc.Radius = vg.Points(2.5)
		if len(pts) > 40 {
			sc.Radius = 0
		}
		if s.Dashed {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(l, sc)
		p.Legend.Add(s.Name, l, sc)
	}
	if o.Headroom > 1 && !logY {
		top := math.Inf(-1)
		for _, s := range ss {
			for _, v := range s.Y {
				if !math.IsNaN(v) {
					top = math.Max(top, v)
				}
			}
		}
		if !math.IsInf(top, 0) {
			p.Y.Max = o.Headroom * top
		}
	}
	return r.save(cfg, p, base)
}

func shapeFor(i int) draw.GlyphDrawer {
	switch i % 4 {
	case 0:
		return draw.CircleGlyph{}
	case 1:
		return draw.SquareGlyph{}
	case 2:
		return draw.TriangleGlyph{}
	}
	return draw.CrossGlyph{}
}

// barGroup is one set of bars (one colour) over the categories of a bar
// plot.
type barGroup struct {
	Name   string
	Values []float64
}

// barPlot draws grouped bars over the named categories and saves base.png
// and base.svg.
func (r *Result) barPlot(cfg *Config, base, title, ylabel string, cats []string, groups []barGroup, o plotOpts) error {
	p := newPlot(title, "", ylabel)
	o.place(p)
	logY := o.LogY
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	w := vg.Points(float64(min(60, 360/max(1, len(cats)*len(groups)))))
	for i, g := range groups {
		vals := make(plotter.Values, len(g.Values))
		copy(vals, g.Values)
		for k, v := range vals {
			if math.IsNaN(v) {
				vals[k] = 0 // a missing bar
			}
		}
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return fmt.Errorf("plot %s: %w", base, err)
		}
		b.Color = palette[i%len(palette)]
		b.LineStyle.Width = 0
		b.Offset = vg.Length(float64(i)-float64(len(groups)-1)/2) * w
		p.Add(b)
		p.Legend.Add(g.Name, b)
	}
	p.NominalX(cats...)
	if !logY {
		top, bottom := 0.0, 0.0
		for _, g := range groups {
			for _, v := range g.Values {
				if !math.IsNaN(v) && !math.IsInf(v, 0) {
					top, bottom = math.Max(top, v), math.Min(bottom, v)
				}
			}
		}
		if top > 0 || bottom < 0 {
			// Room for the legend above the bars.
			p.Y.Min, p.Y.Max = bottom-0.05*(top-bottom), top+0.6*(top-bottom)
		}
	}
	return r.save(cfg, p, base)
}

// save writes base.png and base.svg (15 x 10 cm).
func (r *Result) save(cfg *Config, p *plot.Plot, base string) error {
	for _, ext := range []string{".png", ".svg"} {
		if err := p.Save(20*vg.Centimeter, 12*vg.Centimeter, filepath.Join(cfg.Dir, base+ext)); err != nil {
			return fmt.Errorf("plot %s%s: %w", base, ext, err)
		}
	}
	r.Plots = append(r.Plots, base+".png")
	return nil
}

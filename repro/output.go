package repro

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
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
func fv(v run.Verdict) string {
	switch v {
	case run.Yes:
		return "true"
	case run.No:
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
	// Points draws markers only, no line (discrete values such as
	// eigenvalues, which a line would wrongly join).
	Points bool
}

// palette is a colour-blind-friendly set (Okabe–Ito), ordered so that
// series 1 and 3, and 2 and 4, contrast where they coincide.
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255},
	color.RGBA{213, 94, 0, 255},
	color.RGBA{0, 158, 115, 255},
	color.RGBA{0, 0, 0, 255}, // high contrast on the orange of a coinciding second series
	color.RGBA{230, 159, 0, 255},
	color.RGBA{86, 180, 233, 255},
	color.RGBA{204, 121, 167, 255},
	color.RGBA{240, 228, 66, 255},
}

// niceTicks places major ticks at multiples of 1, 2 or 5 × 10^k, about
// five to eight of them across the axis, with minor ticks between, and
// labels with just the decimals the step needs (0, 0.2, 0.4, not 0.00,
// 2.50 or 20, 80, 140).
type niceTicks struct{}

// Ticks implements plot.Ticker.
func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	// The smallest 1-2-5 step that gives at most 9 major ticks.
	mag := math.Pow(10, math.Floor(math.Log10((hi-lo)/10)))
	step, minor := mag, mag/5
search:
	for _, m := range []float64{mag, 10 * mag, 100 * mag} {
		for _, f := range []float64{1, 2, 5} {
			step, minor = f*m, m/5
			if f == 2 {
				minor = m / 2
			}
			if math.Floor(hi/step+1e-9)-math.Ceil(lo/step-1e-9)+1 <= 9 {
				break search
			}
		}
	}
	prec := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	var ticks []plot.Tick
	for k := math.Ceil(lo/minor - 1e-9); k*minor <= hi+1e-9*minor; k++ {
		v := k * minor
		t := plot.Tick{Value: v}
		if q := v / step; math.Abs(q-math.Round(q)) < 1e-6 {
			v = math.Round(q) * step
			t.Value = v
			if v == 0 {
				v = 0 // no "-0"
			}
			t.Label = strconv.FormatFloat(v, 'f', prec, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.X.Tick.Marker = niceTicks{}
	p.Y.Tick.Marker = niceTicks{}
	p.X.Padding, p.Y.Padding = vg.Points(4), vg.Points(4)
	p.Add(plotter.NewGrid())
	return p
}

// plotOpts tunes a plot: a logarithmic y axis; Equal draws one unit of x
// as long as one unit of y (a simplex in its true shape).
type plotOpts struct {
	LogY  bool
	Equal bool
}

// linePlot draws the series as lines with markers (or markers only) and
// saves base.png and base.svg. Series drawn later get smaller markers and
// thinner lines, so curves that coincide stay visible one on top of the
// other.
func (r *Result) linePlot(cfg *Config, base, title, xlabel, ylabel string, ss []series, o plotOpts) error {
	p := newPlot(title, xlabel, ylabel)
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
		c := palette[i%len(palette)]
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return fmt.Errorf("plot %s: %w", base, err)
		}
		sc.Color = c
		sc.Shape = shapeFor(i)
		sc.Radius = vg.Points(max(2.5, 6-1.1*float64(i)))
		if len(pts) > 40 && !s.Points {
			sc.Radius = 0
		}
		if s.Points {
			sc.Radius = vg.Points(4)
			p.Add(sc)
			p.Legend.Add(s.Name, sc)
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return fmt.Errorf("plot %s: %w", base, err)
		}
		l.Color = c
		l.Width = vg.Points(max(1, 3.5-0.8*float64(i)))
		if s.Dashed {
			l.Dashes = []vg.Length{vg.Points(6 - float64(i%3)), vg.Points(3 + float64(i%3))}
		}
		p.Add(l, sc)
		p.Legend.Add(s.Name, l, sc)
	}
	return r.save(cfg, p, base, o)
}

func shapeFor(i int) draw.GlyphDrawer {
	switch i % 5 {
	case 0:
		return draw.CircleGlyph{}
	case 1:
		return draw.BoxGlyph{}
	case 2:
		return draw.TriangleGlyph{}
	case 3:
		return draw.RingGlyph{}
	}
	return draw.CrossGlyph{}
}

// barGroup is one set of bars (one colour) over the categories of a bar
// plot; NaN is a value that was not computed.
type barGroup struct {
	Name   string
	Values []float64
}

// barPlot draws grouped bars over the named categories and saves base.png
// and base.svg. A bar of height 0 shows as a thick line on the axis in its
// colour; a value that was not computed (NaN) is marked "n/a" instead.
func (r *Result) barPlot(cfg *Config, base, title, ylabel string, cats []string, groups []barGroup, o plotOpts) error {
	p := newPlot(title, "", ylabel)
	logY := o.LogY
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	w := vg.Points(float64(min(60, 360/max(1, len(cats)*len(groups)))))
	var naX []float64
	var naOff []vg.Length
	for i, g := range groups {
		vals := make(plotter.Values, len(g.Values))
		copy(vals, g.Values)
		for k, v := range vals {
			if math.IsNaN(v) {
				vals[k] = 0 // drawn as "n/a" below, without an outline
			}
		}
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return fmt.Errorf("plot %s: %w", base, err)
		}
		c := palette[i%len(palette)]
		b.Color = c
		b.LineStyle.Width = 0
		b.Offset = vg.Length(float64(i)-float64(len(groups)-1)/2) * w
		p.Add(b)
		p.Legend.Add(g.Name, b)
		var zero []float64
		for k, v := range g.Values {
			switch {
			case math.IsNaN(v):
				naX, naOff = append(naX, float64(k)), append(naOff, b.Offset)
			case v == 0:
				zero = append(zero, float64(k))
			}
		}
		if len(zero) > 0 {
			p.Add(zeroMarks{x: zero, off: b.Offset, width: w, color: c})
		}
	}
	p.NominalX(cats...)
	top, bottom := 0.0, 0.0
	for _, g := range groups {
		for _, v := range g.Values {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				top, bottom = math.Max(top, v), math.Min(bottom, v)
			}
		}
	}
	if !logY && (top > 0 || bottom < 0) {
		p.Y.Min, p.Y.Max = bottom-0.05*(top-bottom), top+0.08*(top-bottom)
	}
	if len(naX) > 0 {
		p.Add(naMarks{x: naX, off: naOff, y: math.Max(0, p.Y.Min)})
		p.Legend.Add("n/a: not computed", naLegend{})
	}
	return r.save(cfg, p, base, o)
}

// zeroMarks draws a bar of height 0 as a thick line on the axis, in the
// bar's colour, so that it differs from a bar that was not computed.
type zeroMarks struct {
	x     []float64
	off   vg.Length
	width vg.Length
	color color.Color
}

// Plot implements plot.Plotter.
func (m zeroMarks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := draw.LineStyle{Color: m.color, Width: vg.Points(2.5)}
	for _, x := range m.x {
		cx := trX(x) + m.off
		c.StrokeLine2(sty, cx-m.width/2, trY(0), cx+m.width/2, trY(0))
	}
}

// naMarks writes "n/a" above the axis where a bar was not computed.
type naMarks struct {
	x   []float64
	off []vg.Length
	y   float64
}

// Plot implements plot.Plotter.
func (m naMarks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := text.Style{Color: color.Gray{Y: 60}, Font: font.From(plot.DefaultFont, vg.Points(8)), Rotation: math.Pi / 2, XAlign: draw.XLeft, YAlign: draw.YCenter, Handler: p.Title.TextStyle.Handler}
	for k, x := range m.x {
		c.FillText(sty, vg.Point{X: trX(x) + m.off[k], Y: trY(m.y) + vg.Points(3)}, "n/a")
	}
}

// naLegend is the legend thumbnail of the "n/a" marks.
type naLegend struct{}

// Thumbnail implements plot.Thumbnailer.
func (naLegend) Thumbnail(c *draw.Canvas) {
	sty := text.Style{Color: color.Gray{Y: 60}, Font: font.From(plot.DefaultFont, vg.Points(8)), XAlign: draw.XCenter, YAlign: draw.YCenter, Handler: plot.DefaultTextHandler}
	c.FillText(sty, c.Center(), "n/a")
}

// Figure layout: the plot's size, the margin around the figure, and the
// gap between the plot and its legend, which is drawn to the right of the
// plot on a white background with a thin frame, never over the data.
const (
	figW, figH = 20 * vg.Centimeter, 12 * vg.Centimeter
	figMargin  = 8
	legendGap  = 10
)

// save writes base.png and base.svg: the plot with its legend beside it.
// With o.Equal the axis ranges are widened so that one unit of x and one
// of y have the same length on the page.
func (r *Result) save(cfg *Config, p *plot.Plot, base string, o plotOpts) error {
	leg := p.Legend
	p.Legend = plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.Padding = vg.Points(3)
	legW := vg.Length(0)
	if lr := leg.Rectangle(draw.New(vgimg.New(figW, figH))); lr.Size().X > 0 {
		legW = lr.Size().X + 2*vg.Points(6)
	}
	w := figW + legW
	if legW > 0 {
		w += vg.Points(legendGap)
	}
	for _, ext := range []string{".png", ".svg"} {
		var cv vg.CanvasSizer
		if ext == ".png" {
			cv = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, figH), vgimg.UseDPI(96))}
		} else {
			cv = vgsvg.New(w, figH)
		}
		c := draw.New(cv)
		c.SetColor(color.White)
		c.Fill(c.Rectangle.Path())
		c = draw.Crop(c, vg.Points(figMargin), -vg.Points(figMargin), vg.Points(figMargin), -vg.Points(figMargin))
		pc := draw.Crop(c, 0, -(legW + vg.Points(legendGap)), 0, 0)
		if legW == 0 {
			pc = c
		}
		if o.Equal {
			equalAspect(p, pc)
		}
		p.Draw(pc)
		if legW > 0 {
			// The legend's own Rectangle mirrors Left; only its size is
			// used: entries start at lc's top left corner.
			lc := draw.Crop(c, c.Size().X-legW+vg.Points(6), -vg.Points(6), 0, -vg.Points(32))
			size := leg.Rectangle(lc).Size()
			box := vg.Rectangle{
				Min: vg.Point{X: lc.Min.X - vg.Points(6), Y: lc.Max.Y - size.Y - vg.Points(5)},
				Max: vg.Point{X: lc.Min.X + size.X + vg.Points(6), Y: lc.Max.Y + vg.Points(4)},
			}
			lc.SetColor(color.White)
			lc.Fill(box.Path())
			lc.SetLineStyle(draw.LineStyle{Color: color.Gray{Y: 150}, Width: vg.Points(0.75)})
			lc.Stroke(box.Path())
			leg.Draw(lc)
		}
		f, err := os.Create(filepath.Join(cfg.Dir, base+ext))
		if err != nil {
			return fmt.Errorf("plot %s%s: %w", base, ext, err)
		}
		wt, ok := cv.(io.WriterTo)
		if !ok {
			f.Close()
			return fmt.Errorf("plot %s%s: canvas cannot be written", base, ext)
		}
		if _, err := wt.WriteTo(f); err != nil {
			f.Close()
			return fmt.Errorf("plot %s%s: %w", base, ext, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("plot %s%s: %w", base, ext, err)
		}
	}
	r.Plots = append(r.Plots, base+".png")
	return nil
}

// equalAspect widens p's x or y range, about its centre, so that on the
// canvas c one unit of x is as long as one unit of y (two passes: the tick
// labels' widths depend on the ranges).
func equalAspect(p *plot.Plot, c draw.Canvas) {
	for range 2 {
		dc := p.DataCanvas(c)
		cw, ch := float64(dc.Size().X), float64(dc.Size().Y)
		xr, yr := p.X.Max-p.X.Min, p.Y.Max-p.Y.Min
		if !(cw > 0 && ch > 0 && xr > 0 && yr > 0) {
			return
		}
		if xr/yr < cw/ch { // too narrow in x: widen x
			nx := yr * cw / ch
			mid := (p.X.Min + p.X.Max) / 2
			p.X.Min, p.X.Max = mid-nx/2, mid+nx/2
		} else {
			ny := xr * ch / cw
			mid := (p.Y.Min + p.Y.Max) / 2
			p.Y.Min, p.Y.Max = mid-ny/2, mid+ny/2
		}
	}
}

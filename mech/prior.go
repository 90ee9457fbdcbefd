package mech

// Priors for maps (docs/MATH.md §18.5): from a CSV of points binned onto a
// grid, and from a raster of weights.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// MapPriorOptions are the options of PriorFromPoints and PriorFromRaster;
// nil means the defaults.
type MapPriorOptions struct {
	// Pseudo >= 0 is added to the count (or weight) of every cell before
	// normalising: prior_i = (count_i + Pseudo) / (total + Pseudo·n), so that
	// no cell has probability 0 (Laplace smoothing). 0 = none.
	Pseudo float64
	// MaxBytes bounds the bytes read (0 = 256 MiB); a longer input is an
	// error matching run.ErrTooLarge.
	MaxBytes int64
	// Settings.Budget bounds the memory of the prior (8 bytes a cell).
	run.Settings
}

// maxLineBytes bounds one line of a points or raster file.
const maxLineBytes = 1 << 20

// PointsPrior is a prior built from points, with the counts behind it.
type PointsPrior struct {
	// Prior is the distribution on the answers (a grid's cells, index
	// row·w + col).
	Prior []float64
	// Points is the number of points read, Inside of them in the grid;
	// Outside = Points - Inside were dropped.
	Points, Inside, Outside int
}

// mapSetup checks the metric's size and the options.
func mapSetup(g metric.Metric, opts *MapPriorOptions) (MapPriorOptions, error) {
	var o MapPriorOptions
	if opts != nil {
		o = *opts
	}
	if g == nil || (reflectNil(g)) {
		return o, run.BadInputf("no metric")
	}
	if n := g.Len(); n > MaxDenseEntries {
		return o, fmt.Errorf("%s has %d cells, above the limit of %d for a map prior: %w", g, n, MaxDenseEntries, run.ErrTooLarge)
	}
	if math.IsNaN(o.Pseudo) || math.IsInf(o.Pseudo, 0) || o.Pseudo < 0 {
		return o, run.BadInputf("pseudo-count %v: want a finite number >= 0", o.Pseudo)
	}
	if o.MaxBytes < 0 {
		return o, run.BadInputf("MaxBytes %d: want >= 0", o.MaxBytes)
	}
	if err := o.Budget.Validate(); err != nil {
		return o, err
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = 256 << 20
	}
	if err := o.Budget.Check(fmt.Sprintf("a prior on the %d cells of %s", g.Len(), g), 16*float64(g.Len()), "use a coarser grid"); err != nil {
		return o, err
	}
	return o, nil
}

// limitedLines returns a scanner over at most maxBytes of r (a longer input
// is reported by errTooLong) with lines of at most maxLineBytes.
func limitedLines(r io.Reader, maxBytes int64) (*bufio.Scanner, *limitReader) {
	lr := &limitReader{r: r, left: maxBytes}
	sc := bufio.NewScanner(lr)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	return sc, lr
}

// limitReader reads at most left bytes and records an attempt to read more.
type limitReader struct {
	r    io.Reader
	left int64
	over bool
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// Probe one byte: more input means the limit is exceeded.
		var b [1]byte
		n, err := l.r.Read(b[:])
		if n > 0 {
			l.over = true
			return 0, errTooLong
		}
		return 0, err
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

var errTooLong = errors.New("mech: input too long")

// scanErr turns a scanner's error into the package's errors.
func scanErr(err error, lr *limitReader, maxBytes int64, ln int) error {
	switch {
	case lr.over || errors.Is(err, errTooLong):
		return fmt.Errorf("mech: more than %d bytes (MaxBytes): %w", maxBytes, run.ErrTooLarge)
	case errors.Is(err, bufio.ErrTooLong):
		return run.BadInputf("line %d is longer than %d bytes", ln+1, maxLineBytes)
	}
	return err
}

// splitFields splits a line at commas, semicolons, tabs and spaces.
func splitFields(line string) []string {
	return strings.FieldsFunc(line, func(r rune) bool {
		return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\r'
	})
}

// PriorFromPoints builds a prior on the answers of g, a grid or a point set
// (any metric.Locator), from a CSV of points (records of visits, check-ins).
// The first line (after blank lines and # comments) names the
// columns: "lat" (or "latitude") and "lon" ("lng", "long", "longitude") in
// degrees, for a grid on a map (metric.GeoGrid) or a latlon point set, or
// "x" and "y" in km — from the outer corner of cell 0 for a grid (x along a
// row, metric.GridMetric.CellOfXY), in the points' own frame for a planar
// point set; an
// optional "weight" ("count") column gives each point a weight >= 0
// (default 1); other columns are ignored, so a check-in log can be read as
// it is. The separator is the header's: a comma, else a semicolon, else a
// tab, else blanks; fields are not quoted, and every line has as many
// fields as the header. Each point adds its weight to the answer g.Locate
// gives it: the cell holding it (metric.GridMetric.CellOfLatLon), or the
// nearest point of a point set (metric.PointsMetric.Locate); points outside
// the grid are counted in Outside and dropped. The prior is
//
//	prior_i = (weight_i + a) / (sum_i weight_i + a·n),   a = opts.Pseudo,
//
// which needs a positive total. The input is bounded (opts.MaxBytes, lines
// of 1 MiB); malformed lines are errors naming the line, matching
// run.ErrBadInput.
func PriorFromPoints(r io.Reader, g metric.Locator, opts *MapPriorOptions) (*PointsPrior, error) {
	o, err := mapSetup(g, opts)
	if err != nil {
		return nil, fmt.Errorf("points prior: %w", err)
	}
	counts := make([]float64, g.Len())
	sc, lr := limitedLines(r, o.MaxBytes)
	res := &PointsPrior{}
	ln := 0
	var (
		h     *pointsHeader
		split func(string) []string
	)
	for sc.Scan() && !lr.over { // a line cut by MaxBytes is not parsed
		ln++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if h == nil {
			split = separator(line)
			if h, err = parsePointsHeader(split(line)); err != nil {
				return nil, run.BadInputf("points prior: line %d: %v", ln, err)
			}
			if !g.Accepts(h.geo) {
				if h.geo {
					return nil, run.BadInputf("points prior: lat/lon points need a grid on a map (grid:w=W,h=H,bbox=S,W,N,E) or a latlon:file= metric, not %s", g)
				}
				return nil, run.BadInputf("points prior: x/y points need a grid or a points:file= metric, not %s (name the columns lat and lon)", g)
			}
			continue
		}
		f := split(line)
		if len(f) != h.fields {
			return nil, run.BadInputf("points prior: line %d has %d fields, the header %d", ln, len(f), h.fields)
		}
		num := func(k int) (float64, error) {
			x, err := strconv.ParseFloat(strings.TrimSpace(f[k]), 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return 0, run.BadInputf("points prior: line %d, field %d: %.40q is not a finite number", ln, k+1, f[k])
			}
			return x, nil
		}
		a, err := num(h.a)
		if err != nil {
			return nil, err
		}
		b, err := num(h.b)
		if err != nil {
			return nil, err
		}
		w := 1.0
		if h.w >= 0 {
			if w, err = num(h.w); err != nil {
				return nil, err
			}
			if w < 0 {
				return nil, run.BadInputf("points prior: line %d: weight %v < 0", ln, w)
			}
		}
		res.Points++
		var (
			i  int
			ok bool
		)
		if i, ok = g.Locate(a, b, h.geo); !ok {
			res.Outside++
			continue
		}
		res.Inside++
		counts[i] += w
	}
	if err := sc.Err(); err != nil || lr.over {
		return nil, fmt.Errorf("points prior: %w", scanErr(err, lr, o.MaxBytes, ln))
	}
	if h == nil {
		return nil, run.BadInputf("points prior: no header line (naming lat and lon, or x and y)")
	}
	p, err := normalise(counts, o.Pseudo)
	if err != nil {
		return nil, fmt.Errorf("points prior: %d points, %d inside %s: %w", res.Points, res.Inside, g, err)
	}
	res.Prior = p
	return res, nil
}

// pointsHeader is where the coordinates are: columns a, b (lat, lon or
// x, y), w (weight, or -1), out of fields.
type pointsHeader struct {
	a, b, w, fields int
	geo             bool
}

// separator returns the field splitter of a file whose header is line: the
// first of comma, semicolon, tab found in it, else blanks.
func separator(line string) func(string) []string {
	for _, sep := range []string{",", ";", "\t"} {
		if strings.Contains(line, sep) {
			return func(s string) []string { return strings.Split(s, sep) }
		}
	}
	return strings.Fields
}

// parsePointsHeader finds the coordinate and weight columns.
func parsePointsHeader(f []string) (*pointsHeader, error) {
	idx := map[string]int{}
	names := map[string]string{"lat": "lat", "latitude": "lat", "lon": "lon", "lng": "lon", "long": "lon", "longitude": "lon",
		"x": "x", "y": "y", "weight": "weight", "count": "weight"}
	for k, name := range f {
		key, ok := names[strings.ToLower(strings.Trim(strings.TrimSpace(name), `"'`))]
		if !ok {
			continue
		}
		if _, dup := idx[key]; dup {
			return nil, fmt.Errorf("mech: the header names the %s column twice", key)
		}
		idx[key] = k
	}
	h := &pointsHeader{w: -1, fields: len(f)}
	if w, ok := idx["weight"]; ok {
		h.w = w
	}
	lat, okLat := idx["lat"]
	lon, okLon := idx["lon"]
	x, okX := idx["x"]
	y, okY := idx["y"]
	switch {
	case okLat && okLon && (okX || okY):
		return nil, errors.New("mech: the header names both lat/lon and x/y columns")
	case okLat && okLon:
		h.a, h.b, h.geo = lat, lon, true
	case okX && okY:
		h.a, h.b = x, y
	default:
		return nil, fmt.Errorf("mech: the first line must name the columns lat and lon (degrees) or x and y (km), got %.80q", strings.Join(f, ","))
	}
	return h, nil
}

// normalise returns (c_i + a)/(sum c + a n), or an error when the total is
// not > 0 or not finite.
func normalise(c []float64, a float64) ([]float64, error) {
	total := 0.0
	for _, v := range c {
		total += v + a
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return nil, run.BadInputf("the total weight is %v: want > 0 and finite (add points in the grid, or a pseudo-count)", total)
	}
	p := make([]float64, len(c))
	for i, v := range c {
		p[i] = (v + a) / total
	}
	return p, nil
}

// reflectNil reports whether m is a typed nil pointer of the metric types
// the map priors take.
func reflectNil(m metric.Metric) bool {
	switch v := m.(type) {
	case *metric.GridMetric:
		return v == nil
	case *metric.PointsMetric:
		return v == nil
	}
	return false
}

// PriorFromRaster builds a prior on the cells of the w×h grid g from a
// raster of weights: a CSV matrix of exactly h rows (grid rows, row 0 first:
// north for a grid on a map) of w finite weights >= 0 each, separated by
// commas, semicolons, tabs or spaces; blank lines and # comments are
// skipped. prior_i = (weight_i + a) / (sum weights + a·n) with
// a = opts.Pseudo. The input is bounded (opts.MaxBytes, lines of 1 MiB, h
// rows of w fields); errors name the line and match run.ErrBadInput.
func PriorFromRaster(r io.Reader, g *metric.GridMetric, opts *MapPriorOptions) ([]float64, error) {
	o, err := mapSetup(g, opts)
	if err != nil {
		return nil, fmt.Errorf("raster prior: %w", err)
	}
	w, h := g.W(), g.H()
	weights := make([]float64, 0, g.Len())
	sc, lr := limitedLines(r, o.MaxBytes)
	ln, rows := 0, 0
	for sc.Scan() && !lr.over { // a line cut by MaxBytes is not parsed
		ln++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if rows == h {
			return nil, run.BadInputf("raster prior: line %d: more than h = %d rows for %s", ln, h, g)
		}
		f := splitFields(line)
		if len(f) != w {
			return nil, run.BadInputf("raster prior: line %d has %d weights, want w = %d (one per column of %s)", ln, len(f), w, g)
		}
		for k, s := range f {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return nil, run.BadInputf("raster prior: line %d, column %d: %.40q is not a finite weight >= 0", ln, k+1, s)
			}
			weights = append(weights, x)
		}
		rows++
	}
	if err := sc.Err(); err != nil || lr.over {
		return nil, fmt.Errorf("raster prior: %w", scanErr(err, lr, o.MaxBytes, ln))
	}
	if rows != h {
		return nil, run.BadInputf("raster prior: %d rows, want h = %d (one per row of %s)", rows, h, g)
	}
	p, err := normalise(weights, o.Pseudo)
	if err != nil {
		return nil, fmt.Errorf("raster prior: %w", err)
	}
	return p, nil
}

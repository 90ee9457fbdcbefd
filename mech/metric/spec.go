package metric

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/optdp/optdp/run"
)

// metricKinds lists the spec kinds and their parameters (required first).
var metricKinds = map[string]struct{ required, optional []string }{
	"line":    {[]string{"n"}, nil},
	"ring":    {[]string{"n"}, nil},
	"clique":  {[]string{"n"}, nil},
	"sum":     {[]string{"u", "v"}, nil},
	"kcount":  {[]string{"u", "k"}, nil},
	"hamming": {[]string{"u", "v"}, nil},
	"grid":    {[]string{"w", "h"}, []string{"step", "norm", "bbox"}},
	"graph":   {[]string{"file"}, nil},
	"dist":    {[]string{"file"}, []string{"repair"}},
	"points":  {[]string{"file"}, nil},
	"latlon":  {[]string{"file"}, nil},
	"roads":   {[]string{"file"}, nil},
}

// Kinds returns the metric spec kinds Parse understands, sorted.
func Kinds() []string {
	k := make([]string, 0, len(metricKinds))
	for name := range metricKinds {
		k = append(k, name)
	}
	slices.Sort(k)
	return k
}

// Parse builds a metric from a CLI spec "kind:key=value,...":
//
//	line:n=N            ring:n=N            clique:n=N
//	sum:u=U,v=V         kcount:u=U,k=K      hamming:u=U,v=V
//	grid:w=W,h=H[,step=S][,norm=euclid|manhattan|chebyshev]  (step 1, euclid)
//	grid:w=W,h=H,bbox=SOUTH,WEST,NORTH,EAST[,norm=...]  (a grid on a map,
//	                    step in km from the box: GeoGrid; a given step must
//	                    not exceed it)
//	graph:file=PATH     (edge list, see ReadEdgeList)
//	dist:file=PATH[,repair=TOL]  (CSV distance matrix, see ReadDistCSV;
//	                    with repair, its shortest-path closure, see
//	                    RepairMatrix, accepted when it lowers no entry by
//	                    more than the relative TOL)
//	points:file=PATH    (planar points in km, see ReadPoints, Points)
//	latlon:file=PATH    (lat/lon degrees, great-circle km, see LatLon)
//	roads:file=PATH     (weighted edge list "u v w", road distances by
//	                    Dijkstra, see ReadRoads)
//
// Unknown kinds, unknown, repeated, missing or malformed parameters are
// errors that say what is expected. The returned metric's String is the spec
// (normalised).
func Parse(spec string) (Metric, error) {
	return ParseContext(context.Background(), spec)
}

// ParseContext is Parse stopped by ctx: the expensive constructors a file
// spec reaches read ctx as they go (the triangle check of dist,
// NewMatrixContext; its repair, RepairMatrixContext; the Dijkstras of
// roads, NewRoadsContext), so a cancel lands within some 10 ms of work at
// the largest admissible n, and the error wraps ctx's (not
// run.ErrBadInput).
func ParseContext(ctx context.Context, spec string) (Metric, error) {
	kind, rest, _ := strings.Cut(strings.TrimSpace(spec), ":")
	k, ok := metricKinds[kind]
	if !ok {
		return nil, run.BadInputf("metric spec %q: unknown kind %q (want one of %s)", spec, kind, strings.Join(Kinds(), ", "))
	}
	params := map[string]string{}
	if rest != "" {
		last := ""
		for _, kv := range strings.Split(rest, ",") {
			if last == "bbox" && !strings.Contains(kv, "=") {
				params[last] += "," + strings.TrimSpace(kv) // bbox=S,W,N,E holds commas
				continue
			}
			key, val, ok := strings.Cut(kv, "=")
			key, val = strings.TrimSpace(key), strings.TrimSpace(val)
			if !ok || key == "" || val == "" {
				return nil, run.BadInputf("metric spec %q: parameter %q is not key=value", spec, kv)
			}
			if !slices.Contains(k.required, key) && !slices.Contains(k.optional, key) {
				return nil, run.BadInputf("metric spec %q: unknown parameter %q for %s (want %s)", spec, key, kind, strings.Join(append(slices.Clone(k.required), k.optional...), ", "))
			}
			if _, dup := params[key]; dup {
				return nil, run.BadInputf("metric spec %q: parameter %q given twice", spec, key)
			}
			params[key] = val
			last = key
		}
	}
	for _, key := range k.required {
		if _, ok := params[key]; !ok {
			return nil, run.BadInputf("metric spec %q: missing parameter %q (%s needs %s)", spec, key, kind, strings.Join(k.required, ", "))
		}
	}
	ints := map[string]int{}
	for key, val := range params {
		if key == "file" || key == "step" || key == "norm" || key == "bbox" || key == "repair" {
			continue
		}
		x, err := strconv.Atoi(val)
		if err != nil {
			return nil, run.BadInputf("metric spec %q: %s=%q is not an integer", spec, key, val)
		}
		ints[key] = x
	}
	var (
		m   Metric
		err error
	)
	switch kind {
	case "line":
		m, err = Line(ints["n"])
	case "ring":
		m, err = Ring(ints["n"])
	case "clique":
		m, err = Clique(ints["n"])
	case "sum":
		m, err = Sum(ints["u"], ints["v"])
	case "kcount":
		m, err = KCount(ints["u"], ints["k"])
	case "hamming":
		m, err = Hamming(ints["u"], ints["v"])
	case "grid":
		step, norm := 1.0, Euclid
		if s, ok := params["step"]; ok {
			step, err = strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, run.BadInputf("metric spec %q: step=%q is not a number", spec, s)
			}
		}
		if s, ok := params["norm"]; ok {
			if norm, err = ParseNorm(s); err != nil {
				return nil, fmt.Errorf("metric spec %q: %w", spec, err)
			}
		}
		if s, ok := params["bbox"]; ok {
			var box GeoBox
			if box, err = ParseGeoBox(s); err == nil {
				if _, given := params["step"]; !given {
					step = 0 // computed from the box
				}
				m, err = GeoGrid(ints["w"], ints["h"], box, step, norm)
			}
		} else {
			m, err = Grid(ints["w"], ints["h"], step, norm)
		}
	case "graph", "dist", "points", "latlon", "roads":
		m, err = readMetricFile(ctx, kind, params["file"], params["repair"])
	}
	if err != nil {
		if errors.Is(err, run.ErrTooLarge) || errors.Is(err, run.ErrBadInput) || ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, fmt.Errorf("metric spec %q: %w", spec, err)
		}
		// The spec's file cannot be read or is invalid: the input is bad.
		return nil, run.BadInputf("metric spec %q: %w", spec, err)
	}
	return m, nil
}

// readMetricFile reads a graph edge list, a distance CSV, a points file or
// a road list from path (not opened once ctx is done); repair is the dist
// spec's repair tolerance ("" = none).
func readMetricFile(ctx context.Context, kind, path, repair string) (Metric, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: not read: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	switch kind {
	case "points", "latlon":
		p, err := ReadPoints(f, kind == "latlon")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		p.source = path
		return p, nil
	case "roads":
		c, err := ReadRoadsContext(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		c.source = path
		return c, nil
	case "dist":
		return readDistFile(ctx, f, path, repair)
	}
	if kind == "graph" {
		g, err := ReadEdgeList(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		g.source = path
		return g, nil
	}
	return nil, fmt.Errorf("metric: unknown metric file kind %q", kind)
}

// readDistFile reads a distance CSV: a MatrixMetric without repair (a
// triangle violation is an error that names the repair tolerance that
// would accept it), the shortest-path closure with one.
func readDistFile(ctx context.Context, f io.Reader, path, repair string) (Metric, error) {
	tol := -1.0
	if repair != "" {
		var err error
		if tol, err = strconv.ParseFloat(repair, 64); err != nil || !(tol >= 0 && tol < 1) {
			return nil, run.BadInputf("repair=%q: want a relative tolerance 0 <= TOL < 1, e.g. 1e-6", repair)
		}
	}
	n, d, err := readDistCSV(ctx, f)
	if err == nil && tol < 0 {
		if err = checkEntries(ctx, n, d); err == nil {
			var bad bool
			if _, _, _, bad, err = firstTriangleViolationContext(ctx, n, d); err == nil && !bad {
				return &MatrixMetric{n: n, d: d, source: path}, nil
			}
			if err == nil {
				_, err = repairMatrix(ctx, n, d, 0) // names the repair that would do
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c, err := repairMatrix(ctx, n, d, tol)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.source = path
	return c, nil
}

package metric

// Grids laid on a map: a bounding box in degrees, the grid step in km that
// it implies, and the cell of a point (docs/MATH.md §18.5).

import (
	"math"
	"strconv"
	"strings"

	"github.com/optdp/optdp/run"
)

// The WGS84 ellipsoid, which turns degrees into km.
const (
	// WGS84A is the equatorial radius a in km.
	WGS84A = 6378.137
	// WGS84F is the flattening f; the squared eccentricity is e² = f(2 - f).
	WGS84F = 1 / 298.257223563
)

// KmPerDegree returns the lengths in km of one degree of latitude (the
// meridian arc, (pi/180)·a(1 - e²)/(1 - e² sin² phi)^{3/2}: 110.574 km at
// the equator, 111.694 km at the poles) and of one degree of longitude (the
// parallel, (pi/180)·a cos phi/(1 - e² sin² phi)^{1/2}) at latitude lat
// degrees on WGS84.
func KmPerDegree(lat float64) (latKm, lonKm float64) {
	phi := lat * math.Pi / 180
	e2 := WGS84F * (2 - WGS84F)
	w := 1 - e2*math.Sin(phi)*math.Sin(phi)
	latKm = math.Pi / 180 * WGS84A * (1 - e2) / (w * math.Sqrt(w))
	lonKm = math.Pi / 180 * WGS84A * math.Cos(phi) / math.Sqrt(w)
	return latKm, lonKm
}

// GeoBox is a bounding box in degrees: South < North in [-90, 90] and
// West < East in [-180, 180] (a box across the antimeridian is not
// supported). The grid on a box has row 0 at the north edge, rows going
// south and columns going east, like a map image.
type GeoBox struct {
	South, West, North, East float64
}

// Validate checks the box's ranges and that it stays away from the poles
// (|latitude| < 89.9, where a degree of longitude still has a length).
func (b GeoBox) Validate() error {
	for _, v := range []float64{b.South, b.West, b.North, b.East} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return run.BadInputf("bbox %v: every coordinate must be a finite number of degrees", b)
		}
	}
	if !(b.South < b.North) || b.South < -89.9 || b.North > 89.9 {
		return run.BadInputf("bbox: want -89.9 <= south (%g) < north (%g) <= 89.9 (degrees of latitude)", b.South, b.North)
	}
	if !(b.West < b.East) || b.West < -180 || b.East > 180 {
		return run.BadInputf("bbox: want -180 <= west (%g) < east (%g) <= 180 (degrees of longitude; a box across the antimeridian is not supported)", b.West, b.East)
	}
	return nil
}

// String is "S,W,N,E" with full precision.
func (b GeoBox) String() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return f(b.South) + "," + f(b.West) + "," + f(b.North) + "," + f(b.East)
}

// ParseGeoBox parses "south,west,north,east" in degrees (the order of
// OpenStreetMap's Overpass API) and validates it.
func ParseGeoBox(s string) (GeoBox, error) {
	if len(s) > 200 {
		return GeoBox{}, run.BadInputf("bbox: %d characters, want 4 numbers", len(s))
	}
	f := strings.Split(s, ",")
	if len(f) != 4 {
		return GeoBox{}, run.BadInputf("bbox %q: want 4 numbers south,west,north,east (degrees)", s)
	}
	var v [4]float64
	for i, t := range f {
		x, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		if err != nil {
			return GeoBox{}, run.BadInputf("bbox %q: %q is not a number", s, t)
		}
		v[i] = x
	}
	b := GeoBox{South: v[0], West: v[1], North: v[2], East: v[3]}
	return b, b.Validate()
}

// CellKm is the size in km of a cell of a w×h grid on the box, measured
// where it is smallest: the height is the latitude span over h in degrees of
// latitude at the box's equatorward edge, the width the longitude span over
// w in degrees of longitude at its poleward edge (KmPerDegree: the meridian
// degree grows and the parallel degree shrinks away from the equator).
func (b GeoBox) CellKm(w, h int) (width, height float64) {
	pole := math.Max(math.Abs(b.South), math.Abs(b.North))
	equator := 0.0 // the box straddles the equator
	if b.South > 0 || b.North < 0 {
		equator = math.Min(math.Abs(b.South), math.Abs(b.North))
	}
	latKm, _ := KmPerDegree(equator)
	_, lonKm := KmPerDegree(pole)
	width = (b.East - b.West) / float64(w) * lonKm
	height = (b.North - b.South) / float64(h) * latKm
	return width, height
}

// GeoGrid returns the w×h grid on the box b with the given norm. The cells
// are the box cut into w×h equal parts in degrees; the step (km) is the
// smaller side of a cell as measured by CellKm, so that the grid distance
// step·norm(dx, dy) between two cells is at most their distance on the
// ground, to first order in the box's size: eps per km of the grid is never
// weaker on the ground. step, if > 0, overrides it with a smaller value (a
// larger one is an error, as it would overstate distances).
//
// The approximation (docs/MATH.md §18.5) is equirectangular: distances on
// the ground (WGS84) differ from the grid's by the cells' aspect ratio (the
// grid takes the smaller side), by the change of the degree lengths across
// the box (the grid takes the smallest), all on the safe side, and by the
// curvature of the parallels and meridians, a relative term of the order of
// (box size / 6371 km)², about 1e-4 for a 60 km box, the only one not on
// the safe side.
func GeoGrid(w, h int, b GeoBox, step float64, norm Norm) (*GridMetric, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	if w < 1 || h < 1 {
		return nil, run.BadInputf("grid: w and h must be >= 1, got w=%d h=%d", w, h)
	}
	cw, ch := b.CellKm(w, h)
	auto := math.Min(cw, ch)
	if !(auto > 0) || math.IsInf(auto, 0) {
		return nil, run.BadInputf("grid: bbox %v with w=%d, h=%d gives cells of %g x %g km", b, w, h, cw, ch)
	}
	if step == 0 {
		step = auto
	} else if step > auto*(1+1e-12) {
		return nil, run.BadInputf("grid: step=%g km is larger than the bbox's cells (%.6g x %.6g km, so at most %.9g): the grid would overstate distances", step, cw, ch, auto)
	}
	g, err := Grid(w, h, step, norm)
	if err != nil {
		return nil, err
	}
	box := b
	g.box = &box
	return g, nil
}

// Box returns the grid's bounding box and true, or false for a grid not
// laid on a map.
func (g *GridMetric) Box() (GeoBox, bool) {
	if g.box == nil {
		return GeoBox{}, false
	}
	return *g.box, true
}

// W and H are the grid's columns and rows.
func (g *GridMetric) W() int { return g.w }

// H is the number of rows of the grid.
func (g *GridMetric) H() int { return g.h }

// CellOfLatLon returns the index row·w + col of the cell of the box holding
// the point (lat, lon) in degrees, and false when the grid has no box or the
// point is outside it. The box's south and east edges belong to the last
// row and column.
func (g *GridMetric) CellOfLatLon(lat, lon float64) (int, bool) {
	if g.box == nil || !(lat >= g.box.South && lat <= g.box.North && lon >= g.box.West && lon <= g.box.East) {
		return 0, false
	}
	b := g.box
	row := int(math.Floor((b.North - lat) / (b.North - b.South) * float64(g.h)))
	col := int(math.Floor((lon - b.West) / (b.East - b.West) * float64(g.w)))
	return min(row, g.h-1)*g.w + min(col, g.w-1), true
}

// CellOfXY returns the index row·w + col of the cell holding the point at
// x km along a row (columns) and y km across rows from the outer corner of
// cell 0, col = floor(x/step), row = floor(y/step), and false outside the
// grid.
func (g *GridMetric) CellOfXY(x, y float64) (int, bool) {
	if !(x >= 0 && y >= 0) {
		return 0, false
	}
	col, row := math.Floor(x/g.step), math.Floor(y/g.step)
	if !(col < float64(g.w) && row < float64(g.h)) {
		return 0, false
	}
	return int(row)*g.w + int(col), true
}

package metric

// Point sets read from real maps: planar coordinates in km (Euclidean
// distance) and latitude/longitude in degrees (great-circle distance by the
// haversine formula), with the nearest-location lookup that snaps records
// onto them.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/optdp/optdp/run"
)

// EarthRadiusKm is the radius of the sphere on which LatLon measures
// great-circle distances: the IUGG mean Earth radius R1 = (2a + b)/3 of
// WGS84, 6371.0088 km. The sphere differs from the ellipsoid by up to about
// 0.5% on long north-south paths.
const EarthRadiusKm = 6371.0088

// MaxPointAnswers is the largest point set Points and LatLon accept: the
// validation and the rounding bound scan all pairs (O(n²) distances).
const MaxPointAnswers = 1 << 15

// MaxPlanarCoord bounds |x| and |y| of planar points (km), so that every
// difference and hypotenuse is far from overflow.
const MaxPlanarCoord = 1e12

// PointsMetric is a set of n distinct places: planar points (x, y) in km
// with the Euclidean distance d = hypot(x_i - x_j, y_i - y_j), or points
// (lat, lon) in degrees on the sphere of radius EarthRadiusKm with the
// great-circle distance (Haversine). Distances are computed on demand; it
// is safe for concurrent use.
type PointsMetric struct {
	a, b   []float64 // x, y (km) or lat, lon (degrees)
	geo    bool
	source string
	// for the nearest-location lookup: unit vectors (geo) or (x, y, 0),
	// sorted by their first coordinate
	order []int32
	vec   [][3]float64

	extMu      sync.Mutex // guards extDone, minD, maxD
	extDone    bool
	minD, maxD float64
}

var _ Locator = (*PointsMetric)(nil)

// Points returns the planar point set with coordinates x[i], y[i] in km.
// Every coordinate must be finite with |v| <= MaxPlanarCoord, and no two
// points may coincide (the distance between distinct answers must be
// positive); an error names the first offending point (run.ErrBadInput).
func Points(x, y []float64) (*PointsMetric, error) {
	if err := checkPointCount(len(x), len(y)); err != nil {
		return nil, err
	}
	for i := range x {
		if !finite(x[i]) || !finite(y[i]) || math.Abs(x[i]) > MaxPlanarCoord || math.Abs(y[i]) > MaxPlanarCoord {
			return nil, run.BadInputf("points: point %d (%v, %v): coordinates must be finite numbers of km within ±%g", i, x[i], y[i], MaxPlanarCoord)
		}
	}
	p := &PointsMetric{a: slices.Clone(x), b: slices.Clone(y)}
	p.index()
	return p, p.checkDistinct()
}

// LatLon returns the point set at latitudes lat[i] in [-90, 90] and
// longitudes lon[i] in [-180, 180] (degrees) with the great-circle distance
// on the sphere of radius R = EarthRadiusKm,
//
//	d = R·∠(a, b) = 2R·atan2(|a − b|, |a + b|),
//	a = (cos lat_i cos lon_i, cos lat_i sin lon_i, sin lat_i), b likewise,
//
// the angle between the points' unit vectors, computed once. The atan2
// form keeps its digits at short and nearly antipodal distances alike (the
// arcsine of the chord loses them near the antipode, the law of cosines
// for short distances), and it is evaluated with correctly rounded
// operations only (no library arctangent), so its rounding is proven
// (DistRounding, docs/MATH.md §3.10); it agrees with the haversine formula
// (Haversine) to within 1e-11 km. Points that coincide (the same
// coordinates, longitudes -180 and 180, or any two longitudes at a pole)
// are an error, as are out-of-range or non-finite coordinates
// (run.ErrBadInput).
func LatLon(lat, lon []float64) (*PointsMetric, error) {
	if err := checkPointCount(len(lat), len(lon)); err != nil {
		return nil, err
	}
	for i := range lat {
		if !finite(lat[i]) || !finite(lon[i]) {
			return nil, run.BadInputf("latlon: point %d (%v, %v): coordinates must be finite numbers of degrees", i, lat[i], lon[i])
		}
		if lat[i] < -90 || lat[i] > 90 {
			return nil, run.BadInputf("latlon: point %d: latitude %v is outside [-90, 90] (are latitude and longitude swapped?)", i, lat[i])
		}
		if lon[i] < -180 || lon[i] > 180 {
			return nil, run.BadInputf("latlon: point %d: longitude %v is outside [-180, 180]", i, lon[i])
		}
	}
	p := &PointsMetric{a: slices.Clone(lat), b: slices.Clone(lon), geo: true}
	p.index()
	return p, p.checkDistinct()
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func checkPointCount(n, m int) error {
	if n != m {
		return run.BadInputf("points: %d first and %d second coordinates", n, m)
	}
	if n < 1 || n > MaxPointAnswers {
		return run.BadInputf("points: %d points, want 1..%d (MaxPointAnswers)", n, MaxPointAnswers)
	}
	return nil
}

// index builds the vectors of the nearest-location lookup.
func (p *PointsMetric) index() {
	n := len(p.a)
	p.vec = make([][3]float64, n)
	p.order = make([]int32, n)
	for i := range p.vec {
		p.vec[i] = p.vector(p.a[i], p.b[i])
		p.order[i] = int32(i)
	}
	slices.SortFunc(p.order, func(i, j int32) int {
		vi, vj := p.vec[i], p.vec[j]
		for c := range 3 {
			if vi[c] != vj[c] {
				if vi[c] < vj[c] {
					return -1
				}
				return 1
			}
		}
		return int(i - j)
	})
}

// vector is (x, y, 0) for a planar point, the unit vector of (lat, lon).
func (p *PointsMetric) vector(a, b float64) [3]float64 {
	if !p.geo {
		return [3]float64{a, b, 0}
	}
	phi, lam := a*math.Pi/180, b*math.Pi/180
	return [3]float64{math.Cos(phi) * math.Cos(lam), math.Cos(phi) * math.Sin(lam), math.Sin(phi)}
}

// checkDistinct refuses points at distance 0: neighbours in the sorted
// order with equal vectors, or (on the sphere) equal positions written
// differently, found by checking Dist of neighbours in the order.
func (p *PointsMetric) checkDistinct() error {
	for k := 1; k < len(p.order); k++ {
		i, j := int(p.order[k-1]), int(p.order[k])
		if p.Dist(i, j) == 0 || p.vec[i] == p.vec[j] {
			return p.coincide(i, j)
		}
	}
	if p.geo {
		// The same place written differently: longitudes -180 and 180, any
		// longitude at a pole.
		seen := make(map[[2]float64]int, len(p.a))
		for i := range p.a {
			key := [2]float64{p.a[i], p.b[i]}
			if key[1] == 180 {
				key[1] = -180
			}
			if key[0] == 90 || key[0] == -90 {
				key[1] = 0
			}
			if j, dup := seen[key]; dup {
				return p.coincide(j, i)
			}
			seen[key] = i
		}
	}
	return nil
}

func (p *PointsMetric) coincide(i, j int) error {
	i, j = min(i, j), max(i, j)
	return run.BadInputf("%s: points %d (%v, %v) and %d (%v, %v) coincide (distance 0 between distinct answers): merge them into one location", p.kind(), i, p.a[i], p.b[i], j, p.a[j], p.b[j])
}

func (p *PointsMetric) kind() string {
	if p.geo {
		return "latlon"
	}
	return "points"
}

// Len is the number of points.
func (p *PointsMetric) Len() int { return len(p.a) }

// Geo reports whether the points are latitudes and longitudes (else planar
// km).
func (p *PointsMetric) Geo() bool { return p.geo }

// Dist is the Euclidean distance in km of planar points, the great-circle
// distance in km of points on the sphere (see LatLon): R times the angle
// between their unit vectors, 2·atan2(|a − b|, |a + b|), computed with
// correctly rounded operations only (sphereAngle), within 1e-11 km
// of the haversine of the coordinates and with a proven rounding bound
// (DistRounding).
func (p *PointsMetric) Dist(i, j int) float64 {
	if i == j {
		return 0
	}
	if !p.geo {
		return math.Hypot(p.a[i]-p.a[j], p.b[i]-p.b[j])
	}
	return EarthRadiusKm * sphereAngle(&p.vec[i], &p.vec[j])
}

// Haversine is the great-circle distance in km between (lat1, lon1) and
// (lat2, lon2) in degrees on the sphere of radius EarthRadiusKm, by the
// haversine formula computed stably: 2R·atan2(sqrt(h), sqrt(h')),
// h = sin²((lat2 - lat1)/2) + cos lat1 · cos lat2 · sin²((lon2 - lon1)/2)
// and h' = 1 - h evaluated without cancellation as the haversine to the
// antipode of the second point, sin²((lat1 + lat2)/2) + cos lat1 · cos lat2
// · cos²((lon2 - lon1)/2). It is symmetric in its two points, exactly, in
// floating point. (LatLon's Dist uses the unit-vector form, whose rounding
// is proven.)
func Haversine(lat1, lon1, lat2, lon2 float64) float64 {
	const rad = math.Pi / 180
	sdlat := math.Sin((lat2 - lat1) * rad / 2)
	slat := math.Sin((lat1 + lat2) * rad / 2)
	hl := math.Abs(lon2-lon1) * rad / 2
	sdlon, cdlon := math.Sin(hl), math.Cos(hl)
	cc := math.Cos(lat1*rad) * math.Cos(lat2*rad)
	h := sdlat*sdlat + cc*(sdlon*sdlon)
	hc := slat*slat + cc*(cdlon*cdlon)
	return 2 * EarthRadiusKm * math.Atan2(math.Sqrt(h), math.Sqrt(hc))
}

// String is "points:file=PATH" or "latlon:file=PATH" when read through
// Parse, otherwise "points:n=N" or "latlon:n=N" (not parseable).
func (p *PointsMetric) String() string {
	if p.source != "" {
		return p.kind() + ":file=" + p.source
	}
	return p.kind() + ":n=" + strconv.Itoa(len(p.a))
}

// Accepts is true for planar x, y (km) on planar points and for lat, lon
// (degrees) on points on the sphere.
func (p *PointsMetric) Accepts(geo bool) bool { return geo == p.geo }

// Place returns the coordinates of point i: x, y in km, or lat, lon in
// degrees (geo true).
func (p *PointsMetric) Place(i int) (a, b float64, geo bool) { return p.a[i], p.b[i], p.geo }

// Locate returns the nearest point to (a, b) (x, y in km, or lat, lon in
// degrees when geo; ties go to the smaller index) and true; false when the
// coordinates are of the other kind, not finite or (lat, lon) out of range.
// Planar points are compared by Euclidean distance, points on the sphere by
// the chord between unit vectors, which orders them as the great-circle
// distance does. A sweep over the points sorted by their first vector
// coordinate stops once that coordinate alone is farther than the best
// point so far.
func (p *PointsMetric) Locate(a, b float64, geo bool) (int, bool) {
	if geo != p.geo || !finite(a) || !finite(b) || (geo && (a < -90 || a > 90 || b < -180 || b > 180)) {
		return 0, false
	}
	q := p.vector(a, b)
	n := len(p.order)
	start, _ := slices.BinarySearchFunc(p.order, q[0], func(i int32, t float64) int {
		switch {
		case p.vec[i][0] < t:
			return -1
		case p.vec[i][0] > t:
			return 1
		}
		return 0
	})
	best, bestD := -1, math.Inf(1)
	try := func(i int) {
		v := p.vec[i]
		d := (v[0]-q[0])*(v[0]-q[0]) + (v[1]-q[1])*(v[1]-q[1]) + (v[2]-q[2])*(v[2]-q[2])
		if d < bestD || (d == bestD && i < best) {
			best, bestD = i, d
		}
	}
	for lo, hi := start-1, start; lo >= 0 || hi < n; {
		moved := false
		if hi < n {
			if dx := p.vec[p.order[hi]][0] - q[0]; dx*dx <= bestD {
				try(int(p.order[hi]))
				hi++
				moved = true
			} else {
				hi = n
			}
		}
		if lo >= 0 {
			if dx := q[0] - p.vec[p.order[lo]][0]; dx*dx <= bestD {
				try(int(p.order[lo]))
				lo--
				moved = true
			} else {
				lo = -1
			}
		}
		if !moved && lo < 0 && hi >= n {
			break
		}
	}
	return best, best >= 0
}

// ReadPoints reads a point set from CSV: a header naming the columns x and
// y (planar km) or lat and lon (degrees; also latitude, lng, long,
// longitude) — other columns are ignored — or, without a header, lines of
// exactly two numbers, read as x, y when geo is false and as lat, lon when
// geo is true. A header must agree with geo. Fields are separated by commas,
// semicolons, tabs or blanks; blank lines and lines starting with '#' are
// skipped. The input is bounded: at most MaxPointsBytes bytes, lines of
// MaxEdgeListLine bytes and MaxPointAnswers points. Errors name the line.
func ReadPoints(r io.Reader, geo bool) (*PointsMetric, error) {
	sc, lr := boundedLines(r, MaxPointsBytes)
	var a, b []float64
	ca, cb, fields := 0, 1, 2
	headerSeen := false
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == '\t' || r == ' ' })
		if len(f) == 0 {
			return nil, fmt.Errorf("metric: points line %d: separators but no fields: %w", line, run.ErrBadInput)
		}
		if !headerSeen {
			headerSeen = true
			if _, err := strconv.ParseFloat(strings.TrimSpace(f[0]), 64); err != nil {
				var err error
				if ca, cb, err = pointsHeaderColumns(f, geo); err != nil {
					return nil, fmt.Errorf("points line %d: %w", line, err)
				}
				fields = len(f)
				continue
			}
		}
		if len(f) != fields {
			return nil, fmt.Errorf("metric: points line %d: %d fields, want %d", line, len(f), fields)
		}
		x, err1 := strconv.ParseFloat(f[ca], 64)
		y, err2 := strconv.ParseFloat(f[cb], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("metric: points line %d: %q is not two numbers", line, trimQuote(s))
		}
		if len(a) == MaxPointAnswers {
			return nil, fmt.Errorf("metric: points line %d: more than %d points (MaxPointAnswers)", line, MaxPointAnswers)
		}
		a, b = append(a, x), append(b, y)
	}
	if err := scanEnd(sc, lr, "points", line, "MaxPointsBytes", MaxPointsBytes); err != nil {
		return nil, err
	}
	if len(a) == 0 {
		return nil, errors.New("metric: points: no points")
	}
	if geo {
		return LatLon(a, b)
	}
	return Points(a, b)
}

// MaxPointsBytes bounds a points file (about 40 bytes a point).
const MaxPointsBytes = 64 << 20

// pointsHeaderColumns finds the coordinate columns of a header.
func pointsHeaderColumns(f []string, geo bool) (int, int, error) {
	names := map[string]string{"lat": "lat", "latitude": "lat", "lon": "lon", "lng": "lon", "long": "lon", "longitude": "lon", "x": "x", "y": "y"}
	idx := map[string]int{}
	for k, s := range f {
		if key, ok := names[strings.ToLower(strings.Trim(strings.TrimSpace(s), `"'`))]; ok {
			if _, dup := idx[key]; dup {
				return 0, 0, fmt.Errorf("metric: the header names the %s column twice", key)
			}
			idx[key] = k
		}
	}
	want := [2]string{"x", "y"}
	if geo {
		want = [2]string{"lat", "lon"}
	}
	i, ok1 := idx[want[0]]
	j, ok2 := idx[want[1]]
	if !ok1 || !ok2 {
		other := "latlon:file= for lat/lon"
		if geo {
			other = "points:file= for x/y in km"
		}
		return 0, 0, fmt.Errorf("metric: the header %.80q must name the columns %s and %s (or use %s)", strings.Join(f, ","), want[0], want[1], other)
	}
	return i, j, nil
}

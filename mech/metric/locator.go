package metric

import (
	"context"
	"fmt"
	"math"
)

// Locator is a metric whose answers are places: planar points in km or
// points on the Earth in degrees. Priors built from records of visits and
// the sampler of true locations given as coordinates use it to snap a point
// to an answer.
type Locator interface {
	Metric
	// Accepts reports whether Locate takes planar x, y in km (geo false)
	// or lat, lon in degrees (geo true).
	Accepts(geo bool) bool
	// Locate returns the answer for the point (a, b) and true, or false
	// when the point is outside the metric's area or of a kind it does not
	// accept.
	Locate(a, b float64, geo bool) (int, bool)
	// Place returns the coordinates of answer i (a representative point,
	// such as a grid cell's centre) and whether they are lat, lon degrees.
	Place(i int) (a, b float64, geo bool)
}

var (
	_ Locator          = (*GridMetric)(nil)
	_ Rounded          = (*PointsMetric)(nil)
	_ RoundedContext   = (*PointsMetric)(nil)
	_ PositiveDefinite = (*PointsMetric)(nil)
)

// Accepts: x, y always (km from the outer corner of cell 0), lat, lon when
// the grid is laid on a map.
func (g *GridMetric) Accepts(geo bool) bool { return !geo || g.box != nil }

// Locate is CellOfLatLon (geo) or CellOfXY.
func (g *GridMetric) Locate(a, b float64, geo bool) (int, bool) {
	if geo {
		return g.CellOfLatLon(a, b)
	}
	return g.CellOfXY(a, b)
}

// Place is the centre of cell i: lat, lon in degrees for a grid on a map
// (the box cut into equal parts in degrees), else x, y in km.
func (g *GridMetric) Place(i int) (a, b float64, geo bool) {
	row, col := i/g.w, i%g.w
	if g.box != nil {
		bx := g.box
		lat := bx.North - (float64(row)+0.5)*(bx.North-bx.South)/float64(g.h)
		lon := bx.West + (float64(col)+0.5)*(bx.East-bx.West)/float64(g.w)
		return lat, lon, true
	}
	return (float64(col) + 0.5) * g.step, (float64(row) + 0.5) * g.step, false
}

// extentContext is the smallest and largest computed distance between
// distinct points (one O(n²) scan, kept once complete), stopped by ctx:
// the scan reads ctx before each row (at most n-1 distances, well under a
// millisecond at n = 10^4) and returns its error, wrapped, once it is
// cancelled; an interrupted scan leaves nothing cached.
func (p *PointsMetric) extentContext(ctx context.Context) (minD, maxD float64, err error) {
	p.extMu.Lock()
	defer p.extMu.Unlock()
	if p.extDone {
		return p.minD, p.maxD, nil
	}
	minD, maxD = math.Inf(1), 0
	n := len(p.a)
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return 0, 0, fmt.Errorf("metric: %s: distance range of %d points interrupted after %d rows: %w", p.kind(), n, i, err)
		}
		for j := i + 1; j < n; j++ {
			d := p.Dist(i, j)
			minD, maxD = min(minD, d), max(maxD, d)
		}
	}
	p.minD, p.maxD, p.extDone = minD, maxD, true
	return minD, maxD, nil
}

// DistRounding of planar points: d̂ = fl(hypot(fl(x_i-x_j), fl(y_i-y_j)))
// is within a relative tau = hypotErr of the Euclidean distance d of the
// stored coordinates (each difference is within u = 2^-53, which moves the
// norm by at most u, and math.Hypot adds at most 3.25u: 4.25u < 8u), and d
// is an exact metric, so as for GridMetric d̂(h,k) - d̂(i,k) <= (1 + t +
// t·diam/MinDist)·d̂(i,h) with t = 2tau/(1-tau), diam the largest d̂ and
// MinDist the smallest (O(n²) scan, done once). Points at a subnormal
// distance get no bound.
//
// On the sphere, geoRounding: the distance is computed from the stored
// unit vectors with correctly rounded operations only, within a proven
// E = R·sphereErr(alpha) of the exact angle between them (docs/MATH.md
// §3.10), and Defect = 3E/MinDist.
func (p *PointsMetric) DistRounding() (RoundingBound, bool) {
	b, ok, _ := p.DistRoundingContext(context.Background())
	return b, ok
}

// DistRoundingContext is DistRounding with its O(n²) scan stopped by ctx
// (see RoundedContext).
func (p *PointsMetric) DistRoundingContext(ctx context.Context) (RoundingBound, bool, error) {
	if len(p.a) < 2 {
		return RoundingBound{MinDist: 1}, true, nil
	}
	minD, diam, err := p.extentContext(ctx)
	if err != nil {
		return RoundingBound{}, false, err
	}
	if p.geo {
		b, ok := p.geoRounding(minD)
		return b, ok, nil
	}
	if !(minD >= 0x1p-1022) || math.IsInf(diam, 0) || math.IsInf(up(diam)/minD, 0) {
		return RoundingBound{}, false, nil
	}
	t := up(2 * hypotErr / (1 - hypotErr))
	return RoundingBound{Defect: up(t * (1 + up(diam/minD))), MinDist: minD}, true, nil
}

// PhiPositiveDefinite is true for planar points: exp(-eps·|x-y|) is a
// strictly positive definite function on R² (its Fourier transform is
// positive), so Phi is positive definite for distinct points. On the
// sphere it is not claimed (false).
func (p *PointsMetric) PhiPositiveDefinite() bool { return !p.geo }

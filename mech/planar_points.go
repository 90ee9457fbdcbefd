package mech

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// PlanarPointsMaxN is the most points PlanarLaplacePoints takes: n² cells,
// each integrated over the angle (1.3 s for 400 random points on two
// cores, BenchmarkPlanarLaplacePoints), and the exact audit's n³ ratios.
const PlanarPointsMaxN = 2000

// PlanarLaplacePoints is the planar Laplace mechanism on a set of planar
// points (km), reported as the nearest point (docs/MATH.md §8.5): the noisy
// location has density eps²/(2π) e^{-eps |z-x_i|} in the plane and falls
// in the Voronoi cell of point k with probability X[i][k]. Snapping to the
// nearest point is post-processing of the continuous mechanism, which is
// eps·d-private for the Euclidean distance d, so X is too. On the points
// of a grid it is PlanarLaplace (whose cells are the grid's squares,
// unbounded on the border).
//
// Each cell is the convex polygon of the bisectors with the other points,
// clipped to a rectangle whose sides lie 60/eps beyond every point (of a
// cell's mass, what lies beyond is below 61·e^{-60} < 1e-24), and its mass
// is integrated in polar coordinates about x_i,
//
//	(1/2π) ∫ [G(eps r_in(θ)) - G(eps r_out(θ))] dθ,  G(t) = (1+t) e^{-t},
//
// where the ray at angle θ crosses the cell between r_in and r_out, by
// adaptive Gauss–Kronrod quadrature between the angles of the cell's
// corners (cellMass: to 1e-13 of the cell's mass, far cells included).
// Each row is divided by its sum, which moves no ratio by more than that
// accuracy, and the matrix is audited exactly against p at eps (mech.Audit)
// before it is returned: an error if the audit fails.
//
// Points on the sphere (latlon:) are drawn in PlanarProjection's plane,
// where no distance exceeds rho times the great-circle one, with the noise
// of eps/rho: the ratios are at most e^{(eps/rho)·rho·d} = e^{eps·d}, and
// the audit is against the great-circle metric. Over a city rho − 1 is
// about 1e-6.
//
// Errors (run.ErrBadInput) for eps times the points' extent above
// maxPlanarExtent (far cells' probabilities come near underflow) and for
// eps times the closest pair's distance below minPlanarCell (cells the
// quadrature cannot tell apart); run.ErrTooLarge beyond PlanarPointsMaxN
// points. ctx stops the cells' construction, the integration between rows
// and the audit.
func PlanarLaplacePoints(ctx context.Context, p *metric.PointsMetric, eps float64) (*mat.Dense, error) {
	if err := metric.CheckEps(eps); err != nil {
		return nil, fmt.Errorf("planar laplace: %w", err)
	}
	n := p.Len()
	if n > PlanarPointsMaxN {
		return nil, fmt.Errorf("mech: planar laplace on %d points: more than the %d it integrates (n² cells, an n³ audit): %w", n, PlanarPointsMaxN, run.ErrTooLarge)
	}
	if err := ValidateDenseSize(n, n, "planar laplace"); err != nil {
		return nil, err
	}
	plane, rho, err := PlanarProjection(ctx, p)
	if err != nil {
		return nil, err
	}
	e := eps / rho // eps·d-private on the sphere (PlanarProjection)
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range n {
		xs[i], ys[i], _ = plane.Place(i)
		xs[i], ys[i] = e*xs[i], e*ys[i] // units of the noise's scale 1/e
	}
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for i := range n {
		lo[0], lo[1] = min(lo[0], xs[i]), min(lo[1], ys[i])
		hi[0], hi[1] = max(hi[0], xs[i]), max(hi[1], ys[i])
	}
	if diam := math.Hypot(hi[0]-lo[0], hi[1]-lo[1]); diam > maxPlanarExtent {
		return nil, run.BadInputf("mech: planar laplace: eps × the points' extent = %.4g > %d: far cells' probabilities come near float64's underflow; use a smaller eps or fewer, closer points", diam, maxPlanarExtent)
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			if d := math.Hypot(xs[i]-xs[j], ys[i]-ys[j]); d < minPlanarCell {
				return nil, run.BadInputf("mech: planar laplace: points %d and %d are %.3g apart, eps × that = %.3g < %g: their cells' probabilities differ by less than the integration can resolve; merge them or use a larger eps", i, j, d/e, d, minPlanarCell)
			}
		}
	}
	const margin = 60
	box := [4]float64{lo[0] - margin, hi[0] + margin, lo[1] - margin, hi[1] + margin}
	cells := make([][]corner, n)
	for k := range n {
		if k%64 == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("mech: planar laplace: interrupted: %w", ctx.Err())
		}
		cells[k] = voronoiCell(xs, ys, k, box)
	}
	x := mat.NewDense(n, n, nil)
	workers := max(1, min(runtime.GOMAXPROCS(0), n))
	var wg sync.WaitGroup
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	for range workers {
		wg.Go(func() {
			for i := range next {
				if ctx.Err() != nil {
					return
				}
				row := x.RawRowView(i)
				var sum float64
				for k := range n {
					row[k] = cellMass(pt{xs[i], ys[i]}, cells[k], k == i)
					sum += row[k]
				}
				for k := range row {
					row[k] /= sum
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("mech: planar laplace: interrupted: %w", err)
	}
	rep, err := AuditContext(ctx, x, p, eps)
	if err != nil {
		return nil, fmt.Errorf("planar laplace: %w", err)
	}
	if err := auditVerdict("planar laplace", rep, p, eps); err != nil {
		return nil, err
	}
	return x, nil
}

// PlanarProjection returns the points of p in a plane (km) and rho >= 1,
// an upper bound of the ratio of their distance there to their distance in
// p: p itself and 1 for planar points; for points on the sphere, the
// azimuthal equidistant projection about the direction of the mean of
// their unit vectors (distances from that centre kept, others stretched by
// about (r/R)²/6 for points within r of it: 4e-7 over 10 km), and rho the
// largest ratio over every pair, raised by 1e-9 for the rounding of both
// distances. Points on the sphere 90° or more from that middle (spread over
// more than a hemisphere) are refused (run.ErrBadInput). ctx stops the
// O(n²) scan.
func PlanarProjection(ctx context.Context, p *metric.PointsMetric) (*metric.PointsMetric, float64, error) {
	if !p.Geo() {
		return p, 1, nil
	}
	n := p.Len()
	const deg = math.Pi / 180
	unit := func(i int) [3]float64 {
		lat, lon, _ := p.Place(i)
		return [3]float64{math.Cos(lat*deg) * math.Cos(lon*deg), math.Cos(lat*deg) * math.Sin(lon*deg), math.Sin(lat * deg)}
	}
	var c [3]float64
	for i := range n {
		u := unit(i)
		c[0], c[1], c[2] = c[0]+u[0], c[1]+u[1], c[2]+u[2]
	}
	norm := math.Sqrt(c[0]*c[0] + c[1]*c[1] + c[2]*c[2])
	c[0], c[1], c[2] = c[0]/norm, c[1]/norm, c[2]/norm
	// East and north at the centre (any east at a pole).
	east := [3]float64{-c[1], c[0], 0}
	if e := math.Hypot(east[0], east[1]); e > 1e-12 {
		east[0], east[1] = east[0]/e, east[1]/e
	} else {
		east = [3]float64{0, 1, 0}
	}
	north := [3]float64{c[1]*east[2] - c[2]*east[1], c[2]*east[0] - c[0]*east[2], c[0]*east[1] - c[1]*east[0]}
	dot := func(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range n {
		u := unit(i)
		// The tangent part t = u − (c·u)c: |t| = sin of the angle to c.
		cu := dot(c, u)
		if !(cu > 0) {
			return nil, 0, run.BadInputf("mech: %s: point %d is 90° or more from the points' middle: they spread over more than a hemisphere, which no plane draws with distances near their own", p, i)
		}
		t := [3]float64{u[0] - cu*c[0], u[1] - cu*c[1], u[2] - cu*c[2]}
		st := math.Sqrt(dot(t, t))
		if st == 0 {
			continue // the centre itself
		}
		r := metric.EarthRadiusKm * math.Atan2(st, cu) / st
		xs[i], ys[i] = r*dot(t, east), r*dot(t, north)
	}
	plane, err := metric.Points(xs, ys)
	if err != nil {
		return nil, 0, fmt.Errorf("mech: the projection of %s: %w", p, err)
	}
	rho := 1.0
	for i := range n {
		if i%64 == 0 && ctx.Err() != nil {
			return nil, 0, fmt.Errorf("mech: projecting %s: %w", p, ctx.Err())
		}
		for j := i + 1; j < n; j++ {
			rho = max(rho, plane.Dist(i, j)/p.Dist(i, j))
		}
	}
	return plane, rho * (1 + 1e-9), nil
}

// maxPlanarExtent is the largest eps times the diameter of the points
// PlanarLaplacePoints takes: the masses are then above e^{-600} (1e-261),
// far above adaptiveGK15's absolute floor.
const maxPlanarExtent = 600

// pt is a point of the plane.
type pt struct{ x, y float64 }

// halfPlane is {z : a(z.x - px) + b(z.y - py) <= 0}: (a, b) its outward
// normal, (px, py) a point of its line.
type halfPlane struct{ a, b, px, py float64 }

func (h halfPlane) side(q pt) float64 { return h.a*(q.x-h.px) + h.b*(q.y-h.py) }

// corner is a corner of a convex polygon and the half-plane whose line
// carries the edge from it to the next corner.
type corner struct {
	pt
	edge halfPlane
}

// voronoiCell returns the corners, counter-clockwise, of the cell of point
// k (the points nearer to it than to any other) within box [x0, x1] ×
// [y0, y1]: the box clipped by the bisector of k and each other point
// (Sutherland–Hodgman), each edge with the half-plane it lies on, so that
// the rays' crossings (rayPolygon) read the bisectors themselves, not the
// direction between two corners, which rounding makes arbitrary when the
// corners nearly coincide (a bisector through a corner, as on a grid).
func voronoiCell(xs, ys []float64, k int, box [4]float64) []corner {
	poly := []corner{
		{pt{box[0], box[2]}, halfPlane{0, -1, box[0], box[2]}},
		{pt{box[1], box[2]}, halfPlane{1, 0, box[1], box[2]}},
		{pt{box[1], box[3]}, halfPlane{0, 1, box[1], box[3]}},
		{pt{box[0], box[3]}, halfPlane{-1, 0, box[0], box[3]}},
	}
	var buf []corner
	pk := pt{xs[k], ys[k]}
	cross := func(q, r corner, sq, sr float64) pt {
		f := sq / (sq - sr)
		return pt{q.x + f*(r.x-q.x), q.y + f*(r.y-q.y)}
	}
	for j := range xs {
		if j == k {
			continue
		}
		// Nearer to k than to j: (p_j - p_k)·(z - midpoint) <= 0.
		h := halfPlane{xs[j] - pk.x, ys[j] - pk.y, (xs[j] + pk.x) / 2, (ys[j] + pk.y) / 2}
		buf = buf[:0]
		for t, q := range poly {
			r := poly[(t+1)%len(poly)]
			sq, sr := h.side(q.pt), h.side(r.pt)
			switch {
			case sq < 0 && sr > 0: // leaving: from the crossing the edge runs along h
				buf = append(buf, q, corner{cross(q, r, sq, sr), h})
			case sq == 0 && sr > 0: // leaving from q, on h's line
				buf = append(buf, corner{q.pt, h})
			case sq <= 0:
				buf = append(buf, q)
			case sr < 0: // entering: from the crossing along q's edge
				buf = append(buf, corner{cross(q, r, sq, sr), q.edge})
			}
		}
		poly, buf = buf, poly
		if len(poly) == 0 {
			return nil // cannot happen: p_k is in its own cell
		}
	}
	return append([]corner(nil), poly...)
}

// cellMass is the mass of unit-scale planar Laplace noise about c on the
// convex polygon poly (counter-clockwise corners), which contains c when
// own: (1/2π) ∫ radialMass(r_in(θ), r_out(θ)) dθ over the angles whose rays
// cross it, split at its corners' angles (where r_in and r_out change
// edge), by adaptive Gauss–Kronrod quadrature to 1e-13 of the cell's mass.
func cellMass(c pt, poly []corner, own bool) float64 {
	m, _ := cellMassBisections(c, poly, own)
	return m
}

// cellMassBisections is cellMass and the bisections it made (cellBudget
// when its refinement did not converge).
func cellMassBisections(c pt, poly []corner, own bool) (float64, int) {
	if len(poly) < 3 {
		return 0, 0
	}
	f := func(theta float64) float64 {
		rin, rout, ok := rayPolygon(c, math.Cos(theta), math.Sin(theta), poly)
		if !ok {
			return 0
		}
		return radialMass(rin, rout)
	}
	var breaks []float64
	if own {
		for _, v := range poly {
			a := math.Atan2(v.y-c.y, v.x-c.x)
			if a < 0 {
				a += 2 * math.Pi
			}
			breaks = append(breaks, a)
		}
		breaks = append(breaks, 0, 2*math.Pi)
	} else {
		// The polygon subtends less than π from c: angles about the
		// direction of its first corner, in (-π, π).
		ref := math.Atan2(poly[0].y-c.y, poly[0].x-c.x)
		for _, v := range poly {
			breaks = append(breaks, ref+math.Remainder(math.Atan2(v.y-c.y, v.x-c.x)-ref, 2*math.Pi))
		}
	}
	sort.Float64s(breaks)
	// One rule per piece, then the pieces refined to 1e-13 of the cell's
	// whole mass (a piece's own tolerance would chase rounding in a
	// sliver of the cell seen edge-on), within cellBudget bisections.
	type piece struct{ a, b, k, g float64 }
	var ps []piece
	first := 0.0
	for j := 1; j < len(breaks); j++ {
		a, b := breaks[j-1], breaks[j]
		if b-a < 1e-15 {
			continue
		}
		k, g := gk15(f, a, b)
		ps = append(ps, piece{a, b, k, g})
		first += math.Abs(k)
	}
	if len(ps) == 0 {
		return 0, 0
	}
	tol := max(1e-13*first, gk15Floor) / float64(len(ps))
	budget := cellBudget
	total := 0.0
	for _, q := range ps {
		if math.Abs(q.k-q.g) > tol {
			q.k = gk15Refine(f, q.a, q.b, q.k, tol, 0, &budget)
		}
		total += q.k
	}
	return total / (2 * math.Pi), cellBudget - budget
}

// rayPolygon intersects the ray c + t·(u, v), t >= 0, with the convex
// polygon poly, the intersection of its edges' half-planes: it is inside
// for t in [rin, rout].
func rayPolygon(c pt, u, v float64, poly []corner) (rin, rout float64, ok bool) {
	rin, rout = 0, math.Inf(1)
	for _, q := range poly {
		h := q.edge
		s := -h.side(c)    // the room at t = 0
		d := h.a*u + h.b*v // its rate of use along the ray
		switch {
		case d > 0:
			rout = min(rout, s/d)
		case d < 0:
			rin = max(rin, s/d)
		case s < 0:
			return 0, 0, false
		}
	}
	return rin, rout, rin < rout
}

package mech

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// TestPlanarLaplacePointsGrid: on the points of a grid the Voronoi cells
// are the grid's squares, unbounded on the border, so the matrix is
// PlanarLaplace's (rectangles integrated by their own ray formula) to the
// quadrature's accuracy.
func TestPlanarLaplacePointsGrid(t *testing.T) {
	for _, c := range []struct {
		w, h      int
		step, eps float64
	}{{4, 3, 0.7, 1.3}, {2, 2, 1, 0.2}, {5, 1, 0.3, 4}} {
		n := c.w * c.h
		xs, ys := make([]float64, n), make([]float64, n)
		for i := range n {
			xs[i], ys[i] = float64(i%c.w)*c.step, float64(i/c.w)*c.step
		}
		m, err := metric.Points(xs, ys)
		if err != nil {
			t.Fatal(err)
		}
		got, err := PlanarLaplacePoints(context.Background(), m, c.eps)
		if err != nil {
			t.Fatal(err)
		}
		want, err := PlanarLaplace(c.w, c.h, c.step, c.eps)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			for k := range n {
				g, w := got.At(i, k), want.At(i, k)
				if math.Abs(g-w) > 1e-11*w {
					t.Errorf("%+v: X[%d][%d] = %.15g, grid's %.15g", c, i, k, g, w)
				}
			}
		}
	}
}

// TestPlanarLaplacePointsBrute: on random points each entry is the noise's
// mass on the Voronoi cell, summed here by brute force: the density at
// the midpoints of a fine lattice, each given to its nearest point (no
// polygon, no quadrature). The lattice's error, from the squares that
// straddle a bisector, is below 1e-4 of a row (a wrong cell, a missed
// side or a wrong centre errs by 1e-2 and more).
// The matrix passes the exact audit at eps and its rows sum to 1.
func TestPlanarLaplacePointsBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	const n, eps = 5, 1.0
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range n {
		xs[i], ys[i] = 3*rng.Float64(), 3*rng.Float64()
	}
	m, err := metric.Points(xs, ys)
	if err != nil {
		t.Fatal(err)
	}
	x, err := PlanarLaplacePoints(context.Background(), m, eps)
	if err != nil {
		t.Fatal(err)
	}
	const lo, hi, h = -22.0, 25.0, 0.02
	var brute [n][n]float64
	for zx := lo + h/2; zx < hi; zx += h {
		for zy := lo + h/2; zy < hi; zy += h {
			near, best := 0, math.Inf(1)
			for k := range n {
				if d := math.Hypot(zx-xs[k], zy-ys[k]); d < best {
					near, best = k, d
				}
			}
			for i := range n {
				r := math.Hypot(zx-xs[i], zy-ys[i])
				brute[i][near] += eps * eps / (2 * math.Pi) * math.Exp(-eps*r) * h * h
			}
		}
	}
	for i := range n {
		for k := range n {
			if d := math.Abs(x.At(i, k) - brute[i][k]); d > 2e-4 {
				t.Errorf("X[%d][%d] = %.8g, brute force %.8g", i, k, x.At(i, k), brute[i][k])
			}
		}
	}
	rep, err := Audit(x, m, eps)
	if err != nil || !rep.Private || rep.Eps > eps {
		t.Errorf("audit: %+v, %v", rep, err)
	}
}

// TestPlanarLaplacePointsErrors: an extent too wide for the noise's scale,
// points too close to tell apart, points on the sphere spread over more
// than a hemisphere, too many points and a cancelled context are refused.
func TestPlanarLaplacePointsErrors(t *testing.T) {
	two, err := metric.Points([]float64{0, 1}, []float64{0, 0})
	if err != nil {
		t.Fatal(err)
	}
	for _, eps := range []float64{601, 1e-6} {
		if _, err := PlanarLaplacePoints(context.Background(), two, eps); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("eps %v: %v", eps, err)
		}
	}
	big := make([]float64, PlanarPointsMaxN+1)
	for i := range big {
		big[i] = float64(i)
	}
	bm, err := metric.Points(big, make([]float64, len(big)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PlanarLaplacePoints(context.Background(), bm, 0.1); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("%d points: %v", len(big), err)
	}
	world, err := metric.LatLon([]float64{0, 0, 0, 0}, []float64{0, 90, 180, -90})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PlanarLaplacePoints(context.Background(), world, 0.01); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("the equator's four quarters: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := PlanarLaplacePoints(ctx, two, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// A time limit stops the work under way (1,500 points take seconds).
	rng := rand.New(rand.NewPCG(1, 2))
	xs, ys := make([]float64, 1500), make([]float64, 1500)
	for i := range xs {
		xs[i], ys[i] = 10*rng.Float64(), 10*rng.Float64()
	}
	many, err := metric.Points(xs, ys)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := PlanarLaplacePoints(ctx, many, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("time limit: %v", err)
	}
}

// TestVoronoiCellsPartition: the cells partition the plane, so the noise's
// masses on them sum to 1 from any centre, before the rows are divided by
// their sums: on random points, on points on a circle (every bisector
// through its centre, corners where many cells meet), on a line, on a grid
// (bisectors through corners) and on 80 points spread over 10 noise scales
// (every centre, each cell within 1,000 bisections).
func TestVoronoiCellsPartition(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	sets := map[string][2][]float64{}
	var rx, ry, cx, cy, lx, ly, gx, gy []float64
	for i := range 40 {
		rx, ry = append(rx, 6*rng.Float64()), append(ry, 6*rng.Float64())
		a := 2 * math.Pi * float64(i) / 40
		cx, cy = append(cx, 3+2*math.Cos(a)), append(cy, 3+2*math.Sin(a))
		lx, ly = append(lx, 0.3*float64(i)), append(ly, 0.1*float64(i))
		gx, gy = append(gx, 0.5*float64(i%8)), append(gy, 0.5*float64(i/8))
	}
	cx, cy = append(cx, 3), append(cy, 3) // and the circle's centre
	// 80 points in a 10 km square at eps 1, with cells seen edge-on from
	// some centres: a tolerance relative to each piece chased the rounding
	// of their chords 2^16 bisections deep and more (on 19 of 30 such
	// seeds); relative to the cell, at most 54.
	frng := rand.New(rand.NewPCG(2, 77))
	var fx, fy []float64
	for range 80 {
		fx, fy = append(fx, 10*frng.Float64()), append(fy, 10*frng.Float64())
	}
	sets["random"], sets["circle"], sets["line"], sets["grid"], sets["far"] = [2][]float64{rx, ry}, [2][]float64{cx, cy}, [2][]float64{lx, ly}, [2][]float64{gx, gy}, [2][]float64{fx, fy}
	for name, s := range sets {
		xs, ys := s[0], s[1]
		n := len(xs)
		box := [4]float64{-60, 80, -60, 80}
		cells := make([][]corner, n)
		for k := range n {
			cells[k] = voronoiCell(xs, ys, k, box)
		}
		centres := []int{0, n / 3, n - 1}
		if name == "far" {
			centres = centres[:0]
			for i := range n {
				centres = append(centres, i)
			}
		}
		for _, i := range centres {
			var sum float64
			for k := range n {
				m, b := cellMassBisections(pt{xs[i], ys[i]}, cells[k], k == i)
				if b > 1000 {
					t.Errorf("%s: the cell of %d from %d took %d bisections", name, k, i, b)
				}
				sum += m
			}
			if math.Abs(sum-1) > 1e-11 {
				t.Errorf("%s: the cells' masses from point %d sum to 1%+.3g", name, i, sum-1)
			}
		}
	}
}

// BenchmarkPlanarLaplacePoints/N: the matrix and its exact audit on N
// random points in a 10 km square, eps 1 per km.
func BenchmarkPlanarLaplacePoints(b *testing.B) {
	for _, n := range []int{100, 400} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(uint64(n), 1))
			xs, ys := make([]float64, n), make([]float64, n)
			for i := range xs {
				xs[i], ys[i] = 10*rng.Float64(), 10*rng.Float64()
			}
			m, err := metric.Points(xs, ys)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := PlanarLaplacePoints(context.Background(), m, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPlanarLaplaceSphere: on latitudes and longitudes (a city, a set
// across the antimeridian, one near the pole) the projection stretches no
// pair by more than rho (checked on every pair), rho − 1 is below 1e-6 over
// 0.1° (1.4e-7 measured at Paris), and the matrix passes the exact audit against the great-circle
// distances at eps.
func TestPlanarLaplaceSphere(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sets := map[string][2]float64{"paris": {48.85, 2.35}, "fiji": {-17.8, 179.98}, "pole": {89.5, 0}}
	for name, c := range sets {
		lat, lon := make([]float64, 30), make([]float64, 30)
		for i := range lat {
			lat[i] = c[0] + 0.1*(rng.Float64()-0.5)
			lon[i] = math.Remainder(c[1]+0.1*(rng.Float64()-0.5), 360)
		}
		m, err := metric.LatLon(lat, lon)
		if err != nil {
			t.Fatal(err)
		}
		plane, rho, err := PlanarProjection(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		for i := range lat {
			for j := range lat {
				if i != j && plane.Dist(i, j) > rho*m.Dist(i, j) {
					t.Fatalf("%s: pair (%d,%d) stretched %v > rho %v", name, i, j, plane.Dist(i, j)/m.Dist(i, j), rho)
				}
			}
		}
		if rho-1 > 1e-6 {
			t.Errorf("%s: rho %v", name, rho)
		}
		x, err := PlanarLaplacePoints(context.Background(), m, 2)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if rep, err := Audit(x, m, 2); err != nil || !rep.Private {
			t.Errorf("%s: audit %+v %v", name, rep, err)
		}
	}
}

package mech

import (
	"fmt"
	"math"
	"sort"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// Planar Laplace on a grid (docs/MATH.md §8.5): the continuous
// geo-indistinguishable mechanism, discretised by snapping to grid cells.

// PlanarLaplace is the planar Laplace mechanism discretised to a w x h grid of
// points step km apart (point i at column i%w, row i/w). The noisy location
// has density eps²/(2π) e^{-eps |z-x|} in the plane (eps per km) and is
// reported as the grid cell it falls in: the cells are squares of side step
// centred at the grid points, and the cells on the border extend to infinity
// (a point outside the grid goes to its nearest cell). X[i][k] is the
// density's integral over cell k, computed in polar coordinates around x with
// the radial distribution function 1 - (1+eps r) e^{-eps r} and adaptive
// Gauss–Kronrod quadrature over the angle, to about 1e-13 relative accuracy
// per entry; rows sum to 1 within 1e-12. Snapping is post-processing, so the
// matrix is eps·d-private for the Euclidean distance d (km) between grid
// points, up to that accuracy.
//
// By translation invariance an entry depends only on the offset between the
// two points and on which sides of cell k are unbounded; each distinct cell
// shape is integrated once. The n x n matrix (n = w·h) is refused with an
// error when it exceeds MaxDenseEntries; PlanarLaplaceRow and
// PlanarLaplaceUtility work on large grids without it.
//
// The result is audited against Grid(w, h, step, Euclid) at eps before it is
// returned, and an error is returned if the audit fails. Privacy follows
// from the continuous mechanism by post-processing; the audit guards the
// numerical integration. It is the full mech.Audit up to 900 points (30 x
// 30); on larger grids a deterministic sample of pairs (see auditGrid): a
// 6 x 6 lattice of true points, each against every point within 2 cells and
// against the other lattice points, for every output.
func PlanarLaplace(w, h int, step, eps float64) (*mat.Dense, error) {
	p, err := newPlanarLaplace(w, h, step, eps)
	if err != nil {
		return nil, err
	}
	n := w * h
	if err := ValidateDenseSize(n, n, "planar laplace"); err != nil {
		return nil, err
	}
	x := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		p.row(i, x.RawRowView(i))
	}
	if err := auditGrid("planar laplace", x, w, h, step, eps); err != nil {
		return nil, err
	}
	return x, nil
}

// auditGridFullMax is the largest grid (points) that auditGrid audits over
// all pairs; the full audit costs n²(n-1)/2 ratio comparisons.
const auditGridFullMax = 900

// auditGrid audits the n x n matrix x of a w x h grid (step km) against the
// Euclidean grid metric at level (per km), and returns an error when it
// fails. Up to auditGridFullMax points it is mech.Audit over all pairs.
// Above, it checks every output o for the pairs (i, h) where i runs over a
// 6 x 6 lattice of points spread over the grid (corners and border points
// included) and h over the points within 2 cells of i in x and in y and the
// other lattice points, each pair at its own distance d(i, h): about
// 36·59 pairs, O(2000·n) work.
func auditGrid(name string, x *mat.Dense, w, h int, step, level float64) error {
	m, err := metric.Grid(w, h, step, metric.Euclid)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if w*h <= auditGridFullMax {
		return auditResult(name, x, m, level)
	}
	xs, ys := spreadIndices(w, 6), spreadIndices(h, 6)
	var lattice []int
	for _, y := range ys {
		for _, x := range xs {
			lattice = append(lattice, y*w+x)
		}
	}
	var pairs []auditPair
	for _, i := range lattice {
		ix, iy := i%w, i/w
		for dy := -2; dy <= 2; dy++ {
			for dx := -2; dx <= 2; dx++ {
				jx, jy := ix+dx, iy+dy
				if (dx == 0 && dy == 0) || jx < 0 || jy < 0 || jx >= w || jy >= h {
					continue
				}
				j := jy*w + jx
				pairs = append(pairs, auditPair{i, j, m.Dist(i, j)})
			}
		}
		for _, j := range lattice {
			if j != i {
				pairs = append(pairs, auditPair{i, j, m.Dist(i, j)})
			}
		}
	}
	rep, err := auditPairs(x, pairs, level)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return auditVerdict(name, rep, m, level)
}

// PlanarLaplaceRow is row i of PlanarLaplace(w, h, step, eps), the output
// distribution for the true point i, computed without building the matrix.
func PlanarLaplaceRow(w, h int, step, eps float64, i int) ([]float64, error) {
	p, err := newPlanarLaplace(w, h, step, eps)
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= w*h {
		return nil, fmt.Errorf("mech: planar laplace: point %d outside 0..%d", i, w*h-1)
	}
	row := make([]float64, w*h)
	p.row(i, row)
	return row, nil
}

// PlanarLaplaceUtility is the utility of PlanarLaplace(w, h, step, eps) for
// the uniform prior, (1/n) sum_i X[i][i], computed without building the
// matrix. The identity remap is optimal here, so this is also the utility
// with the optimal remap: by Anderson's theorem a cell symmetric about its
// centre gets the most mass from the centre for a radially decreasing
// density, and a border cell (a strip or quadrant) contains the translate
// seen from any other grid point, so max_i X[i][k] = X[k][k].
func PlanarLaplaceUtility(w, h int, step, eps float64) (float64, error) {
	p, err := newPlanarLaplace(w, h, step, eps)
	if err != nil {
		return 0, err
	}
	u := 0.0
	for i := 0; i < w*h; i++ {
		u += p.cell(i, i)
	}
	return u / float64(w*h), nil
}

// minPlanarCell is the smallest cell side eps·step (in units of the noise
// scale) PlanarLaplace accepts. Below it neighbouring cells' probabilities
// differ by less than the quadrature's absolute accuracy (1e-12 of a row),
// so the privacy ratios cannot be computed reliably (at 1e-10 the audit
// measured 1.2e-3 against eps = 1e-10) and the integration slows down.
const minPlanarCell = 1e-5

// planarLaplace holds a grid and the memo of cell probabilities by shape.
type planarLaplace struct {
	w, h int
	c    float64 // eps·step: the cell side in units of the noise scale 1/eps
	memo map[[4]int]float64
}

func newPlanarLaplace(w, h int, step, eps float64) (*planarLaplace, error) {
	if err := checkGrid(w, h, step, eps); err != nil {
		return nil, fmt.Errorf("planar laplace: %w", err)
	}
	c := eps * step
	if c < minPlanarCell {
		return nil, fmt.Errorf("mech: planar laplace: eps*step = %.3g < %g: the cells' probabilities differ by less than the integration can resolve (the DP audit would fail); use a coarser step or a larger eps", c, minPlanarCell)
	}
	if diag := c * math.Hypot(float64(w), float64(h)); diag > 700 {
		return nil, fmt.Errorf("mech: planar laplace: eps*diagonal = %.4g > 700: far cells' probabilities underflow float64; use a smaller eps or grid: %w", diag, run.ErrBadInput)
	}
	return &planarLaplace{w: w, h: h, c: c, memo: make(map[[4]int]float64)}, nil
}

// row writes the output distribution of the true point i into dst.
func (p *planarLaplace) row(i int, dst []float64) {
	for k := range dst {
		dst[k] = p.cell(i, k)
	}
}

// Interval ends in half-steps; unbounded ends are these sentinels.
const (
	endNegInf = math.MinInt32
	endPosInf = math.MaxInt32
)

// cell is the probability that the noisy version of point i is reported as
// point k: the noise's mass on cell k's region, relative to point i.
func (p *planarLaplace) cell(i, k int) float64 {
	ix, iy, kx, ky := i%p.w, i/p.w, k%p.w, k/p.w
	key := [4]int{2*(kx-ix) - 1, 2*(kx-ix) + 1, 2*(ky-iy) - 1, 2*(ky-iy) + 1}
	if kx == 0 {
		key[0] = endNegInf
	}
	if kx == p.w-1 {
		key[1] = endPosInf
	}
	if ky == 0 {
		key[2] = endNegInf
	}
	if ky == p.h-1 {
		key[3] = endPosInf
	}
	key = canonicalRect(key)
	if v, ok := p.memo[key]; ok {
		return v
	}
	end := func(e int) float64 {
		switch e {
		case endNegInf:
			return math.Inf(-1)
		case endPosInf:
			return math.Inf(1)
		}
		return float64(e) * p.c / 2
	}
	v := laplaceRectMass(end(key[0]), end(key[1]), end(key[2]), end(key[3]))
	p.memo[key] = v
	return v
}

// canonicalRect maps a rectangle [x0,x1]x[y0,y1] (half-step ends) to the
// smallest of its 8 images under the symmetries of the square (reflections
// and the swap of the axes), which have the same Laplace mass.
func canonicalRect(r [4]int) [4]int {
	flip := func(lo, hi int) (int, int) { return flipEnd(hi), flipEnd(lo) }
	best := r
	less := func(a, b [4]int) bool {
		for j := range a {
			if a[j] != b[j] {
				return a[j] < b[j]
			}
		}
		return false
	}
	for s := 0; s < 8; s++ {
		q := r
		if s&1 != 0 {
			q[0], q[1] = flip(q[0], q[1])
		}
		if s&2 != 0 {
			q[2], q[3] = flip(q[2], q[3])
		}
		if s&4 != 0 {
			q[0], q[1], q[2], q[3] = q[2], q[3], q[0], q[1]
		}
		if less(q, best) {
			best = q
		}
	}
	return best
}

// flipEnd negates a half-step end, exchanging the infinite sentinels.
func flipEnd(e int) int {
	switch e {
	case endNegInf:
		return endPosInf
	case endPosInf:
		return endNegInf
	}
	return -e
}

// laplaceRectMass is the mass of the planar Laplace density e^{-|z|}/(2π)
// (unit scale) on the rectangle [x0,x1]x[y0,y1], whose ends may be infinite:
//
//	(1/2π) ∫ [G(r_in(θ)) - G(r_out(θ))] dθ,  G(t) = (1+t) e^{-t},
//
// where the ray at angle θ crosses the rectangle between r_in and r_out. The
// angle is split at the corners and the axes, where r_in and r_out change
// formula, so each piece has a smooth integrand.
func laplaceRectMass(x0, x1, y0, y1 float64) float64 {
	breaks := []float64{0, math.Pi / 2, math.Pi, 3 * math.Pi / 2, 2 * math.Pi}
	for _, x := range []float64{x0, x1} {
		for _, y := range []float64{y0, y1} {
			if !math.IsInf(x, 0) && !math.IsInf(y, 0) && (x != 0 || y != 0) {
				a := math.Atan2(y, x)
				if a < 0 {
					a += 2 * math.Pi
				}
				breaks = append(breaks, a)
			}
		}
	}
	sort.Float64s(breaks)
	f := func(theta float64) float64 {
		rin, rout, ok := rayBox(math.Cos(theta), math.Sin(theta), x0, x1, y0, y1)
		if !ok {
			return 0
		}
		return radialMass(rin, rout)
	}
	total := 0.0
	for j := 1; j < len(breaks); j++ {
		a, b := breaks[j-1], breaks[j]
		if b-a < 1e-15 {
			continue
		}
		if mid := (a + b) / 2; f(mid) == 0 {
			if _, _, ok := rayBox(math.Cos(mid), math.Sin(mid), x0, x1, y0, y1); !ok {
				continue
			}
		}
		total += adaptiveGK15(f, a, b)
	}
	return total / (2 * math.Pi)
}

// rayBox intersects the ray t·(c, s), t >= 0, with the rectangle
// [x0,x1]x[y0,y1]: it is inside for t in [rin, rout] (rout may be +Inf).
func rayBox(c, s, x0, x1, y0, y1 float64) (rin, rout float64, ok bool) {
	rin, rout = 0, math.Inf(1)
	for _, ax := range [2][3]float64{{c, x0, x1}, {s, y0, y1}} {
		d, lo, hi := ax[0], ax[1], ax[2]
		var tlo, thi float64
		switch {
		case d > 0:
			tlo, thi = lo/d, hi/d
		case d < 0:
			tlo, thi = hi/d, lo/d
		default:
			if lo > 0 || hi < 0 {
				return 0, 0, false
			}
			continue
		}
		rin, rout = math.Max(rin, tlo), math.Min(rout, thi)
	}
	return rin, rout, rin < rout
}

// radialMass is G(a) - G(b) = P(a <= R <= b) for the radius R of unit-scale
// planar Laplace noise (R ~ Gamma(2, 1)), written as
// e^{-a} [a (1 - e^{-δ}) + g(δ)], δ = b - a, g(δ) = 1 - (1+δ) e^{-δ}: a sum of
// non-negative terms, accurate when a and b are large or close.
func radialMass(a, b float64) float64 {
	if math.IsInf(b, 1) {
		return (1 + a) * math.Exp(-a)
	}
	d := b - a
	return math.Exp(-a) * (a*-math.Expm1(-d) + gammaTail2(d))
}

// gammaTail2 is g(δ) = 1 - (1+δ) e^{-δ} for δ >= 0, by its series
// sum_{k>=2} (-1)^k (k-1) δ^k / k! when δ is small (no cancellation).
func gammaTail2(d float64) float64 {
	if d >= 0.5 {
		return 1 - (1+d)*math.Exp(-d)
	}
	sum, term := 0.0, d // term = δ^k / k!
	for k := 2; k < 30; k++ {
		term *= d / float64(k)
		if k%2 == 0 {
			sum += float64(k-1) * term
		} else {
			sum -= float64(k-1) * term
		}
	}
	return sum
}

// Gauss–Kronrod 15-point nodes and weights (QUADPACK qk15) on [-1, 1]: the
// Kronrod nodes ±gk15X[j] with weights gk15WK[j]; the 7-point Gauss rule uses the
// odd-indexed nodes with weights gk15WG.
var (
	gk15X = [8]float64{
		0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
		0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
		0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
		0.207784955007898467600689403773245, 0,
	}
	gk15WK = [8]float64{
		0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
		0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
		0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
		0.204432940075298892414161999234649, 0.209482141084727828012999174891714,
	}
	gk15WG = [4]float64{
		0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
		0.381830050505118944950369775488975, 0.417959183673469387755102040816327,
	}
)

// adaptiveGK15 integrates a non-negative smooth f over [a, b]: one
// 15-point Kronrod rule, then bisection until on every subinterval the
// Kronrod and embedded Gauss estimates differ by at most 1e-12 of the first
// estimate of the whole, and at least gk15Floor (the Kronrod value itself
// is then far more accurate), 30 levels deep and gk15Budget bisections at
// most. The tolerance is absolute, so rounding noise in a part where f is
// tiny cannot force endless bisection.
func adaptiveGK15(f func(float64) float64, a, b float64) float64 {
	k, g := gk15(f, a, b)
	tol := max(1e-12*math.Abs(k), gk15Floor)
	if k == 0 || math.Abs(k-g) <= tol {
		return k
	}
	budget := gk15Budget
	return gk15Refine(f, a, b, k, tol, 0, &budget)
}

// gk15Budget is the most bisections one adaptive integral of
// adaptiveGK15 makes (the grid's cells of side 1e-5 need some 10^5), and
// cellBudget of cellMass: where rounding makes f noisy at the tolerance's
// scale (a ray grazing a cell, whose chord is the difference of two nearly
// equal lengths), both halves of every interval would fail again, 2^30
// rules deep.
const (
	gk15Budget = 1 << 20
	cellBudget = 1 << 12
)

// gk15Floor is adaptiveGK15's least absolute tolerance: where f comes near
// the subnormal range its values carry few bits, and a tolerance relative
// to them could not be met (each half failing again, to the depth limit:
// 2^30 rules). The masses integrated are at least e^{-600} (PlanarLaplace,
// PlanarLaplacePoints), above 1e-261, so the floor is far below their
// relative accuracy.
const gk15Floor = 1e-290

// gk15Refine returns the integral of f over [a, b], whose current Kronrod
// estimate is k, to the absolute tolerance tol, within budget bisections
// (shared by the calls it makes).
func gk15Refine(f func(float64) float64, a, b, k, tol float64, depth int, budget *int) float64 {
	if *budget <= 0 {
		return k
	}
	*budget--
	c := (a + b) / 2
	k1, g1 := gk15(f, a, c)
	k2, g2 := gk15(f, c, b)
	if depth >= 30 || math.Abs(k1+k2-g1-g2) <= tol {
		return k1 + k2
	}
	if math.Abs(k1-g1) > tol/2 {
		k1 = gk15Refine(f, a, c, k1, tol/2, depth+1, budget)
	}
	if math.Abs(k2-g2) > tol/2 {
		k2 = gk15Refine(f, c, b, k2, tol/2, depth+1, budget)
	}
	return k1 + k2
}

// gk15 is the 15-point Kronrod and the embedded 7-point Gauss estimate of the
// integral of f over [a, b].
func gk15(f func(float64) float64, a, b float64) (k, g float64) {
	c, h := (a+b)/2, (b-a)/2
	fc := f(c)
	k, g = gk15WK[7]*fc, gk15WG[3]*fc
	for j := 0; j < 7; j++ {
		s := f(c-h*gk15X[j]) + f(c+h*gk15X[j])
		k += gk15WK[j] * s
		if j%2 == 1 {
			g += gk15WG[j/2] * s
		}
	}
	return k * h, g * h
}

package mech

// Composition of channels and refinement (docs/MATH.md §6.7): cascade,
// parallel composition, and the decision "C is refined by R" by linear
// programming, with a certificate either way.

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/solve"
	"github.com/optdp/optdp/solve/run"

	"gonum.org/v1/gonum/mat"
	gonumlp "gonum.org/v1/gonum/optimize/convex/lp"
)

// Cascade is the cascade C·R of channel c (n x m) followed by channel r
// (m x k): the output of c is the input of r, and
//
//	(C·R)[x][z] = sum_y C[x][y] R[y][z].
//
// Both must be row-stochastic and the inner sizes must agree; the result is
// row-stochastic (up to rounding). By the data-processing inequality the
// cascade leaks no more than c, for every prior and every measure of this
// package.
func Cascade(c, r *mat.Dense) (*mat.Dense, error) {
	if err := ValidateStochastic(c, "first channel"); err != nil {
		return nil, fmt.Errorf("cascade: %w", err)
	}
	if err := ValidateStochastic(r, "second channel"); err != nil {
		return nil, fmt.Errorf("cascade: %w", err)
	}
	n, m := c.Dims()
	rm, k := r.Dims()
	if rm != m {
		return nil, run.BadInputf("cascade: the first channel has %d outputs but the second has %d inputs", m, rm)
	}
	if err := ValidateDenseSize(n, k, "cascade"); err != nil {
		return nil, fmt.Errorf("cascade: %w", err)
	}
	out := mat.NewDense(n, k, nil)
	out.Mul(c, r)
	return out, nil
}

// Parallel is the parallel composition of channels c (n x m) and r (n x k)
// on a shared secret: both run on the same x, independently, and the output
// is the pair (y, z), column y·k + z:
//
//	(C || R)[x][y·k + z] = C[x][y] · R[x][z].
//
// Both must be row-stochastic with the same number of rows. The composition
// leaks at least as much as each of c and r (each is a post-processing of
// it: marginalise the other output).
func Parallel(c, r *mat.Dense) (*mat.Dense, error) {
	if err := ValidateStochastic(c, "first channel"); err != nil {
		return nil, fmt.Errorf("parallel composition: %w", err)
	}
	if err := ValidateStochastic(r, "second channel"); err != nil {
		return nil, fmt.Errorf("parallel composition: %w", err)
	}
	n, m := c.Dims()
	rn, k := r.Dims()
	if rn != n {
		return nil, run.BadInputf("parallel composition: the channels have %d and %d rows; they must share the secret (same rows)", n, rn)
	}
	if m > MaxDenseEntries/k {
		return nil, run.BadInputf("parallel composition: %d x %d outputs exceed the limit of %d", m, k, MaxDenseEntries)
	}
	if err := ValidateDenseSize(n, m*k, "parallel composition"); err != nil {
		return nil, fmt.Errorf("parallel composition: %w", err)
	}
	out := mat.NewDense(n, m*k, nil)
	for x := 0; x < n; x++ {
		cr, rr, dst := c.RawRowView(x)[:m], r.RawRowView(x)[:k], out.RawRowView(x)
		for y, a := range cr {
			for z, b := range rr {
				dst[y*k+z] = a * b
			}
		}
	}
	return out, nil
}

// RefineOptions are the options of RefinedBy; nil means the defaults.
type RefineOptions struct {
	// Tol is the tolerance of the verdict (0 = 1e-9): Yes when
	// max |C·D - R| <= Tol for the post-processing D found, No when the
	// witness gain separates the channels by more than Tol.
	Tol float64
	run.Settings
}

// Refinement is the answer of RefinedBy, with its certificate.
type Refinement struct {
	// Verdict: solve.Yes (R = C·D for the stochastic D below, up to
	// Residual), solve.No (the gain Gain makes R leak more than C) or
	// solve.Borderline (neither certificate clears Tol).
	Verdict solve.Verdict
	// Distance is the LP's optimum min_D sum_{x,z} |(C·D)[x][z] - R[x][z]|
	// over stochastic D (m x k): 0 exactly when C is refined by R.
	Distance float64
	// D is the post-processing found (rows clipped at 0 and renormalised)
	// and Residual = max_{x,z} |(C·D)[x][z] - R[x][z]| recomputed from it.
	D        *mat.Dense
	Residual float64
	// Gain (n x k, set when the verdict is not Yes) is a witness gain
	// function with entries in [-n, n]: under the uniform prior u,
	// WitnessGap = V_g[u, R] - V_g[u, C] >= Distance, recomputed with
	// PostGVulnerability; > 0 proves that R is not a refinement of C.
	Gain       *mat.Dense
	WitnessGap float64
}

// maxRefineRows bounds the rows of the dense simplex tableaux of RefinedBy.
const maxRefineRows = 4000

// RefinedBy decides whether channel c (n x m) is refined by channel r
// (n x k), written c ⊑ r: whether r = c·D for some row-stochastic D (m x k),
// i.e. r is a post-processing of c (Science of QIF, ch. 9). By the
// Coriaceous theorem (ibid., ch. 9) c ⊑ r holds exactly when
// V_g[pi, r] <= V_g[pi, c] for every prior pi and every gain g, so a
// refinement never leaks more, in any measure.
//
// The decision is a linear program, solved by a dense simplex (gonum's
// optimize/convex/lp, Bland's rule):
//
//	Distance = min_{D stochastic} sum_{x,z} |(C·D)[x][z] - R[x][z]|
//	         = max_{|G| <= 1} sum_{x,z} G[x][z] R[x][z] - sum_y max_z (C^T G)[y][z]   (LP duality).
//
// When the verdict is Yes, D is the certificate; otherwise the dual optimum
// G scaled by n is a gain under which r leaks more than c under the uniform
// prior (Gain, WitnessGap). Both certificates are checked by recomputing
// them, not taken from the solver. The tableaux are dense: the sizes are
// refused (run.ErrTooLarge) above opts.Budget or 4000 constraint rows.
func RefinedBy(ctx context.Context, c, r *mat.Dense, opts *RefineOptions) (*Refinement, error) {
	if err := ValidateStochastic(c, "channel C"); err != nil {
		return nil, fmt.Errorf("refinement: %w", err)
	}
	if err := ValidateStochastic(r, "channel R"); err != nil {
		return nil, fmt.Errorf("refinement: %w", err)
	}
	n, m := c.Dims()
	rn, k := r.Dims()
	if rn != n {
		return nil, run.BadInputf("refinement: the channels have %d and %d rows; they must have the same secrets", n, rn)
	}
	if opts == nil {
		opts = &RefineOptions{}
	}
	tol := opts.Tol
	if tol == 0 {
		tol = 1e-9
	}
	if math.IsNaN(tol) || tol < 0 {
		return nil, run.BadInputf("refinement: Tol = %v must be >= 0", opts.Tol)
	}
	// Sizes of the primal and dual standard forms.
	pRows, pCols := float64(n)*float64(k)+float64(m), float64(m)*float64(k)+2*float64(n)*float64(k)
	dRows := float64(m)*float64(k) + 2*float64(n)*float64(k)
	dCols := 2*(float64(n)*float64(k)+float64(m)) + dRows
	if math.Max(pRows, dRows) > maxRefineRows {
		return nil, fmt.Errorf("refinement: %d x %d and %d x %d channels give an LP with %.0f constraints, over the dense simplex's limit of %d: %w",
			n, m, n, k, math.Max(pRows, dRows), maxRefineRows, run.ErrTooLarge)
	}
	need := 8 * math.Max(pRows*pCols+3*pRows*pRows, dRows*dCols+3*dRows*dRows)
	if err := opts.Budget.Check("refinement LP (dense simplex)", need, "use smaller channels"); err != nil {
		return nil, fmt.Errorf("refinement: %w", err)
	}
	res := &Refinement{}
	dist, d, err := refinePrimal(c, r)
	if err != nil {
		return nil, err
	}
	res.Distance, res.D = dist, d
	var cd mat.Dense
	cd.Mul(c, d)
	for x := 0; x < n; x++ {
		for z := 0; z < k; z++ {
			res.Residual = math.Max(res.Residual, math.Abs(cd.At(x, z)-r.At(x, z)))
		}
	}
	if res.Residual <= tol {
		res.Verdict = solve.Yes
		return res, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("refinement: %w", err)
	}
	g, err := refineDual(c, r)
	if err != nil {
		return nil, err
	}
	res.Gain = g
	u := make([]float64, n)
	for i := range u {
		u[i] = 1 / float64(n)
	}
	vr, err1 := postExtreme(r, u, g, 1)
	vc, err2 := postExtreme(c, u, g, 1)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("refinement: witness: %v %v", err1, err2)
	}
	res.WitnessGap = vr - vc
	if res.WitnessGap > tol {
		res.Verdict = solve.No
	} else {
		res.Verdict = solve.Borderline
	}
	return res, nil
}

// simplex runs gonum's simplex from a feasible basis, turning a panic of the
// solver into an error.
func simplex(cost []float64, a *mat.Dense, b []float64, basic []int) (x []float64, err error) {
	defer func() {
		if p := recover(); p != nil {
			x, err = nil, fmt.Errorf("the simplex failed: %v", p)
		}
	}()
	_, x, err = gonumlp.Simplex(cost, a, b, 1e-12, basic)
	if err != nil {
		return nil, fmt.Errorf("the simplex failed: %w", err)
	}
	return x, nil
}

// refinePrimal solves min sum (P + N) subject to C·D - P + N = R,
// D 1 = 1, D, P, N >= 0 from the basis D[y][0] = 1 with P or N taking the
// residual, and returns the optimum and D (clipped and renormalised).
func refinePrimal(c, r *mat.Dense) (float64, *mat.Dense, error) {
	n, m := c.Dims()
	_, k := r.Dims()
	nv := m*k + 2*n*k
	rows := n*k + m
	a := mat.NewDense(rows, nv, nil)
	b := make([]float64, rows)
	cost := make([]float64, nv)
	dIdx := func(y, z int) int { return y*k + z }
	pIdx := func(x, z int) int { return m*k + x*k + z }
	nIdx := func(x, z int) int { return m*k + n*k + x*k + z }
	basic := make([]int, 0, rows)
	for x := 0; x < n; x++ {
		for z := 0; z < k; z++ {
			row := x*k + z
			for y := 0; y < m; y++ {
				a.Set(row, dIdx(y, z), c.At(x, y))
			}
			a.Set(row, pIdx(x, z), -1)
			a.Set(row, nIdx(x, z), 1)
			cost[pIdx(x, z)], cost[nIdx(x, z)] = 1, 1
			b[row] = r.At(x, z)
			// The starting point D[.][0] = 1 has (C·D)[x][z] = [z == 0].
			start := 0.0
			if z == 0 {
				start = 1
			}
			if start-b[row] > 0 {
				basic = append(basic, pIdx(x, z))
			} else {
				basic = append(basic, nIdx(x, z))
			}
		}
	}
	for y := 0; y < m; y++ {
		for z := 0; z < k; z++ {
			a.Set(n*k+y, dIdx(y, z), 1)
		}
		b[n*k+y] = 1
		basic = append(basic, dIdx(y, 0))
	}
	x, err := simplex(cost, a, b, basic)
	if err != nil {
		return 0, nil, fmt.Errorf("refinement: %w", err)
	}
	d := mat.NewDense(m, k, nil)
	for y := 0; y < m; y++ {
		s := 0.0
		for z := 0; z < k; z++ {
			v := math.Max(x[dIdx(y, z)], 0)
			d.Set(y, z, v)
			s += v
		}
		if !(s > 0) {
			d.Set(y, 0, 1)
			continue
		}
		for z := 0; z < k; z++ {
			d.Set(y, z, d.At(y, z)/s)
		}
	}
	dist := 0.0
	for i := m * k; i < nv; i++ {
		dist += x[i]
	}
	return dist, d, nil
}

// refineDual solves max sum G∘R - sum_y t_y subject to (C^T G)[y][z] <= t_y,
// -1 <= G <= 1 (t free) from the all-slack basis, and returns n·G.
func refineDual(c, r *mat.Dense) (*mat.Dense, error) {
	n, m := c.Dims()
	_, k := r.Dims()
	nVar := n*k + m // G[x][z] at x*k+z, then t_y
	nIneq := m*k + 2*n*k
	cost := make([]float64, nVar)
	for x := 0; x < n; x++ {
		for z := 0; z < k; z++ {
			cost[x*k+z] = -r.At(x, z)
		}
	}
	for y := 0; y < m; y++ {
		cost[n*k+y] = 1
	}
	g := mat.NewDense(nIneq, nVar, nil)
	h := make([]float64, nIneq)
	for y := 0; y < m; y++ {
		for z := 0; z < k; z++ {
			row := y*k + z
			for x := 0; x < n; x++ {
				g.Set(row, x*k+z, c.At(x, y))
			}
			g.Set(row, n*k+y, -1)
		}
	}
	for i := 0; i < n*k; i++ {
		g.Set(m*k+i, i, 1)
		g.Set(m*k+n*k+i, i, -1)
		h[m*k+i], h[m*k+n*k+i] = 1, 1
	}
	cs, as, bs := gonumlp.Convert(cost, g, h, nil, nil)
	basic := make([]int, nIneq)
	for i := range basic {
		basic[i] = 2*nVar + i
	}
	v, err := simplex(cs, as, bs, basic)
	if err != nil {
		return nil, fmt.Errorf("refinement: witness: %w", err)
	}
	w := mat.NewDense(n, k, nil)
	for x := 0; x < n; x++ {
		for z := 0; z < k; z++ {
			i := x*k + z
			w.Set(x, z, float64(n)*math.Max(-1, math.Min(1, v[i]-v[nVar+i])))
		}
	}
	return w, nil
}

package mech

// Composition of channels and refinement (docs/MATH.md §18.4): cascade,
// parallel composition, and the decision "C is refined by R" by linear
// programming, with a certificate either way.

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/optdp/optdp/run"

	"gonum.org/v1/gonum/mat"
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
	// Exact makes RefinedBy always solve the LP, so that Distance is the
	// LP optimum also when the fast witness search already proved No.
	Exact bool
	run.Settings
}

// Refinement is the answer of RefinedBy, with its certificate.
type Refinement struct {
	// Verdict: run.Yes (R = C·D for the stochastic D below, up to
	// Residual), run.No (the gain Gain makes R leak more than C) or
	// run.Borderline (neither certificate clears Tol).
	Verdict run.Verdict
	// Distance is the LP's optimum min_D sum_{x,z} |(C·D)[x][z] - R[x][z]|
	// over stochastic D (m x k): 0 exactly when C is refined by R.
	Distance float64
	// DistanceBound reports that the No verdict came from the witness
	// search without the LP (see RefinedBy): Distance is then f(G) for the
	// witness, a lower bound of the LP optimum, not the optimum.
	DistanceBound bool
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

// maxRefineRows bounds the constraint rows n·k + m of RefinedBy's LP.
const maxRefineRows = 2000

// RefinedBy decides whether channel c (n x m) is refined by channel r
// (n x k), written c ⊑ r: whether r = c·D for some row-stochastic D (m x k),
// i.e. r is a post-processing of c (Science of QIF, ch. 9). By the
// Coriaceous theorem (ibid.) c ⊑ r holds exactly when
// V_g[pi, r] <= V_g[pi, c] for every prior pi and every gain g, so a
// refinement never leaks more, in any measure.
//
// The decision is a linear program and its dual (docs/MATH.md §18.4):
//
//	Distance = min_{D stochastic} sum_{x,z} |(C·D)[x][z] - R[x][z]|
//	         = max_{|G| <= 1} sum_{x,z} G[x][z] R[x][z] - sum_y max_z (C^T G)[y][z],
//
// solved by a dense simplex from the basis D[y][0] = 1; the dual optimum G
// is read off the final reduced costs. When the verdict is Yes, D is the
// certificate; otherwise n·G is a gain under which r leaks more than c under
// the uniform prior (Gain, WitnessGap). Both certificates are recomputed
// from scratch, not taken from the solver.
//
// Two fast paths come first. When c has full column rank, D is unique and
// least squares finds it (Yes). Otherwise, unless opts.Exact, a search for a
// dual point G with f(G) > Tol (accelerated projected gradient on the
// smoothed dual, O(n·m·k) per iteration, mech/refine_witness.go) proves No
// without the LP: Distance is then the lower bound f(G) and DistanceBound is
// set. Only when neither applies is the LP solved. Its tableau is dense,
// about 8·(n·k + m)·(m·k + 2·n·k) bytes: sizes over opts.Budget or 2000
// constraint rows are refused with run.ErrTooLarge. Cancelling ctx stops
// the search and the simplex.
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
	if err := opts.Budget.Validate(); err != nil {
		return nil, fmt.Errorf("refinement: %w", err)
	}
	tol := opts.Tol
	if tol == 0 {
		tol = 1e-9
	}
	if math.IsNaN(tol) || tol < 0 {
		return nil, run.BadInputf("refinement: Tol = %v must be >= 0", opts.Tol)
	}
	// The fast paths hold a few n×k and m×k matrices (and least squares an
	// n×m copy of C).
	if err := ValidateDenseSize(m, k, "refinement: outputs of C x outputs of R"); err != nil {
		return nil, fmt.Errorf("refinement: %w", err)
	}
	fast := 8 * (6*float64(n)*float64(k) + 3*float64(m)*float64(k) + float64(n)*float64(m))
	if err := opts.Budget.Check("refinement certificates", fast, "use smaller channels"); err != nil {
		return nil, fmt.Errorf("refinement: %w", err)
	}
	// Fast path: when C has full column rank, D is unique and least squares
	// finds it; a D that checks out is the certificate without an LP.
	if n >= m {
		var d mat.Dense
		if err := d.Solve(c, r); err == nil {
			if res := checkPostProcessing(c, r, &d, tol); res != nil {
				return res, nil
			}
		}
	}
	// Fast path: a dual point with f(G) > tol proves No.
	if !opts.Exact {
		if g, f, d := witnessSearch(ctx, c, r, tol); f > tol {
			if res, err := witnessNo(c, r, g, d, f, tol); err != nil {
				return nil, err
			} else if res != nil {
				return res, nil
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("refinement: %w", err)
		}
	}
	rows := float64(n)*float64(k) + float64(m)
	if rows > maxRefineRows {
		return nil, fmt.Errorf("mech: refinement: %d x %d and %d x %d channels give an LP with %.0f constraints, over the dense simplex's limit of %d (neither the least-squares post-processing nor the witness search decided it): %w",
			n, m, n, k, rows, maxRefineRows, run.ErrTooLarge)
	}
	cols := m*k + 2*n*k
	if err := opts.Budget.Check("refinement LP (dense simplex tableau)", 2*tableauBytes(int(rows), cols), "use smaller channels"); err != nil {
		return nil, fmt.Errorf("refinement: %w", err)
	}
	t, err := refineLP(ctx, c, r)
	if err != nil {
		return nil, fmt.Errorf("refinement: %w", err)
	}
	v := t.x()
	res := &Refinement{}
	for i := m * k; i < cols; i++ {
		res.Distance += v[i]
	}
	d := mat.NewDense(m, k, nil)
	for y := 0; y < m; y++ {
		s := 0.0
		for z := 0; z < k; z++ {
			e := math.Max(v[y*k+z], 0)
			d.Set(y, z, e)
			s += e
		}
		if !(s > 0) {
			d.Set(y, 0, 1)
			continue
		}
		for z := 0; z < k; z++ {
			d.Set(y, z, d.At(y, z)/s)
		}
	}
	res.D, res.Residual = d, residual(c, r, d)
	if res.Residual <= tol {
		res.Verdict = run.Yes
		return res, nil
	}
	// The dual of row (x,z): the column N(x,z) = e_(x,z) has cost 1, so its
	// reduced cost is 1 - y_(x,z).
	g := mat.NewDense(n, k, nil)
	for x := 0; x < n; x++ {
		for z := 0; z < k; z++ {
			y := 1 - t.reduced(m*k+n*k+x*k+z)
			g.Set(x, z, float64(n)*math.Max(-1, math.Min(1, y)))
		}
	}
	res.Gain = g
	u := make([]float64, n)
	for i := range u {
		u[i] = 1 / float64(n)
	}
	vr, err1 := postExtreme(r, u, g, 1)
	vc, err2 := postExtreme(c, u, g, 1)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("refinement: witness: %w", err)
	}
	res.WitnessGap = vr - vc
	if res.WitnessGap > tol {
		res.Verdict = run.No
	} else {
		res.Verdict = run.Borderline
	}
	return res, nil
}

// witnessNo returns the No answer certified by the dual point g (n x k,
// |g| <= 1) with dual value f > tol, or nil when the recomputed witness gap
// of the gain n·g does not clear tol. d is the best response at g.
func witnessNo(c, r, g, d *mat.Dense, f, tol float64) (*Refinement, error) {
	n, _ := c.Dims()
	var gain mat.Dense
	gain.Scale(float64(n), g)
	u := make([]float64, n)
	for i := range u {
		u[i] = 1 / float64(n)
	}
	vr, err1 := postExtreme(r, u, &gain, 1)
	vc, err2 := postExtreme(c, u, &gain, 1)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("refinement: witness: %w", err)
	}
	if !(vr-vc > tol) {
		return nil, nil
	}
	return &Refinement{Verdict: run.No, Distance: f, DistanceBound: true, D: d, Residual: residual(c, r, d),
		Gain: &gain, WitnessGap: vr - vc}, nil
}

// residual is max |(C·D)[x][z] - R[x][z]|.
func residual(c, r, d *mat.Dense) float64 {
	var cd mat.Dense
	cd.Mul(c, d)
	n, k := r.Dims()
	e := 0.0
	for x := 0; x < n; x++ {
		for z := 0; z < k; z++ {
			e = math.Max(e, math.Abs(cd.At(x, z)-r.At(x, z)))
		}
	}
	return e
}

// checkPostProcessing returns the Yes answer for the candidate d (m x k)
// when, with entries in [-tol, 0) set to 0 and rows renormalised, it is
// stochastic and C·D is within tol of R; nil otherwise.
func checkPostProcessing(c, r, d *mat.Dense, tol float64) *Refinement {
	m, k := d.Dims()
	out := mat.NewDense(m, k, nil)
	for y := 0; y < m; y++ {
		s := 0.0
		for z := 0; z < k; z++ {
			v := d.At(y, z)
			if math.IsNaN(v) || v < -tol {
				return nil
			}
			v = math.Max(v, 0)
			out.Set(y, z, v)
			s += v
		}
		if !(s > 0) {
			return nil
		}
		for z := 0; z < k; z++ {
			out.Set(y, z, out.At(y, z)/s)
		}
	}
	e := residual(c, r, out)
	if !(e <= tol) {
		return nil
	}
	return &Refinement{Verdict: run.Yes, D: out, Residual: e, Distance: 0}
}

// refineLP solves min sum (P + N) subject to C·D - P + N = R, D 1 = 1,
// D, P, N >= 0 (variables D[y][z] at y·k+z, P[x][z] at m·k + x·k+z, N[x][z]
// at m·k + n·k + x·k+z) from the basis D[y][0] = 1 with P or N taking the
// residual.
func refineLP(ctx context.Context, c, r *mat.Dense) (*tableau, error) {
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
	basis := make([]int, rows)
	for y := 0; y < m; y++ {
		for z := 0; z < k; z++ {
			a.Set(n*k+y, dIdx(y, z), 1)
		}
		b[n*k+y] = 1
		basis[n*k+y] = dIdx(y, 0)
	}
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
			if z == 0 && 1-b[row] > 0 {
				basis[row] = pIdx(x, z)
			} else {
				basis[row] = nIdx(x, z)
			}
		}
	}
	// The D rows first: pivoting them changes only rows (x, 0) in the
	// D columns, so the P/N pivots stay ±1.
	order := make([]int, 0, rows)
	for y := 0; y < m; y++ {
		order = append(order, n*k+y)
	}
	for i := 0; i < n*k; i++ {
		order = append(order, i)
	}
	t, err := newTableau(a, b, cost, basis, order)
	if err != nil {
		return nil, err
	}
	if err := t.solve(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

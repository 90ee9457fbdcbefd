package solve

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// NNLSResult is the solution of a non-negative least-squares problem.
type NNLSResult struct {
	// X minimises ||A x - b||_2 subject to x >= 0.
	X []float64
	// Residual is b - A X.
	Residual []float64
	// Iterations counts the outer (column-adding) iterations.
	Iterations int
}

// NNLS solves min ||A x - b||_2 subject to x >= 0 by the Lawson–Hanson active
// set method (Lawson & Hanson, Solving Least Squares Problems, 1974, ch. 23).
// A is m×n with n <= MaxNNLS. The iteration stops when no inactive column
// has a positive gradient component above 10·u·||A||_1·max(m,n) (MATLAB's
// lsqnonneg tolerance); it is bounded by 3n outer iterations and checks ctx
// between them.
func NNLS(ctx context.Context, a mat.Matrix, b []float64) (NNLSResult, error) {
	m, n := a.Dims()
	if len(b) != m {
		return NNLSResult{}, fmt.Errorf("solve: nnls: b has length %d, want %d: %w", len(b), m, backend.ErrShape)
	}
	if n > MaxNNLS {
		return NNLSResult{}, fmt.Errorf("solve: nnls: %d columns exceed the limit %d (cubic cost per iteration): %w", n, MaxNNLS, run.ErrTooLarge)
	}
	var norm1 float64
	for j := 0; j < n; j++ {
		var c float64
		for i := 0; i < m; i++ {
			c += math.Abs(a.At(i, j))
		}
		norm1 = max(norm1, c)
	}
	tol := 10 * 0x1p-52 * norm1 * float64(max(m, n))
	x := make([]float64, n)
	passive := make([]bool, n)
	bv := mat.NewVecDense(m, b)
	resid := func() []float64 {
		r := make([]float64, m)
		for i := 0; i < m; i++ {
			s := b[i]
			for j := 0; j < n; j++ {
				if x[j] != 0 {
					s -= a.At(i, j) * x[j]
				}
			}
			r[i] = s
		}
		return r
	}
	grad := func(r []float64) []float64 {
		w := make([]float64, n)
		for j := 0; j < n; j++ {
			var s float64
			for i := 0; i < m; i++ {
				s += a.At(i, j) * r[i]
			}
			w[j] = s
		}
		return w
	}
	it := 0
	for ; it < 3*n; it++ {
		if err := ctx.Err(); err != nil {
			return NNLSResult{}, err
		}
		r := resid()
		w := grad(r)
		t, wmax := -1, tol
		for j := 0; j < n; j++ {
			if !passive[j] && w[j] > wmax {
				t, wmax = j, w[j]
			}
		}
		if t < 0 {
			break
		}
		passive[t] = true
		for inner := 0; inner < 3*n; inner++ {
			z, err := lsqPassive(a, bv, passive)
			if err != nil {
				return NNLSResult{}, err
			}
			alpha, ok := 1.0, true
			for j := 0; j < n; j++ {
				if passive[j] && z[j] <= 0 {
					ok = false
					if d := x[j] - z[j]; d > 0 {
						alpha = min(alpha, x[j]/d)
					}
				}
			}
			if ok {
				copy(x, z)
				break
			}
			for j := 0; j < n; j++ {
				if passive[j] {
					x[j] += alpha * (z[j] - x[j])
					if x[j] <= 0 {
						x[j] = 0
						passive[j] = false
					}
				} else {
					x[j] = 0
				}
			}
			if j := t; !passive[j] {
				// The entering column left again: stop this step to avoid
				// cycling on a degenerate problem.
				break
			}
		}
	}
	return NNLSResult{X: x, Residual: resid(), Iterations: it}, nil
}

// lsqPassive solves min ||A_P z_P - b|| over the passive columns P and
// returns z with zeros outside P. It uses QR, falling back to the
// pseudo-inverse when A_P is rank deficient.
func lsqPassive(a mat.Matrix, b *mat.VecDense, passive []bool) ([]float64, error) {
	m, n := a.Dims()
	var cols []int
	for j, p := range passive {
		if p {
			cols = append(cols, j)
		}
	}
	ap := mat.NewDense(m, len(cols), nil)
	for k, j := range cols {
		for i := 0; i < m; i++ {
			ap.Set(i, k, a.At(i, j))
		}
	}
	var zp mat.VecDense
	// More passive columns than rows: no QR (mat.QR.Factorize panics on a
	// wide matrix), the pseudo-inverse below.
	ok := m >= len(cols)
	if ok {
		var qr mat.QR
		qr.Factorize(ap)
		ok = qr.Cond() < 1/(float64(m)*0x1p-52)
		if ok {
			if err := qr.SolveVecTo(&zp, false, b); err != nil {
				ok = false
			}
		}
	}
	if !ok {
		p, _, err := backend.PInv(ap, 0)
		if err != nil {
			return nil, fmt.Errorf("nnls subproblem: %w", err)
		}
		zp.MulVec(p, b)
	}
	z := make([]float64, n)
	for k, j := range cols {
		z[j] = zp.AtVec(k)
	}
	return z, nil
}

// FeasResult is the outcome of a feasibility test for {x >= 0 : A x = b}.
type FeasResult struct {
	// Verdict: Yes when X >= 0 has residual at most Tol; No when a Farkas
	// certificate proves that no x >= 0 solves A x = b exactly; Borderline
	// otherwise.
	Verdict run.Verdict
	// X is the NNLS minimiser (non-negative).
	X []float64
	// Residual is ||b - A X||_inf.
	Residual float64
	// Tol is the residual accepted as zero.
	Tol float64
	// Certificate is "nnls-residual", "farkas" or "".
	Certificate string
}

// Feasible decides whether some x >= 0 solves A x = b for a square A (a
// privacy-constraints matrix: non-negative with unit diagonal, for which the
// infeasibility proof is available).
//
// Yes: NNLS found x >= 0 with ||b - A x||_inf <= Tol =
// 16·n·u·(||A||_inf·||x||_inf + ||b||_inf). That is a backward error of the
// order of the rounding of A's own entries: x solves exactly a system whose
// matrix differs from A by a few ulps per entry, so no floating-point method
// could tell it from an exact solution.
//
// No: at the NNLS optimum, w = -(b - A x) satisfies A^T w >= 0 up to
// rounding and b·w = -||b - A x||^2 < 0 (Farkas' lemma). For a non-negative
// A with unit diagonal every feasible x has x_k <= b_k, hence
// ||x||_1 <= Σ b_k; so if b·w + δ·Σ b_k < 0, where δ bounds the negative part
// of A^T w plus its rounding (and the rounding of A's entries), no x >= 0
// can solve the system. Otherwise the verdict is Borderline.
func Feasible(ctx context.Context, a mat.Matrix, b []float64) (FeasResult, error) {
	m, n := a.Dims()
	if m != n {
		return FeasResult{}, fmt.Errorf("solve: feasible: %d×%d matrix is not square: %w", m, n, backend.ErrShape)
	}
	nr, err := NNLS(ctx, a, b)
	if err != nil {
		return FeasResult{}, fmt.Errorf("feasible: %w", err)
	}
	const u = 0x1p-53
	var res, normA, xmax, bmax, bsum float64
	unitNonneg := true
	for i := 0; i < n; i++ {
		res = max(res, math.Abs(nr.Residual[i]))
		xmax = max(xmax, nr.X[i])
		bmax = max(bmax, math.Abs(b[i]))
		bsum += max(b[i], 0)
		var row float64
		for j := 0; j < n; j++ {
			v := a.At(i, j)
			row += math.Abs(v)
			if v < 0 || (i == j && v != 1) {
				unitNonneg = false
			}
		}
		normA = max(normA, row)
	}
	fr := FeasResult{X: nr.X, Residual: res, Tol: 16 * float64(n) * u * (normA*xmax + bmax)}
	if res <= fr.Tol {
		fr.Verdict, fr.Certificate = run.Yes, "nnls-residual"
		return fr, nil
	}
	fr.Verdict = run.Borderline
	if !unitNonneg {
		return fr, nil
	}
	// Row k of A x = b with A >= 0, unit diagonal, x >= 0 gives x_k <= b_k,
	// so a negative b_k is infeasible outright (Farkas with w = e_k).
	for _, v := range b {
		if v < 0 {
			fr.Verdict, fr.Certificate = run.No, "farkas"
			return fr, nil
		}
	}
	// Farkas certificate with w = -r.
	gam := float64(n+2) * u / (1 - float64(n+2)*u)
	var delta, wabsMax float64
	for _, r := range nr.Residual {
		wabsMax = max(wabsMax, math.Abs(r))
	}
	for j := 0; j < n; j++ {
		var s, t float64
		for i := 0; i < n; i++ {
			v := a.At(i, j) * -nr.Residual[i]
			s += v
			t += math.Abs(v)
		}
		// (A^T w)_j >= s - (γ + u)·t - n·2^-1074·max|w|.
		lo := s - (gam+u)*t - float64(n)*0x1p-1074*wabsMax
		delta = max(delta, -lo)
	}
	var bw, bwAbs float64
	for i := 0; i < n; i++ {
		bw += b[i] * -nr.Residual[i]
		bwAbs += math.Abs(b[i] * nr.Residual[i])
	}
	if bw+gam*bwAbs+delta*bsum < 0 {
		fr.Verdict, fr.Certificate = run.No, "farkas"
	}
	return fr, nil
}

package mmref

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// thinSVD returns the singular values of a above max(p,n)·2⁻⁵²·σ_max and
// the matching right singular vectors (columns of v), from gonum's thin
// SVD; ok is false when it fails.
func thinSVD(a mat.Matrix) (s []float64, v *mat.Dense, ok bool) {
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		return nil, nil, false
	}
	all := svd.Values(nil)
	v = &mat.Dense{}
	svd.VTo(v)
	p, n := a.Dims()
	tol := float64(max(p, n)) * 0x1p-52 * all[0]
	for _, x := range all {
		if x > tol {
			s = append(s, x)
		}
	}
	return s, v, true
}

// FrobPinv returns ||W A⁺||_F² = tr(WᵀW (AᵀA)⁺) from gonum's thin SVD
// A = U Σ Vᵀ: the squares of the entries of W V Σ⁻¹ over the numerical
// rank. It is a sum of squares, accurate to about u·cond(A) relative; NaN
// when the SVD fails.
func FrobPinv(w, a mat.Matrix) float64 {
	s, v, ok := thinSVD(a)
	if !ok {
		return math.NaN()
	}
	var wv mat.Dense
	wv.Mul(w, v)
	m, _ := wv.Dims()
	sum := 0.0
	for i := 0; i < m; i++ {
		for j, sj := range s {
			x := wv.At(i, j) / sj
			sum += x * x
		}
	}
	return sum
}

// SVDTrace returns tr(G (AᵀA)⁺) = Σ_i v_iᵀ G v_i / σ_i² over the numerical
// rank of a (gonum's thin SVD). Each v_iᵀ G v_i carries an absolute error
// of about u·||G||, so it is accurate only when A is well conditioned on
// its row space (e.g. the total 1ᵀ); NaN when the SVD fails.
func SVDTrace(g mat.Symmetric, a mat.Matrix) float64 {
	s, v, ok := thinSVD(a)
	if !ok {
		return math.NaN()
	}
	var gv mat.Dense
	gv.Mul(g, v)
	tr := 0.0
	for i, si := range s {
		tr += mat.Dot(v.ColView(i), gv.ColView(i)) / (si * si)
	}
	return tr
}

// MaxColL1 returns D1(A), the largest column L1 norm of a.
func MaxColL1(a mat.Matrix) float64 {
	p, n := a.Dims()
	col := make([]float64, n)
	for i := 0; i < p; i++ {
		for j := range col {
			col[j] += math.Abs(a.At(i, j))
		}
	}
	return slices.Max(col)
}

// Stack returns the blocks (all with the same number of columns) stacked
// vertically.
func Stack(blocks []*mat.Dense) *mat.Dense {
	rows := 0
	for _, b := range blocks {
		r, _ := b.Dims()
		rows += r
	}
	_, n := blocks[0].Dims()
	out := mat.NewDense(rows, n, nil)
	off := 0
	for _, b := range blocks {
		r, _ := b.Dims()
		out.Slice(off, off+r, 0, n).(*mat.Dense).Copy(b)
		off += r
	}
	return out
}

// IllConditioned returns a p×n matrix (p >= n) U diag(σ) Vᵀ with
// orthonormal U and V from QR factorisations of Gaussian matrices and the
// σ_i log-spaced from 1 down to lo.
func IllConditioned(rng *rand.Rand, p, n int, lo float64) *mat.Dense {
	orth := func(r int) *mat.Dense {
		g := mat.NewDense(r, r, nil)
		for k := range g.RawMatrix().Data {
			g.RawMatrix().Data[k] = rng.NormFloat64()
		}
		var qr mat.QR
		qr.Factorize(g)
		var q mat.Dense
		qr.QTo(&q)
		return &q
	}
	u, v := orth(p), orth(n)
	s := mat.NewDense(p, n, nil)
	for i := 0; i < n; i++ {
		x := 0.0
		if n > 1 {
			x = float64(i) / float64(n-1)
		}
		s.Set(i, i, math.Pow(lo, x))
	}
	var us, a mat.Dense
	us.Mul(u, s)
	a.Mul(&us, v.T())
	return &a
}

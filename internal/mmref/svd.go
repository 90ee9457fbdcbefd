package mmref

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// FrobPinv returns ||W A⁺||_F² = tr(WᵀW (AᵀA)⁺) from gonum's thin SVD
// A = U Σ Vᵀ: the squares of the entries of W V Σ⁻¹ over the singular
// values above max(p,n)·2⁻⁵²·σ_max. It is a sum of squares, accurate to
// about u·cond(A) relative; NaN when the SVD fails.
func FrobPinv(w, a mat.Matrix) float64 {
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		return math.NaN()
	}
	s := svd.Values(nil)
	var v mat.Dense
	svd.VTo(&v)
	p, n := a.Dims()
	tol := float64(max(p, n)) * 0x1p-52 * s[0]
	var wv mat.Dense
	wv.Mul(w, &v)
	m, _ := wv.Dims()
	sum := 0.0
	for j, sj := range s {
		if sj <= tol {
			continue
		}
		for i := 0; i < m; i++ {
			x := wv.At(i, j) / sj
			sum += x * x
		}
	}
	return sum
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

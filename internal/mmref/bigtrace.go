// Package mmref holds the reference computations that the tests of
// mech/linear and sdp compare their float64 error code with (docs/MATH.md
// §15.9): the error in 256-bit arithmetic (NewInverse, TraceInvGram),
// ||W A⁺||_F² and tr(G (AᵀA)⁺) from gonum's SVD (FrobPinv, SVDTrace),
// D1 (MaxColL1), stacked blocks (Stack) and ill-conditioned test matrices
// (IllConditioned).
package mmref

import (
	"math/big"

	"gonum.org/v1/gonum/mat"
)

// prec is the working precision in bits.
const prec = 256

// Inverse is (AᵀA)⁻¹ of one matrix A in 256-bit floats, from which the
// traces of many Gram matrices are read.
type Inverse struct {
	x [][]*big.Float
}

// NewInverse forms AᵀA for a p×n matrix a of full column rank from its
// float64 entries (exact binary numbers) and inverts it by Gauss–Jordan
// elimination with partial pivoting in 256-bit floats: the true inverse
// for these entries to about 2⁻²⁰⁰·cond(AᵀA) relative, far below 1e-9 for
// any matrix a float64 computation can handle. It costs about 2n³
// big-float operations (half a second at n = 115); ok is false when AᵀA
// is singular.
func NewInverse(a mat.Matrix) (inv *Inverse, ok bool) {
	p, n := a.Dims()
	nb := func() *big.Float { return new(big.Float).SetPrec(prec) }
	x := make([][]*big.Float, n)
	for i := range x {
		x[i] = make([]*big.Float, 2*n)
		for j := 0; j < n; j++ {
			s := nb()
			for k := 0; k < p; k++ {
				t := nb().SetFloat64(a.At(k, i))
				s.Add(s, t.Mul(t, nb().SetFloat64(a.At(k, j))))
			}
			x[i][j] = s
			x[i][n+j] = nb()
		}
		x[i][n+i].SetInt64(1)
	}
	abs := func(v *big.Float) *big.Float { return nb().Abs(v) }
	for c := 0; c < n; c++ {
		piv := c
		for r := c + 1; r < n; r++ {
			if abs(x[r][c]).Cmp(abs(x[piv][c])) > 0 {
				piv = r
			}
		}
		if x[piv][c].Sign() == 0 {
			return nil, false
		}
		x[c], x[piv] = x[piv], x[c]
		inv := nb().Quo(nb().SetFloat64(1), x[c][c])
		for j := c; j < 2*n; j++ {
			x[c][j].Mul(x[c][j], inv)
		}
		for r := 0; r < n; r++ {
			if r == c || x[r][c].Sign() == 0 {
				continue
			}
			f := nb().Set(x[r][c])
			for j := c; j < 2*n; j++ {
				x[r][j].Sub(x[r][j], nb().Mul(f, x[c][j]))
			}
		}
	}
	for i := range x {
		x[i] = x[i][n:]
	}
	return &Inverse{x: x}, true
}

// Trace returns tr(G (AᵀA)⁻¹) = Σ_ij G_ij (AᵀA)⁻¹_ij, summed in 256-bit
// floats and rounded once.
func (b *Inverse) Trace(g mat.Symmetric) float64 {
	tr := new(big.Float).SetPrec(prec)
	t := new(big.Float).SetPrec(prec)
	for i, row := range b.x {
		for j, v := range row {
			if gij := g.At(i, j); gij != 0 {
				tr.Add(tr, t.Mul(v, t.SetFloat64(gij)))
			}
		}
	}
	v, _ := tr.Float64()
	return v
}

// TraceInvGram returns tr(G (AᵀA)⁻¹) for a p×n matrix a of full column
// rank and a symmetric n×n g in 256-bit floats (NewInverse, Trace); ok is
// false when AᵀA is singular.
func TraceInvGram(g mat.Symmetric, a mat.Matrix) (v float64, ok bool) {
	inv, ok := NewInverse(a)
	if !ok {
		return 0, false
	}
	return inv.Trace(g), true
}

package sdp

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/internal/stable"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// choleskyMaxCond is the condition number of AᵀA up to which gramInverse
// uses the Cholesky inverse of AᵀA, whose traces carry a relative error of
// about u·cond(AᵀA) ≤ 1e-11 (u = 2⁻⁵³). Above it the Gram matrix is never
// formed: a factor tending to a rank-deficient strategy (a p-Identity for
// an attribute the workload only totals, singular values near 1e-7) lost
// every digit of its error through AᵀA (docs/MATH.md §15.9).
const choleskyMaxCond = 1e5

// traceInvGram returns tr(G (A^T A)^{-1}) (pseudo-inverse when singular,
// +Inf when the workload is not supported).
func traceInvGram(g *mat.SymDense, a *mat.Dense) (float64, error) {
	gi, err := newGramInverse(a)
	if err != nil {
		return 0, err
	}
	return gi.trace(g), nil
}

// gramInverse evaluates t(G) = tr(G (AᵀA)⁺) for one strategy A (p×n) and
// any number of Gram matrices G, by one of three factorisations chosen
// once (docs/MATH.md §15.9):
//
//   - cond(AᵀA) ≤ choleskyMaxCond: the inverse (AᵀA)⁻¹ from the Cholesky
//     factor, t = Σ_ij G_ij (AᵀA)⁻¹_ij in O(n²) per G;
//   - otherwise, p ≥ n and A of full column rank: Householder QR A = QR,
//     AᵀA = RᵀR, t = tr(R⁻ᵀ G R⁻¹) by two triangular solves (stable.QR,
//     stable.Trace), O(n³) per G, relative error about u·cond(A) (not its
//     square);
//   - otherwise (rank r < n, e.g. the total 1ᵀ): the thin SVD A = U Σ Vᵀ,
//     t = Σ_{i<r} (v_iᵀ G v_i)/σ_i², the pseudo-inverse on A's row space,
//     and t = +Inf when more than a relative 1e-9 of tr(G) lies outside it.
type gramInverse struct {
	n  int
	mi *mat.SymDense     // Cholesky path: (AᵀA)⁻¹
	r  blas64.Triangular // QR path: the n×n factor R
	s  []float64         // SVD path: the r singular values above the rank tolerance
	v  *mat.Dense        // SVD path: n×r right singular vectors
	qr bool
}

func newGramInverse(a *mat.Dense) (*gramInverse, error) {
	p, n := a.Dims()
	gi := &gramInverse{n: n}
	m := mat.NewSymDense(n, nil)
	m.SymOuterK(1, a.T())
	var ch mat.Cholesky
	if ch.Factorize(m) && ch.Cond() <= choleskyMaxCond {
		var mi mat.SymDense
		if err := ch.InverseTo(&mi); err == nil {
			gi.mi = &mi
			return gi, nil
		}
	}
	if _, r, ok := stable.QR(a); ok {
		gi.r, gi.qr = r, true
		return gi, nil
	}
	s, _, vt, err := backend.SVD(a)
	if err != nil {
		return nil, fmt.Errorf("sdp: SVD of a %d×%d strategy: %w", p, n, err)
	}
	if len(s) == 0 || !(s[0] > 0) {
		return nil, fmt.Errorf("sdp: %w: the strategy is zero", backend.ErrSingular)
	}
	tol := float64(max(p, n)) * 0x1p-52 * s[0]
	k := 0
	for k < len(s) && s[k] > tol {
		k++
	}
	gi.s = s[:k]
	gi.v = mat.DenseCopyOf(vt.Slice(0, k, 0, n).T())
	return gi, nil
}

// supportTol is the relative part of tr(G) that may lie outside a
// rank-deficient strategy's row space before G counts as unsupported.
const supportTol = 1e-9

// trace returns tr(G (AᵀA)⁺), or +Inf when G is not supported by A.
func (gi *gramInverse) trace(g *mat.SymDense) float64 {
	switch {
	case gi.mi != nil:
		return traceProd(g, gi.mi)
	case gi.qr:
		return stable.Trace(gi.r, g)
	default:
		var gv mat.Dense
		gv.Mul(g, gi.v)
		t, in := 0.0, 0.0
		for i, s := range gi.s {
			q := mat.Dot(gi.v.ColView(i), gv.ColView(i))
			in += q
			t += q / (s * s)
		}
		if tg := mat.Trace(g); tg-in > supportTol*tg {
			return math.Inf(1)
		}
		return t
	}
}

// totalMultiple reports whether G = c·11ᵀ with c > 0 (every entry equal to
// G_00 to a relative 1e-12): the Gram matrix of an attribute the workload
// only totals.
func totalMultiple(g *mat.SymDense) (float64, bool) {
	n := g.SymmetricDim()
	c := g.At(0, 0)
	if !(c > 0) || math.IsInf(c, 0) {
		return 0, false
	}
	raw := g.RawSymmetric()
	for i := 0; i < n; i++ {
		for _, v := range raw.Data[i*raw.Stride+i : i*raw.Stride+n] {
			if math.Abs(v-c) > 1e-12*c {
				return 0, false
			}
		}
	}
	return c, true
}

// totalResult is the answer of OptimizeL1 for G = c·11ᵀ: the total 1ᵀ,
// which is optimal. With D1(A) = 1 every strategy has
// 1ᵀ(AᵀA)⁺1 = min{‖u‖² : Aᵀu = 1} ≥ n²/‖A1‖₂² ≥ n²/‖A1‖₁² ≥ 1
// (n = 1ᵀAᵀu ≤ ‖u‖ ‖A1‖, ‖A1‖₁ ≤ Σ_j ‖a_j‖₁ ≤ n), and the total attains
// tr(c 11ᵀ (11ᵀ)⁺) = c exactly; it has rank 1, so its error is computed on
// its row space, with no near-singular p-Identity factor (singular values
// near 1e-7) standing in for it. Baselines are evaluated and reported.
func totalResult(ctx context.Context, g *mat.SymDense, c float64, o *L1Options) (*L1Result, error) {
	n := g.SymmetricDim()
	op := gramDense{g: mat.DenseCopyOf(g)}
	bvals, _, err := baselineObjectives(ctx, o.Baselines, func(a *mat.Dense) (float64, error) { return l1Error(op, g, a) })
	if err != nil {
		return nil, err
	}
	return &L1Result{A: totalStrategy(n), Objective: c, Baseline: -1, BaselineObjectives: bvals}, nil
}

package solve

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/run"
)

// Kron is a Kronecker product A = F_0 ⊗ F_1 ⊗ ... ⊗ F_{d-1} of small
// symmetric factors: the privacy-constraints matrix of a separable metric
// (docs/MATH.md §12.4). Manhattan distance on a W×H grid (index y*W+x) gives
// Phi = L_H ⊗ L_W with L the line's matrix; Hamming distance on Val^u gives
// the u-fold product of the clique K_v's matrix.
//
// The factors follow the usual convention: F_0 acts on the slowest-varying
// index, F_{d-1} on the fastest (index = i_0 n_1...n_{d-1} + ... + i_{d-1}).
// Vectors of length n = prod n_f are only formed by MulVec and Solve; KronOnes
// and MinProduct work on the factors alone, so n may be astronomically large.
// A Kron keeps factorisations and workspaces and is not safe for concurrent
// use.
type Kron struct {
	factors []*mat.SymDense
	sizes   []int
	n       int // -1 when prod n_f overflows int
	facts   []backend.SymFactor
	fact    bool
	buf     []float64
}

var _ Operator = (*Kron)(nil)

// NewKron returns the Kronecker product of the given symmetric factors,
// which it retains (do not modify them afterwards).
func NewKron(factors ...*mat.SymDense) (*Kron, error) {
	if len(factors) == 0 {
		return nil, fmt.Errorf("solve: kronecker product of no factors: %w", ErrShape)
	}
	k := &Kron{factors: factors, sizes: make([]int, len(factors)), n: 1}
	for f, a := range factors {
		s := a.SymmetricDim()
		if s < 1 {
			return nil, fmt.Errorf("solve: factor %d is empty: %w", f, ErrShape)
		}
		k.sizes[f] = s
		if k.n >= 0 && k.n <= math.MaxInt/s {
			k.n *= s
		} else {
			k.n = -1
		}
	}
	return k, nil
}

// Len returns n = prod n_f, or -1 when it does not fit in an int.
func (k *Kron) Len() int { return k.n }

// Factors returns the factors (shared, not copied).
func (k *Kron) Factors() []*mat.SymDense { return k.factors }

// checkVec reports run.ErrTooLarge when n-vectors cannot be formed (over
// MaxWorkBytes for three of them) and ErrShape for a wrong length.
func (k *Kron) checkVec(what string, v []float64) error {
	if k.n < 0 || k.n > MaxWorkBytes/24 {
		return fmt.Errorf("solve: kronecker product of sizes %v: vectors of that length: %w", k.sizes, run.ErrTooLarge)
	}
	return checkLen(what, v, k.n)
}

// MulVec writes A x into dst, applying the factors mode by mode in
// O(n sum n_f) operations. It panics if the sizes are wrong (as
// Operator.MulVec may).
func (k *Kron) MulVec(dst, x []float64) {
	if err := k.checkVec("x", x); err != nil {
		panic(err)
	}
	k.modes(dst, x, func(f int, y, xb *mat.Dense) error {
		y.Mul(k.factors[f], xb)
		return nil
	})
}

// modes applies op(f, Y, X) (Y = F_f-action on the block X) for every
// factor, ping-ponging between dst and a workspace, and leaves the result in
// dst.
func (k *Kron) modes(dst, x []float64, op func(f int, y, xb *mat.Dense) error) error {
	if len(k.buf) != k.n {
		k.buf = make([]float64, k.n)
	}
	// Arrange the ping-pong so that the last write lands in dst.
	src := x
	bufs := [2][]float64{dst, k.buf}
	if len(k.factors)%2 == 0 {
		bufs = [2][]float64{k.buf, dst}
	}
	left := 1
	for f, nf := range k.sizes {
		right := k.n / left / nf
		out := bufs[f%2]
		for l := range left {
			blk := nf * right
			xb := mat.NewDense(nf, right, src[l*blk:(l+1)*blk])
			yb := mat.NewDense(nf, right, out[l*blk:(l+1)*blk])
			if err := op(f, yb, xb); err != nil {
				return err
			}
		}
		src = out
		left *= nf
	}
	return nil
}

// factorize factorises every factor once (backend.SymFactor: Cholesky, else
// Bunch–Kaufman or LU).
func (k *Kron) factorize() error {
	if k.fact {
		return nil
	}
	k.facts = make([]backend.SymFactor, len(k.factors))
	for f, a := range k.factors {
		if _, err := k.facts[f].Factorize(a); err != nil {
			return fmt.Errorf("kronecker factor %d (%d×%d): %w", f, k.sizes[f], k.sizes[f], err)
		}
	}
	k.fact = true
	return nil
}

// Solve solves A z = b by applying F_f^{-1} mode by mode,
// (⊗F_f)^{-1} = ⊗F_f^{-1}, in O(n sum n_f) after factorising each factor
// once. A is invertible iff every factor is; a singular factor gives an
// error wrapping backend.ErrSingular. Result.Solver is "kron" and Residual
// the true relative residual.
func (k *Kron) Solve(b []float64) (Result, error) {
	if err := k.checkVec("right-hand side", b); err != nil {
		return Result{}, err
	}
	if err := k.factorize(); err != nil {
		return Result{}, err
	}
	z := make([]float64, k.n)
	err := k.modes(z, b, func(f int, y, xb *mat.Dense) error {
		return k.facts[f].SolveTo(y, xb)
	})
	if err != nil {
		return Result{}, fmt.Errorf("kronecker solve: %w", err)
	}
	res := Result{Z: z, Solver: SolverKron}
	r := make([]float64, k.n)
	res.Residual = trueResidual(k, b, z, r)
	res.Converged = true
	return res, nil
}

// KronOnes returns the per-factor solutions z_f of F_f z_f = 1, so that
// z = z_0 ⊗ z_1 ⊗ ... solves (⊗F_f) z = 1 (because
// (⊗F_f)(⊗z_f) = ⊗(F_f z_f) = ⊗1 = 1) without forming z: entry
// (i_0, ..., i_{d-1}) of z is prod_f z_f[i_f]. Use MinProduct for min z and
// the product of the factors' means for mean z. A singular factor gives an
// error wrapping backend.ErrSingular.
func KronOnes(factors ...*mat.SymDense) ([][]float64, error) {
	if len(factors) == 0 {
		return nil, fmt.Errorf("solve: kronecker product of no factors: %w", ErrShape)
	}
	out := make([][]float64, len(factors))
	var f backend.SymFactor
	for i, a := range factors {
		s := a.SymmetricDim()
		if _, err := f.Factorize(a); err != nil {
			return nil, fmt.Errorf("kronecker factor %d (%d×%d): %w", i, s, s, err)
		}
		z := mat.NewVecDense(s, nil)
		if err := f.SolveVecTo(z, mat.NewVecDense(s, ones(s))); err != nil {
			return nil, fmt.Errorf("kronecker factor %d: %w", i, err)
		}
		out[i] = z.RawVector().Data
	}
	return out, nil
}

// MinProduct returns the smallest entry of the Kronecker product
// vals[0] ⊗ vals[1] ⊗ ... and its multi-index, in O(sum len(vals[f])).
//
// The product is multilinear in the chosen entries, so its minimum over
// the box prod_f [min vals[f], max vals[f]] is at a vertex; the recursion
// keeps the smallest and largest partial products (with their indices), and
// the new extremes are among the four products of those with the factor's
// minimum and maximum. The sign is therefore exact, including with negative
// entries. It panics if some vals[f] is empty.
func MinProduct(vals [][]float64) (minimum float64, idx []int) {
	type ext struct {
		v   float64
		idx []int
	}
	lo, hi := ext{1, nil}, ext{1, nil}
	for f, v := range vals {
		if len(v) == 0 {
			panic(fmt.Sprintf("solve: MinProduct: factor %d is empty", f))
		}
		imin, imax := 0, 0
		for i, x := range v {
			if x < v[imin] {
				imin = i
			}
			if x > v[imax] {
				imax = i
			}
		}
		cands := [4]ext{
			{lo.v * v[imin], append(append([]int(nil), lo.idx...), imin)},
			{lo.v * v[imax], append(append([]int(nil), lo.idx...), imax)},
			{hi.v * v[imin], append(append([]int(nil), hi.idx...), imin)},
			{hi.v * v[imax], append(append([]int(nil), hi.idx...), imax)},
		}
		lo, hi = cands[0], cands[0]
		for _, c := range cands[1:] {
			if c.v < lo.v {
				lo = c
			}
			if c.v > hi.v {
				hi = c
			}
		}
	}
	return lo.v, lo.idx
}

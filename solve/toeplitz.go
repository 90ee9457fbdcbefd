package solve

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// Toeplitz is a multi-level symmetric Toeplitz matrix: Toeplitz for a 1-D
// lattice, block Toeplitz with Toeplitz blocks (BTTB) for a 2-D grid, and so
// on (docs/MATH.md §12.2). It is the privacy-constraints matrix
// Phi = exp(-dY) of a translation-invariant metric on a lattice: the entry
// between points x and y is kernel(|x-y|), where |x-y| is the vector of
// coordinate-wise absolute offsets.
//
// Points of a lattice of shape dims are numbered with coordinate 0 varying
// fastest: for a W×H grid, dims = [W, H] and point (x, y) has index y*W+x.
//
// Products with the matrix cost O(n log n) through the FFT of a circulant
// embedding of shape m[i] = nextFast(2*dims[i]-1); the matrix itself is never
// stored (only the kernel table, n numbers). A Toeplitz keeps FFT workspaces
// and is not safe for concurrent use.
type Toeplitz struct {
	dims  []int
	n     int
	table []float64 // kernel over offsets, shape dims
	emb   *Circulant
	// Symbol data for SymbolBounds and RoundingBound.
	colNorm2 float64 // 2-norm of the embedding's first column
}

var _ Operator = (*Toeplitz)(nil)
var _ RoundingBounder = (*Toeplitz)(nil)

// NewToeplitz returns the multi-level symmetric Toeplitz matrix on a lattice
// of shape dims whose entry between points at coordinate-wise absolute
// offsets off (0 <= off[i] < dims[i]) is kernel(off). kernel is called once
// per offset (n times in all) and must return finite values; it must not
// retain off. The metric must depend on offsets only through their absolute
// values, as the Euclidean, Manhattan and Chebyshev distances and the line
// and sum-query metrics do.
//
// It returns an run.ErrTooLarge error, before allocating, when the workspaces
// (about 8n + 20 prod(m) bytes, plus FFT plans) would exceed MaxWorkBytes.
// A solve needs in addition a preconditioner (about a quarter of that) and
// 8n bytes per Krylov vector (PCG keeps 5, MINRES 8).
func NewToeplitz(dims []int, kernel func(off []int) float64) (*Toeplitz, error) {
	n, err := checkDims(dims)
	if err != nil {
		return nil, err
	}
	m := make([]int, len(dims))
	for i, v := range dims {
		m[i] = nextFast(2*v - 1)
	}
	if bytes := toeplitzBytes(n, m); bytes < 0 || bytes > MaxWorkBytes {
		return nil, fmt.Errorf("solve: toeplitz %v needs %s of workspace (limit %s): %w", dims, fmtBytes(bytes), fmtBytes(MaxWorkBytes), run.ErrTooLarge)
	}
	t := &Toeplitz{dims: append([]int(nil), dims...), n: n, table: make([]float64, n)}
	off := make([]int, len(dims))
	for k := range n {
		decode(k, dims, off)
		v := kernel(off)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("solve: kernel%v = %v: %w", off, v, ErrBadKernel)
		}
		t.table[k] = v
	}
	// First column of the embedding: c(j) = t(min(j, m-j)) per dimension
	// when that offset is < dims, else 0.
	msize := 1
	for _, v := range m {
		msize *= v
	}
	col := make([]float64, msize)
	j := make([]int, len(m))
	for k := range msize {
		decode(k, m, j)
		idx, ok := 0, true
		for i := len(m) - 1; i >= 0; i-- {
			o := min(j[i], m[i]-j[i])
			if o >= dims[i] {
				ok = false
				break
			}
			idx = idx*dims[i] + o
		}
		if ok {
			col[k] = t.table[idx]
			t.colNorm2 += col[k] * col[k]
		}
	}
	t.colNorm2 = math.Sqrt(t.colNorm2)
	t.emb, err = NewCirculant(m, col)
	if err != nil {
		return nil, fmt.Errorf("toeplitz embedding: %w", err)
	}
	return t, nil
}

// toeplitzBytes estimates the bytes NewToeplitz allocates (kernel table,
// embedding column, eigenvalues and complex spectrum), or -1 on overflow.
func toeplitzBytes(n int, m []int) int {
	msize := 1
	for _, v := range m {
		if msize > math.MaxInt/64/v {
			return -1
		}
		msize *= v
	}
	s := specLen(m)
	if s < 0 {
		return -1
	}
	// Per-worker FFT plans and buffers (fourier keeps 3 m0 reals for a real
	// transform and 6 m_i for a complex one).
	plan, maxm := 3*m[0], 1
	for _, v := range m[1:] {
		plan += 6 * v
		maxm = max(maxm, v)
	}
	plan += 2 * lineBlock * maxm
	return 8*n + 8*msize + 24*s + 8*maxFFTWorkers*plan
}

// Len returns the number of lattice points n.
func (t *Toeplitz) Len() int { return t.n }

// Dims returns the lattice shape (a copy).
func (t *Toeplitz) Dims() []int { return append([]int(nil), t.dims...) }

// Kernel returns the entry between points at absolute offsets off.
func (t *Toeplitz) Kernel(off []int) float64 {
	idx := 0
	for i := len(t.dims) - 1; i >= 0; i-- {
		idx = idx*t.dims[i] + off[i]
	}
	return t.table[idx]
}

// At returns the matrix entry (i, j) in O(d).
func (t *Toeplitz) At(i, j int) float64 {
	idx, stride := 0, 1
	for _, v := range t.dims {
		a, b := i%v, j%v
		i, j = i/v, j/v
		d := a - b
		if d < 0 {
			d = -d
		}
		idx += d * stride
		stride *= v
	}
	return t.table[idx]
}

// MulVec writes T x into dst in O(n log n) without allocating: the vector is
// zero-padded to the embedding, transformed, multiplied by the embedding's
// eigenvalues and transformed back.
func (t *Toeplitz) MulVec(dst, x []float64) {
	c := t.emb
	p := c.plan
	p.forward(x, t.dims)
	for k, v := range c.eig {
		p.spec[k] *= complex(v, 0)
	}
	p.inverse(dst, t.dims)
}

// RoundingBound bounds ||fl(T x) - T x||_2 for the FFT product: with
// M = prod(m) and eta = 5u (u the unit roundoff), each of the two
// transforms has relative 2-norm error at most log2(M) eta (Higham, Accuracy
// and Stability, Thm 24.2), and the eigenvalues carry an absolute error of
// at most sqrt(M) log2(M) eta ||c||_2; so the error is at most
// 3 log2(M) eta (max|lambda| + sqrt(M) ||c||_2) ||x||_2, which we double for
// the pointwise products and the scaling.
func (t *Toeplitz) RoundingBound(x []float64) float64 {
	M := float64(t.emb.n)
	l := math.Log2(M) + 1
	eta := 5 * unitRoundoff
	var big float64
	for _, v := range t.emb.eig {
		big = max(big, math.Abs(v))
	}
	return 6 * l * eta * (big + math.Sqrt(M)*t.colNorm2) * norm2(x)
}

// Dense returns T as a dense matrix (for tests and small problems). It
// returns run.ErrTooLarge when n > 20000.
func (t *Toeplitz) Dense() (*mat.SymDense, error) {
	if t.n > 20000 {
		return nil, fmt.Errorf("solve: dense %d×%d toeplitz: %w", t.n, t.n, run.ErrTooLarge)
	}
	a := mat.NewSymDense(t.n, nil)
	for i := range t.n {
		for j := i; j < t.n; j++ {
			a.SetSym(i, j, t.At(i, j))
		}
	}
	return a, nil
}

// Precond selects a circulant preconditioner for a Toeplitz system.
type Precond int

const (
	// PrecondStrang copies the central diagonals of T into a circulant
	// (Strang 1986): c(j) = t(min(j, m-j)) per dimension, m the
	// preconditioner's size (see SolveToeplitz).
	PrecondStrang Precond = iota
	// PrecondTChan is the circulant nearest to T in the Frobenius norm
	// (T. Chan 1988): c(j) = ((m-j) t(j) + j t(m-j)) / m per dimension. Its
	// eigenvalues are Rayleigh quotients of T (of T's zero extension to size
	// m when m > n), so without padding it is positive definite whenever T
	// is.
	PrecondTChan
	// PrecondNone uses no preconditioner.
	PrecondNone
)

// String returns the preconditioner's name as it appears in solver names.
func (p Precond) String() string {
	switch p {
	case PrecondStrang:
		return "strang"
	case PrecondTChan:
		return "tchan"
	case PrecondNone:
		return "none"
	}
	return fmt.Sprintf("Precond(%d)", int(p))
}

// precond returns the multi-level circulant preconditioner of the given
// kind (PrecondStrang or PrecondTChan). Its size per dimension is
// m_i = nextFast(dims[i]) so that its FFTs are fast (a prime size would make
// them quadratic); when m_i > dims[i] it acts as P^T C P, P the zero-padding,
// which is symmetric positive definite whenever C is. Offsets >= dims[i] have
// kernel value 0 in the formulas.
func (t *Toeplitz) precond(kind Precond) (*Circulant, error) {
	d := len(t.dims)
	m := make([]int, d)
	size := 1
	for i, v := range t.dims {
		m[i] = nextFast(v)
		size *= m[i]
	}
	col := make([]float64, size)
	j := make([]int, d)
	off := make([]int, d)
	kern := func() float64 {
		for i, o := range off {
			if o >= t.dims[i] {
				return 0
			}
		}
		return t.Kernel(off)
	}
	for k := range size {
		decode(k, m, j)
		switch kind {
		case PrecondStrang:
			for i, v := range m {
				off[i] = min(j[i], v-j[i])
			}
			col[k] = kern()
		case PrecondTChan:
			// Sum over the 2^d choices of offset j[i] (weight (m-j)/m) or
			// m-j[i] (weight j/m) in each dimension.
			var s float64
			for mask := 0; mask < 1<<d; mask++ {
				w := 1.0
				for i, v := range m {
					if mask>>i&1 == 0 {
						off[i] = j[i]
						w *= float64(v-j[i]) / float64(v)
					} else {
						off[i] = v - j[i]
						w *= float64(j[i]) / float64(v)
					}
				}
				if w != 0 {
					s += w * kern()
				}
			}
			col[k] = s
		default:
			return nil, fmt.Errorf("solve: no circulant for preconditioner %v: %w", kind, ErrShape)
		}
	}
	c, err := NewCirculant(m, col)
	if err != nil {
		return nil, err
	}
	c.sub = append([]int(nil), t.dims...)
	c.n = t.n
	return c, nil
}

// precondFloor is the relative floor below which a circulant eigenvalue is
// treated as non-positive when building a preconditioner.
const precondFloor = 1e-8

// SolveToeplitz solves T z = b by a preconditioned Krylov method with
// O(n log n) work per iteration (docs/MATH.md §12.2).
//
// With opt.Method = MethodAuto it runs PCG with the circulant preconditioner
// opt.Precond (Strang by default). A Strang circulant with an eigenvalue
// <= 1e-8 times its largest is not a usable SPD preconditioner, so the solve
// switches to T. Chan's, whose eigenvalues are Rayleigh quotients of T. A
// T. Chan eigenvalue <= 1e-8 times the largest means T is (or, for padded
// preconditioners, may be) indefinite or nearly singular, and PCG breaking
// down (p·Tp <= 0) proves T indefinite; T is then solved by MINRES
// preconditioned with |C|, the circulant with the absolute values of the
// eigenvalues (floored at 1e-8 times the largest). Preconditioners have
// size nextFast(dims[i]) per dimension and act through zero-padding when
// that exceeds dims[i] (see precond). Result.Solver says what ran, e.g.
// "toeplitz-pcg-strang", "toeplitz-pcg-tchan", "toeplitz-minres-abs-tchan".
//
// Errors: ErrShape for a b of the wrong length, run.ErrNotConverged (with the
// last iterate in the Result) when the target is not reached, ctx.Err() when
// cancelled.
func SolveToeplitz(ctx context.Context, t *Toeplitz, b []float64, opts *Options) (Result, error) {
	opt := opts.value()
	if err := checkLen("right-hand side", b, t.n); err != nil {
		return Result{}, err
	}
	kind := opt.Precond
	var c *Circulant
	if kind != PrecondNone {
		var err error
		if c, err = t.precond(kind); err != nil {
			return Result{}, err
		}
	}
	useMINRES := opt.Method == MethodMINRES
	if c != nil && opt.Method != MethodMINRES {
		lo, _ := c.MinEig()
		big := maxAbs(c.eig)
		if lo <= precondFloor*big && kind == PrecondStrang {
			// Strang is not positive definite: T. Chan is whenever T is.
			kind = PrecondTChan
			var err error
			if c, err = t.precond(kind); err != nil {
				return Result{}, err
			}
			lo, _ = c.MinEig()
			big = maxAbs(c.eig)
		}
		if lo <= precondFloor*big && opt.Method != MethodPCG {
			// T. Chan's eigenvalues are Rayleigh quotients of T (of its
			// zero-extension when padded): T is, or may be, indefinite.
			// (A forced PCG runs with the eigenvalues clamped instead.)
			useMINRES = true
		}
	}
	if !useMINRES {
		var minv Operator
		if c != nil {
			minv, _ = c.inverseOperator(false, precondFloor)
		}
		res, err := PCG(ctx, t, minv, b, &opt)
		res.Solver = toeplitzSolver(false, kind)
		if !errors.Is(err, ErrBreakdown) || opt.Method == MethodPCG {
			return res, err
		}
	}
	var minv Operator
	name := toeplitzSolver(true, PrecondNone)
	if c != nil {
		minv, _ = c.inverseOperator(true, precondFloor)
		name = toeplitzSolver(true, kind)
	}
	res, err := MINRES(ctx, t, minv, b, &opt)
	res.Solver = name
	return res, err
}

func maxAbs(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = max(m, math.Abs(v))
	}
	return m
}

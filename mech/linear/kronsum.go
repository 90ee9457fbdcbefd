package linear

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// maxAlgebraAttrs bounds the number of attributes of a strategy in the
// marginal algebra (its error sums over the 2^d attribute subsets).
const maxAlgebraAttrs = 24

// kronSum is a strategy that stacks Kronecker products over a product
// domain dims and whose Gram matrix A^T A lies in the marginal algebra:
//
//	A^T A = Σ_T lambda[T] E_T,  E_T = ⊗_f (Q_f if bit f of T is set else P_f),
//
// P_f = 1 1^T/n_f, Q_f = I - P_f (T a bit mask over the attributes, bit f
// for dims[f]). The E_T are orthogonal projections that sum to I, so
// (A^T A)^+ = Σ_{lambda[T] > 0} E_T/lambda[T] and, for any Gram term
// G = ⊗_f G_f, tr(G E_T) = Π_f (tr(G_f Q_f) if f ∈ T else 1^T G_f 1/n_f):
// the error of any workload whose Gram factors line up with dims costs
// O(2^d d) per term, whatever the domain size (docs/MATH.md §13.8).
type kronSum struct {
	dims   []int
	blocks [][]*mat.Dense // each block is ⊗ of its factors (weight folded into factor 0)
	lambda []float64      // eigenvalue of A^T A on E_T, indexed by the mask T
}

func checkAlgebraDims(what string, dims []int) error {
	if len(dims) == 0 || len(dims) > maxAlgebraAttrs {
		return fmt.Errorf("%s: %w: %d attributes, want 1..%d", what, run.ErrBadInput, len(dims), maxAlgebraAttrs)
	}
	cells := 1.0
	for f, n := range dims {
		if n < 1 {
			return fmt.Errorf("%s: %w: attribute %d has %d values", what, run.ErrBadInput, f, n)
		}
		cells *= float64(n)
	}
	if cells > 1<<40 {
		return fmt.Errorf("%s: %w: a domain of %g cells is too large to index", what, run.ErrTooLarge, cells)
	}
	return nil
}

func dimsString(dims []int) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = strconv.Itoa(d)
	}
	return strings.Join(s, "x")
}

// MarginalsStrategy returns the weighted union of marginals
// A = [theta[S] M_S]_{theta[S] > 0} over the product domain dims (cells in
// row-major order, attribute 0 slowest), theta indexed by the attribute
// mask S (bit f set when attribute f is kept; S = 0 is the total, S = 2^d-1
// the identity), stacked in increasing mask order. M_S = ⊗_f (I if f ∈ S
// else 1^T) is the marginal on S. Every cell lies in one row of each M_S,
// so D1(A) = Σ theta[S] and D2(A)² = Σ theta[S]²; its Gram matrix
// Σ_S theta[S]² ⊗_f (I or 1 1^T) has eigenvalue
// lambda_T = Σ_{S ⊇ T} theta[S]² Π_{f ∉ S} n_f on E_T (see kronSum), which
// is how errors are computed without forming A.
func MarginalsStrategy(dims []int, theta []float64) (*Strategy, error) {
	if err := checkAlgebraDims("marginals strategy", dims); err != nil {
		return nil, err
	}
	d := len(dims)
	if len(theta) != 1<<d {
		return nil, fmt.Errorf("marginals strategy: %w: %d weights for %d attributes, want 2^%d", run.ErrBadInput, len(theta), d, d)
	}
	ks := &kronSum{dims: append([]int(nil), dims...), lambda: make([]float64, 1<<d)}
	for s, th := range theta {
		if !(th >= 0) || math.IsInf(th, 0) {
			return nil, fmt.Errorf("marginals strategy: %w: weight %d = %v, want finite >= 0", run.ErrBadInput, s, th)
		}
		if th == 0 {
			continue
		}
		blk := make([]*mat.Dense, d)
		c := 1.0
		for f, n := range dims {
			if uint(s)>>uint(f)&1 == 1 {
				blk[f] = denseIdentity(n)
			} else {
				blk[f] = denseOnes(1, n)
				c *= float64(n)
			}
		}
		blk[0] = scaled(th, blk[0])
		ks.blocks = append(ks.blocks, blk)
		for t := uint(s); ; t = (t - 1) & uint(s) { // subsets T of S
			ks.lambda[t] += th * th * c
			if t == 0 {
				break
			}
		}
	}
	if len(ks.blocks) == 0 {
		return nil, fmt.Errorf("linear: marginals strategy: %w: all weights are zero", run.ErrBadInput)
	}
	return &Strategy{name: fmt.Sprintf("marginals(dims=%s,%d marginals)", dimsString(dims), len(ks.blocks)), sum: ks}, nil
}

// ResidualStrategy returns the strategy of the residual basis (Xiao, Ding,
// Wang, Kifer and Zhang, "An optimal and scalable matrix mechanism for noisy
// marginals", NeurIPS 2023) with A^T A = Σ_T nu[T] E_T: for every mask T
// with nu[T] > 0 the block sqrt(nu[T]) ⊗_f (B_f if f ∈ T else 1^T/sqrt(n_f)),
// B_f the (n_f-1)×n_f Helmert matrix, whose orthonormal rows span the
// vectors summing to 0 (B_f^T B_f = Q_f). Its column L2 norms are all equal:
// D2(A)² = Σ_T nu[T] Π_{f ∈ T} (n_f-1)/n_f Π_{f ∉ T} 1/n_f.
func ResidualStrategy(dims []int, nu []float64) (*Strategy, error) {
	if err := checkAlgebraDims("residual strategy", dims); err != nil {
		return nil, err
	}
	d := len(dims)
	if len(nu) != 1<<d {
		return nil, fmt.Errorf("residual strategy: %w: %d weights for %d attributes, want 2^%d", run.ErrBadInput, len(nu), d, d)
	}
	ks := &kronSum{dims: append([]int(nil), dims...), lambda: make([]float64, 1<<d)}
	for t, v := range nu {
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("residual strategy: %w: weight %d = %v, want finite >= 0", run.ErrBadInput, t, v)
		}
		if v == 0 {
			continue
		}
		blk := make([]*mat.Dense, d)
		skip := false
		for f, n := range dims {
			if uint(t)>>uint(f)&1 == 1 {
				if n == 1 {
					skip = true // E_T = 0: attribute f has no residual
					break
				}
				blk[f] = helmert(n)
			} else {
				blk[f] = scaled(1/math.Sqrt(float64(n)), denseOnes(1, n))
			}
		}
		if skip {
			continue
		}
		blk[0] = scaled(math.Sqrt(v), blk[0])
		ks.blocks = append(ks.blocks, blk)
		ks.lambda[t] = v
	}
	if len(ks.blocks) == 0 {
		return nil, fmt.Errorf("linear: residual strategy: %w: all weights are zero", run.ErrBadInput)
	}
	return &Strategy{name: fmt.Sprintf("residual(dims=%s,%d blocks)", dimsString(dims), len(ks.blocks)), sum: ks}, nil
}

// helmert returns the (n-1)×n Helmert matrix: row k (1-based) is
// (1, ..., 1, -k, 0, ...)/sqrt(k(k+1)) with k ones, orthonormal rows
// orthogonal to 1.
func helmert(n int) *mat.Dense {
	h := mat.NewDense(n-1, n, nil)
	for k := 1; k < n; k++ {
		s := 1 / math.Sqrt(float64(k*(k+1)))
		for j := 0; j < k; j++ {
			h.Set(k-1, j, s)
		}
		h.Set(k-1, k, -float64(k)*s)
	}
	return h
}

func denseIdentity(n int) *mat.Dense {
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		a.Set(i, i, 1)
	}
	return a
}

func denseOnes(r, c int) *mat.Dense {
	a := mat.NewDense(r, c, nil)
	for k := range a.RawMatrix().Data {
		a.RawMatrix().Data[k] = 1
	}
	return a
}

func scaled(c float64, a *mat.Dense) *mat.Dense {
	var out mat.Dense
	out.Scale(c, a)
	return &out
}

// dims returns the strategy's p and n.
func (k *kronSum) size() (p, n int) {
	n = 1
	for _, d := range k.dims {
		n *= d
	}
	for _, b := range k.blocks {
		r := 1
		for _, f := range b {
			fr, _ := f.Dims()
			r *= fr
		}
		p += r
	}
	return p, n
}

// colNorm returns max_j (Σ_i |A_ij|^p)^{1/p}: for each block the p-th
// powers of the column norms are a Kronecker product of the factors'; when
// every factor's are constant (identity, totals, Helmert rows, ...) the
// maximum is their sum, otherwise the sum is expanded over the cells
// (8n bytes, checked against budget).
func (k *kronSum) colNorm(p int, budget run.Budget) (float64, error) {
	var terms []normTerm
	allConst := true
	constSum := 0.0
	for _, b := range k.blocks {
		t := make(normTerm, len(b))
		prod := 1.0
		for f, a := range b {
			r, c := a.Dims()
			v := make([]float64, c)
			for j := 0; j < c; j++ {
				for i := 0; i < r; i++ {
					x := math.Abs(a.At(i, j))
					if p == 2 {
						x *= x
					}
					v[j] += x
				}
			}
			for _, x := range v[1:] {
				if math.Abs(x-v[0]) > 1e-12*math.Abs(v[0]) {
					allConst = false
				}
			}
			prod *= v[0]
			t[f] = v
		}
		constSum += prod
		terms = append(terms, t)
	}
	root := func(v float64) float64 {
		if p == 2 {
			return math.Sqrt(v)
		}
		return v
	}
	if allConst {
		return root(constSum), nil
	}
	_, n := k.size()
	if err := budget.Check("the column norms of a stacked strategy", 8*float64(n), ""); err != nil {
		return 0, err
	}
	sum := make([]float64, n)
	for _, t := range terms {
		addKronVec(sum, t)
	}
	m := 0.0
	for _, x := range sum {
		m = math.Max(m, x)
	}
	return root(m), nil
}

// trace returns tr(G (A^T A)^+) = Σ_t Σ_{lambda_T > 0} tr(G_t E_T)/lambda_T
// for the Gram g, whose terms must have the factor orders dims. A term with
// tr(G_t E_T) > 0 on a T with lambda_T = 0 is not supported (ErrUnsupported).
func (k *kronSum) trace(g Gram) (float64, error) {
	d := len(k.dims)
	total := 0.0
	a, b := make([]float64, d), make([]float64, d)
	for ti, term := range g.Terms {
		if len(term) != d {
			return 0, fmt.Errorf("linear: profile trace: Gram term %d has %d factors, the strategy has %d attributes %v", ti, len(term), d, k.dims)
		}
		scale := 0.0
		for f, gf := range term {
			if n := gf.SymmetricDim(); n != k.dims[f] {
				return 0, fmt.Errorf("linear: profile trace: Gram term %d factor %d has order %d, attribute %d has %d values", ti, f, n, f, k.dims[f])
			}
			a[f], b[f] = projTraces(gf)
			scale += a[f] + b[f]
		}
		for t, v := range termSpectrum(a, b) {
			if v == 0 {
				continue
			}
			if !(k.lambda[t] > 0) {
				if v > 1e-12*math.Max(1, scale) {
					return 0, fmt.Errorf("linear: profile trace: the workload asks about residual subspace %b, which the strategy does not measure: %w", t, ErrUnsupported)
				}
				continue
			}
			total += v / k.lambda[t]
		}
	}
	return total, nil
}

// cond returns max lambda / min lambda over the measured subspaces.
func (k *kronSum) cond() float64 {
	lo, hi := math.Inf(1), 0.0
	for _, l := range k.lambda {
		if l > 0 {
			lo, hi = math.Min(lo, l), math.Max(hi, l)
		}
	}
	return hi / lo
}

// dense returns the stacked blocks as one matrix (the caller checked size).
func (k *kronSum) dense() *mat.Dense {
	p, n := k.size()
	out := mat.NewDense(p, n, nil)
	off := 0
	for _, b := range k.blocks {
		ms := make([]mat.Matrix, len(b))
		for i, f := range b {
			ms[i] = f
		}
		kd := kronDense(ms)
		r, _ := kd.Dims()
		out.Slice(off, off+r, 0, n).(*mat.Dense).Copy(kd)
		off += r
	}
	return out
}

// mulVec returns A x block by block (each block applied along its modes).
func (k *kronSum) mulVec(x []float64) []float64 {
	var out []float64
	for _, b := range k.blocks {
		in, o := make([]int, len(b)), make([]int, len(b))
		ops := make([]func(dst, src []float64), len(b))
		for i, f := range b {
			o[i], in[i] = f.Dims()
			ops[i] = func(dst, src []float64) {
				mat.NewVecDense(len(dst), dst).MulVec(f, mat.NewVecDense(len(src), src))
			}
		}
		out = append(out, kronApply(x, in, o, ops)...)
	}
	return out
}

// projTraces returns tr(G P) = 1^T G 1/n and tr(G Q) = tr(G) - tr(G P)
// (clipped at 0: G is positive semidefinite) for P = 1 1^T/n, Q = I - P.
func projTraces(g *mat.SymDense) (a, b float64) {
	n := g.SymmetricDim()
	s, tr := 0.0, 0.0
	for i := 0; i < n; i++ {
		tr += g.At(i, i)
		for j := 0; j < n; j++ {
			s += g.At(i, j)
		}
	}
	a = s / float64(n)
	return a, math.Max(tr-a, 0)
}

// termSpectrum returns v[T] = Π_f (b[f] if bit f of T is set else a[f])
// for every mask T over len(a) attributes, by doubling in O(2^d).
func termSpectrum(a, b []float64) []float64 {
	v := make([]float64, 1, 1<<len(a))
	v[0] = 1
	for f := range a {
		h := len(v)
		v = append(v, v...)
		for m := 0; m < h; m++ {
			v[m] *= a[f]
			v[m+h] *= b[f]
		}
	}
	return v
}

// algebraSpectrum returns, for a Gram matrix whose terms all have the factor
// orders dims (at most maxAlgebraAttrs of them), h[T] = tr(G E_T) for every
// attribute mask T, and whether every factor is of the form α I + β 1 1^T
// (then G = Σ_T (h[T]/m_T) E_T with m_T = Π_{f ∈ T}(n_f - 1) = rank E_T:
// the marginal algebra, where the L2 optimum has a closed form).
func algebraSpectrum(g Gram, dims []int) (h []float64, inAlgebra bool, err error) {
	d := len(dims)
	if d == 0 || d > maxAlgebraAttrs {
		return nil, false, fmt.Errorf("%w: %d attributes, the marginal algebra handles 1..%d", run.ErrTooLarge, d, maxAlgebraAttrs)
	}
	h = make([]float64, 1<<d)
	inAlgebra = true
	a, b := make([]float64, d), make([]float64, d)
	for _, term := range g.Terms {
		if len(term) != d {
			return nil, false, fmt.Errorf("%w: Gram terms split the domain differently", run.ErrBadInput)
		}
		for f, gf := range term {
			if gf.SymmetricDim() != dims[f] {
				return nil, false, fmt.Errorf("%w: Gram terms split the domain differently", run.ErrBadInput)
			}
			a[f], b[f] = projTraces(gf)
			inAlgebra = inAlgebra && isIdentityPlusOnes(gf)
		}
		for t, v := range termSpectrum(a, b) {
			h[t] += v
		}
	}
	return h, inAlgebra, nil
}

// isIdentityPlusOnes reports whether g = α I + β 1 1^T (all diagonal
// entries equal and all off-diagonal entries equal, exactly).
func isIdentityPlusOnes(g *mat.SymDense) bool {
	n := g.SymmetricDim()
	d, o := g.At(0, 0), 0.0
	if n > 1 {
		o = g.At(0, 1)
	}
	for i := 0; i < n; i++ {
		if g.At(i, i) != d {
			return false
		}
		for j := i + 1; j < n; j++ {
			if g.At(i, j) != o {
				return false
			}
		}
	}
	return true
}

package linear

import (
	"fmt"
	"math"
	"strings"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// Strategy is a p×n strategy matrix A, the queries the mechanism answers
// with noise, stored as a Kronecker product A_1 ⊗ A_2 ⊗ ... of dense factors
// (one factor for an explicit matrix), or, for MarginalsStrategy and
// ResidualStrategy, as a stack of Kronecker products over a product domain
// whose A^T A is diagonal in the marginal algebra. Factor matrices are owned
// by the Strategy and must not be modified.
type Strategy struct {
	name    string
	factors []*mat.Dense
	// sum, when not nil, replaces factors: a stack of Kronecker products
	// whose Gram lies in the marginal algebra (MarginalsStrategy,
	// ResidualStrategy).
	sum *kronSum
	// union, when not nil, replaces factors: a union of Kronecker
	// strategies, each block answering its own group of workload terms
	// (UnionStrategy, union.go).
	union *unionStrategy
}

// StrategyFromMatrix returns the explicit strategy a (copied). It must have
// finite entries and no all-zero column; full column rank is checked when the
// error is evaluated. This is how an optimised strategy is wired in.
func StrategyFromMatrix(a *mat.Dense) (*Strategy, error) {
	if a == nil || a.IsEmpty() {
		return nil, run.BadInputf("strategy matrix is empty")
	}
	if err := finiteDense(a); err != nil {
		return nil, fmt.Errorf("strategy matrix: %w", err)
	}
	p, n := a.Dims()
	s := &Strategy{name: fmt.Sprintf("matrix(%dx%d)", p, n), factors: []*mat.Dense{mat.DenseCopyOf(a)}}
	if s.L1() == 0 {
		return nil, run.BadInputf("strategy matrix is all zeros")
	}
	return s, nil
}

// KronStrategy returns the Kronecker product of strategies (for d-D domains
// with cells in row-major order, the last factor fastest). Sensitivities of a
// Kronecker product are the products of the factors' sensitivities.
func KronStrategy(ss ...*Strategy) (*Strategy, error) {
	if len(ss) == 0 {
		return nil, run.BadInputf("kron strategy: no factors")
	}
	out := &Strategy{}
	names := make([]string, len(ss))
	for i, s := range ss {
		if s == nil {
			return nil, run.BadInputf("kron strategy: factor %d is nil", i)
		}
		out.factors = append(out.factors, s.factors...)
		names[i] = s.name
	}
	out.name = "kron(" + strings.Join(names, ", ") + ")"
	return out, nil
}

// IdentityStrategy returns the n×n identity strategy (answer every count).
func IdentityStrategy(n int) (*Strategy, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	if err := checkDense("identity strategy", n, n); err != nil {
		return nil, err
	}
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		a.Set(i, i, 1)
	}
	return &Strategy{name: fmt.Sprintf("identity(n=%d)", n), factors: []*mat.Dense{a}}, nil
}

// Hierarchical returns H_b: one row per node of a b-ary tree of interval
// sums over [0, n), listed level by level from the root. A node [l, r) with
// r-l > 1 has children of ceil((r-l)/b) counts each, the last one shorter
// (so when n is not a power of b some nodes have fewer than b children); the
// leaves are the n single counts. With root = false the root (the total) is
// left out, unless n = 1. Every column has one 1 per level on its path, so
// D1 = D2² = the number of nodes containing a count, at most
// ceil(log_b n) + 1 (one less without the root).
func Hierarchical(n, b int, root bool) (*Strategy, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	if b < 2 {
		return nil, run.BadInputf("hierarchical: branching b = %d must be >= 2", b)
	}
	var nodes []Interval
	level := []Interval{{0, n}} // half-open [L, R)
	for len(level) > 0 {
		var next []Interval
		for _, v := range level {
			nodes = append(nodes, v)
			if v.R-v.L > 1 {
				c := (v.R - v.L + b - 1) / b
				for l := v.L; l < v.R; l += c {
					next = append(next, Interval{l, min(l+c, v.R)})
				}
			}
		}
		level = next
	}
	if !root && n > 1 {
		nodes = nodes[1:]
	}
	if err := checkDense("hierarchical strategy", len(nodes), n); err != nil {
		return nil, err
	}
	a := mat.NewDense(len(nodes), n, nil)
	for q, v := range nodes {
		for j := v.L; j < v.R; j++ {
			a.Set(q, j, 1)
		}
	}
	rs := ""
	if !root {
		rs = ",root=false"
	}
	return &Strategy{name: fmt.Sprintf("hier(n=%d,b=%d%s)", n, b, rs), factors: []*mat.Dense{a}}, nil
}

// Wavelet returns the paper's unweighted Haar wavelet strategy Y for n a
// power of 2 (an error otherwise): the total, then for every dyadic interval
// of length >= 2, from the root down, the sum of its left half minus the sum
// of its right half. It is n×n with entries 0, ±1 and D1 = log2(n) + 1.
func Wavelet(n int) (*Strategy, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	if n&(n-1) != 0 {
		return nil, run.BadInputf("wavelet: n = %d is not a power of 2 (pad the domain to %d)", n, 1<<bitsLen(n))
	}
	if err := checkDense("wavelet strategy", n, n); err != nil {
		return nil, err
	}
	a := mat.NewDense(n, n, nil)
	for j := 0; j < n; j++ {
		a.Set(0, j, 1)
	}
	q := 1
	for size := n; size >= 2; size /= 2 {
		for l := 0; l < n; l += size {
			for j := l; j < l+size; j++ {
				if j < l+size/2 {
					a.Set(q, j, 1)
				} else {
					a.Set(q, j, -1)
				}
			}
			q++
		}
	}
	return &Strategy{name: fmt.Sprintf("wavelet(n=%d)", n), factors: []*mat.Dense{a}}, nil
}

func bitsLen(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

// WorkloadStrategy returns the workload itself as a strategy, keeping a
// Kronecker workload's factors (each factor is made dense, under the
// mech.MaxDenseEntries limit).
func WorkloadStrategy(w Workload) (*Strategy, error) {
	var fs []*mat.Dense
	for _, f := range Factors(w) {
		d, err := f.Dense()
		if err != nil {
			return nil, fmt.Errorf("workload as strategy: %w", err)
		}
		fs = append(fs, d)
	}
	return &Strategy{name: "workload(" + w.String() + ")", factors: fs}, nil
}

// Eigen returns the eigen-design strategy of w. With W^T W = V diag(λ) V^T,
// it is A = diag(λ^{1/4}) V^T: the eigen-queries weighted so that
// A^T A = V diag(√λ) V^T, which gives the trace term
// tr(W^T W (A^T A)^{-1}) = Σ √λ_i, the minimum of the trace term over
// strategies with tr(A^T A) = Σ √λ_i (by Cauchy–Schwarz; the paper's
// singular-value-bound weighting, §5.2). Eigenvalues below 1e-12·λ_max
// (directions W does not ask about) get the weight of 1e-12·λ_max so that A
// keeps full column rank; they add nothing to the error. When W^T W is a
// single Kronecker product, the design is the Kronecker product of the
// factors' designs (eigenvectors and λ^{1/4} both multiply).
func Eigen(w Workload) (*Strategy, error) {
	g, err := gramChecked(w, run.DefaultBudget)
	if err != nil {
		return nil, fmt.Errorf("eigen design: %w", err)
	}
	if len(g.Terms) == 1 && len(g.Terms[0]) > 1 {
		var fs []*Strategy
		for _, f := range g.Terms[0] {
			s, err := eigenDense(f)
			if err != nil {
				return nil, err
			}
			fs = append(fs, s)
		}
		s, err := KronStrategy(fs...)
		if err != nil {
			return nil, err
		}
		s.name = "eigen(" + w.String() + ")"
		return s, nil
	}
	d, err := g.Dense()
	if err != nil {
		return nil, fmt.Errorf("eigen design: %w", err)
	}
	s, err := eigenDense(d)
	if err != nil {
		return nil, err
	}
	s.name = "eigen(" + w.String() + ")"
	return s, nil
}

func eigenDense(g *mat.SymDense) (*Strategy, error) {
	vals, vecs, err := backend.EigenSym(g)
	if err != nil {
		return nil, fmt.Errorf("eigen design: %w", err)
	}
	n := len(vals)
	top := vals[n-1]
	if !(top > 0) {
		return nil, run.BadInputf("eigen design: the workload is zero")
	}
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		lam := math.Max(vals[i], 1e-12*top)
		wgt := math.Sqrt(math.Sqrt(lam))
		for j := 0; j < n; j++ {
			a.Set(i, j, wgt*vecs.At(j, i))
		}
	}
	return &Strategy{name: fmt.Sprintf("eigen(%d)", n), factors: []*mat.Dense{a}}, nil
}

// Dims returns the number of strategy queries p and the domain size n.
func (s *Strategy) Dims() (p, n int) {
	if s.union != nil {
		return s.union.dims()
	}
	if s.sum != nil {
		return s.sum.size()
	}
	p, n = 1, 1
	for _, f := range s.factors {
		r, c := f.Dims()
		p *= r
		n *= c
	}
	return p, n
}

// String names the strategy, e.g. "hier(n=256,b=2)".
func (s *Strategy) String() string { return s.name }

// Factors returns the Kronecker factors (one for an explicit matrix; nil
// for a stacked strategy such as MarginalsStrategy). They are the
// Strategy's own matrices: do not modify them.
func (s *Strategy) Factors() []*mat.Dense { return append([]*mat.Dense(nil), s.factors...) }

// Attributes returns the attribute sizes of a stacked strategy
// (MarginalsStrategy, ResidualStrategy), nil for a Kronecker product.
func (s *Strategy) Attributes() []int {
	if s.sum == nil {
		return nil
	}
	return append([]int(nil), s.sum.dims...)
}

// Dense returns A as one dense matrix, refusing (run.ErrTooLarge) before
// allocating when p·n exceeds mech.MaxDenseEntries.
func (s *Strategy) Dense() (*mat.Dense, error) {
	p, n := s.Dims()
	if err := checkDense(s.name, p, n); err != nil {
		return nil, err
	}
	if s.union != nil {
		return s.union.dense()
	}
	if s.sum != nil {
		return s.sum.dense(), nil
	}
	ms := make([]mat.Matrix, len(s.factors))
	for i, f := range s.factors {
		ms[i] = f
	}
	return kronDense(ms), nil
}

// L1 returns the L1 sensitivity D1(A): the largest L1 norm of a column (the
// product of the factors' for a Kronecker product; for a stacked strategy
// the sum over its blocks, +Inf when that needs a vector over the cells
// beyond run.DefaultBudget). For a union strategy it is Σ_g D1(B_g) over
// its blocks, the sensitivity of answering each block with its share of
// eps (basic composition; docs/MATH.md §15.8).
func (s *Strategy) L1() float64 {
	if s.union != nil {
		return s.union.sens(1)
	}
	if s.sum != nil {
		v, err := s.sum.colNorm(1, run.DefaultBudget)
		if err != nil {
			return math.Inf(1)
		}
		return v
	}
	d := 1.0
	for _, f := range s.factors {
		d *= colNormMax(f, 1)
	}
	return d
}

// L2 returns the L2 sensitivity D2(A): the largest Euclidean norm of a
// column (the product of the factors' for a Kronecker product; computed
// block-wise for a stacked strategy, as L1; sqrt(Σ_g D2(B_g)²) for a
// union strategy, by zCDP composition).
func (s *Strategy) L2() float64 {
	if s.union != nil {
		return s.union.sens(2)
	}
	if s.sum != nil {
		v, err := s.sum.colNorm(2, run.DefaultBudget)
		if err != nil {
			return math.Inf(1)
		}
		return v
	}
	d := 1.0
	for _, f := range s.factors {
		d *= colNormMax(f, 2)
	}
	return d
}

func colNormMax(a *mat.Dense, p int) float64 {
	r, c := a.Dims()
	best := 0.0
	for j := 0; j < c; j++ {
		s := 0.0
		for i := 0; i < r; i++ {
			v := a.At(i, j)
			if p == 1 {
				s += math.Abs(v)
			} else {
				s += v * v
			}
		}
		if p == 2 {
			s = math.Sqrt(s)
		}
		best = math.Max(best, s)
	}
	return best
}

// MulVec returns A x, applying each Kronecker factor along its mode.
func (s *Strategy) MulVec(x []float64) ([]float64, error) {
	if _, n := s.Dims(); len(x) != n {
		return nil, run.BadInputf("%v: vector has %d entries, want n = %d", s, len(x), n)
	}
	if s.union != nil {
		return s.union.mulVec(x)
	}
	if s.sum != nil {
		return s.sum.mulVec(x), nil
	}
	in, out := make([]int, len(s.factors)), make([]int, len(s.factors))
	ops := make([]func(dst, src []float64), len(s.factors))
	for i, f := range s.factors {
		out[i], in[i] = f.Dims()
		ops[i] = func(dst, src []float64) {
			mat.NewVecDense(len(dst), dst).MulVec(f, mat.NewVecDense(len(src), src))
		}
	}
	return kronApply(x, in, out, ops), nil
}

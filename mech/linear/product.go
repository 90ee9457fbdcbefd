package linear

import (
	"fmt"
	"math"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// scaledWorkload is c·W: every query multiplied by c.
type scaledWorkload struct {
	w Workload
	c float64
}

var _ Workload = (*scaledWorkload)(nil)

// Scale returns the workload c·W, every query of w multiplied by c (c
// finite and non-zero). Its Gram matrix is c²·W^T W, so in a Union it
// weighs w's queries by c² in the total squared error: this is how a
// weighted union Σ_i c_i² W_i^T W_i is stated.
func Scale(w Workload, c float64) (Workload, error) {
	if w == nil {
		return nil, fmt.Errorf("linear: scale: %w: nil workload", run.ErrBadInput)
	}
	if c == 0 || math.IsNaN(c) || math.IsInf(c, 0) {
		return nil, fmt.Errorf("scale: %w: factor %v must be finite and non-zero", run.ErrBadInput, c)
	}
	if c == 1 {
		return w, nil
	}
	return &scaledWorkload{w: w, c: c}, nil
}

func (w *scaledWorkload) Dims() (int, int) { return w.w.Dims() }
func (w *scaledWorkload) String() string   { return fmt.Sprintf("%g*%v", w.c, w.w) }

// Gram returns c²·W^T W, scaling the first factor of every term (copied).
func (w *scaledWorkload) Gram() Gram {
	g := w.w.Gram()
	out := Gram{Terms: make([][]*mat.SymDense, len(g.Terms))}
	for t, term := range g.Terms {
		nt := append([]*mat.SymDense(nil), term...)
		f := mat.NewSymDense(nt[0].SymmetricDim(), nil)
		f.ScaleSym(w.c*w.c, nt[0])
		nt[0] = f
		out.Terms[t] = nt
	}
	return out
}

func (w *scaledWorkload) Dense() (*mat.Dense, error) {
	d, err := w.w.Dense()
	if err != nil {
		return nil, err
	}
	d.Scale(w.c, d)
	return d, nil
}

func (w *scaledWorkload) MulVec(x []float64) ([]float64, error) {
	y, err := w.w.MulVec(x)
	if err != nil {
		return nil, err
	}
	for i := range y {
		y[i] *= w.c
	}
	return y, nil
}

// IdentityTotal returns the n+1 queries of Identity(n) followed by the
// total, one block with Gram I + 1 1^T (one dense factor, so a Kronecker
// product with it keeps a single Gram term).
func IdentityTotal(n int) (Workload, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	return &rangeWorkload{n: n, m: n + 1, name: fmt.Sprintf("identity+total(n=%d)", n),
		each: func(y func(l, r int)) {
			for i := 0; i < n; i++ {
				y(i, i)
			}
			y(0, n-1)
		},
		gram: func(i, j int) float64 { return 1 + b2f(i == j) }}, nil
}

// normTerm is one Kronecker term of a vector over the product domain:
// vs[0] ⊗ vs[1] ⊗ ... (cells in row-major order).
type normTerm [][]float64

// columnNorms returns the p-th powers of w's column norms (p = 1: Σ_q |W_qj|;
// p = 2: Σ_q W_qj²) as a sum of Kronecker terms, computed factor-wise:
// for a Kronecker product the powers multiply, for a union they add, for
// c·W they scale by |c|^p.
func columnNorms(w Workload, p int) ([]normTerm, error) {
	switch v := w.(type) {
	case *rangeWorkload:
		// Every query is a 0/1 interval: both powers count the intervals
		// covering the cell (a difference array over the endpoints).
		c := make([]float64, v.n+1)
		v.each(func(l, r int) { c[l]++; c[r+1]-- })
		out := make([]float64, v.n)
		s := 0.0
		for j := range out {
			s += c[j]
			out[j] = s
		}
		return []normTerm{{out}}, nil
	case *kronWorkload:
		terms := []normTerm{{}}
		for _, f := range v.fs {
			ft, err := columnNorms(f, p)
			if err != nil {
				return nil, err
			}
			var next []normTerm
			for _, a := range terms {
				for _, b := range ft {
					next = append(next, append(append(normTerm{}, a...), b...))
				}
			}
			terms = next
		}
		return terms, nil
	case *unionWorkload:
		var terms []normTerm
		for _, f := range v.ws {
			ft, err := columnNorms(f, p)
			if err != nil {
				return nil, err
			}
			terms = append(terms, ft...)
		}
		return terms, nil
	case *scaledWorkload:
		ft, err := columnNorms(v.w, p)
		if err != nil {
			return nil, err
		}
		s := math.Pow(math.Abs(v.c), float64(p))
		out := make([]normTerm, len(ft))
		for i, t := range ft {
			first := append([]float64(nil), t[0]...)
			for j := range first {
				first[j] *= s
			}
			out[i] = append(normTerm{first}, t[1:]...)
		}
		return out, nil
	case *marginalWorkload:
		// Every cell is in exactly one query (entry 1) of each marginal.
		t := make(normTerm, len(v.dims))
		for f, d := range v.dims {
			t[f] = make([]float64, d)
			for j := range t[f] {
				t[f][j] = 1
			}
		}
		t[0] = append([]float64(nil), t[0]...)
		for j := range t[0] {
			t[0][j] = float64(len(v.subsets))
		}
		return []normTerm{t}, nil
	case *matrixWorkload:
		r, c := v.a.Dims()
		out := make([]float64, c)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				x := math.Abs(v.a.At(i, j))
				if p == 2 {
					x *= x
				}
				out[j] += x
			}
		}
		return []normTerm{{out}}, nil
	}
	d, err := w.Dense()
	if err != nil {
		return nil, fmt.Errorf("column norms of %v: %w", w, err)
	}
	return columnNorms(&matrixWorkload{a: d, name: w.String()}, p)
}

// Sensitivity returns the L1 (p = 1) or L2 (p = 2) sensitivity of the
// workload itself, max_j (Σ_q |W_qj|^p)^{1/p}: the most any one count
// changes the exact answers, the noise scale of answering W directly.
// It is computed factor-wise (columnNorms): for one Kronecker term the
// maximum is the product of the factors' maxima; for a sum of terms (a
// union) the column norms are expanded to a vector over the n cells,
// 8n bytes checked against budget, never a matrix over the domain.
func Sensitivity(w Workload, p int, budget run.Budget) (float64, error) {
	if w == nil {
		return 0, fmt.Errorf("linear: sensitivity: %w: nil workload", run.ErrBadInput)
	}
	if p != 1 && p != 2 {
		return 0, fmt.Errorf("sensitivity: %w: p = %d, want 1 or 2", run.ErrBadInput, p)
	}
	if err := budget.Validate(); err != nil {
		return 0, fmt.Errorf("linear: sensitivity: %w", err)
	}
	terms, err := columnNorms(w, p)
	if err != nil {
		return 0, fmt.Errorf("sensitivity: %w", err)
	}
	root := func(v float64) float64 {
		if p == 2 {
			return math.Sqrt(v)
		}
		return v
	}
	if len(terms) == 1 {
		v := 1.0
		for _, f := range terms[0] {
			m := 0.0
			for _, x := range f {
				m = math.Max(m, x)
			}
			v *= m
		}
		return root(v), nil
	}
	_, n := w.Dims()
	if err := budget.Check(fmt.Sprintf("sensitivity: the column norms of %v", w), 8*float64(n), ""); err != nil {
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

// addKronVec adds vs[0] ⊗ vs[1] ⊗ ... to dst (row-major, the last factor
// fastest; the orders' product is len(dst)).
func addKronVec(dst []float64, vs normTerm) {
	cur := []float64{1}
	for _, v := range vs {
		next := make([]float64, 0, len(cur)*len(v))
		for _, a := range cur {
			for _, b := range v {
				next = append(next, a*b)
			}
		}
		cur = next
	}
	for i, x := range cur {
		dst[i] += x
	}
}

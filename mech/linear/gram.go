package linear

import (
	"fmt"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// checkDense refuses an r×c dense matrix larger than mech.MaxDenseEntries.
func checkDense(what string, r, c int) error {
	if r <= 0 || c <= 0 {
		return fmt.Errorf("%s: %d×%d matrix has no entries", what, r, c)
	}
	if r > mech.MaxDenseEntries/c {
		return fmt.Errorf("%s: a dense %d×%d matrix needs %s, over the limit of %s for one matrix: %w",
			what, r, c, run.FormatBytes(run.DenseBytes(r, c, 1)), run.FormatBytes(8*mech.MaxDenseEntries), run.ErrTooLarge)
	}
	return nil
}

// GramBytes estimates the memory that w.Gram() allocates, in bytes,
// without allocating: 8·n_f² per dense factor of order n_f (twice that for
// a range workload whose Gram is counted from its intervals), summed over
// the factors of Kronecker products, unions and marginals. A workload of
// another type is assumed to form one dense n×n Gram matrix.
func GramBytes(w Workload) float64 {
	switch v := w.(type) {
	case *rangeWorkload:
		if v.gram == nil {
			return run.DenseBytes(v.n, v.n, 2)
		}
		return run.DenseBytes(v.n, v.n, 1)
	case *kronWorkload:
		s := 0.0
		for _, f := range v.fs {
			s += GramBytes(f)
		}
		return s
	case *unionWorkload:
		s := 0.0
		for _, f := range v.ws {
			s += GramBytes(f)
		}
		return s
	case *scaledWorkload:
		return 2 * GramBytes(v.w)
	case *marginalWorkload:
		s := 0.0
		for _, d := range v.dims {
			s += run.DenseBytes(d, d, 2)
		}
		return s
	}
	_, n := w.Dims()
	return run.DenseBytes(n, n, 1)
}

// gramChecked returns w.Gram() after checking GramBytes(w) against the
// budget b.
func gramChecked(w Workload, b run.Budget) (Gram, error) {
	if err := b.Check(fmt.Sprintf("the Gram matrix W^T W of %v", w), GramBytes(w),
		"state the workload as a Kronecker product or union of small per-attribute blocks, or use a smaller domain"); err != nil {
		return Gram{}, err
	}
	return w.Gram(), nil
}

// Gram is a symmetric n×n matrix, typically W^T W, stored as a sum of
// Kronecker products: G = Σ_t Terms[t][0] ⊗ Terms[t][1] ⊗ ... . A dense Gram
// is one term with one factor. All terms have factors of the same orders'
// product n, but different terms may split n differently. Factor matrices may
// be shared between terms and must not be modified.
type Gram struct {
	Terms [][]*mat.SymDense
}

// DenseGram returns the Gram with the single dense factor g.
func DenseGram(g *mat.SymDense) Gram { return Gram{Terms: [][]*mat.SymDense{{g}}} }

// KronGram returns the Kronecker product g_1 ⊗ g_2 ⊗ ..., distributing the
// product over the terms of each factor.
func KronGram(gs ...Gram) Gram {
	out := [][]*mat.SymDense{{}}
	for _, g := range gs {
		var next [][]*mat.SymDense
		for _, prefix := range out {
			for _, t := range g.Terms {
				term := append(append([]*mat.SymDense{}, prefix...), t...)
				next = append(next, term)
			}
		}
		out = next
	}
	return Gram{Terms: out}
}

// SumGram returns g_1 + g_2 + ... (the Gram of stacked workloads).
func SumGram(gs ...Gram) Gram {
	var out Gram
	for _, g := range gs {
		out.Terms = append(out.Terms, g.Terms...)
	}
	return out
}

// Dim returns the order n of the Gram matrix (0 for an empty Gram).
func (g Gram) Dim() int {
	if len(g.Terms) == 0 {
		return 0
	}
	n := 1
	for _, f := range g.Terms[0] {
		n *= f.SymmetricDim()
	}
	return n
}

// Trace returns tr(G) = Σ_t Π_f tr(Terms[t][f]); for G = W^T W it is the sum
// of squares of W's entries.
func (g Gram) Trace() float64 {
	s := 0.0
	for _, t := range g.Terms {
		p := 1.0
		for _, f := range t {
			p *= mat.Trace(f)
		}
		s += p
	}
	return s
}

// Dense returns G as one dense symmetric matrix, refusing (run.ErrTooLarge)
// before allocating when n² exceeds mech.MaxDenseEntries. This is the form an
// optimiser that works on W^T W directly takes.
func (g Gram) Dense() (*mat.SymDense, error) {
	n := g.Dim()
	if err := checkDense("Gram matrix", n, n); err != nil {
		return nil, err
	}
	out := mat.NewSymDense(n, nil)
	for _, t := range g.Terms {
		k := kronSym(t)
		out.AddSym(out, k)
	}
	return out, nil
}

// kronSym returns the dense Kronecker product of symmetric factors (the
// caller has checked the size).
func kronSym(fs []*mat.SymDense) *mat.SymDense {
	if len(fs) == 1 {
		return fs[0]
	}
	ms := make([]mat.Matrix, len(fs))
	for i, f := range fs {
		ms[i] = f
	}
	d := kronDense(ms)
	n, _ := d.Dims()
	return mat.NewSymDense(n, d.RawMatrix().Data)
}

// kronDense returns the dense Kronecker product of the factors (the caller
// has checked the size).
func kronDense(fs []mat.Matrix) *mat.Dense {
	out := mat.DenseCopyOf(fs[0])
	for _, f := range fs[1:] {
		var k mat.Dense
		k.Kronecker(out, f)
		out = &k
	}
	return out
}

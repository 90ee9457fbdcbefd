package linear

import (
	"fmt"
	"math"

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
		return nil, fmt.Errorf("scale: %w: nil workload", ErrBadInput)
	}
	if c == 0 || math.IsNaN(c) || math.IsInf(c, 0) {
		return nil, fmt.Errorf("scale: %w: factor %v must be finite and non-zero", ErrBadInput, c)
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

package mech

// A small dense simplex for the LPs of refinement and g-capacity (compose.go,
// capacity.go). Its answers are never trusted as such: the callers recompute
// every certificate (the post-processing D, the witness gain, the prior)
// from scratch.

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/run"

	"gonum.org/v1/gonum/mat"
)

// tableau is the simplex tableau of min c·v subject to A v = b, v >= 0:
// rows 0..rows-1 hold B^{-1}[A | b] for the basis B, row rows holds the
// reduced costs c - c_B B^{-1} A and, in the last column, -c_B B^{-1} b.
type tableau struct {
	rows, cols int
	t          []float64 // (rows+1) x (cols+1), row-major
	basis      []int
}

// tableauBytes is the memory of the tableau of an r x c problem.
func tableauBytes(r, c int) float64 { return 8 * float64(r+1) * float64(c+1) }

// newTableau sets up the tableau from a basis that must be feasible
// (B^{-1} b >= 0 up to rounding): basis[i] is pivoted into row i, the rows
// taken in the given order (nil: 0, 1, ...).
func newTableau(a *mat.Dense, b, c []float64, basis, order []int) (*tableau, error) {
	rows, cols := a.Dims()
	w := cols + 1
	t := &tableau{rows: rows, cols: cols, t: make([]float64, (rows+1)*w), basis: append([]int(nil), basis...)}
	for i := 0; i < rows; i++ {
		copy(t.t[i*w:i*w+cols], a.RawRowView(i)[:cols])
		t.t[i*w+cols] = b[i]
	}
	copy(t.t[rows*w:rows*w+cols], c)
	if order == nil {
		order = make([]int, rows)
		for i := range order {
			order[i] = i
		}
	}
	for _, i := range order {
		j := basis[i]
		if math.Abs(t.t[i*w+j]) < 1e-12 {
			return nil, fmt.Errorf("mech: simplex: the starting basis is singular (row %d, column %d)", i, j)
		}
		t.pivot(i, j)
	}
	for i := 0; i < rows; i++ {
		if v := t.t[i*w+cols]; v < -1e-9 {
			return nil, fmt.Errorf("mech: simplex: the starting basis is infeasible (row %d = %g)", i, v)
		} else if v < 0 {
			t.t[i*w+cols] = 0
		}
	}
	return t, nil
}

// pivot makes column j basic in row r.
func (t *tableau) pivot(r, j int) {
	w := t.cols + 1
	pr := t.t[r*w : (r+1)*w]
	inv := 1 / pr[j]
	for k := range pr {
		pr[k] *= inv
	}
	pr[j] = 1
	for i := 0; i <= t.rows; i++ {
		if i == r {
			continue
		}
		row := t.t[i*w : (i+1)*w]
		f := row[j]
		if f == 0 {
			continue
		}
		for k, v := range pr {
			if v != 0 {
				row[k] -= f * v
			}
		}
		row[j] = 0
	}
	t.basis[r] = j
}

// solve runs the simplex to optimality: the most negative reduced cost
// enters (Dantzig), switching for good to Bland's rule (smallest index) after
// a run of degenerate pivots, which rules out cycling.
func (t *tableau) solve(ctx context.Context) error {
	const costTol, pivTol = 1e-11, 1e-9
	w := t.cols + 1
	obj := t.t[t.rows*w : (t.rows+1)*w]
	bland, degenerate := false, 0
	maxIter := 50 * (t.rows + t.cols)
	for it := 0; ; it++ {
		if it >= maxIter {
			return fmt.Errorf("mech: simplex: %d pivots without reaching the optimum: %w", it, run.ErrNotConverged)
		}
		if it%64 == 63 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		enter, best := -1, -costTol
		for j := 0; j < t.cols; j++ {
			if obj[j] < best {
				enter, best = j, obj[j]
				if bland {
					break
				}
			}
		}
		if enter < 0 {
			return nil
		}
		leave, ratio := -1, math.Inf(1)
		for i := 0; i < t.rows; i++ {
			a := t.t[i*w+enter]
			if a <= pivTol {
				continue
			}
			q := t.t[i*w+t.cols] / a
			switch {
			case leave < 0 || q < ratio*(1-1e-12)-1e-300:
				leave, ratio = i, q
			case q <= ratio*(1+1e-12)+1e-300:
				// A tie: Bland takes the smallest basic index, Dantzig the
				// largest pivot.
				if bland && t.basis[i] < t.basis[leave] || !bland && a > t.t[leave*w+enter] {
					leave = i
				}
			}
		}
		if leave < 0 {
			return fmt.Errorf("mech: simplex: the LP is unbounded (column %d)", enter)
		}
		if ratio <= 0 {
			if degenerate++; degenerate > 2*t.rows {
				bland = true
			}
		} else {
			degenerate = 0
		}
		t.pivot(leave, enter)
		for i := 0; i < t.rows; i++ {
			if v := &t.t[i*w+t.cols]; *v < 0 {
				*v = 0 // rounding below 0 in a degenerate row
			}
		}
	}
}

// x returns the basic solution.
func (t *tableau) x() []float64 {
	w := t.cols + 1
	v := make([]float64, t.cols)
	for i, j := range t.basis {
		v[j] = t.t[i*w+t.cols]
	}
	return v
}

// reduced is the reduced cost c_j - y·A_j of column j (y = c_B B^{-1}, the
// duals of the equality rows).
func (t *tableau) reduced(j int) float64 { return t.t[t.rows*(t.cols+1)+j] }

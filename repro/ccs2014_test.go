package repro

import (
	"math"
	"testing"

	"github.com/optdp/optdp/mech/metric"
	"gonum.org/v1/gonum/mat"
)

// TestCCS2014: the LP optimum is below both spanner mechanisms and planar
// Laplace (all audited and feasible), and the 1.2-spanner is between the
// optimum and the 2-spanner, as in the paper.
func TestCCS2014(t *testing.T) {
	r, _ := result(t, "ccs2014")
	opt, lap, sp := r.Values["optimal_loss_eps0.5"], r.Values["planar_laplace_loss_eps0.5"], r.Values["spanner1.2_loss_eps0.5"]
	if !(opt > 0 && opt < lap && opt <= sp*(1+1e-6)) {
		t.Errorf("optimal %v, 1.2-spanner %v, planar Laplace %v", opt, sp, lap)
	}
	if len(r.Discrepancies) != 0 {
		t.Errorf("discrepancies: %v", r.Discrepancies)
	}
}

// TestRemappedDistance checks the remapped expected distance on two
// mechanisms with closed forms: the identity (loss 0) and the constant
// mechanism, whose best guess is the cell minimising the mean distance to
// all cells (for a 3×1 line of cells: the middle one, mean 2/3).
func TestRemappedDistance(t *testing.T) {
	g, _ := metric.Grid(3, 1, 1, metric.Euclid)
	prior := []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}
	id := mat.NewDense(3, 3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1})
	if v := remappedDistance(id, prior, g); v != 0 {
		t.Errorf("identity: %v, want 0", v)
	}
	c := mat.NewDense(3, 3, nil)
	for i := 0; i < 3; i++ {
		for o := 0; o < 3; o++ {
			c.Set(i, o, 1.0/3)
		}
	}
	if v := remappedDistance(c, prior, g); math.Abs(v-2.0/3) > 1e-15 {
		t.Errorf("constant: %v, want 2/3", v)
	}
}

package optimal

import (
	"context"
	"math"
	"testing"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/mech/metric"
	"gonum.org/v1/gonum/mat"
)

// TestAuditRepairWidens: an answer that breaks a ratio by rounding (the
// two-point optimum, whose ratio is exactly e^eps, with one entry 1e-14
// high) fails the exact audit; auditRepair repairs it with a wider margin
// until it passes, with rows stochastic, and updates Primal, Mix and Gap
// against the closed-form optimum e/(1+e) (binary gain, uniform prior,
// eps 1). The loss, some 1e-11 relative, is what takes a gap met at a
// tolerance of 1e-12 past it, the case Solve reports as not converged.
func TestAuditRepairWidens(t *testing.T) {
	g, err := metric.Grid(2, 1, 1, metric.Manhattan)
	if err != nil {
		t.Fatal(err)
	}
	const eps = 1.0
	prior := []float64{0.5, 0.5}
	c, err := optimalGain(g, prior, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := privacyPairs(context.Background(), g, eps, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := &lp.Problem{N: 2, M: 2, C: c, Pairs: pairs}
	e := math.E
	hi := e / (1 + e) * (1 + 1e-14)
	res := &lp.Result{X: []float64{hi, 1 - hi, 1 - hi, hi}, Dual: e / (1 + e)}
	res.Primal = dotGain(c, res.X)
	res.Gap = (res.Dual - res.Primal) / math.Max(math.Abs(res.Dual), math.Abs(res.Primal))
	const tol = 1e-12
	before := res.Gap
	if before > tol {
		t.Fatalf("gap before repair %g, want within %g", before, tol)
	}
	rep, err := auditRepair(g, eps, p, c, res, mat.NewDense(2, 2, res.X))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Private || rep.Eps > eps {
		t.Fatalf("audit after repair: private %v, eps %v", rep.Private, rep.Eps)
	}
	for i := 0; i < 2; i++ {
		if s := res.X[2*i] + res.X[2*i+1]; math.Abs(s-1) > 1e-15 {
			t.Errorf("row %d sums to %v", i, s)
		}
	}
	if want := dotGain(c, res.X); res.Primal != want {
		t.Errorf("Primal %v, C·X %v", res.Primal, want)
	}
	if !(res.Mix > 0 && res.Mix < 1e-8) {
		t.Errorf("Mix %v, want a small positive weight", res.Mix)
	}
	if !(res.Gap > tol && res.Gap < 1e-8) {
		t.Errorf("gap after repair %v, want past %v (and below 1e-8)", res.Gap, tol)
	}
}

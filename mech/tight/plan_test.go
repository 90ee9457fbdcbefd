package tight

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

func TestPlanTight(t *testing.T) {
	line, _ := metric.Line(6)
	grid, _ := metric.Grid(200, 200, 1, metric.Euclid)
	// A path with one chord: neither a line nor ball-symmetric, so dense.
	const n = 1500
	var edges [][2]int
	for i := 0; i+1 < n; i++ {
		edges = append(edges, [2]int{i, i + 1})
	}
	edges = append(edges, [2]int{0, n / 2})
	g, err := metric.NewGraph(n, edges)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m      metric.Metric
		solver Solver
	}{{line, SolverClosedForm}, {grid, SolverToeplitz}, {g, SolverDense}} {
		t.Run(c.m.String(), func(t *testing.T) {
			p, err := Estimate(c.m, nil)
			if err != nil {
				t.Fatal(err)
			}
			if p.Solver != c.solver || p.N != c.m.Len() {
				t.Errorf("%s: plan %+v, want solver %s", c.m, p, c.solver)
			}
			if c.solver != SolverDense && (p.DenseBytes != 0 || p.DenseSeconds != 0) {
				t.Errorf("%s: structured plan with dense costs %+v", c.m, p)
			}
		})
	}
	p, _ := Estimate(g, nil)
	// Phi, its factor and X (n <= MaxMechanismN): three n×n float64 matrices.
	if want := 3 * 8 * float64(n) * n; p.DenseBytes != want {
		t.Errorf("dense bytes %v, want %v", p.DenseBytes, want)
	}
	if !(p.DenseSeconds > 0) {
		t.Errorf("dense seconds %v, want > 0", p.DenseSeconds)
	}
	if p, _ := Estimate(g, &Options{NoMechanism: true}); p.DenseBytes != 2*8*float64(n)*n {
		t.Errorf("without X: dense bytes %v", p.DenseBytes)
	}
	if _, err := Estimate(line, &Options{Solver: "magic"}); err == nil || !strings.Contains(err.Error(), "unknown solver") {
		t.Errorf("unknown solver: %v", err)
	}
}

// Threshold reports how it solved, and refuses the slow structured search
// on lattices above 10^5 points unless asked, before solving anything.
func TestThresholdSolverAndStructuredGate(t *testing.T) {
	s, _ := metric.Sum(2, 2)
	r, err := Threshold(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Solver != "dense" {
		t.Errorf("sum u=2 v=2: solver %q, want dense", r.Solver)
	}
	g, _ := metric.Grid(400, 400, 1, metric.Euclid)
	_, err = Threshold(context.Background(), g, nil)
	if !errors.Is(err, run.ErrTooLarge) || !strings.Contains(err.Error(), "Structured") {
		t.Errorf("400x400 grid without Structured: %v", err)
	}
}

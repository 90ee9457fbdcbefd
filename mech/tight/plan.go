package tight

import (
	"fmt"
	"math"
	"time"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/mech/metric"
	"gonum.org/v1/gonum/mat"
)

// Plan says, before any work is done, which solver Solve would use for
// m with opts and what a dense solve would cost, so that a caller can show
// the estimate (or refuse) before committing to a long computation.
type Plan struct {
	// Solver is the solver Solve would run ("dense", "toeplitz", ...).
	Solver Solver `json:"solver"`
	// N is the number of answers.
	N int `json:"n"`
	// DenseBytes is the memory of the dense matrices (0 for the other
	// solvers, whose memory is O(n)).
	DenseBytes float64 `json:"dense_bytes,omitempty"`
	// DenseSeconds estimates the time of the dense factorisation of Phi:
	// n³/3 flops at the rate the backend reaches on a 400×400 Cholesky
	// timed by Estimate (0 for the other solvers). It is a rough,
	// optimistic guide: large factorisations can run at a different rate,
	// and an indefinite Phi needs a slower factorisation.
	DenseSeconds float64 `json:"dense_seconds,omitempty"`
}

// Estimate returns the Plan for m and opts (nil: defaults). It fails
// for the same option errors Solve would report, but not for sizes: a dense
// problem too large for the memory limit is returned with its DenseBytes so
// the caller can say so.
func Estimate(m metric.Metric, opts *Options) (Plan, error) {
	if err := opts.check(); err != nil {
		return Plan{}, fmt.Errorf("tight %s: %w", m, err)
	}
	o := opts.orDefault()
	s, err := selectTightSolver(m, o.Solver, &o)
	if err != nil {
		return Plan{}, fmt.Errorf("tight %s: %w", m, err)
	}
	p := Plan{Solver: s.name, N: m.Len()}
	if s.name != SolverDense {
		return p, nil
	}
	n := float64(p.N)
	copies := 2.0
	if !o.NoMechanism && p.N <= o.MaxMechanismN {
		copies++
	}
	p.DenseBytes = 8 * n * n * copies
	if p.N >= 1000 {
		p.DenseSeconds = n * n * n / 3 / choleskyRate()
	}
	return p, nil
}

// choleskyRate measures the backend's Cholesky speed in flop/s on a
// 400×400 matrix (a few milliseconds).
func choleskyRate() float64 {
	const k = 400
	a := mat.NewSymDense(k, nil)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			a.SetSym(i, j, math.Exp(-0.5*math.Abs(float64(i-j))))
		}
	}
	var f backend.SymFactor
	start := time.Now()
	if _, err := f.Factorize(a); err != nil {
		return 1e9 // not reached: the matrix is positive definite
	}
	sec := time.Since(start).Seconds()
	return float64(k) * k * k / 3 / math.Max(sec, 1e-6)
}

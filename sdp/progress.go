package sdp

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Progress is one report from a running optimiser to Options.Progress.
type Progress struct {
	// Stage names the running phase: "newton", "admm", "convex-iteration",
	// "restart".
	Stage string
	// Restart is the 0-based restart index (L1 optimisers), else 0.
	Restart int
	// Iteration is the 1-based iteration count within the stage.
	Iteration int
	// Objective is the current objective value.
	Objective float64
	// Certificate is a lower bound on the optimum where one is known (the
	// L2 dual bound), NaN otherwise.
	Certificate float64
}

// ErrBadInput reports an invalid argument (wrong shape, non-finite entries,
// a Gram matrix that is not positive semidefinite, bad options).
var ErrBadInput = errors.New("sdp: bad input")

// maxDim is the largest domain size accepted by the dense solvers: a few
// n x n float64 matrices must fit in memory (n = 8192 needs 512 MiB each).
const maxDim = 8192

// checkGram validates a Gram matrix: finite, non-empty, not too large,
// symmetric positive semidefinite up to rounding (diagonal >= 0).
func checkGram(g *mat.SymDense) (int, error) {
	if g == nil {
		return 0, fmt.Errorf("%w: nil Gram matrix", ErrBadInput)
	}
	n := g.SymmetricDim()
	if n == 0 {
		return 0, fmt.Errorf("%w: empty Gram matrix", ErrBadInput)
	}
	if n > maxDim {
		return 0, fmt.Errorf("%w: Gram matrix of size %d exceeds the dense limit %d (each n x n work matrix needs %d MiB)",
			ErrBadInput, n, maxDim, n*n*8>>20)
	}
	tr := 0.0
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := g.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("%w: Gram entry (%d,%d) is %v", ErrBadInput, i, j, v)
			}
		}
		if g.At(i, i) < 0 {
			return 0, fmt.Errorf("%w: Gram diagonal entry %d is negative (%v); G = W^T W is positive semidefinite", ErrBadInput, i, g.At(i, i))
		}
		tr += g.At(i, i)
	}
	if tr == 0 {
		return 0, fmt.Errorf("%w: Gram matrix is zero (empty workload)", ErrBadInput)
	}
	return n, nil
}

// ctxErr wraps a context error with the stage it interrupted.
func ctxErr(ctx context.Context, stage string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sdp: %s cancelled: %w", stage, err)
	}
	return nil
}

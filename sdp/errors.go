package sdp

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// checkGram validates a Gram matrix: finite, non-empty, symmetric positive
// semidefinite up to rounding (diagonal >= 0, trace > 0). Memory is
// checked separately by each solver against its Budget.
func checkGram(g *mat.SymDense) (int, error) {
	if g == nil {
		return 0, fmt.Errorf("sdp: %w: nil Gram matrix", run.ErrBadInput)
	}
	n := g.SymmetricDim()
	if n == 0 {
		return 0, fmt.Errorf("sdp: %w: empty Gram matrix", run.ErrBadInput)
	}
	tr := 0.0
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := g.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("sdp: %w: Gram entry (%d,%d) is %v", run.ErrBadInput, i, j, v)
			}
		}
		if g.At(i, i) < 0 {
			return 0, fmt.Errorf("sdp: %w: Gram diagonal entry %d is negative (%v); G = W^T W is positive semidefinite", run.ErrBadInput, i, g.At(i, i))
		}
		tr += g.At(i, i)
	}
	if tr == 0 {
		return 0, fmt.Errorf("sdp: %w: Gram matrix is zero (empty workload)", run.ErrBadInput)
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

package repro

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/optdp/optdp/mech/metric"

	"github.com/optdp/optdp/solve"
)

// latticeZ solves Phi z = 1 for a lattice metric (sum query, k counts, grids)
// without forming Phi: Phi is multi-level Toeplitz and solve.SolveToeplitz runs
// a circulant-preconditioned Krylov method (docs/MATH.md §12.2, §12.3). It is
// the second, independent computation of z next to tight.Solve's dense
// factorisation, and the only affordable one for the 100×100 grid. Zero fields
// of opt take a 1e-10 tolerance and 5000 iterations.
func latticeZ(ctx context.Context, m metric.Lattice, eps float64, opt solve.Options) ([]float64, solve.Result, error) {
	ld := m.Dims()
	// mech lists dimensions slowest first, solve fastest first.
	dims := slices.Clone(ld)
	slices.Reverse(dims)
	delta := make([]int, len(ld))
	t, err := solve.NewToeplitz(dims, func(off []int) float64 {
		for i := range off {
			delta[len(off)-1-i] = off[i]
		}
		return math.Exp(-eps * m.Offset(delta))
	})
	if err != nil {
		return nil, solve.Result{}, fmt.Errorf("toeplitz Phi of %s: %w", m, err)
	}
	ones := make([]float64, t.Len())
	for i := range ones {
		ones[i] = 1
	}
	if opt.Tol == 0 {
		opt.Tol = 1e-10
	}
	if opt.MaxIter == 0 {
		opt.MaxIter = 5000
	}
	res, err := solve.SolveToeplitz(ctx, t, ones, &opt)
	if err != nil {
		return nil, res, fmt.Errorf("toeplitz solve of %s at eps=%v: %w", m, eps, err)
	}
	return res.Z, res, nil
}

// minMean returns the smallest entry of z, its index and the mean of z.
func minMean(z []float64) (lo float64, at int, mean float64) {
	lo, at = math.Inf(1), -1
	for i, v := range z {
		if v < lo {
			lo, at = v, i
		}
		mean += v
	}
	return lo, at, mean / float64(len(z))
}

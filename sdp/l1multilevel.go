package sdp

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// multilevelMinN is the order from which OptimizeL1 starts a restart on a
// semiseparable Gram matrix from the optimum of the coarsened problem
// (docs/MATH.md §15.3): below it a random start is cheap enough.
const multilevelMinN = 2048

// coarsen returns Pᵀ G P for the n×⌈n/2⌉ matrix P that adds cells 2J and
// 2J+1 (the last cell alone when n is odd): the Gram matrix of the
// workload W P on the coarse domain, again diagonal-plus-semiseparable,
// exactly, with
//
//	U_J = Σ_{i∈J} u_i,   V_J = Σ_{j∈J} v_j,
//	diag_J = Σ_{i∈J} diag_i + 2 u_{2J} v_{2J+1}   (a pair J = {2J, 2J+1}),
//
// since for I < J every cell of I precedes every cell of J, so
// Σ_{i∈I, j∈J} u_i v_j = U_I V_J.
func coarsen(s *gramSemisep) *gramSemisep {
	n := len(s.u)
	nc := (n + 1) / 2
	c := &gramSemisep{u: make([]float64, nc), v: make([]float64, nc), diag: make([]float64, nc)}
	for J := 0; J < nc; J++ {
		a := 2 * J
		c.u[J], c.v[J], c.diag[J] = s.u[a], s.v[a], s.diag[a]
		if b := a + 1; b < n {
			c.u[J] += s.u[b]
			c.v[J] += s.v[b]
			c.diag[J] += s.diag[b] + 2*s.u[a]*s.v[b]
		}
	}
	return c
}

// prolong turns a coarse p-Identity parameter Θc (pc × nc) into a start
// for the fine problem (p × n, pc = ⌈p/2⌉, nc = ⌈n/2⌉): row i < pc is row
// i of Θc on both halves of each coarse cell (the same query on the fine
// domain), and row pc+i is row i of Θc shifted by one fine cell
// (Θc[i][min(⌈j/2⌉, nc-1)] at fine cell j), so the p rows are not pairwise
// equal and the zeros of Θc (most of them at an optimum) stay zeros.
func prolong(tc *mat.Dense, p, n int) *mat.Dense {
	pc, nc := tc.Dims()
	t := mat.NewDense(p, n, nil)
	for i := 0; i < p; i++ {
		src := tc.RawRowView(i % pc)
		row := t.RawRowView(i)
		for j := range row {
			if i < pc {
				row[j] = src[j/2]
			} else {
				row[j] = src[min((j+1)/2, nc-1)]
			}
		}
	}
	return t
}

// coarseStart returns the start of restart r for the p-Identity problem of
// order n = s.dim(): the optimum of the coarsened problem (order ⌈n/2⌉,
// ⌈p/2⌉ extra rows; itself started the same way while its order is at
// least multilevelMinN, else from the random start of restart r, and run
// for o.MaxIter iterations, finer levels for half as many), prolonged.
// iters accumulates the coarse iterations.
func coarseStart(ctx context.Context, s *gramSemisep, p int, o *L1Options, r int, iters *int) (*mat.Dense, error) {
	n := s.dim()
	c := coarsen(s)
	nc, pc := c.dim(), (p+1)/2
	var theta0 *mat.Dense
	maxIter := o.MaxIter
	if nc >= multilevelMinN {
		var err error
		if theta0, err = coarseStart(ctx, c, pc, o, r, iters); err != nil {
			return nil, err
		}
		maxIter = max(1, o.MaxIter/2)
	} else {
		theta0 = randomTheta(pc, nc, o.Seed, uint64(r))
	}
	w := newPIdentityOp(c, pc)
	report := lbfgsReporter(&o.Settings, fmt.Sprintf("l1 (coarse n=%d)", nc), r, o.Restarts, maxIter)
	tc, _, it, err := minimizeTheta(ctx, w.evalFast, theta0, maxIter, report)
	if err != nil {
		return nil, err
	}
	*iters += it
	return prolong(tc, p, n), nil
}

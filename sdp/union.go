package sdp

import (
	"fmt"
	"math"

	"github.com/optdp/optdp/run"
)

// UnionSplit returns the optimal budget split of a union (stack) of
// strategies A_1, ..., A_G, each answering its own group of workload
// queries, and the union's error (docs/MATH.md §15.8).
//
// errs[g] > 0 is group g's error when A_g alone has sensitivity 1:
// D_p(A_g)² tr(G_g (A_g^T A_g)^+), G_g the Gram matrix of the group's
// queries. The union stacks the blocks B_g = β_g A_g/D_p(A_g).
//
//   - p = 1 (eps-DP, Laplace): L1 sensitivities add (basic composition),
//     Σ_g β_g = 1, and group g's error is errs[g]/β_g². The minimum of
//     Σ_g errs[g]/β_g² over the simplex is at β_g ∝ errs[g]^{1/3} and
//     equals (Σ_g errs[g]^{1/3})³.
//   - p = 2 ((eps, delta)-DP, Gaussian): squared L2 sensitivities add,
//     Σ_g β_g² = 1, and group g's error is errs[g]/β_g². With ρ_g = β_g²
//     the minimum of Σ_g errs[g]/ρ_g over the simplex is at
//     ρ_g ∝ sqrt(errs[g]) and equals (Σ_g sqrt(errs[g]))².
//
// It returns the multipliers β_g and the minimum (in the units of errs: the
// TSE is the noise variance at sensitivity 1 times it). Errors: p not 1 or
// 2, no groups, or an entry that is not finite and > 0 (run.ErrBadInput).
func UnionSplit(errs []float64, p int) (beta []float64, total float64, err error) {
	if p != 1 && p != 2 {
		return nil, 0, fmt.Errorf("sdp: %w: union split: p = %d, want 1 or 2", run.ErrBadInput, p)
	}
	if len(errs) == 0 {
		return nil, 0, fmt.Errorf("sdp: %w: union split: no groups", run.ErrBadInput)
	}
	root := math.Cbrt
	if p == 2 {
		root = math.Sqrt
	}
	s := 0.0
	for g, e := range errs {
		if !(e > 0) || math.IsInf(e, 0) {
			return nil, 0, fmt.Errorf("sdp: %w: union split: group %d has error %v, want finite > 0", run.ErrBadInput, g, e)
		}
		s += root(e)
	}
	beta = make([]float64, len(errs))
	for g, e := range errs {
		share := root(e) / s // β_g (p = 1) or ρ_g = β_g² (p = 2)
		if p == 2 {
			share = math.Sqrt(share)
		}
		beta[g] = share
	}
	if p == 1 {
		total = s * s * s
	} else {
		total = s * s
	}
	return beta, total, nil
}

// UnionError returns the error Σ_g errs[g]/β_g² of a union with the given
// multipliers: p = 1 requires Σ_g β_g <= 1, p = 2 Σ_g β_g² <= 1 (within
// 1e-12), β_g > 0. It is the objective that UnionSplit minimises.
func UnionError(errs, beta []float64, p int) (float64, error) {
	if p != 1 && p != 2 {
		return 0, fmt.Errorf("sdp: %w: union error: p = %d, want 1 or 2", run.ErrBadInput, p)
	}
	if len(errs) != len(beta) || len(errs) == 0 {
		return 0, fmt.Errorf("sdp: %w: union error: %d errors, %d multipliers", run.ErrBadInput, len(errs), len(beta))
	}
	budget, total := 0.0, 0.0
	for g, b := range beta {
		if !(b > 0) || math.IsInf(b, 0) || !(errs[g] >= 0) || math.IsInf(errs[g], 0) {
			return 0, fmt.Errorf("sdp: %w: union error: group %d has error %v, multiplier %v", run.ErrBadInput, g, errs[g], b)
		}
		if p == 1 {
			budget += b
		} else {
			budget += b * b
		}
		total += errs[g] / (b * b)
	}
	if budget > 1+1e-12 {
		return 0, fmt.Errorf("sdp: %w: union error: the multipliers spend %v > 1 of the budget", run.ErrBadInput, budget)
	}
	return total, nil
}

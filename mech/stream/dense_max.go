package stream

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/run"
	"github.com/optdp/optdp/sdp"
	"gonum.org/v1/gonum/mat"
)

// StageMax is the Progress stage of OptimizeDenseMax's outer iterations.
const StageMax run.Stage = "stream max"

// OptimizeDenseMax returns the optimal dense strategy for the prefix sums
// of n steps under single participation and the max-variance loss:
//
//	OPT = min_X max_i (A X⁻¹ Aᵀ)_ii  s.t.  diag(X) <= 1,
//
// convex in X (a maximum of matrix-fractional functions). By the minimax
// theorem (convex in X, linear in the weights μ of the simplex) OPT =
// max_μ h(μ), h(μ) = min_X tr(G_μ X⁻¹) over the same X, G_μ = Aᵀ
// diag(μ) A (G_ij = Σ_{l >= max(i,j)} μ_l): every h(μ) is a weighted
// total-squared-error problem, solved by sdp.OptimizeL2 with its own dual
// bound d(μ) <= h(μ) <= OPT, and every X it returns is feasible with
// max_i v_i(X) >= OPT. The weights follow the multiplicative update μ_i
// ← μ_i v_i(X(μ)) / Σ_j μ_j v_j (the variances equalise on the support of
// the optimal μ). It stops when (best max - best d)/best max <= RelGap
// (default 1e-6) and returns the best X: Primal = its max variance, Dual
// = the best d(μ), Weights = that μ (the certificate: Σ_i μ_i v_i(X) >=
// d(μ) for every feasible X, and Multipliers the inner problem's
// multipliers y with d(μ) = (tr (Y^{1/2} G_μ Y^{1/2})^{1/2})²/Σy). Each
// outer iteration is one dense L2 solve, O(n³) per Newton step: n of a
// few hundred. MaxIter bounds the outer iterations (0: 1000).
func OptimizeDenseMax(ctx context.Context, n int, opt *DenseOptions) (*DenseResult, error) {
	s := SingleParticipation()
	if err := s.Check(n); err != nil {
		return nil, err
	}
	if opt == nil {
		opt = &DenseOptions{}
	}
	if err := opt.Budget.Check(fmt.Sprintf("stream: dense max-variance optimisation on n = %d", n), sdp.L2Bytes(n), "use the Toeplitz family with loss max"); err != nil {
		return nil, err
	}
	tol, maxIter := opt.RelGap, opt.MaxIter
	if tol == 0 {
		tol = 1e-6
	}
	if maxIter == 0 {
		maxIter = 1000
	}
	mu := make([]float64, n)
	for i := range mu {
		mu[i] = 1 / float64(n)
	}
	suf := make([]float64, n+1)
	g := mat.NewSymDense(n, nil)
	var bestX *mat.SymDense
	var bestY, bestMu []float64
	ub, lb := math.Inf(1), 0.0
	inner := &sdp.L2Options{RelGap: math.Min(1e-10, tol/100), Settings: run.Settings{Budget: opt.Budget}}
	it := 0
	for ; it < maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for l := n - 1; l >= 0; l-- {
			suf[l] = suf[l+1] + mu[l]
		}
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				g.SetSym(i, j, suf[j])
			}
		}
		r, err := sdp.OptimizeL2(ctx, g, inner)
		if err != nil {
			return nil, fmt.Errorf("stream: max-variance weights %d: %w", it, err)
		}
		v, err := PrefixVariances(r.X)
		if err != nil {
			return nil, err
		}
		_, mx := sumMax(v)
		if mx < ub {
			ub, bestX = mx, r.X
		}
		if r.Dual > lb {
			lb, bestY, bestMu = r.Dual, r.Y, append([]float64(nil), mu...)
		}
		gap := (ub - lb) / ub
		p := run.NewProgress(StageMax)
		p.Iter, p.MaxIter, p.Value, p.Gap = it+1, maxIter, ub, gap
		opt.Report(p)
		if gap <= tol {
			break
		}
		sum := 0.0
		for i := range mu {
			mu[i] *= v[i] / mx
			sum += mu[i]
		}
		for i := range mu {
			mu[i] /= sum
		}
	}
	sv, err := GramSensitivity(ctx, bestX, s)
	if err != nil {
		return nil, err
	}
	bestX.ScaleSym(1/sv.Sens2, bestX)
	sv.Sens2, sv.Vector2 = 1, sv.Vector2/sv.Sens2
	errs, err := GramErrors(bestX, 1)
	if err != nil {
		return nil, err
	}
	c, err := Factor(bestX)
	if err != nil {
		return nil, err
	}
	res := &DenseResult{X: bestX, C: c, Sens: sv, Errors: errs, Primal: errs.Max, Dual: lb, Weights: bestMu, Method: "max weights", Iterations: it + 1}
	for i, y := range bestY {
		res.Multipliers = append(res.Multipliers, Multiplier{Pattern: []int{i}, Signs: []int{1}, Lambda: y})
	}
	res.RelGap = (res.Primal - res.Dual) / res.Primal
	if res.RelGap > tol {
		return res, fmt.Errorf("stream: max-variance weights stopped at relative gap %.3g > %.3g after %d iterations: %w", res.RelGap, tol, it, run.ErrNotConverged)
	}
	return res, nil
}

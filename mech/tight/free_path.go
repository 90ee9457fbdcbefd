package tight

import (
	"fmt"
	"math"
	"math/big"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// The exact sampler of FreeMechanism on a path (a line, a one-row or
// one-column grid; docs/MATH.md §8.1, §10.3). There the tight-constraints
// mechanism is the truncated geometric mechanism
//
//	X[i][k] = z_k a^{|i-k|},  a = e^{-eps·step},
//	z_0 = z_{n-1} = 1/(1+a),  z_k = (1-a)/(1+a) for 0 < k < n-1,
//
// which is the law of k = clamp(i + Y, 0, n-1) for Y two-sided geometric,
// P(Y = y) = (1-a)/(1+a) a^{|y|}: P(k = 0) = Σ_{y <= -i} P(Y = y) =
// a^i/(1+a) = X[i][0], likewise at n-1, and P(k) = P(Y = k-i) = X[i][k]
// inside. Y is drawn exactly by mech.DiscreteLaplace at a rational rate
// gamma <= eps·step (pathRate), so the realised law is exactly the truncated
// geometric mechanism at a' = e^{-gamma}; its ratios are
// P(k|i)/P(k|h) <= e^{gamma·|i-h|} <= e^{eps·d(i,h)}.

// pathRate returns the rate gamma = s/t of the exact path sampler: the
// exact product eps·step of the two float64 values (dyadic rationals), times
// 1-2^-52 unless step is a power of two. The factor makes
// gamma·j <= eps·d(i,h) for every |i-h| = j: the metric's distance is
// fl(step·j) (Line: j itself; one-row grids: step·j, step·hypot(j, 0) or
// step·max(j, 0), all one rounding of step·j), which is >= step·j·(1-2^-53)
// for a normal step, and equals step·j when step is a power of two (then
// step·j is exact for j < 2^53). A subnormal step is refused. The result is
// checked exactly at j = 1 and j = n-1 against the metric's own distances.
func pathRate(m metric.Metric, eps float64) (s, t *big.Int, err error) {
	step := metric.PathStep(m)
	if !(step >= 0x1p-1022) || math.IsInf(step, 0) || !(eps > 0) || math.IsInf(eps, 0) {
		return nil, nil, fmt.Errorf("tight: free sampler: path step %v and eps %v: want a normal step and a finite eps > 0: %w", step, eps, run.ErrBadInput)
	}
	g := new(big.Rat).SetFloat64(eps)
	g.Mul(g, new(big.Rat).SetFloat64(step))
	if frac, _ := math.Frexp(step); frac != 0.5 {
		g.Mul(g, big.NewRat(1<<52-1, 1<<52))
	}
	n := m.Len()
	for _, j := range []int{1, n - 1} {
		if j < 1 {
			continue
		}
		lhs := new(big.Rat).Mul(g, new(big.Rat).SetInt64(int64(j)))
		rhs := new(big.Rat).SetFloat64(eps)
		rhs.Mul(rhs, new(big.Rat).SetFloat64(m.Dist(0, j)))
		if lhs.Cmp(rhs) > 0 {
			return nil, nil, fmt.Errorf("tight: free sampler: path rate %v exceeds eps·d(0,%d)/%d for %s", g.FloatString(20), j, j, m)
		}
	}
	return new(big.Int).Set(g.Num()), new(big.Int).Set(g.Denom()), nil
}

// samplePath draws k = clamp(i + Y, 0, n-1), Y ~ mech.DiscreteLaplace at
// rate s/t (see pathRate).
func samplePath(n, i int, s, t *big.Int, src mech.Source) int {
	y := mech.DiscreteLaplace(src, s, t)
	if !y.IsInt64() {
		if y.Sign() < 0 {
			return 0
		}
		return n - 1
	}
	v := y.Int64()
	switch {
	case v <= -int64(i):
		return 0
	case v >= int64(n-1-i):
		return n - 1
	}
	return i + int(v)
}

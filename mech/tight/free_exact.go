package tight

import (
	"fmt"
	"math"
	"math/big"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// The exact verdict of FreeMechanism.Audit: X[i][k] = exp(-eps·d(i,k))·z_k
// with z >= 0 has X[i][k]/X[h][k] = exp(eps·(d(h,k) - d(i,k))) for z_k > 0,
// which is at most exp(eps·d(i,h)) exactly when d(h,k) <= d(i,h) + d(i,k):
// the triangle inequality for the float64 distances, decided exactly below.

// triangleHolds reports d(h,k) <= d(i,h) + d(i,k) in real arithmetic for
// finite or +Inf distances >= 0.
func triangleHolds(dhk, dih, dik float64) bool {
	if math.IsInf(dih, 1) || math.IsInf(dik, 1) {
		return true
	}
	if math.IsInf(dhk, 1) {
		return false
	}
	s := dih + dik
	switch {
	case dhk < s*(1-0x1p-50):
		return true
	case dhk > s*(1+0x1p-50):
		return false
	}
	// Within rounding of the sum: exactly (2200 bits hold any sum of two
	// float64 values).
	a := new(big.Float).SetPrec(2200).SetFloat64(dih)
	a.Add(a, new(big.Float).SetFloat64(dik))
	return new(big.Float).SetFloat64(dhk).Cmp(a) <= 0
}

// factorTriangle reports whether the factor metric m satisfies the triangle
// inequality exactly on the pairs an audit constrains (a Graph's edges,
// otherwise every pair at finite distance) against every third point, and
// the first (i, h, k) where it fails.
func factorTriangle(m metric.Metric) (bool, [3]int) {
	n := m.Len()
	check := func(i, h int) (bool, [3]int) {
		dih := m.Dist(i, h)
		for k := range n {
			if !triangleHolds(m.Dist(h, k), dih, m.Dist(i, k)) {
				return false, [3]int{i, h, k}
			}
			if !triangleHolds(m.Dist(i, k), dih, m.Dist(h, k)) {
				return false, [3]int{h, i, k}
			}
		}
		return true, [3]int{}
	}
	if g, ok := m.(metric.Graph); ok {
		for i, h := range g.Edges() {
			if ok, w := check(i, h); !ok {
				return false, w
			}
		}
		return true, [3]int{}
	}
	for i := range n {
		for h := i + 1; h < n; h++ {
			if math.IsInf(m.Dist(i, h), 1) {
				continue
			}
			if ok, w := check(i, h); !ok {
				return false, w
			}
		}
	}
	return true, [3]int{}
}

// factorSamplers builds one exact mech.Sampler per factor of a separable
// metric: the factor's dense X_f = exp(-eps·d_f)·z_f, hardened by
// mech.Harden (mixed with the uniform row by a γ_f of about 1e-12 so that
// its float64 entries pass the exact audit) and proven eps·d_f-private by
// mech.NewSampler. The product of the factors' realised distributions is
// then exactly eps·d-private, d = Σ_f d_f: each factor's ratio is at most
// e^{eps·d_f(i_f,h_f)}, and the ratios multiply.
func (f *FreeMechanism) factorSamplers() ([]*mech.Sampler, error) {
	out := make([]*mech.Sampler, len(f.kron))
	for j, kf := range f.kron {
		nf := kf.m.Len()
		if err := run.Budget(run.DefaultBudget).CheckDense("factor sampler", nf, 2, denseAdvice); err != nil {
			return nil, fmt.Errorf("free sampler: factor %d: %w", j, err)
		}
		x, err := factorX(kf, f.eps)
		if err != nil {
			return nil, fmt.Errorf("free sampler: factor %d: %w", j, err)
		}
		hx, _, _, err := mech.Harden(x, kf.m, f.eps)
		if err != nil {
			return nil, fmt.Errorf("free sampler: factor %d: %w", j, err)
		}
		if out[j], err = mech.NewSampler(hx, kf.m, f.eps, nil); err != nil {
			return nil, fmt.Errorf("free sampler: factor %d: %w", j, err)
		}
	}
	return out, nil
}

package tight

import (
	"context"
	"fmt"
	"math"
	"math/big"

	"github.com/optdp/optdp/mech/metric"
)

// verdictNote is the Note of a Result whose verdict is f's (X not built).
func (f *FreeMechanism) verdictNote() string {
	const head = "matrix-free mechanism in Free, exactly private as sampled: "
	switch {
	case f.proof != nil:
		p := f.proof
		return fmt.Sprintf(head+"hardened, built at eps_b = %.17g with z solved there (utility %.12g), proven level %.17g <= eps from the rounding bound of the float64 distances (δ = %.3g, d_min = %g) and |row sum - 1| <= ρ = %.3g (z error bound %.3g); exact sampler", p.epsB, f.meanZ, p.level, p.bound.Defect, p.bound.MinDist, p.rho, p.zErr)
	case f.kron != nil:
		return head + "factor-wise: z_f >= 0, each factor's triangle inequality decided exactly and its X_f audited; exact factor samplers"
	case metric.PathStep(f.m) > 0:
		return head + "the truncated geometric mechanism drawn at a rational rate gamma <= eps·step (exact discrete Laplace)"
	}
	return head + "closed form, exact sampler"
}

// The hardened matrix-free mechanism (docs/MATH.md §3.9). For a metric
// that is neither a path, a ring or clique, nor separable (Euclidean and
// Chebyshev grids, Sum, KCount, graphs, distance matrices) the mechanism
// handed out is, for the float64 distances d̂ = m.Dist, a build level
// eps_b < eps and the z solved at eps_b,
//
//	P_i(k) = e^{-eps_b·d̂(i,k)}·z_k / S_i,   S_i = Σ_k e^{-eps_b·d̂(i,k)}·z_k,
//
// exactly what the exact samplers of free_sample.go realise. For i, h, k:
//
//	ln P_i(k)/P_h(k) = eps_b(d̂(h,k) - d̂(i,k)) + ln(S_h/S_i)
//	                 <= eps_b(1+δ)·d̂(i,h) + ln((1+ρ)/(1-ρ))
//	                 <= (eps_b(1+δ) + 2ρ/((1-ρ)·d_min))·d̂(i,h)
//
// with δ and d_min the metric's proven RoundingBound (d̂(h,k) - d̂(i,k) <=
// (1+δ)d̂(i,h), d̂(i,h) >= d_min) and ρ >= max_i |S_i - 1|, using
// ln((1+ρ)/(1-ρ)) = ln(1 + 2ρ/(1-ρ)) <= 2ρ/(1-ρ). So the mechanism is
// exactly eps·d̂-private when
//
//	L = eps_b(1+δ) + 2ρ/((1-ρ)·d_min) <= eps,
//
// which is decided in rational arithmetic from the float64 values; L
// (rounded up) is the proven level reported by the audit. ρ comes from the
// solver's certified error bound ZErr on z at eps_b (|z_k - z*_k| <= ZErr
// for the solution z* of Phi_b z* = 1): S_i - 1 = (Phi_b(z - z*))_i, so
// |S_i - 1| <= W·ZErr with W >= every row sum of Phi_b (rowSumBound), plus
// kernelSlack for the solver's float64 kernel.

// kernelSlack bounds |((Phi_b - fl(Phi_b))z)_i|, the difference between the
// real kernel e^{-eps_b·d̂} and the float64 one the solver certified z
// against: each entry is math.Exp (within an ulp) of fl(eps_b·d̂) (within
// eps_b·d̂·2^-53 <= 745·2^-53 in the exponent where it does not underflow),
// so within 2^-42 relative, and Σ_k Phi_b[i][k] z_k is about 1; underflowed
// entries (e^{-745}) add at most n·2^-1074. 2^-40 covers both.
const kernelSlack = 0x1p-40

// hardenTries is the number of build levels tried: each failure widens the
// margin by the ρ it measured (at least doubling it).
const hardenTries = 6

// freeProof is the proof that the hardened mechanism is eps·d̂-private.
type freeProof struct {
	epsB  float64              // the build level eps_b
	bound metric.RoundingBound // δ, d_min (and L1 for the lattice sampler)
	w     float64              // W >= every row sum of Phi at eps_b
	zErr  float64              // the solver's bound on |z_k - z*_k| at eps_b
	rho   float64              // ρ = W·zErr + kernelSlack >= max_i |S_i - 1|
	level float64              // L rounded up: the proven level, <= eps
}

// needsHardening reports that f is not one of the forms whose samplers are
// exact at eps without it: a separable metric kept as its factors, a path,
// a ring or a clique.
func needsHardening(m metric.Metric, kron []kronFactor) bool {
	if kron != nil || metric.PathStep(m) > 0 {
		return false
	}
	switch m.(type) {
	case *metric.RingMetric, *metric.CliqueMetric:
		return false
	}
	return true
}

// hardenFree solves the mechanism again at a build level eps_b below eps
// (resolve solves Phi z = 1 at a given level with the same solver) and
// proves it eps·d̂-private (see above). r is the solve at eps, whose ZErr
// estimates the margin. It returns the result at eps_b and the proof, or
// an error saying why no proof was found (then no mechanism is handed out).
func hardenFree(ctx context.Context, m metric.Metric, eps float64, r *Result, resolve func(float64) (*Result, error)) (*Result, *freeProof, error) {
	b, ok, err := metric.DistRoundingContext(ctx, m)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, fmt.Errorf("%s has no proven bound on the rounding of its float64 distances (metric.Rounded), so the privacy of a mechanism built from them is not proven", m)
	}
	if !(b.MinDist > 0) || !(b.Defect >= 0) || math.IsInf(b.Defect, 0) {
		return nil, nil, fmt.Errorf("%s: unusable rounding bound %+v", m, b)
	}
	if !(r.ZErr >= 0) || math.IsInf(r.ZErr, 0) {
		return nil, nil, fmt.Errorf("tight: the solver gave no finite error bound on z (ZErr = %v), so the normalisation of the rows is not bounded", r.ZErr)
	}
	// The first guess: ρ at eps with a quarter to spare (the solve at
	// eps_b, a relative 1e-8 or so lower, has about the same error bound).
	rhoGuess := 1.25 * (rowSumBound(m, eps)*r.ZErr + kernelSlack)
	var last error
	for range hardenTries {
		if !(rhoGuess < 0.25) {
			break
		}
		margin := 2 * rhoGuess / ((1 - rhoGuess) * b.MinDist)
		epsB := (eps - margin) / (1 + b.Defect)
		epsB = math.Min(epsB, eps*(1-0x1p-44)) * (1 - 0x1p-50) // strictly inside, rounded down
		if !(epsB > 0) {
			break
		}
		rb, err := resolve(epsB)
		if err != nil {
			return nil, nil, &resolveError{epsB, err}
		}
		if rb.Exists != Yes {
			return nil, nil, fmt.Errorf("tight: at the build level eps_b = %v below eps the mechanism's existence is %v (eps is at the threshold)", epsB, rb.Exists)
		}
		p, err := proveFree(m, eps, epsB, b, rb.ZErr)
		if err == nil {
			return rb, p, nil
		}
		last = err
		rhoGuess = max(2*rhoGuess, 2*p.rho)
	}
	if last == nil {
		last = fmt.Errorf("tight: the solver's error bound on z (%v) leaves no margin below eps = %v", r.ZErr, eps)
	}
	return nil, nil, last
}

// resolveError is a failed solve at the build level (cancellation, memory):
// an error of Solve, not a missing proof.
type resolveError struct {
	epsB float64
	err  error
}

func (e *resolveError) Error() string {
	return fmt.Sprintf("the solve at the build level %v: %v", e.epsB, e.err)
}

func (e *resolveError) Unwrap() error { return e.err }

// proveFree decides L = eps_b(1+δ) + 2ρ/((1-ρ)·d_min) <= eps in rational
// arithmetic. It returns the proof, or (with the measured ρ in the
// returned proof) an error.
func proveFree(m metric.Metric, eps, epsB float64, b metric.RoundingBound, zErr float64) (*freeProof, error) {
	p := &freeProof{epsB: epsB, bound: b, w: rowSumBound(m, epsB), zErr: zErr}
	p.rho = (p.w*zErr)*(1+0x1p-50) + kernelSlack // one product, rounded up
	if !(zErr >= 0) || math.IsInf(p.rho, 0) || !(p.rho < 0.5) {
		return p, fmt.Errorf("tight: at the build level %v the rows' normalisation is bounded only by ρ = %v (ZErr %v)", epsB, p.rho, zErr)
	}
	l := freeLevel(epsB, b, p.rho)
	if l.Cmp(new(big.Rat).SetFloat64(eps)) > 0 {
		lf, _ := l.Float64()
		return p, fmt.Errorf("tight: at the build level %v the proven level is %v > eps = %v (ρ = %v)", epsB, lf, eps, p.rho)
	}
	p.level = ratUp(l)
	return p, nil
}

// freeLevel is L = eps_b(1+δ) + 2ρ/((1-ρ)·d_min), exactly.
func freeLevel(epsB float64, b metric.RoundingBound, rho float64) *big.Rat {
	one := big.NewRat(1, 1)
	l := new(big.Rat).Add(one, new(big.Rat).SetFloat64(b.Defect))
	l.Mul(l, new(big.Rat).SetFloat64(epsB))
	r := new(big.Rat).SetFloat64(rho)
	t := new(big.Rat).Sub(one, r)
	t.Mul(t, new(big.Rat).SetFloat64(b.MinDist))
	r.Add(r, r)
	r.Quo(r, t)
	return l.Add(l, r)
}

// ratUp is the smallest float64 >= x.
func ratUp(x *big.Rat) float64 {
	f, _ := x.Float64()
	if new(big.Rat).SetFloat64(f).Cmp(x) < 0 {
		f = math.Nextafter(f, math.Inf(1))
	}
	return f
}

// rowSumBound returns W >= Σ_k e^{-eps·d̂(i,k)} for every row i. For a
// lattice, the row sum is at most the sum over the whole offset box
// (-Dims, Dims) of e^{-eps·Offset}, computed over the non-negative offsets
// o with weight 2^{#nonzero coordinates} (n terms); each term is within
// 2^-42 relative (see kernelSlack) and the float64 sum of n positive terms
// within n·2^-53, so the sum is moved up by 2^-40 + n·2^-52 relative (plus
// n·2^-1074 for underflowed terms). Other metrics: n (every entry <= 1).
func rowSumBound(m metric.Metric, eps float64) float64 {
	n := m.Len()
	lat, ok := m.(metric.Lattice)
	if !ok {
		return float64(n)
	}
	dims := lat.Dims()
	off := make([]int, len(dims))
	var sum float64
	for k := range n {
		nz := 0
		r := k
		for j := len(dims) - 1; j >= 0; j-- {
			off[j] = r % dims[j]
			r /= dims[j]
			if off[j] != 0 {
				nz++
			}
		}
		sum += math.Ldexp(math.Exp(-eps*lat.Offset(off)), nz)
	}
	return sum*(1+0x1p-40+float64(n)*0x1p-52) + 0x1p-1000
}

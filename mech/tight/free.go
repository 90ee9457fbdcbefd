package tight

import (
	"fmt"
	"math"
	"math/big"
	"sync"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// The matrix-free tight-constraints mechanism (docs/MATH.md §3.8): the metric
// and z define X[i][k] = exp(-eps·d(i,k))·z_k, which is never stored.

// maxSampleTries bounds the proposals of one rejection-sampling draw; the
// expected number is at most maxZ·Σ_offsets e^{-eps·d} (see Sample), far
// below it for every metric Solve accepts.
const maxSampleTries = 1 << 26

// FreeMechanism is the tight-constraints mechanism X[i][k] =
// exp(-eps·d(i,k))·z_k of a metric kept as the metric and z (or, for a
// separable metric, the factors' z_f with z = ⊗ z_f, or a constant z): row
// access, utility, a DP audit and sampling in O(n) memory, nothing of size
// n² (docs/MATH.md §3.8). Sampling is exact for paths and separable metrics
// and for seeded experiments only on other metrics (see Sample). Solve returns one (Result.Free) whenever the
// mechanism exists. Its methods are safe for concurrent use.
type FreeMechanism struct {
	m   metric.Metric
	eps float64
	n   int
	// Exactly one representation of z: a vector, the factors of a
	// separable metric (z = ⊗ kron[f].z, first factor slowest), or the
	// constant cz.
	z    []float64
	kron []kronFactor
	cz   float64
	// minZ, maxZ and meanZ summarise z; certified reports that min z >= 0
	// was certified by the solver (the verdict was Yes).
	minZ, maxZ, meanZ float64
	certified         bool

	once sync.Once // builds the lattice offset table on first Sample
	box  *mech.AliasTable
	lat  metric.Lattice
	berr error

	facOnce sync.Once // builds the exact factor samplers on first Sample
	facs    []*mech.Sampler
	facErr  error

	pathOnce     sync.Once // the exact path sampler's rate s/t
	pathS, pathT *big.Int
	pathErr      error

	symOnce sync.Once // the exact ring and clique sampler
	sym     *symmetricSampler
	symErr  error
}

// newFreeMechanism wraps a tight result whose mechanism exists.
func newFreeMechanism(m metric.Metric, eps float64, r *Result) (*FreeMechanism, error) {
	f := &FreeMechanism{m: m, eps: eps, n: m.Len(), certified: r.Exists == Yes, minZ: r.MinZ}
	var facs []kronFactor
	if sep := separableFactors(m); sep != nil {
		// Sampling and auditing go factor-wise (X = ⊗ X_f); recompute the
		// factors' z when the solver did not keep them.
		facs = r.kron
		if facs == nil {
			var err error
			if facs, err = kronFactors(m, eps, run.DefaultBudget); err != nil {
				facs = nil // fall back to the vector or constant forms
			}
		}
	}
	switch {
	case r.Z != nil:
		f.z = r.Z
		f.maxZ, f.meanZ = math.Inf(-1), meanOf(r.Z)
		for _, v := range r.Z {
			f.maxZ = max(f.maxZ, v)
		}
		f.kron = facs
	case facs != nil:
		f.kron, f.maxZ, f.meanZ = facs, 1, 1
		for _, kf := range facs {
			mx := math.Inf(-1)
			for _, v := range kf.z {
				mx = max(mx, v)
			}
			f.maxZ *= mx
			f.meanZ *= meanOf(kf.z)
		}
	case r.ConstantZ:
		f.cz, f.maxZ, f.meanZ = r.MinZ, r.MinZ, r.MinZ
	default:
		return nil, fmt.Errorf("free mechanism of %s: z is not available", m)
	}
	return f, nil
}

// Len is the number of answers n.
func (f *FreeMechanism) Len() int { return f.n }

// Eps is the privacy level per unit of distance.
func (f *FreeMechanism) Eps() float64 { return f.eps }

// Metric is the mechanism's metric.
func (f *FreeMechanism) Metric() metric.Metric { return f.m }

// Z returns z_k = X[k][k].
func (f *FreeMechanism) Z(k int) float64 {
	switch {
	case f.z != nil:
		return f.z[k]
	case f.kron != nil:
		p := 1.0
		for j := len(f.kron) - 1; j >= 0; j-- {
			nf := len(f.kron[j].z)
			p *= f.kron[j].z[k%nf]
			k /= nf
		}
		return p
	}
	return f.cz
}

// MaxZ is max_k z_k.
func (f *FreeMechanism) MaxZ() float64 { return f.maxZ }

// At returns X[i][k] = exp(-eps·d(i,k))·z_k. It panics for indices outside
// 0..n-1, like a matrix.
func (f *FreeMechanism) At(i, k int) float64 {
	if i < 0 || i >= f.n || k < 0 || k >= f.n {
		panic(fmt.Sprintf("mech: FreeMechanism.At(%d, %d) outside 0..%d", i, k, f.n-1))
	}
	return math.Exp(-f.eps*f.m.Dist(i, k)) * f.Z(k)
}

// Row writes row i of X into dst (length n) in O(n) and returns it; a nil
// dst is allocated.
func (f *FreeMechanism) Row(i int, dst []float64) ([]float64, error) {
	if i < 0 || i >= f.n {
		return nil, fmt.Errorf("free mechanism: row %d outside 0..%d", i, f.n-1)
	}
	if dst == nil {
		if f.n > MaxVectorN {
			return nil, fmt.Errorf("free mechanism: a row of %d entries is too large to materialise (limit %d)", f.n, MaxVectorN)
		}
		dst = make([]float64, f.n)
	}
	if len(dst) != f.n {
		return nil, fmt.Errorf("free mechanism: dst has length %d, want %d", len(dst), f.n)
	}
	for k := range dst {
		dst[k] = math.Exp(-f.eps*f.m.Dist(i, k)) * f.Z(k)
	}
	return dst, nil
}

// UtilityUniform is the utility for the uniform prior with the identity
// remap: (1/n) Σ_i X[i][i] = mean z (for a separable metric the product of
// the factors' means).
func (f *FreeMechanism) UtilityUniform() float64 { return f.meanZ }

// Utility is the utility for prior with the identity remap,
// Σ_i pi_i X[i][i] = Σ_i pi_i z_i. The prior must have n entries, finite,
// >= 0, summing to 1 within SumTol.
func (f *FreeMechanism) Utility(prior []float64) (float64, error) {
	if err := mech.ValidatePrior(prior, f.n); err != nil {
		return 0, fmt.Errorf("free mechanism utility: %w", err)
	}
	var s float64
	for i, p := range prior {
		if p != 0 {
			s += p * f.Z(i)
		}
	}
	return s, nil
}

// Audit checks that the mechanism is eps·d-private.
//
// The analytic argument (docs/MATH.md §3.3, §9.4): for z_k > 0,
// X[i][k]/X[h][k] = exp(-eps(d(i,k) - d(h,k))) <= exp(eps·d(i,h)) by the
// triangle inequality, and z_k = 0 makes both entries 0; so X is private
// exactly when z >= 0, which the solver certified (the verdict Yes), and d
// is a metric (every built-in metric is; NewMatrix checks the triangle
// inequality). Audit refuses an uncertified z. As a belt-and-braces check
// it then measures the privacy level explicitly: for a separable metric on
// every factor's (small, dense) X_f with the dense Audit — complete, since
// X = ⊗ X_f and ln(X[i][k]/X[h][k]) = Σ_f ln(X_f[i_f][k_f]/X_f[h_f][k_f])
// <= Σ_f eps_f d_f(i_f,h_f) <= max_f eps_f · d(i,h); otherwise on rows
// drawn at random from src (rows of them, at least 1), each against a
// random other answer and its lattice neighbours, over all n outputs (O(n)
// per pair) when n <= MaxFreeAuditOutputs, else over k = i, k = h and
// MaxFreeAuditOutputs outputs drawn from src (clique:n=2^31 scanned 2^31
// outputs per pair for hours), with ln X[i][k] - ln X[h][k] =
// eps(d(h,k) - d(i,k)) computed in the log domain so that underflowing
// entries are still compared.
func (f *FreeMechanism) Audit(rows int, src mech.Source) (mech.AuditReport, error) {
	if !f.certified {
		return mech.AuditReport{}, fmt.Errorf("free mechanism audit: min z >= 0 is not certified, so privacy is not established")
	}
	if f.minZ < 0 {
		return mech.AuditReport{}, fmt.Errorf("free mechanism audit: min z = %v < 0", f.minZ)
	}
	if f.kron != nil {
		return f.auditFactors()
	}
	if src == nil {
		return mech.AuditReport{}, fmt.Errorf("free mechanism audit: nil randomness source")
	}
	rep := mech.AuditReport{Worst: [3]int{-1, -1, -1}}
	violated := false // the exact verdict: triangleHolds on every (i, h, k) checked
	lat, isLat := symmetricLattice(f.m)
	for range max(rows, 1) {
		i := mech.UniformInt(src, f.n)
		var hs []int
		if f.n > 1 {
			h := mech.UniformInt(src, f.n-1)
			if h >= i {
				h++
			}
			hs = append(hs, h)
		}
		if isLat {
			hs = append(hs, latticeNeighbours(lat, i)...)
		}
		for _, h := range hs {
			dih := f.m.Dist(i, h)
			if !(dih > 0) {
				return rep, fmt.Errorf("free mechanism audit: d(%d,%d) = %v, want > 0 for distinct answers", i, h, dih)
			}
			rep.Pairs++
			check := func(k int) {
				if f.Z(k) == 0 {
					return // both entries are 0
				}
				dhk, dik := f.m.Dist(h, k), f.m.Dist(i, k)
				lev := f.eps * (dhk - dik) / dih
				if !triangleHolds(dhk, dih, dik) && !violated {
					violated = true
					rep.Violation = &mech.Violation{I: i, H: h, O: k, LogRatio: f.eps * (dhk - dik), Dist: dih}
				}
				if lev > rep.Eps || rep.Worst[0] < 0 {
					rep.Eps, rep.Worst = lev, [3]int{i, h, k}
				}
			}
			if f.n <= MaxFreeAuditOutputs {
				for k := range f.n {
					check(k)
				}
				continue
			}
			check(i)
			check(h)
			for range MaxFreeAuditOutputs {
				check(mech.UniformInt(src, f.n))
			}
		}
	}
	// Exact: the ratio is exp(eps(d(h,k) - d(i,k))) <= exp(eps d(i,h)) iff
	// the triangle inequality holds exactly; the float level is reported.
	rep.Private = !violated
	rep.Eps = min(rep.Eps, f.eps)
	if violated {
		rep.Eps = max(rep.Eps, math.Nextafter(f.eps, math.Inf(1)))
	}
	return rep, nil
}

// auditFactors audits X = ⊗ X_f through its factors (see Audit).
func (f *FreeMechanism) auditFactors() (mech.AuditReport, error) {
	rep := mech.AuditReport{Worst: [3]int{-1, -1, -1}}
	for j, kf := range f.kron {
		nf := kf.m.Len()
		if err := run.Budget(run.DefaultBudget).CheckDense("factor audit", nf, 1, denseAdvice); err != nil {
			return rep, err
		}
		x, err := factorX(kf, f.eps)
		if err != nil {
			return rep, err
		}
		r, err := mech.Audit(x, kf.m, f.eps)
		if err != nil {
			return rep, fmt.Errorf("free mechanism audit: factor %d: %w", j, err)
		}
		rep.Pairs += r.Pairs
		if r.Eps > rep.Eps || rep.Worst[0] < 0 {
			rep.Eps, rep.Worst = r.Eps, r.Worst // indices within factor j
		}
		// The exact verdict is analytic (X_f in float64 sits within
		// rounding of e^{eps d}): z_f >= 0 and the factor's triangle
		// inequality, decided exactly.
		if ok, w := factorTriangle(kf.m); !ok && rep.Violation == nil {
			i, h, k := w[0], w[1], w[2]
			rep.Violation = &mech.Violation{I: i, H: h, O: k, LogRatio: f.eps * (kf.m.Dist(h, k) - kf.m.Dist(i, k)), Dist: kf.m.Dist(i, h)}
		}
		for k, z := range kf.z {
			if z < 0 && rep.Violation == nil {
				rep.Violation = &mech.Violation{I: k, H: k, O: k, LogRatio: math.Inf(1), Dist: 0}
			}
		}
	}
	rep.Private = rep.Violation == nil
	if rep.Private {
		rep.Eps = min(rep.Eps, f.eps)
	}
	return rep, nil
}

// latticeNeighbours returns the answers at offset ±1 along each lattice
// coordinate of i.
func latticeNeighbours(lat metric.Lattice, i int) []int {
	dims := lat.Dims()
	var out []int
	stride := 1
	for j := len(dims) - 1; j >= 0; j-- {
		c := (i / stride) % dims[j]
		if c > 0 {
			out = append(out, i-stride)
		}
		if c+1 < dims[j] {
			out = append(out, i+stride)
		}
		stride *= dims[j]
	}
	return out
}

// factorX is the dense mechanism X_f[i][k] = exp(-eps·d_f(i,k))·z_f[k] of
// one factor of a separable metric.
func factorX(kf kronFactor, eps float64) (*mat.Dense, error) {
	nf := kf.m.Len()
	x := mat.NewDense(nf, nf, nil)
	for i := range nf {
		for k := range nf {
			x.Set(i, k, math.Exp(-eps*kf.m.Dist(i, k))*kf.z[k])
		}
	}
	return x, nil
}

// Sample draws the reported answer for trueAnswer i with randomness from
// src, with no table of size n². Which guarantee it gives depends on the
// metric (docs/MATH.md §10.3):
//
// Paths (metric.PathStep(m) > 0: lines, one-row or one-column grids):
// exact, any src. The mechanism is the truncated geometric mechanism, and
// the answer is clamp(i + Y, 0, n-1) with Y two-sided geometric drawn by
// mech.DiscreteLaplace (integer arithmetic, exact Bernoulli(e^-gamma)
// trials) at a rational rate gamma <= eps·step: gamma = eps·step computed
// exactly, times 1-2^-52 unless step is a power of two (a line: gamma =
// eps exactly), so that gamma·|i-h| <= eps·d(i,h) for the float64
// distances. The realised law is exactly X at level gamma,
// P(k|i) = z'_k e^{-gamma|i-k|} (z'_0 = z'_{n-1} = 1/(1+a'),
// z'_k = (1-a')/(1+a') inside, a' = e^{-gamma}), whose ratios are at most
// e^{gamma|i-h|} <= e^{eps·d(i,h)}: exactly eps·d-private. O(1) expected
// work per draw, not constant-time (see mech.DiscreteLaplace).
//
// Separable metrics (Manhattan grids with w, h > 1, Hamming spaces):
// exact, any src. Each factor's answer is drawn by a mech.Sampler of the
// factor's dense X_f hardened by mech.Harden (mixed with the uniform row by
// about 1e-12), whose realised distribution NewSampler proves
// eps·d_f-private exactly; the factors' answers are independent given i,
// so the product's ratios multiply and are at most e^{eps·Σ_f d_f} =
// e^{eps·d}. The factor samplers are built on the first Sample
// (O(Σ_f n_f²) memory).
//
// Rings and cliques: exact, any src (free_symmetric.go). X[i][k] =
// e^{-eps·d(i,k)}/r with a constant r; a ring draws k = i + Y mod n with Y
// two-sided geometric at rate eps (mech.DiscreteLaplace) restricted to one
// offset per answer, a clique keeps i with a dyadic probability p' at most
// X's (never less private, p - p' below 2^-60 relative) or draws by an
// exact rejection at eps when eps is small; O(1) expected work per draw.
//
// Other metrics (Euclidean and Chebyshev grids, Sum, KCount, graphs): NOT
// exact, so for reproducible experiments only, and
// Sample refuses any src that mech.Seeded does not report as a
// mech.SeededSource (an error wrapping run.ErrBadInput). These draw from
// float64 probabilities: the realised probabilities differ from X[i][k]
// by about 2^-53 relative and by the solve's residual (below), so realised
// ratios can exceed e^{eps·d} (a float sampler of the truncated geometric
// mechanism at eps = 0.2 realises level 0.405; mech.TestAliasTableNotExact).
// For a release, build the dense X (tight.Options.MaxMechanismN >= n, Result.X)
// and draw with mech.NewSampler, which proves the realised distribution
// private; the dense X needs n² entries, so this is for n up to a few
// thousand.
//
// Lattice metrics (Sum, KCount, grids) use rejection: propose k with
// probability q_k = Phi[i][k]/S_i, S_i = Σ_k Phi[i][k], and accept it with
// probability z_k/M, M = max z. One proposal is accepted with probability
// Σ_k q_k z_k/M = (Phi z)_i/(S_i M) = 1/(S_i M), since Phi z = 1; so the
// accepted k has probability
//
//	(q_k z_k/M) / (1/(S_i M)) = Phi[i][k] z_k = X[i][k].
//
// (With the computed z the accepted k has probability
// Phi[i][k] z_k / (Phi z)_i, where (Phi z)_i differs from 1 by the solve's
// residual.) The proposal needs no n-sized row: Phi[i][k] = w(k-i),
// w(delta) = exp(-eps·Offset(delta)). One alias table over the
// non-negative offsets o (a box of the lattice's shape, n entries) with
// weights w(o)·2^{#nonzero coordinates}, followed by an independent random
// sign for each nonzero coordinate, draws delta from the full offset box
// with probability w(delta)/W; a k = i + delta outside the lattice is
// rejected and drawn again, which leaves q_k on the lattice. The expected
// number of proposals is W·M <= M·Σ_{delta in Z^d} w(delta). Offsets whose
// weight underflows float64 (eps·d > 745) are never proposed. Metrics that
// are not lattices draw from the row of X by inversion in O(n).
func (f *FreeMechanism) Sample(trueAnswer int, src mech.Source) (int, error) {
	if trueAnswer < 0 || trueAnswer >= f.n {
		return 0, fmt.Errorf("free sampler: true answer %d outside 0..%d", trueAnswer, f.n-1)
	}
	if src == nil {
		return 0, fmt.Errorf("free sampler: nil randomness source (use mech.CryptoSource() for releases)")
	}
	if !f.certified {
		return 0, fmt.Errorf("free sampler: the mechanism's existence (min z >= 0) is not certified")
	}
	if f.kron != nil {
		return f.sampleFactors(trueAnswer, src)
	}
	if metric.PathStep(f.m) > 0 {
		f.pathOnce.Do(func() { f.pathS, f.pathT, f.pathErr = pathRate(f.m, f.eps) })
		if f.pathErr != nil {
			return 0, f.pathErr
		}
		return samplePath(f.n, trueAnswer, f.pathS, f.pathT, src), nil
	}
	f.symOnce.Do(func() { f.sym, f.symErr = newSymmetricSampler(f.m, f.eps) })
	if f.symErr != nil {
		return 0, f.symErr
	}
	if f.sym != nil {
		return f.sym.sample(trueAnswer, src)
	}
	if !mech.Seeded(src) {
		return 0, fmt.Errorf("free sampler: the matrix-free sampler for %s is for reproducible experiments only (it draws from float64 probabilities, not exactly from the audited X) and takes only mech.SeededSource; for a release build the dense X (tight.Options.MaxMechanismN >= %d, then Result.X) and draw with mech.NewSampler, which proves the realised distribution private: %w", f.m, f.n, run.ErrBadInput)
	}
	if lat, ok := symmetricLattice(f.m); ok {
		f.once.Do(func() { f.lat = lat; f.box, f.berr = offsetTable(lat, f.eps) })
		if f.berr != nil {
			return 0, f.berr
		}
		return f.sampleLattice(trueAnswer, src)
	}
	return sampleInversion(f.n, src, func(k int) float64 { return f.At(trueAnswer, k) }), nil
}

// offsetTable is the alias table over the non-negative offsets of a lattice
// (see Sample).
func offsetTable(lat metric.Lattice, eps float64) (*mech.AliasTable, error) {
	dims := lat.Dims()
	n := lat.Len()
	w := make([]float64, n)
	off := make([]int, len(dims))
	var sum float64
	for k := range w {
		nz := 0
		r := k
		for j := len(dims) - 1; j >= 0; j-- {
			off[j] = r % dims[j]
			r /= dims[j]
			if off[j] != 0 {
				nz++
			}
		}
		w[k] = math.Exp(-eps*lat.Offset(off)) * math.Ldexp(1, nz)
		sum += w[k]
	}
	for k := range w {
		w[k] /= sum
	}
	t, err := mech.NewAliasTable(w)
	if err != nil {
		return nil, fmt.Errorf("free sampler: offset table: %w", err)
	}
	return t, nil
}

// sampleLattice is the rejection sampler of Sample for lattice metrics.
func (f *FreeMechanism) sampleLattice(i int, src mech.Source) (int, error) {
	dims := f.lat.Dims()
	for range maxSampleTries {
		o := f.box.Sample(src)
		signs := src.Uint64()
		k, stride, inside := 0, 1, true
		for j := len(dims) - 1; j >= 0; j-- {
			c := (i / stride) % dims[j]
			d := o % dims[j]
			o /= dims[j]
			if d != 0 && signs>>uint(j)&1 == 1 {
				d = -d
			}
			c += d
			if c < 0 || c >= dims[j] {
				inside = false
				break
			}
			k += c * stride
			stride *= dims[j]
		}
		if !inside {
			continue
		}
		if mech.Uniform01(src)*f.maxZ < f.Z(k) {
			return k, nil
		}
	}
	return 0, fmt.Errorf("free sampler: no proposal accepted after %d tries", maxSampleTries)
}

// sampleFactors draws each factor's answer from its row of X_f.
func (f *FreeMechanism) sampleFactors(i int, src mech.Source) (int, error) {
	f.facOnce.Do(func() { f.facs, f.facErr = f.factorSamplers() })
	if f.facErr != nil {
		return 0, f.facErr
	}
	digits := make([]int, len(f.kron))
	for j := len(f.kron) - 1; j >= 0; j-- {
		nf := len(f.kron[j].z)
		digits[j] = i % nf
		i /= nf
	}
	k := 0
	for j, s := range f.facs {
		kj, err := s.Sample(digits[j], src)
		if err != nil {
			return 0, fmt.Errorf("free sampler: factor %d: %w", j, err)
		}
		k = k*len(f.kron[j].z) + kj
	}
	return k, nil
}

// sampleInversion draws c in 0..n-1 with probability weight(c)/Σ weight by
// inversion (two passes, O(n), no allocation).
func sampleInversion(n int, src mech.Source, weight func(c int) float64) int {
	var total float64
	for c := range n {
		total += weight(c)
	}
	u := mech.Uniform01(src) * total
	last := 0
	for c := range n {
		w := weight(c)
		if w > 0 {
			last = c
			if u < w {
				return c
			}
			u -= w
		}
	}
	return last // rounding left u just above the sum
}

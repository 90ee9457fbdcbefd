package tight

import (
	"context"
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
// expected number is about max z times the proposal's normalising sum on a
// lattice (4.7 on the 100×100 grid at eps = 1) and n·max z for uniform
// proposals (see Sample), far below it for every metric Solve accepts.
const maxSampleTries = 1 << 26

// FreeMechanism is the tight-constraints mechanism of a metric kept as the
// metric and z (or, for a separable metric, the factors' z_f with
// z = ⊗ z_f, or a constant z): row access, utility, the privacy verdict and
// exact sampling in O(n) memory, nothing of size n² (docs/MATH.md §3.8,
// §3.9). Solve returns one (Result.Free) whenever the mechanism exists and
// its privacy is proven. Its methods are safe for concurrent use.
//
// The mechanism handed out is exactly eps·d-private for the metric's
// float64 distances d̂, as realised by Sample:
//
//   - paths, rings, cliques and separable metrics: the forms of Sample's
//     doc, each exact at eps by its own proof (X[i][k] =
//     exp(-eps·d̂(i,k))·z_k, BuildEps = eps);
//   - every other metric (Euclidean and Chebyshev grids, Sum, KCount,
//     graphs, distance matrices): hardened. Row i is the distribution
//     P_i(k) = exp(-eps_b·d̂(i,k))·z_k / S_i, S_i = Σ_k exp(-eps_b·d̂(i,k))·z_k,
//     with the build level eps_b = BuildEps() < eps and z solved at eps_b,
//     and it is proven that eps_b(1+δ) + 2ρ/((1-ρ)·d_min) <= eps in rational
//     arithmetic, δ and d_min from the metric's proven rounding bound
//     (metric.DistRounding) and ρ >= max_i |S_i - 1| from the solver's
//     certified error bound on z. Then every ratio P_i(k)/P_h(k) is at most
//     exp(eps·d̂(i,h)).
//
// At, Row and Z give exp(-eps_b·d̂(i,k))·z_k (the rows sum to S_i, within ρ
// of 1); Audit returns the one verdict, the same as Result.Audit when X is
// not built.
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

	// epsB is the build level: the rows are exp(-epsB·d(i,k))·z_k; epsB <
	// eps when the mechanism is hardened (proof != nil), else eps.
	epsB  float64
	proof *freeProof

	exOnce sync.Once // the hardened mechanism's exact sampler
	ex     *exactSampler
	exErr  error

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

// newFreeMechanism wraps a tight result whose mechanism exists, solved at
// level (eps, or the build level of a hardened mechanism) for the privacy
// level eps.
func newFreeMechanism(m metric.Metric, eps float64, r *Result) (*FreeMechanism, error) {
	f := &FreeMechanism{m: m, eps: eps, epsB: eps, n: m.Len(), certified: r.Exists == Yes, minZ: r.MinZ}
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
	if err := f.setZ(r, facs); err != nil {
		return nil, err
	}
	return f, nil
}

// setZ sets f's representation of z from r (and the factors facs).
func (f *FreeMechanism) setZ(r *Result, facs []kronFactor) error {
	f.z, f.kron, f.cz = nil, nil, 0
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
		return fmt.Errorf("tight: free mechanism of %s: z is not available", f.m)
	}
	f.certified, f.minZ = r.Exists == Yes, r.MinZ
	return nil
}

// harden replaces f's z by the one solved at a build level below eps and
// proves the result eps·d̂-private (free_harden.go); r is the solve at eps.
func (f *FreeMechanism) harden(ctx context.Context, r *Result, resolve func(float64) (*Result, error)) error {
	rb, p, err := hardenFree(ctx, f.m, f.eps, r, resolve)
	if err != nil {
		return err
	}
	if err := f.setZ(rb, nil); err != nil {
		return err
	}
	if !f.certified || f.minZ < 0 {
		return fmt.Errorf("tight: at the build level %v min z >= 0 is not certified", p.epsB)
	}
	f.epsB, f.proof = p.epsB, p
	return nil
}

// Len is the number of answers n.
func (f *FreeMechanism) Len() int { return f.n }

// Eps is the privacy level per unit of distance that the mechanism is
// proven to satisfy.
func (f *FreeMechanism) Eps() float64 { return f.eps }

// BuildEps is the level eps_b at which the rows are built:
// X[i][k] = exp(-eps_b·d(i,k))·z_k. It equals Eps unless the mechanism is
// hardened (see FreeMechanism), where it is below Eps by the proven margin.
func (f *FreeMechanism) BuildEps() float64 { return f.epsB }

// Hardened reports that the mechanism is the hardened form (see
// FreeMechanism).
func (f *FreeMechanism) Hardened() bool { return f.proof != nil }

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

// At returns X[i][k] = exp(-eps_b·d(i,k))·z_k (eps_b = BuildEps). It panics for indices outside
// 0..n-1, like a matrix.
func (f *FreeMechanism) At(i, k int) float64 {
	if i < 0 || i >= f.n || k < 0 || k >= f.n {
		panic(fmt.Sprintf("mech: FreeMechanism.At(%d, %d) outside 0..%d", i, k, f.n-1))
	}
	return math.Exp(-f.epsB*f.m.Dist(i, k)) * f.Z(k)
}

// Row writes row i of X into dst (length n) in O(n) and returns it; a nil
// dst is allocated.
func (f *FreeMechanism) Row(i int, dst []float64) ([]float64, error) {
	if i < 0 || i >= f.n {
		return nil, fmt.Errorf("tight: free mechanism: row %d outside 0..%d", i, f.n-1)
	}
	if dst == nil {
		if f.n > MaxVectorN {
			return nil, fmt.Errorf("tight: free mechanism: a row of %d entries is too large to materialise (limit %d)", f.n, MaxVectorN)
		}
		dst = make([]float64, f.n)
	}
	if len(dst) != f.n {
		return nil, fmt.Errorf("tight: free mechanism: dst has length %d, want %d", len(dst), f.n)
	}
	for k := range dst {
		dst[k] = math.Exp(-f.epsB*f.m.Dist(i, k)) * f.Z(k)
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

// Audit returns the privacy verdict of the mechanism as handed out (what
// Sample realises): one proof for the whole mechanism, deterministic, never
// a sample of pairs, and Result.Audit when X is not built (docs/MATH.md
// §3.9, §9.4). Private is true when z >= 0 is certified (Audit refuses an
// uncertified z) and
//
//   - hardened metrics: eps_b(1+δ) + 2ρ/((1-ρ)·d_min) <= eps was proven in
//     rational arithmetic (see FreeMechanism); Eps is that bound rounded
//     up (<= eps);
//   - paths: the exact sampler's rational rate gamma satisfies
//     gamma·|i-h| <= eps·d̂(i,h) (pathRate); Eps = eps;
//   - rings and cliques: the exact sampler's constants were proven (the
//     clique's reverse ratio checked exactly); Eps = eps;
//   - separable metrics: z_f >= 0 and each factor's triangle inequality
//     decided exactly, and each factor's dense X_f measured by mech.Audit
//     (complete, since X = ⊗ X_f and ln(X[i][k]/X[h][k]) =
//     Σ_f ln(X_f[i_f][k_f]/X_f[h_f][k_f]) <= Σ_f eps·d_f = eps·d); the
//     factors' samplers are hardened and proven by mech.NewSampler; Eps
//     is the factors' measured level.
//
// Pairs is the number of answer pairs the proof covers (all of them:
// n(n-1)/2, saturating; the factors' pairs for a separable metric), and
// Worst is -1s except for a separable metric. MeasureLevel measures the
// level on sampled pairs, for information only.
func (f *FreeMechanism) Audit() (mech.AuditReport, error) {
	if !f.certified {
		return mech.AuditReport{}, fmt.Errorf("tight: free mechanism audit: min z >= 0 is not certified, so privacy is not established")
	}
	if f.minZ < 0 {
		return mech.AuditReport{}, fmt.Errorf("tight: free mechanism audit: min z = %v < 0", f.minZ)
	}
	if f.kron != nil {
		return f.auditFactors()
	}
	rep := mech.AuditReport{Worst: [3]int{-1, -1, -1}, Pairs: allPairs(f.n)}
	switch {
	case f.proof != nil:
		rep.Eps = f.proof.level
	case metric.PathStep(f.m) > 0:
		if _, _, err := f.pathRate(); err != nil {
			return mech.AuditReport{}, fmt.Errorf("free mechanism audit: %w", err)
		}
		rep.Eps = f.eps
	default:
		ss, err := f.symmetric()
		if err != nil {
			return mech.AuditReport{}, fmt.Errorf("free mechanism audit: %w", err)
		}
		if ss == nil {
			return mech.AuditReport{}, fmt.Errorf("tight: free mechanism audit: the privacy of the mechanism of %s is not proven (it was not hardened)", f.m)
		}
		rep.Eps = f.eps
	}
	rep.Private = true
	if f.n < 2 {
		rep.Eps = 0
	}
	return rep, nil
}

// allPairs is n(n-1)/2, saturating at math.MaxInt.
func allPairs(n int) int {
	if n < 2 {
		return 0
	}
	a, b := n, n-1
	if a%2 == 0 {
		a /= 2
	} else {
		b /= 2
	}
	if a > math.MaxInt/b {
		return math.MaxInt
	}
	return a * b
}

// pathRate is the exact path sampler's rate s/t (free_path.go), computed
// once.
func (f *FreeMechanism) pathRate() (s, t *big.Int, err error) {
	f.pathOnce.Do(func() { f.pathS, f.pathT, f.pathErr = pathRate(f.m, f.eps) })
	return f.pathS, f.pathT, f.pathErr
}

// symmetric is the exact ring or clique sampler (nil for other metrics),
// built once.
func (f *FreeMechanism) symmetric() (*symmetricSampler, error) {
	f.symOnce.Do(func() { f.sym, f.symErr = newSymmetricSampler(f.m, f.eps) })
	return f.sym, f.symErr
}

// LevelSample is the outcome of FreeMechanism.MeasureLevel.
type LevelSample struct {
	// Eps is the largest eps_b·(d(h,k) - d(i,k))/d(i,h) found: the level
	// of the unnormalised rows exp(-eps_b·d(i,k))·z_k on the pairs checked
	// (float64; the normalisation S_h/S_i is not included).
	Eps float64
	// Worst is the (i, h, k) attaining Eps, Pairs the number of pairs.
	Worst [3]int
	Pairs int
}

// MeasureLevel measures the privacy level of the rows on sampled pairs,
// for information only (the verdict is Audit's proof): rows drawn at random
// from src (rows of them, at least 1), each against a random other answer
// and its lattice neighbours, over all n outputs (O(n) per pair) when
// n <= MaxFreeAuditOutputs, else over k = i, k = h and MaxFreeAuditOutputs
// outputs drawn from src, with ln X[i][k] - ln X[h][k] =
// eps_b(d(h,k) - d(i,k)) computed in the log domain so that underflowing
// entries are still compared.
func (f *FreeMechanism) MeasureLevel(rows int, src mech.Source) (LevelSample, error) {
	if src == nil {
		return LevelSample{}, fmt.Errorf("tight: free mechanism level: nil randomness source")
	}
	rep := LevelSample{Worst: [3]int{-1, -1, -1}}
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
				return rep, fmt.Errorf("tight: free mechanism level: d(%d,%d) = %v, want > 0 for distinct answers", i, h, dih)
			}
			rep.Pairs++
			check := func(k int) {
				if f.Z(k) == 0 {
					return // both entries are 0
				}
				lev := f.epsB * (f.m.Dist(h, k) - f.m.Dist(i, k)) / dih
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
// src, with no table of size n². Every sampler is exact — it realises the
// mechanism Audit proves private, with integer arithmetic and exact
// Bernoulli trials — so any src will do; use mech.CryptoSource() for
// releases and a seeded source only for reproducible experiments
// (docs/MATH.md §10.3):
//
// Paths (metric.PathStep(m) > 0: lines, one-row or one-column grids): the
// mechanism is the truncated geometric mechanism, and the answer is
// clamp(i + Y, 0, n-1) with Y two-sided geometric drawn by
// mech.DiscreteLaplace at a rational rate gamma <= eps·step: gamma =
// eps·step computed exactly, times 1-2^-52 unless step is a power of two
// (a line: gamma = eps exactly), so that gamma·|i-h| <= eps·d(i,h) for the
// float64 distances. The realised law is exactly X at level gamma,
// P(k|i) = z'_k e^{-gamma|i-k|} (z'_0 = z'_{n-1} = 1/(1+a'),
// z'_k = (1-a')/(1+a') inside, a' = e^{-gamma}), whose ratios are at most
// e^{gamma|i-h|} <= e^{eps·d(i,h)}.
//
// Separable metrics (Manhattan grids with w, h > 1, Hamming spaces): each
// factor's answer is drawn by a mech.Sampler of the factor's dense X_f
// hardened by mech.Harden (mixed with the uniform row by about 1e-12),
// whose realised distribution NewSampler proves eps·d_f-private exactly;
// the factors' answers are independent given i, so the product's ratios
// multiply and are at most e^{eps·Σ_f d_f} = e^{eps·d}. The factor samplers
// are built on the first Sample (O(Σ_f n_f²) memory).
//
// Rings and cliques (free_symmetric.go): X[i][k] = e^{-eps·d(i,k)}/r with a
// constant r; a ring draws k = i + Y mod n with Y two-sided geometric at
// rate eps restricted to one offset per answer, a clique keeps i with a
// dyadic probability p' at most X's or draws by an exact rejection at eps
// when eps is small.
//
// Every other metric is hardened (see FreeMechanism) and drawn from
// P_i(k) = exp(-eps_b·d(i,k))·z_k/S_i by rejection (free_sample.go): on a
// lattice an offset with independent two-sided geometric coordinates at
// the rational rate c = eps_b·L1 (metric.RoundingBound), rejected off the
// lattice, accepted with probability exp(-(eps_b·d(delta) - c·|delta|_1))
// by mech.BernoulliExp and then with probability z_k/max z by an exact
// rational Bernoulli trial; elsewhere a uniform proposal accepted with
// probability exp(-eps_b·d(i,k))·z_k/max z (about n·max z proposals). O(1)
// expected proposals on a lattice; no sampler is constant-time (see
// mech.DiscreteLaplace).
func (f *FreeMechanism) Sample(trueAnswer int, src mech.Source) (int, error) {
	if trueAnswer < 0 || trueAnswer >= f.n {
		return 0, fmt.Errorf("tight: free sampler: true answer %d outside 0..%d: %w", trueAnswer, f.n-1, run.ErrBadInput)
	}
	if src == nil {
		return 0, fmt.Errorf("tight: free sampler: nil randomness source (use mech.CryptoSource() for releases)")
	}
	if !f.certified {
		return 0, fmt.Errorf("tight: free sampler: the mechanism's existence (min z >= 0) is not certified")
	}
	if f.kron != nil {
		return f.sampleFactors(trueAnswer, src)
	}
	if f.proof != nil {
		k, _, err := f.sampleHardened(trueAnswer, src)
		return k, err
	}
	if metric.PathStep(f.m) > 0 {
		s, t, err := f.pathRate()
		if err != nil {
			return 0, err
		}
		return samplePath(f.n, trueAnswer, s, t, src), nil
	}
	ss, err := f.symmetric()
	if err != nil {
		return 0, err
	}
	if ss == nil {
		return 0, fmt.Errorf("tight: free sampler: the mechanism of %s was not hardened, so no exact sampler realises a proven mechanism", f.m)
	}
	return ss.sample(trueAnswer, src)
}

// sampleHardened draws from the hardened mechanism; it also returns the
// number of proposals.
func (f *FreeMechanism) sampleHardened(i int, src mech.Source) (int, int, error) {
	f.exOnce.Do(func() { f.ex, f.exErr = newExactSampler(f) })
	if f.exErr != nil {
		return 0, 0, f.exErr
	}
	return f.ex.sample(f, i, src)
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

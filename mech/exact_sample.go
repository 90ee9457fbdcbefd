package mech

// Exact sampling from a noise matrix: integer weights, uniform integers by
// rejection on whole 64-bit words, no floating-point uniform anywhere.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// SamplerOptions are the options of NewSampler; nil means the
// defaults.
type SamplerOptions struct {
	// Settings.Budget bounds the sampler's tables (16 bytes per entry of
	// the matrix when Repair mixes, 8 otherwise); Progress is not used.
	run.Settings
	// Repair, when the realised distribution fails the exact audit at eps
	// (for a matrix whose ratios sit within rounding of e^{eps d}), mixes
	// every row with the uniform distribution before sampling,
	// X' = (1-γ)·X + γ/m for the smallest γ in 2^-52, 2^-48, ..., 2^-4
	// whose realised distribution passes; mixing only moves every ratio
	// towards 1. The γ used is reported by Mix. Without Repair such a
	// matrix is refused with an error naming the violation.
	Repair bool `json:"repair"`
	// Unaudited skips the privacy proof, for callers that hold no metric
	// (a C ABI taking only the matrix): m may be nil and eps is not used,
	// the realised distribution is still exactly X[i][o]/s_i, but nothing
	// proves it private (its ratios differ from X's by the factors s_h/s_i,
	// within about m·2^-53 of 1). Audit then reports Pairs = 0 and
	// Private = false. Releases should pass the metric instead.
	Unaudited bool `json:"unaudited"`
}

// maxExactTries bounds the rejection loop of one Sampler draw; each try
// is accepted with probability above 1/2 for a uniform Source, so reaching
// it means the Source is broken.
const maxExactTries = 1 << 10

// Sampler draws reported answers from a row-stochastic noise matrix X
// with exactly the probabilities
//
//	P(o | i) = X[i][o] / s_i,  s_i = Σ_o X[i][o] summed exactly,
//
// (the float64 entries are dyadic rationals, so these are exact rationals),
// and NewSampler has proven this realised distribution eps·d-private
// by the exact audit (Audit's method, with the exact s_i) before it
// returns. This is the guarantee: what is sampled is exactly what was
// audited, with no rounding between them.
//
// How: with K such that every X[i][o]·2^K is an integer W[i][o], row i is
// the integers W[i][0..m-1] with total T_i = s_i·2^K. A draw takes U
// uniform in [0, 2^L), L the bit length of the largest T_i, from whole
// 64-bit words of the Source, rejects U >= T_i (probability below 1/2) and
// returns the o with W[i][0]+...+W[i][o-1] <= U < W[i][0]+...+W[i][o], found
// by binary search over the top 64 bits of those prefix sums; in the rare
// case (probability about m·2^-64) that the top 64 bits of U fall on a
// prefix sum's, the remaining bits of U are drawn and compared exactly.
//
// Timing: a draw reads row i of a table, so its memory accesses (and cache
// timing) depend on the true answer, and its number of words on the
// rejections: a try is rejected with probability 1 - T_i/2^L, and since
// all rows share K and L these differ between rows only by
// |s_i - s_h|/2^(L-K), about m·2^-53. Do not use it where an adversary can
// time the sampler or observe its cache; it is not constant-time.
//
// A Sampler is immutable after NewSampler: its methods are safe for
// concurrent use when the Sources are (CryptoSource is; SeededSource is not).
type Sampler struct {
	x     *mat.Dense // the matrix sampled (X, or X mixed with the uniform row)
	n, m  int
	k     int      // W[i][o] = X[i][o]·2^k
	bits  uint     // L: U is uniform in [0, 2^L)
	shift uint     // max(0, L-64): the table keeps prefix sums >> shift
	top   []uint64 // n·m: (W[i][0]+...+W[i][o]) >> shift
	mix   float64
	audit AuditReport
}

// NewSampler prepares to sample from the row-stochastic noise matrix x
// (entries finite and >= 0, rows summing to 1 within SumTol) released
// under the metric m at level eps: it proves the realised distribution
// eps·d-private exactly (see Sampler), and returns an error when it is
// not (unless o.Repair). Its cost is that of Audit plus O(n·m)
// big-integer additions; the tables take 8 bytes per entry.
func NewSampler(x *mat.Dense, m metric.Metric, eps float64, o *SamplerOptions) (*Sampler, error) {
	if o == nil {
		o = &SamplerOptions{}
	}
	if err := o.Budget.Validate(); err != nil {
		return nil, fmt.Errorf("sampler: %w", err)
	}
	if o.Unaudited {
		if err := ValidateStochastic(x, "noise matrix"); err != nil {
			return nil, fmt.Errorf("sampler: %w: %w", run.ErrBadInput, err)
		}
		n, cols := x.Dims()
		if err := o.Budget.Check("sampler tables", run.DenseBytes(n, cols, 1), "sample from a smaller matrix, or raise the budget"); err != nil {
			return nil, fmt.Errorf("sampler: %w", err)
		}
		return newSampler(x, nil, 0)
	}
	if err := metric.CheckEps(eps); err != nil {
		return nil, fmt.Errorf("sampler: %w: %w", run.ErrBadInput, err)
	}
	if m == nil {
		return nil, fmt.Errorf("mech: sampler: %w: nil metric", run.ErrBadInput)
	}
	if err := ValidateStochastic(x, "noise matrix"); err != nil {
		return nil, fmt.Errorf("sampler: %w: %w", run.ErrBadInput, err)
	}
	n, cols := x.Dims()
	if n != m.Len() {
		return nil, fmt.Errorf("sampler: %w: matrix has %d rows, metric %s has %d answers", run.ErrBadInput, n, m, m.Len())
	}
	copies := 1
	if o.Repair {
		copies = 2
	}
	if err := o.Budget.Check("exact sampler tables", run.DenseBytes(n, cols, copies), "sample from a smaller matrix, or raise the budget"); err != nil {
		return nil, fmt.Errorf("sampler: %w", err)
	}
	s, err := newSampler(x, m, eps)
	if err != nil {
		return nil, err
	}
	if s.audit.Private {
		return s, nil
	}
	v := s.audit.Violation
	fail := fmt.Errorf("mech: sampler: the realised distribution X[i][o]/Σ_o X[i][o] is not %v·d-private: X[%d][%d]/X[%d][%d] = e^%.17g > e^(eps·%v) (after exact row normalisation); build the mechanism with a margin below eps, or set Repair",
		eps, v.I, v.O, v.H, v.O, v.LogRatio, v.Dist)
	if !o.Repair {
		return nil, fail
	}
	mixed := mat.NewDense(n, cols, nil)
	for g := 52; g >= 4; g -= 4 {
		gamma := math.Ldexp(1, -g)
		u := gamma / float64(cols)
		for i := range n {
			src, dst := x.RawRowView(i), mixed.RawRowView(i)
			for k, v := range src {
				dst[k] = (1-gamma)*v + u
			}
		}
		if s, err = newSampler(mixed, m, eps); err != nil {
			return nil, err
		}
		if s.audit.Private {
			s.mix = gamma
			return s, nil
		}
	}
	return nil, fmt.Errorf("%w; mixing with the uniform row up to γ = 2^-4 did not repair it", fail)
}

// newSampler builds the tables for x and audits the realised
// distribution exactly (s.audit).
func newSampler(x *mat.Dense, m metric.Metric, eps float64) (*Sampler, error) {
	return newSamplerContext(context.Background(), x, m, eps)
}

// newSamplerContext is newSampler with its audit stopped by ctx.
func newSamplerContext(ctx context.Context, x *mat.Dense, m metric.Metric, eps float64) (*Sampler, error) {
	n, cols := x.Dims()
	s := &Sampler{x: x, n: n, m: cols}
	// K: every entry f·2^e (53-bit integer f) times 2^K is an integer.
	minE := math.MaxInt
	for i := range n {
		for _, v := range x.RawRowView(i) {
			if v > 0 {
				_, e := floatInt(v)
				minE = min(minE, e)
			}
		}
	}
	s.k = max(0, -minE)
	totals := make([]*big.Int, n)
	sums := make([]*big.Float, n)
	w := new(big.Int)
	for i := range n {
		t := new(big.Int)
		for _, v := range x.RawRowView(i) {
			t.Add(t, s.weight(v, w))
		}
		totals[i] = t
		s.bits = max(s.bits, uint(t.BitLen()))
		sf := new(big.Float).SetInt(t) // exact: the precision is t's length
		sums[i] = sf.SetMantExp(sf, -s.k)
	}
	if m != nil {
		a := newExactAuditor(x, sums, eps)
		a.ctx = ctx
		if err := a.run(m); err != nil {
			return nil, fmt.Errorf("sampler: %w", err)
		}
		s.audit = a.report()
	} else {
		s.audit = AuditReport{Worst: [3]int{-1, -1, -1}}
	}
	if s.bits > 64 {
		s.shift = s.bits - 64
	}
	s.top = make([]uint64, n*cols)
	cum, hi := new(big.Int), new(big.Int)
	for i := range n {
		cum.SetInt64(0)
		row := s.top[i*cols : (i+1)*cols]
		for k, v := range x.RawRowView(i) {
			cum.Add(cum, s.weight(v, w))
			row[k] = hi.Rsh(cum, s.shift).Uint64()
		}
	}
	return s, nil
}

// floatInt splits a finite v > 0 into an integer f < 2^53 and e with
// v = f·2^e exactly.
func floatInt(v float64) (f uint64, e int) {
	fr, ex := math.Frexp(v) // v = fr·2^ex, fr in [0.5, 1): fr·2^53 is an integer
	return uint64(math.Ldexp(fr, 53)), ex - 53
}

// weight sets w to the integer weight v·2^k of the entry v and returns it.
func (s *Sampler) weight(v float64, w *big.Int) *big.Int {
	if v == 0 {
		return w.SetInt64(0)
	}
	f, e := floatInt(v)
	w.SetUint64(f)
	return w.Lsh(w, uint(e+s.k))
}

// Len is the number of true answers (rows).
func (s *Sampler) Len() int { return s.n }

// Audit is the exact audit of the realised distribution that
// NewSampler ran; it is private.
func (s *Sampler) Audit() AuditReport { return s.audit }

// Mix is the weight γ of the uniform row that Repair mixed in, 0 when the
// matrix was sampled as given.
func (s *Sampler) Mix() float64 { return s.mix }

// Prob returns the exact probability P(o | i) = W[i][o]/T_i with which
// Sample reports o for the true answer i.
func (s *Sampler) Prob(i, o int) (*big.Rat, error) {
	if i < 0 || i >= s.n || o < 0 || o >= s.m {
		return nil, fmt.Errorf("mech: sampler: (%d, %d) outside 0..%d × 0..%d", i, o, s.n-1, s.m-1)
	}
	w, t := new(big.Int), new(big.Int)
	var wo big.Int
	for k, v := range s.x.RawRowView(i) {
		s.weight(v, w)
		t.Add(t, w)
		if k == o {
			wo.Set(w)
		}
	}
	return new(big.Rat).SetFrac(&wo, t), nil
}

// errRejected reports that a try drew U >= T_i.
var errRejected = errors.New("mech: rejected")

// Sample draws the reported answer for trueAnswer (a row) with randomness
// from src, with exactly the probabilities X[i][o]/s_i (see Sampler);
// pass CryptoSource() for a real release.
func (s *Sampler) Sample(trueAnswer int, src Source) (int, error) {
	if trueAnswer < 0 || trueAnswer >= s.n {
		return 0, fmt.Errorf("mech: sampler: true answer %d outside 0..%d: %w", trueAnswer, s.n-1, run.ErrBadInput)
	}
	if src == nil {
		return 0, fmt.Errorf("mech: sampler: nil randomness source (use mech.CryptoSource() for releases)")
	}
	for range maxExactTries {
		o, err := s.try(trueAnswer, src)
		if err == nil {
			return o, nil
		}
	}
	return 0, fmt.Errorf("mech: sampler: %d draws in a row were rejected (each is accepted with probability > 1/2): the randomness source is not uniform", maxExactTries)
}

// try is one rejection-sampling attempt: the o with prefix sums
// P_o <= U < P_{o+1}, or errRejected when U >= T_i.
func (s *Sampler) try(i int, src Source) (int, error) {
	row := s.top[i*s.m : (i+1)*s.m]
	last := row[s.m-1]
	w := src.Uint64()
	if s.shift == 0 {
		// The table holds the prefix sums exactly.
		u := w >> (64 - s.bits)
		if u >= last {
			return 0, errRejected
		}
		return firstAbove(row, u), nil
	}
	// w is the top 64 bits of U: U in [w·2^shift, (w+1)·2^shift).
	if w > last {
		return 0, errRejected // U >= (last+1)·2^shift > T_i
	}
	o := firstAbove(row, w)
	if w < last && (o == 0 || row[o-1] < w) {
		// P_o <= (row[o-1]+1)·2^shift <= U < (w+1)·2^shift <= P_{o+1}.
		return o, nil
	}
	return s.resolve(i, w, src)
}

// firstAbove is the first index o with row[o] > u (len(row) if none).
func firstAbove(row []uint64, u uint64) int {
	lo, hi := 0, len(row)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if row[mid] > u {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// resolve completes U from its top word w with shift more bits (whole
// words, the first most significant, the surplus low bits dropped) and
// compares it with the exact prefix sums of row i.
func (s *Sampler) resolve(i int, w uint64, src Source) (int, error) {
	words := int((s.shift + 63) / 64)
	u := new(big.Int).SetUint64(w)
	var word big.Int
	for range words {
		u.Lsh(u, 64)
		u.Or(u, word.SetUint64(src.Uint64()))
	}
	u.Rsh(u, uint(words*64)-s.shift)
	cum, wt := new(big.Int), new(big.Int)
	for k, v := range s.x.RawRowView(i) {
		cum.Add(cum, s.weight(v, wt))
		if u.Cmp(cum) < 0 {
			return k, nil
		}
	}
	return 0, errRejected // U >= T_i
}

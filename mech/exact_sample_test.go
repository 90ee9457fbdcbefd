package mech

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/internal/reftest"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// edgeLine is the line 0-1-...-(n-1) as a Graph by its edges alone (the
// reference BFS metrics are O(n³) to build, too slow for n = 1000).
type edgeLine int

func (l edgeLine) Len() int { return int(l) }
func (l edgeLine) Dist(i, j int) float64 {
	return math.Abs(float64(i - j))
}
func (l edgeLine) String() string { return fmt.Sprintf("edge-line:n=%d", int(l)) }
func (l edgeLine) Edges() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i+1 < int(l); i++ {
			if !yield(i, i+1) {
				return
			}
		}
	}
}

// scriptSource returns prescribed words and fails the test when asked for
// more.
type scriptSource struct {
	tb    testing.TB
	words []uint64
}

func (s *scriptSource) Uint64() uint64 {
	if len(s.words) == 0 {
		s.tb.Fatal("sampler read more words than U needs")
	}
	w := s.words[0]
	s.words = s.words[1:]
	return w
}

// wordsFor is the sequence of words from which the sampler reads U in
// [0, 2^bits): for bits <= 64 the top bits of one word (the rest is pad),
// otherwise the top 64 bits of U, then its low bits in whole words, most
// significant first, followed by pad bits that must be ignored.
func wordsFor(u *big.Int, bits uint, rng *rand.Rand) []uint64 {
	if bits <= 64 {
		return []uint64{u.Uint64()<<(64-bits) | rng.Uint64()>>bits}
	}
	shift := bits - 64
	top := new(big.Int).Rsh(u, shift).Uint64()
	nw := (shift + 63) / 64
	low := new(big.Int).And(u, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), shift), big.NewInt(1)))
	pad := nw*64 - shift
	c := new(big.Int).Lsh(low, pad)
	if pad > 0 {
		c.Or(c, new(big.Int).Rsh(new(big.Int).SetUint64(rng.Uint64()), 64-pad))
	}
	words := []uint64{top}
	for j := int(nw) - 1; j >= 0; j-- {
		words = append(words, new(big.Int).Rsh(c, uint(64*j)).Uint64())
	}
	return words
}

// randBits is a uniform integer in [0, 2^k).
func randBits(rng *rand.Rand, k uint) *big.Int {
	u := new(big.Int)
	for range (k + 63) / 64 {
		u.Lsh(u, 64).Or(u, new(big.Int).SetUint64(rng.Uint64()))
	}
	return u.Rsh(u, (k+63)/64*64-k)
}

// TestSamplerMapping: for every row, U at every prefix sum and its
// neighbours, at the total and 2^L - 1, and at random (also random below a
// prefix sum's top 64 bits, which forces the exact comparison), the sampler
// returns the o with P_o <= U < P_{o+1} of the reference integer weights
// X[i][o]·2^K (from big.Rat), or rejects U >= T_i. Since U is uniform on
// [0, 2^L), the accepted draws have exactly the probabilities W/T = X/s.
func TestSamplerMapping(t *testing.T) {
	geo, _ := TruncatedGeometric(8, 1, 1)
	cases := []struct {
		name string
		x    *mat.Dense
		m    metric.Metric
		eps  float64
	}{
		{"dyadic", mat.NewDense(3, 3, []float64{0.5, 0.25, 0.25, 0.25, 0.5, 0.25, 0.25, 0.25, 0.5}), reftest.Line(3), 0.7},
		{"geometric", geo, reftest.Line(8), 1.01},
		{"subnormal", mat.NewDense(2, 4, []float64{0.5, 5e-324, 0.5, 0, 0.5, 1e-323, 0.5, 0}), reftest.Line(2), 1},
		{"thirds", mat.NewDense(2, 3, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3, 0.3, 0.3, 0.4}), reftest.Line(2), 0.5},
	}
	rng := rand.New(rand.NewPCG(1, 13))
	for _, c := range cases {
		s, err := NewSampler(c.x, c.m, c.eps, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		checkSamplerMapping(t, c.name, s, c.x, rng, 300)
	}
}

// checkSamplerMapping checks Prob and the map from U to outputs of every
// row of s (sampling x) against reference integer weights, for U at every
// prefix sum and its neighbours, 2^L - 1, below a prefix sum's top 64 bits,
// and random draws (random of them).
func checkSamplerMapping(t *testing.T, name string, s *Sampler, x *mat.Dense, rng *rand.Rand, random int) {
	t.Helper()
	n, cols := x.Dims()
	for i := range n {
		// Reference weights at the sampler's scale 2^K.
		w := make([]*big.Int, cols)
		tot := new(big.Int)
		for o := range cols {
			q := new(big.Rat).SetFloat64(x.At(i, o))
			q.Mul(q, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(s.k))))
			if !q.IsInt() {
				t.Fatalf("%s: X[%d][%d]·2^%d is not an integer", name, i, o, s.k)
			}
			w[o] = new(big.Int).Set(q.Num())
			tot.Add(tot, w[o])
		}
		if uint(tot.BitLen()) > s.bits {
			t.Fatalf("%s row %d: T has %d bits > L = %d", name, i, tot.BitLen(), s.bits)
		}
		for o := range cols {
			p, err := s.Prob(i, o)
			if err != nil || p.Cmp(new(big.Rat).SetFrac(w[o], tot)) != 0 {
				t.Fatalf("%s: Prob(%d,%d) = %v, want %v/%v", name, i, o, p, w[o], tot)
			}
		}
		var us []*big.Int
		cum := new(big.Int)
		full := new(big.Int).Lsh(big.NewInt(1), s.bits)
		add := func(u *big.Int) {
			if u.Sign() >= 0 && u.Cmp(full) < 0 {
				us = append(us, u)
			}
		}
		for o := 0; o <= cols; o++ {
			for _, d := range []int64{-1, 0, 1} {
				add(new(big.Int).Add(cum, big.NewInt(d)))
			}
			if s.bits > 64 {
				// Same top 64 bits as the prefix sum, random low bits.
				sh := s.bits - 64
				u := new(big.Int).Lsh(new(big.Int).Rsh(cum, sh), sh)
				add(u.Add(u, randBits(rng, sh)))
			}
			if o < cols {
				cum = new(big.Int).Add(cum, w[o])
			}
		}
		add(new(big.Int).Sub(full, big.NewInt(1)))
		for range random {
			add(randBits(rng, s.bits))
		}
		for _, u := range us {
			words := wordsFor(u, s.bits, rng)
			src := &scriptSource{tb: t, words: words}
			got, err := s.try(i, src)
			want, run := -1, new(big.Int)
			for o := range cols {
				run.Add(run, w[o])
				if u.Cmp(run) < 0 {
					want = o
					break
				}
			}
			switch {
			case want < 0 && !errors.Is(err, errRejected):
				t.Fatalf("%s row %d: U = %v >= T = %v gave %d, %v; want a rejection", name, i, u, tot, got, err)
			case want >= 0 && (err != nil || got != want):
				t.Fatalf("%s row %d: U = %v gave %d, %v; want %d", name, i, u, got, err, want)
			case len(src.words) != 0 && len(src.words) != len(words)-1:
				// Either the top word decided, or U was read whole.
				t.Fatalf("%s row %d: U = %v: %d of %d words read", name, i, u, len(words)-len(src.words), len(words))
			}
		}
	}
}

// TestSamplerRealisedPrivate: the truncated geometric mechanism sampled
// through float alias tables realises the levels 0.405,
// 0.693, 0.693, 1.030; through Sampler the realised distribution
// X[i][o]/s_i is eps-private exactly, checked by the brute-force reference
// on the integer weights. The mechanism's float entries formed exactly at
// eps (geometricData) sit within rounding of e^eps and are refused unless
// repaired; TruncatedGeometric (built at BuildLevel(eps)) is sampled as
// given.
func TestSamplerRealisedPrivate(t *testing.T) {
	for _, c := range []struct {
		n   int
		eps float64
	}{{200, 0.2}, {400, 0.1}, {1000, 0.05}, {100, 1}} {
		if testing.Short() && c.n > 200 {
			continue
		}
		l := edgeLine(c.n)
		x := mat.NewDense(c.n, c.n, geometricData(c.n, c.eps))
		if _, err := NewSampler(x, l, c.eps, nil); err == nil || !strings.Contains(err.Error(), "not") {
			t.Errorf("n=%d eps=%v: the tight float matrix was accepted without repair (%v)", c.n, c.eps, err)
		}
		s, err := NewSampler(x, l, c.eps, &SamplerOptions{Repair: true})
		if err != nil {
			t.Fatalf("n=%d eps=%v repair: %v", c.n, c.eps, err)
		}
		if s.Mix() <= 0 || s.Mix() > 0x1p-30 {
			t.Errorf("n=%d eps=%v: mixed γ = %g, want in (0, 2^-30]", c.n, c.eps, s.Mix())
		}
		rows := refRows(c.n, c.n, s.x.At)
		if ref := refPrivate(t, refNormalised(rows), l, c.eps); !ref.private {
			t.Errorf("n=%d eps=%v repaired: realised distribution violates at %v", c.n, c.eps, ref.viol)
		}
		xm, err := TruncatedGeometric(c.n, c.eps, 1)
		if err != nil {
			t.Fatal(err)
		}
		s, err = NewSampler(xm, l, c.eps, nil)
		if err != nil {
			t.Fatalf("n=%d eps=%v with margin: %v", c.n, c.eps, err)
		}
		if s.Mix() != 0 || s.x != xm {
			t.Errorf("n=%d eps=%v with margin: mixed %g", c.n, c.eps, s.Mix())
		}
		if ref := refPrivate(t, refNormalised(refRows(c.n, c.n, xm.At)), l, c.eps); !ref.private {
			t.Errorf("n=%d eps=%v with margin: realised distribution violates at %v", c.n, c.eps, ref.viol)
		}
	}
}

// TestSamplerChiSquare: sample frequencies with a seeded source match
// X[i][o] (Pearson's test at false-alarm rate 1e-6 per row); outputs of
// probability 0 never appear.
func TestSamplerChiSquare(t *testing.T) {
	geo, _ := TruncatedGeometric(6, math.Ln2, 1)
	z := mat.NewDense(2, 4, []float64{0.5, 0, 0.3, 0.2, 0.4, 0, 0.35, 0.25})
	src := SeededSource(20261124)
	for _, c := range []struct {
		x   *mat.Dense
		m   metric.Metric
		eps float64
	}{{geo, reftest.Line(6), math.Ln2}, {z, reftest.Line(2), 0.5}} {
		s, err := NewSampler(c.x, c.m, c.eps, nil)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := c.x.Dims()
		for i := range n {
			refChiSquare(t, fmt.Sprintf("%s row %d", c.m, i), c.x.RawRowView(i), func() int {
				o, err := s.Sample(i, src)
				if err != nil {
					t.Fatal(err)
				}
				return o
			}, 100000)
		}
	}
}

// constSource returns the same word forever.
type constSource uint64

func (c constSource) Uint64() uint64 { return uint64(c) }

func TestSamplerErrors(t *testing.T) {
	x := mat.NewDense(2, 2, []float64{0.5, 0.5, 0.5, 0.5})
	s, err := NewSampler(x, reftest.Line(2), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, want string
		f          func() error
	}{
		{"answer range", "true answer 2 outside 0..1", func() error { _, err := s.Sample(2, SeededSource(1)); return err }},
		{"negative answer", "true answer -1", func() error { _, err := s.Sample(-1, SeededSource(1)); return err }},
		{"nil source", "nil randomness source", func() error { _, err := s.Sample(0, nil); return err }},
		// U = 3 >= T = 2 on every try (K = 1, L = 2).
		{"broken source", "not uniform", func() error { _, err := s.Sample(0, constSource(math.MaxUint64)); return err }},
		{"prob range", "outside", func() error { _, err := s.Prob(0, 2); return err }},
		{"bad matrix", "row 1 sums to", func() error {
			_, err := NewSampler(mat.NewDense(2, 2, []float64{0.5, 0.5, 0.5, 0.6}), reftest.Line(2), 1, nil)
			return err
		}},
		{"nil metric", "nil metric", func() error { _, err := NewSampler(x, nil, 1, nil); return err }},
		{"dims", "metric", func() error { _, err := NewSampler(x, reftest.Line(3), 1, nil); return err }},
		{"eps", "eps must be", func() error { _, err := NewSampler(x, reftest.Line(2), math.NaN(), nil); return err }},
		{"not private", "not 1·d-private", func() error {
			_, err := NewSampler(mat.NewDense(2, 2, []float64{0.9, 0.1, 0.1, 0.9}), reftest.Line(2), 1, nil)
			return err
		}},
		{"budget", "over the memory budget", func() error {
			_, err := NewSampler(x, reftest.Line(2), 1, &SamplerOptions{Settings: run.Settings{Budget: 8}})
			return err
		}},
	} {
		err := c.f()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := NewSampler(mat.NewDense(2, 2, []float64{0.5, 0.5, 0.5, 0.6}), reftest.Line(2), 1, nil); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("bad matrix: %v does not wrap ErrBadInput", err)
	}
	// A mechanism far from private is not repaired by small mixing.
	if _, err := NewSampler(mat.NewDense(2, 2, []float64{1, 0, 0, 1}), reftest.Line(2), 1, &SamplerOptions{Repair: true}); err == nil || !strings.Contains(err.Error(), "did not repair") {
		t.Errorf("identity with repair: %v", err)
	}
}

// BenchmarkExactSample: one draw from a row of 10^4 outcomes, against the
// float alias table (BenchmarkAliasSample).
func BenchmarkExactSample(b *testing.B) {
	x, _ := TruncatedGeometric(1000, 0.05, 1)
	s, err := NewSampler(x, edgeLine(1000), 0.05, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		src  Source
	}{{"crypto", CryptoSource()}, {"seeded", SeededSource(1)}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Sample(500, c.src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

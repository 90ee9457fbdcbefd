package mech

// Drawing reported answers from a noise matrix.

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
)

// Source is a source of uniformly random 64-bit words. Releases use
// CryptoSource; experiments that must be reproducible use SeededSource.
type Source interface {
	// Uint64 returns 64 uniformly random bits.
	Uint64() uint64
}

// CryptoSource returns a Source backed by crypto/rand, the one to use for
// real releases. It is safe for concurrent use.
func CryptoSource() Source { return cryptoSource{} }

type cryptoSource struct{}

// Uint64 reads 8 bytes from crypto/rand (which does not fail on supported
// platforms: the Go runtime aborts rather than return weak randomness).
func (cryptoSource) Uint64() uint64 {
	var b [8]byte
	_, _ = crand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// SeededSource returns a deterministic PCG generator (math/rand/v2) seeded
// with seed, for reproducible experiments and tests. It is predictable and
// must NOT be used for real releases; it is not safe for concurrent use.
func SeededSource(seed uint64) Source {
	return &seededSource{rand.NewPCG(seed, 0x9e3779b97f4a7c15)}
}

// seededSource marks the sources SeededSource returns (see Seeded).
type seededSource struct{ *rand.PCG }

// Seeded reports whether src was returned by SeededSource: a predictable
// generator for reproducible experiments. Samplers that are not exact
// (tight.FreeMechanism on some metrics) accept only such a source, so that
// no real release is drawn from them by mistake.
func Seeded(src Source) bool {
	_, ok := src.(*seededSource)
	return ok
}

// Uniform01 returns a uniform float64 in [0, 1) made of the 53 high bits of
// one draw from src.
func Uniform01(src Source) float64 {
	return float64(src.Uint64()>>11) * 0x1p-53
}

// UniformInt returns a uniform integer in [0, n), n > 0, without modulo bias
// (Lemire's multiply-and-reject).
func UniformInt(src Source, n int) int {
	un := uint64(n)
	hi, lo := bits.Mul64(src.Uint64(), un)
	if lo < un {
		thresh := -un % un
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), un)
		}
	}
	return int(hi)
}

// AliasTable draws from a discrete distribution in O(1) per draw (Walker's
// alias method, built by Vose's algorithm in O(n)). An outcome of
// probability 0 is never drawn; the others are drawn with their probability
// to within about 2^-53 (the resolution of a 53-bit uniform).
//
// It is NOT exact: the realised probabilities are multiples of about
// 2^-53/n, so the realised ratios of two tables can exceed those of the
// distributions they were built from (the truncated geometric mechanism at
// eps = 0.2 on 200 answers realises 0.405 through alias tables;
// TestAliasTableNotExact). Release noise with Sampler, which is exact;
// AliasTable is for experiments and for proposals whose errors are
// corrected exactly elsewhere.
type AliasTable struct {
	prob  []float64 // probability of keeping column k when k is proposed
	alias []int     // the outcome drawn instead
}

// NewAliasTable builds an alias table for the distribution p: entries finite
// and >= 0, summing to 1 within SumTol (p is normalised by its sum).
func NewAliasTable(p []float64) (*AliasTable, error) {
	if len(p) == 0 {
		return nil, fmt.Errorf("mech: alias table: empty distribution")
	}
	if err := ValidateDistribution(p, len(p), "distribution"); err != nil {
		return nil, fmt.Errorf("alias table: %w", err)
	}
	n := len(p)
	sum := 0.0
	for _, v := range p {
		sum += v
	}
	t := &AliasTable{prob: make([]float64, n), alias: make([]int, n)}
	scaled := make([]float64, n)
	var small, large []int
	heaviest := 0
	for k, v := range p {
		scaled[k] = v / sum * float64(n)
		if scaled[k] < 1 {
			small = append(small, k)
		} else {
			large = append(large, k)
		}
		if v > p[heaviest] {
			heaviest = k
		}
		t.alias[k] = k
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		t.prob[s], t.alias[s] = scaled[s], l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// Leftovers have scaled probability 1 up to rounding. A leftover of
	// probability 0 must stay impossible: it defers to the heaviest outcome.
	for _, k := range append(small, large...) {
		if p[k] == 0 {
			t.prob[k], t.alias[k] = 0, heaviest
		} else {
			t.prob[k] = 1
		}
	}
	return t, nil
}

// Len is the number of outcomes.
func (t *AliasTable) Len() int { return len(t.prob) }

// Sample draws an outcome in 0..Len()-1 using two words of src.
func (t *AliasTable) Sample(src Source) int {
	k := UniformInt(src, len(t.prob))
	if Uniform01(src) < t.prob[k] {
		return k
	}
	return t.alias[k]
}

package stream

import (
	"context"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// bruteSens enumerates every subset of [0, n) that is a pattern of s and
// every sign vector in {±1}^π (all 2^|π|), computing sᵀ X s directly.
func bruteSens(x *mat.SymDense, s Schema) float64 {
	n := x.SymmetricDim()
	best := math.Inf(-1)
	for mask := 1; mask < 1<<n; mask++ {
		var p []int
		for i := 0; i < n; i++ {
			if mask>>i&1 == 1 {
				p = append(p, i)
			}
		}
		ok := true
		switch s.Kind {
		case Single:
			ok = len(p) == 1
		case Epochs:
			ok = p[0] < s.B && len(p) == min(s.K, (n-1-p[0])/s.B+1)
			for a := 1; a < len(p) && ok; a++ {
				ok = p[a]-p[a-1] == s.B
			}
		case MinSep:
			ok = len(p) <= s.K
			for a := 1; a < len(p) && ok; a++ {
				ok = p[a]-p[a-1] >= s.B
			}
		}
		if !ok {
			continue
		}
		for sg := 0; sg < 1<<len(p); sg++ {
			v := 0.0
			for a := range p {
				for b := range p {
					sa := 1 - 2*float64(sg>>a&1)
					sb := 1 - 2*float64(sg>>b&1)
					v += sa * sb * x.At(p[a], p[b])
				}
			}
			best = math.Max(best, v)
		}
	}
	_ = bits.Len
	return best
}

// randomGram returns CᵀC for a random n×n lower-triangular C with at most
// bands bands (n = no limit); nonneg draws entries in [0, 1).
func randomGram(r *rand.Rand, n, bands int, nonneg bool) *mat.SymDense {
	c := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := max(0, i-bands+1); j <= i; j++ {
			v := r.Float64()
			if !nonneg {
				v = 2*v - 1
			}
			c.Set(i, j, v)
		}
	}
	x := mat.NewSymDense(n, nil)
	x.SymOuterK(1, c.T())
	return x
}

func TestSensitivityBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	for trial := 0; trial < 40; trial++ {
		n := 4 + r.IntN(9)
		b := 1 + r.IntN(4)
		k := 1 + r.IntN(4)
		bands := n
		if trial%3 == 0 {
			bands = b
		}
		x := randomGram(r, n, bands, trial%2 == 0)
		for _, s := range []Schema{SingleParticipation(), FixedEpochs(k, b), MinSeparation(k, b)} {
			got, err := GramSensitivity(ctx, x, s)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteSens(x, s)
			if math.Abs(got.Sens2-want) > 1e-12*math.Max(1, want) {
				t.Errorf("n=%d %v bands=%d: Sens2 %v (%s), brute force %v", n, s, bands, got.Sens2, got.Method, want)
			}
			// The pattern and signs reported attain the value.
			v := 0.0
			for a, i := range got.Pattern {
				for bb, j := range got.Pattern {
					v += float64(got.Signs[a]*got.Signs[bb]) * x.At(i, j)
				}
			}
			if math.Abs(v-got.Sens2) > 1e-12*math.Max(1, want) {
				t.Errorf("n=%d %v: pattern %v signs %v give %v, reported %v", n, s, got.Pattern, got.Signs, v, got.Sens2)
			}
			if got.Vector2 < got.Sens2-1e-12 || (got.VectorExact && math.Abs(got.Vector2-got.Sens2) > 1e-12*math.Max(1, want)) {
				t.Errorf("n=%d %v: Vector2 %v (exact %v), Sens2 %v", n, s, got.Vector2, got.VectorExact, got.Sens2)
			}
			if trial%2 == 0 && !got.VectorExact {
				t.Errorf("n=%d %v: nonnegative Gram not marked vector-exact", n, s)
			}
		}
	}
}

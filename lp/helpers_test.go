package lp

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/optdp/optdp/lp/ldl"
)

// bandPairs are the privacy constraints of the sum-query metric with band v
// on answers 0..n-1 (i ~ j iff 0 < |i-j| <= v), ratio e^eps on each edge;
// v = 1 is the line.
func bandPairs(n, v int, eps float64) []Pair {
	var ps []Pair
	w := math.Exp(eps)
	for i := 0; i < n; i++ {
		for j := i + 1; j <= i+v && j < n; j++ {
			ps = append(ps, Pair{I: i, H: j, W: w}, Pair{I: j, H: i, W: w})
		}
	}
	return ps
}

// pointsProblem is the distance-gain problem of the planar points (xs,
// ys): C[i][o] = -prior_i d(i, o) and every ordered pair at the ratio
// e^{eps d}.
func pointsProblem(xs, ys, prior []float64, eps float64) *Problem {
	n := len(xs)
	c := make([]float64, n*n)
	var ps []Pair
	for i := 0; i < n; i++ {
		for h := 0; h < n; h++ {
			d := math.Hypot(xs[i]-xs[h], ys[i]-ys[h])
			c[i*n+h] = -prior[i] * d
			if h != i {
				ps = append(ps, Pair{I: i, H: h, W: math.Exp(eps * d)})
			}
		}
	}
	return &Problem{N: n, M: n, C: c, Pairs: ps}
}

// binaryProblem is the binary-gain problem C[i][o] = prior_i [i = o].
func binaryProblem(prior []float64, pairs []Pair) *Problem {
	n := len(prior)
	c := make([]float64, n*n)
	for i, p := range prior {
		c[i*n+i] = p
	}
	return &Problem{N: n, M: n, C: c, Pairs: pairs}
}

// geometricUtility is the binary-gain utility, after the optimal remap, of
// the truncated geometric mechanism on 0..n-1 with alpha = e^{-eps/v}
// (docs/MATH.md §8.1, §6.2): U* = sum_o max_i prior_i G[i][o].
func geometricUtility(prior []float64, eps float64, v int) float64 {
	n := len(prior)
	a := math.Exp(-eps / float64(v))
	var u float64
	for o := 0; o < n; o++ {
		best := 0.0
		for i := 0; i < n; i++ {
			var g float64
			switch {
			case n == 1:
				g = 1
			case o == 0:
				g = math.Pow(a, float64(i)) / (1 + a)
			case o == n-1:
				g = math.Pow(a, float64(n-1-i)) / (1 + a)
			default:
				g = math.Pow(a, math.Abs(float64(i-o))) * (1 - a) / (1 + a)
			}
			best = max(best, prior[i]*g)
		}
		u += best
	}
	return u
}

// randomPrior draws a prior; peaked ones put most mass on a few answers.
func randomPrior(rng *rand.Rand, n int, peaked bool) []float64 {
	p := make([]float64, n)
	var s float64
	for i := range p {
		p[i] = rng.Float64()
		if peaked {
			p[i] = math.Pow(p[i], 12)
		}
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

func uniformPrior(n int) []float64 {
	p := make([]float64, n)
	for i := range p {
		p[i] = 1 / float64(n)
	}
	return p
}

// randomGraphPairs are both orientations of a random connected graph on n
// rows: a path plus extra random edges, ratios in (1.2, 3).
func randomGraphPairs(rng *rand.Rand, n, extra int) []Pair {
	var ps []Pair
	add := func(i, h int) {
		w := 1.2 + 1.8*rng.Float64()
		ps = append(ps, Pair{I: i, H: h, W: w}, Pair{I: h, H: i, W: w})
	}
	for i := 0; i+1 < n; i++ {
		add(i, i+1)
	}
	for range extra {
		i, h := rng.IntN(n), rng.IntN(n)
		if i != h {
			add(i, h)
		}
	}
	return ps
}

// gridEdgePairs are both orientations of the 4-neighbour edges of a w×w
// grid (row-major cells) at ratio w.
func gridEdgePairs(w int, ratio float64) []Pair { return rectEdgePairs(w, w, ratio) }

// mustRCM is ldl.RCM without a deadline (it cannot fail).
func mustRCM(g *ldl.Graph) []int {
	perm, err := ldl.RCM(context.Background(), g)
	if err != nil {
		panic(err)
	}
	return perm
}

// mustFillReducing is ldl.FillReducing without a deadline (it cannot fail).
func mustFillReducing(g *ldl.Graph) ([]int, *ldl.Symbolic) {
	perm, sym, err := ldl.FillReducing(context.Background(), g)
	if err != nil {
		panic(err)
	}
	return perm, sym
}

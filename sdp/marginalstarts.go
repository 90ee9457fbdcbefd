package sdp

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// The weighted-marginals objective (marginalSpectrum.eval) is not convex in
// θ: from dense random starts L-BFGS ends at the identity on all 2-way
// marginals of 8 binary attributes, while weighted unions of a few large
// marginals are 20% better. optimizeWeights therefore also starts from
// covering designs and sparse random unions (docs/MATH.md §15.10).

// neededMasks returns the masks T with h[T] > 0 that are maximal among
// them: a strategy [θ_S M_S] supports the workload exactly when every one of
// them lies in some S with θ_S > 0 (λ_T > 0 then holds for every T ⊆ S).
func neededMasks(h []float64, d int) []uint {
	var need []uint
	for m := range h {
		if !(h[m] > 0) {
			continue
		}
		maximal := true
		for f := 0; f < d && maximal; f++ {
			if sup := m | 1<<f; sup != m && h[sup] > 0 {
				maximal = false
			}
		}
		if maximal {
			need = append(need, uint(m))
		}
	}
	return need
}

// covered reports whether the mask m lies in a marginal S with θ_S > 0.
func covered(theta []float64, m uint) bool {
	for s, w := range theta {
		if w > 0 && m&uint(s) == m {
			return true
		}
	}
	return false
}

// coverStart returns the weights of a covering design: marginals of b
// attributes (or a needed mask itself when it has more) chosen greedily,
// each from a random uncovered needed mask, adding the attribute that
// covers the most uncovered needed masks (ties at random), until every
// needed mask lies in one of them; weight 1 on each.
func coverStart(need []uint, d, b int, rng *rand.Rand) []float64 {
	theta := make([]float64, 1<<d)
	covered := make([]bool, len(need))
	left := len(need)
	for left > 0 {
		k := rng.IntN(left)
		var s uint
		for i, m := range need {
			if !covered[i] {
				if k == 0 {
					s = m
					break
				}
				k--
			}
		}
		for bits.OnesCount(s) < b {
			best, bestN, ties := -1, -1, 0
			for f := 0; f < d; f++ {
				if s>>f&1 == 1 {
					continue
				}
				t, c := s|1<<f, 0
				for i, m := range need {
					if !covered[i] && m&t == m {
						c++
					}
				}
				switch {
				case c > bestN:
					best, bestN, ties = f, c, 1
				case c == bestN:
					ties++
					if rng.IntN(ties) == 0 {
						best = f
					}
				}
			}
			s |= 1 << best
		}
		theta[s] = 1
		for i, m := range need {
			if !covered[i] && m&s == m {
				covered[i] = true
				left--
			}
		}
	}
	return theta
}

// partitionStart returns the design of unions of parts: the attributes
// are split into t parts of about equal numbers of cells (largest
// attribute first into the part with fewest cells, after a random
// shuffle), and the marginal on the union of every k of the t parts gets
// weight 1 (k < t; for k = t-1, the complements of the parts). A needed
// mask of at most k attributes meets at most k parts and lies in the union
// of k parts containing them; needed masks left uncovered are added as
// they are. On all 2-way marginals of 8 binary attributes, t = 3 (parts of
// 3, 3 and 2 attributes; marginals on 5, 5 and 6) is the best design found
// (TSE 11,497.88 at eps = 1; HDMM's OPT_M 13,582.82); on 12 binary
// attributes t = 4 (six marginals on 6 attributes).
func partitionStart(need []uint, dims []int, t, k int, rng *rand.Rand) []float64 {
	d := len(dims)
	order := rng.Perm(d)
	slices.SortStableFunc(order, func(a, b int) int { return dims[b] - dims[a] })
	load := make([]float64, t)
	parts := make([]uint, t)
	for _, f := range order {
		k := 0
		for i := range load {
			if load[i] < load[k] {
				k = i
			}
		}
		load[k] += math.Log(float64(max(dims[f], 2)))
		parts[k] |= 1 << f
	}
	theta := make([]float64, 1<<d)
	var unions func(from, left int, acc uint)
	unions = func(from, left int, acc uint) {
		if left == 0 {
			theta[acc] = 1
			return
		}
		for i := from; i <= t-left; i++ {
			unions(i+1, left-1, acc|parts[i])
		}
	}
	unions(0, k, 0)
	for _, m := range need {
		if !covered(theta, m) {
			theta[m] = 1
		}
	}
	return theta
}

// sparseStart returns a random sparse union: a few (1 to 12) marginals,
// each a random needed mask extended by random attributes to a random size
// between its own and d, with weights uniform in [0.1, 1.1); needed masks
// still uncovered are then extended the same way, so the start supports
// the workload.
func sparseStart(need []uint, d int, rng *rand.Rand) []float64 {
	theta := make([]float64, 1<<d)
	extend := func(m uint) uint {
		size := bits.OnesCount(m) + rng.IntN(d-bits.OnesCount(m)+1)
		for bits.OnesCount(m) < size {
			m |= 1 << rng.IntN(d)
		}
		return m
	}
	k := 1 + rng.IntN(12)
	for i := 0; i < k; i++ {
		theta[extend(need[rng.IntN(len(need))])] = 0.1 + rng.Float64()
	}
	for _, m := range need {
		if !covered(theta, m) {
			theta[extend(m)] = 0.1 + rng.Float64()
		}
	}
	return theta
}

// weighted is one marginal S of a sparse union with its weight θ_S.
type weighted struct {
	s uint
	w float64
}

// denseTheta returns the sparse union u as a dense θ of 2^d entries.
func denseTheta(u []weighted, d int) []float64 {
	theta := make([]float64, 1<<d)
	for _, x := range u {
		theta[x.s] += x.w
	}
	return theta
}

// neighbours returns the sparse unions next to the support of θ: each
// marginal S of the support (θ_S above 1e-6 of the largest weight)
// replaced by S plus one attribute, by S less one attribute, or dropped,
// then S with one attribute swapped for another, the other weights kept;
// unions that leave a needed mask uncovered are skipped. They are sparse
// (denseTheta makes one dense when it is run), so that the O(|supp| d²)
// neighbours of a point on 16 attributes do not take 2^16 entries each.
func neighbours(theta []float64, need []uint, d int) [][]weighted {
	top := 0.0
	for _, w := range theta {
		top = max(top, w)
	}
	var base []weighted
	for m, w := range theta {
		if w > 1e-6*top {
			base = append(base, weighted{uint(m), w})
		}
	}
	var out [][]weighted
	// with adds base with entry i replaced by the marginal s (dropped
	// when keep is false), if the result supports the workload.
	with := func(i int, s uint, keep bool) {
		u := make([]weighted, 0, len(base))
		for j, x := range base {
			if j != i {
				u = append(u, x)
			}
		}
		if keep {
			u = append(u, weighted{s, base[i].w})
		}
		for _, m := range need {
			ok := false
			for _, x := range u {
				if m&x.s == m {
					ok = true
					break
				}
			}
			if !ok {
				return
			}
		}
		out = append(out, u)
	}
	for i, x := range base {
		for f := 0; f < d; f++ {
			with(i, x.s^1<<f, true)
		}
		with(i, 0, false)
	}
	for i, x := range base {
		for f := 0; f < d; f++ {
			for g := 0; g < d; g++ {
				if x.s>>f&1 == 1 && x.s>>g&1 == 0 {
					with(i, x.s^1<<f^1<<g, true)
				}
			}
		}
	}
	return out
}

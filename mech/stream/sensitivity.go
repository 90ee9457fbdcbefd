package stream

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// Sensitivity is the sensitivity of a strategy C (through its Gram
// X = CᵀC) under a participation schema.
type Sensitivity struct {
	// Sens2 is the squared L2 sensitivity for scalar contributions
	// (|Δx_t| <= 1 on the steps of one pattern):
	//
	//	Sens2 = max_π max_{s ∈ {±1}^π} sᵀ X_ππ s,
	//
	// exact (the maximum of the convex sᵀ X s over the box [-1, 1]^π is at
	// a vertex). Pattern and Signs attain it.
	Sens2   float64
	Pattern []int
	Signs   []int
	// Vector2 bounds the squared sensitivity for vector contributions
	// (‖g_t‖₂ <= 1): max_π Σ_{i,j∈π} |X_ij|. VectorExact reports that it
	// equals the vector sensitivity, and then Sens2 = Vector2: the entries
	// X_ij of every pair that can share a pattern are >= 0 (then g_t all
	// equal is optimal), or every such pair has X_ij = 0 (orthogonal
	// columns: ‖Σ C_t g_t‖² = Σ ‖C_t‖² ‖g_t‖²), or the bound is attained
	// by a sign vector (Vector2 = Sens2).
	Vector2     float64
	VectorExact bool
	// Method names the algorithm: "diagonal" (Single), "enumeration"
	// (Epochs: the b patterns times 2^(k-1) signs), "banded dp" (MinSep
	// with X_ij = 0 for |i-j| >= b, so no pair in a pattern interacts: a
	// dynamic programme over the diagonal), "branch and bound" (MinSep on
	// a dense X).
	Method string
	// Patterns counts the patterns (or search nodes) examined.
	Patterns int64
}

// maxSignBits bounds the participations per pattern whose 2^(k-1) sign
// vectors are enumerated.
const maxSignBits = 22

// maxNodes bounds the branch-and-bound nodes of a MinSep sensitivity.
const maxNodes = 200_000_000

// GramSensitivity returns the exact sensitivity of any strategy C with
// CᵀC = x under schema s (x is n×n symmetric positive semidefinite).
//
// Single: max_i X_ii. Epochs: every pattern π_j and every sign vector (s
// and -s give the same value) is enumerated, b·2^(k-1)·k² operations.
// MinSep: when X_ij = 0 for every pair i ≠ j at least b apart (C with at
// most b bands), the cross terms vanish and Sens2 = max_π Σ_{i∈π} X_ii by
// a dynamic programme over the steps (O(n·k)); otherwise a depth-first
// branch and bound over the patterns (steps in increasing order, bound:
// the value of the |X| relaxation of any completion) with the signs
// enumerated at every node; it refuses with run.ErrTooLarge after
// maxNodes nodes.
func GramSensitivity(ctx context.Context, x mat.Symmetric, s Schema) (*Sensitivity, error) {
	n := x.SymmetricDim()
	if err := s.Check(n); err != nil {
		return nil, err
	}
	switch {
	case s.Kind == Single || (s.Kind == MinSep && s.K == 1):
		best, arg := math.Inf(-1), 0
		for i := 0; i < n; i++ {
			if v := x.At(i, i); v > best {
				best, arg = v, i
			}
		}
		return &Sensitivity{Sens2: best, Pattern: []int{arg}, Signs: []int{1}, Vector2: best, VectorExact: true, Method: "diagonal", Patterns: int64(n)}, nil
	case s.Kind == Epochs:
		return epochSensitivity(x, s)
	}
	if zeroBeyond(x, s.B) {
		return bandedSensitivity(diagOf(x), s), nil
	}
	return branchSensitivity(ctx, x, s)
}

// diagOf returns the diagonal of x.
func diagOf(x mat.Symmetric) []float64 {
	d := make([]float64, x.SymmetricDim())
	for i := range d {
		d[i] = x.At(i, i)
	}
	return d
}

// zeroBeyond reports X_ij = 0 for all |i-j| >= b.
func zeroBeyond(x mat.Symmetric, b int) bool {
	n := x.SymmetricDim()
	for i := 0; i < n; i++ {
		for j := i + b; j < n; j++ {
			if x.At(i, j) != 0 {
				return false
			}
		}
	}
	return true
}

// patternValue returns max_{s ∈ {±1}^p} sᵀ X_pp s with a maximising s
// (s_0 = +1), by enumerating the 2^(|p|-1) sign vectors in Gray-code
// order (each step updates the value in O(|p|)), and Σ_{i,j∈p} |X_ij|.
func patternValue(x mat.Symmetric, p []int, sub []float64) (best float64, signs []int, abs float64) {
	k := len(p)
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			v := x.At(p[a], p[b])
			sub[a*k+b] = v
			abs += math.Abs(v)
		}
	}
	s := make([]int, k)
	for i := range s {
		s[i] = 1
	}
	// r[a] = Σ_b X_ab s_b; value = Σ_a s_a r[a].
	r := make([]float64, k)
	val := 0.0
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			r[a] += sub[a*k+b]
		}
		val += r[a]
	}
	best = val
	signs = append([]int(nil), s...)
	for g := 1; g < 1<<(k-1); g++ {
		// flip sign of element a = 1 + (index of the lowest set bit of g).
		a := 1
		for t := g; t&1 == 0; t >>= 1 {
			a++
		}
		// value change when s_a -> -s_a: -4 s_a r[a] + 4 X_aa.
		val += -4*float64(s[a])*r[a] + 4*sub[a*k+a]
		for b := 0; b < k; b++ {
			r[b] -= 2 * float64(s[a]) * sub[b*k+a]
		}
		s[a] = -s[a]
		if val > best {
			best = val
			copy(signs, s)
		}
	}
	return best, signs, abs
}

// epochSensitivity enumerates the b patterns of a fixed-epochs schema.
func epochSensitivity(x mat.Symmetric, s Schema) (*Sensitivity, error) {
	n := x.SymmetricDim()
	if min(s.K, (n+s.B-1)/s.B) > maxSignBits {
		return nil, fmt.Errorf("stream: sensitivity under %v: %d participations per pattern, more than the %d whose signs are enumerated: %w", s, s.K, maxSignBits, run.ErrTooLarge)
	}
	res := &Sensitivity{Sens2: math.Inf(-1), Method: "enumeration", VectorExact: true}
	sub := make([]float64, s.K*s.K)
	for _, p := range s.EpochPatterns(n) {
		v, signs, abs := patternValue(x, p, sub)
		res.Patterns++
		if v > res.Sens2 {
			res.Sens2, res.Pattern, res.Signs = v, p, signs
		}
		res.Vector2 = math.Max(res.Vector2, abs)
		for a := range p {
			for b := a + 1; b < len(p); b++ {
				if x.At(p[a], p[b]) < 0 {
					res.VectorExact = false
				}
			}
		}
	}
	if !res.VectorExact && (allZeroPairs(x, s.EpochPatterns(n)) || res.Vector2 <= res.Sens2) {
		res.VectorExact = true // the upper bound is attained
	}
	return res, nil
}

// allZeroPairs reports X_ij = 0 for every pair i ≠ j within a pattern.
func allZeroPairs(x mat.Symmetric, ps [][]int) bool {
	for _, p := range ps {
		for a := range p {
			for b := a + 1; b < len(p); b++ {
				if x.At(p[a], p[b]) != 0 {
					return false
				}
			}
		}
	}
	return true
}

// bandedSensitivity is the MinSep sensitivity of a Gram whose entries
// vanish at distance >= b (d its diagonal): max over patterns of Σ_{i∈π}
// d_i, by the dynamic programme f[c][i] = best sum of c picks among steps
// 0..i, f[c][i] = max(f[c][i-1], d_i + f[c-1][i-b]). It is exact for
// scalar and vector contributions (the cross terms are zero).
func bandedSensitivity(d []float64, s Schema) *Sensitivity {
	n := len(d)
	k := s.K
	prev := make([]float64, n) // f[c-1][·]
	cur := make([]float64, n)
	choice := make([][]bool, k+1)
	best, bestC := math.Inf(-1), 0
	for c := 1; c <= k; c++ {
		choice[c] = make([]bool, n)
		for i := 0; i < n; i++ {
			take := d[i]
			if c > 1 {
				if i-s.B < 0 {
					take = math.Inf(-1)
				} else {
					take += prev[i-s.B]
				}
			}
			skip := math.Inf(-1)
			if i > 0 {
				skip = cur[i-1]
			}
			if take >= skip {
				cur[i], choice[c][i] = take, true
			} else {
				cur[i] = skip
			}
		}
		if cur[n-1] > best {
			best, bestC = cur[n-1], c
		}
		prev, cur = cur, prev
	}
	// Recover a pattern by re-running the choices backwards.
	var p []int
	i := n - 1
	for c := bestC; c >= 1 && i >= 0; {
		if choice[c][i] {
			p = append(p, i)
			i -= s.B
			c--
		} else {
			i--
		}
	}
	sort.Ints(p)
	signs := make([]int, len(p))
	for i := range signs {
		signs[i] = 1
	}
	return &Sensitivity{Sens2: best, Pattern: p, Signs: signs, Vector2: best, VectorExact: true, Method: "banded dp", Patterns: int64(n * k)}
}

// branchSensitivity is the MinSep sensitivity of a dense Gram: a
// depth-first search over patterns p_1 < p_2 < ... (gaps >= b, at most k
// steps) that evaluates every node exactly (patternValue) and prunes a
// subtree when the |X| relaxation of its best completion cannot beat the
// best exact value found: with r = k - |π| steps still to add from the
// candidates j > last + b - 1, any completion π' satisfies
//
//	max_s sᵀ X_π'π' s <= Σ_{π'}|X_ij| <= U(π) + (top r of a_j) + r(r-1)·m,
//
// a_j = |X_jj| + 2 Σ_{i∈π} |X_ij|, m = the largest |X_ij| at distance >= b.
// Vector2 (max_π Σ|X_ππ|) is found by the same search on |X|.
func branchSensitivity(ctx context.Context, x mat.Symmetric, s Schema) (*Sensitivity, error) {
	n := x.SymmetricDim()
	if s.K > maxSignBits {
		return nil, fmt.Errorf("stream: sensitivity under %v: k = %d, more than the %d whose signs are enumerated: %w", s, s.K, maxSignBits, run.ErrTooLarge)
	}
	ax := mat.NewSymDense(n, nil)
	m := 0.0
	nonneg := true
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := x.At(i, j)
			ax.SetSym(i, j, math.Abs(v))
			if j-i >= s.B {
				m = math.Max(m, math.Abs(v))
				if v < 0 {
					nonneg = false
				}
			}
		}
	}
	res, err := branchSearch(ctx, x, ax, m, s, nonneg)
	if err != nil {
		return nil, err
	}
	res.VectorExact = nonneg
	if nonneg {
		res.Vector2 = res.Sens2
		return res, nil
	}
	abs, err := branchSearch(ctx, ax, ax, m, s, true)
	if err != nil {
		return nil, err
	}
	res.Vector2 = abs.Sens2
	res.VectorExact = res.Vector2 <= res.Sens2 // the upper bound is attained
	res.Patterns += abs.Patterns
	return res, nil
}

// branchSearch runs the search of branchSensitivity on x with the
// relaxation ax = |x|; nonnegOnly skips the sign enumeration (x >= 0).
func branchSearch(ctx context.Context, x, ax mat.Symmetric, m float64, s Schema, nonnegOnly bool) (*Sensitivity, error) {
	n := x.SymmetricDim()
	k := s.K
	res := &Sensitivity{Sens2: math.Inf(-1), Method: "branch and bound"}
	sub := make([]float64, k*k)
	pat := make([]int, 0, k)
	scores := make([]float64, 0, n)
	var visit func(uAbs float64) error
	visit = func(uAbs float64) error {
		res.Patterns++
		if res.Patterns > maxNodes {
			return fmt.Errorf("stream: sensitivity under %v on n = %d: more than %d branch-and-bound nodes: %w", s, n, maxNodes, run.ErrTooLarge)
		}
		if res.Patterns%(1<<16) == 0 && ctx.Err() != nil {
			return fmt.Errorf("stream: sensitivity: %w", ctx.Err())
		}
		if len(pat) > 0 {
			var v float64
			var signs []int
			if nonnegOnly {
				v, signs = uAbs, ones(len(pat))
			} else {
				v, signs, _ = patternValue(x, pat, sub[:len(pat)*len(pat)])
			}
			if v > res.Sens2 {
				res.Sens2, res.Pattern, res.Signs = v, append([]int(nil), pat...), signs
			}
		}
		r := k - len(pat)
		if r == 0 {
			return nil
		}
		start := 0
		if len(pat) > 0 {
			start = pat[len(pat)-1] + s.B
		}
		if start >= n {
			return nil
		}
		// a_j for the candidates, and the bound from the top r of them.
		scores = scores[:0]
		a := make([]float64, n-start)
		for j := start; j < n; j++ {
			v := ax.At(j, j)
			for _, i := range pat {
				v += 2 * ax.At(i, j)
			}
			a[j-start] = v
			scores = append(scores, v)
		}
		if len(pat) > 0 {
			sort.Sort(sort.Reverse(sort.Float64Slice(scores)))
			bound := uAbs
			for t := 0; t < r && t < len(scores); t++ {
				bound += scores[t]
			}
			bound += float64(r*(r-1)) * m
			if bound <= res.Sens2 {
				return nil
			}
		}
		for j := start; j < n; j++ {
			pat = append(pat, j)
			err := visit(uAbs + a[j-start])
			pat = pat[:len(pat)-1]
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(0); err != nil {
		return nil, err
	}
	res.Vector2 = res.Sens2
	return res, nil
}

// ones returns k ones.
func ones(k int) []int {
	s := make([]int, k)
	for i := range s {
		s[i] = 1
	}
	return s
}

package metric

import (
	"fmt"
	"iter"
	"math"
	"math/bits"
	"strconv"

	"github.com/optdp/optdp/run"
)

// LineMetric is the path 0 - 1 - ... - n-1: d(i,j) = |i-j|. The counting
// query on u records has the answers 0..u, i.e. Line(u+1).
type LineMetric struct{ n int }

var (
	_ Graph   = (*LineMetric)(nil)
	_ Lattice = (*LineMetric)(nil)
)

// Line returns the path metric on n >= 1 answers.
func Line(n int) (*LineMetric, error) {
	if n < 1 || n > MaxAnswers {
		return nil, run.BadInputf("line: n must be in 1..2^53, got %d", n)
	}
	return &LineMetric{n: n}, nil
}

// Len is n.
func (l *LineMetric) Len() int { return l.n }

// Dist is |i-j|.
func (l *LineMetric) Dist(i, j int) float64 { return float64(absInt(i - j)) }

// String is "line:n=N".
func (l *LineMetric) String() string { return "line:n=" + strconv.Itoa(l.n) }

// Edges yields (i, i+1).
func (l *LineMetric) Edges() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i+1 < l.n; i++ {
			if !yield(i, i+1) {
				return
			}
		}
	}
}

// Dims is [n].
func (l *LineMetric) Dims() []int { return []int{l.n} }

// Offset is |delta[0]|.
func (l *LineMetric) Offset(delta []int) float64 { return float64(absInt(delta[0])) }

// RingMetric is the cycle Z_n: d(i,j) = min(|i-j|, n-|i-j|).
type RingMetric struct{ n int }

var (
	_ Graph         = (*RingMetric)(nil)
	_ BallSymmetric = (*RingMetric)(nil)
)

// Ring returns the cycle metric on n >= 1 answers (n = 2 is a single edge).
func Ring(n int) (*RingMetric, error) {
	if n < 1 || n > MaxAnswers {
		return nil, run.BadInputf("ring: n must be in 1..2^53, got %d", n)
	}
	return &RingMetric{n: n}, nil
}

// Len is n.
func (r *RingMetric) Len() int { return r.n }

// Dist is min(|i-j|, n-|i-j|).
func (r *RingMetric) Dist(i, j int) float64 {
	d := absInt(i - j)
	return float64(min(d, r.n-d))
}

// String is "ring:n=N".
func (r *RingMetric) String() string { return "ring:n=" + strconv.Itoa(r.n) }

// Edges yields (i, i+1) and, for n > 2, (0, n-1).
func (r *RingMetric) Edges() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i+1 < r.n; i++ {
			if !yield(i, i+1) {
				return
			}
		}
		if r.n > 2 {
			yield(0, r.n-1)
		}
	}
}

// BallSizes is n_0 = 1, n_r = 2 for 0 < r < n/2, and n_{n/2} = 1 for even n;
// nil when n/2+1 > MaxBallSizes.
func (r *RingMetric) BallSizes() []int {
	if r.n/2+1 > MaxBallSizes {
		return nil
	}
	s := make([]int, r.n/2+1)
	s[0] = 1
	for k := 1; k < len(s); k++ {
		s[k] = 2
	}
	if r.n%2 == 0 && r.n > 0 && len(s) > 1 {
		s[len(s)-1] = 1
	}
	return s
}

// CliqueMetric is the complete graph K_n: d(i,j) = 1 for i != j.
type CliqueMetric struct{ n int }

var (
	_ Graph         = (*CliqueMetric)(nil)
	_ BallSymmetric = (*CliqueMetric)(nil)
)

// Clique returns the complete-graph metric on n >= 1 answers.
func Clique(n int) (*CliqueMetric, error) {
	if n < 1 || n > MaxAnswers {
		return nil, run.BadInputf("clique: n must be in 1..2^53, got %d", n)
	}
	return &CliqueMetric{n: n}, nil
}

// Len is n.
func (c *CliqueMetric) Len() int { return c.n }

// Dist is 1 off the diagonal.
func (c *CliqueMetric) Dist(i, j int) float64 {
	if i == j {
		return 0
	}
	return 1
}

// String is "clique:n=N".
func (c *CliqueMetric) String() string { return "clique:n=" + strconv.Itoa(c.n) }

// Edges yields every pair i < j.
func (c *CliqueMetric) Edges() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i < c.n; i++ {
			for j := i + 1; j < c.n; j++ {
				if !yield(i, j) {
					return
				}
			}
		}
	}
}

// BallSizes is [1, n-1] (just [1] for n = 1).
func (c *CliqueMetric) BallSizes() []int {
	if c.n == 1 {
		return []int{1}
	}
	return []int{1, c.n - 1}
}

// SumMetric is the sum query of u values in 0..v: answers 0..u·v, adjacent
// when |i-j| <= v, so d(i,j) = ceil(|i-j|/v) (a banded graph).
type SumMetric struct{ u, v int }

var (
	_ Graph   = (*SumMetric)(nil)
	_ Lattice = (*SumMetric)(nil)
)

// Sum returns the sum-query metric for u >= 1 records with values in 0..v,
// v >= 1.
func Sum(u, v int) (*SumMetric, error) {
	if u < 1 || v < 1 {
		return nil, run.BadInputf("sum: u and v must be >= 1, got u=%d v=%d", u, v)
	}
	hi, lo := bits.Mul64(uint64(u), uint64(v))
	if hi != 0 || lo >= MaxAnswers {
		return nil, run.BadInputf("sum: u·v+1 answers for u=%d v=%d exceeds 2^53", u, v)
	}
	return &SumMetric{u: u, v: v}, nil
}

// Len is u·v+1.
func (s *SumMetric) Len() int { return s.u*s.v + 1 }

// Dist is ceil(|i-j|/v).
func (s *SumMetric) Dist(i, j int) float64 { return float64(ceilDiv(absInt(i-j), s.v)) }

// String is "sum:u=U,v=V".
func (s *SumMetric) String() string { return fmt.Sprintf("sum:u=%d,v=%d", s.u, s.v) }

// Edges yields (i, j) for 0 < j-i <= v.
func (s *SumMetric) Edges() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		n := s.Len()
		for i := 0; i < n; i++ {
			for j := i + 1; j <= i+s.v && j < n; j++ {
				if !yield(i, j) {
					return
				}
			}
		}
	}
}

// Dims is [u·v+1].
func (s *SumMetric) Dims() []int { return []int{s.Len()} }

// Offset is ceil(|delta[0]|/v).
func (s *SumMetric) Offset(delta []int) float64 {
	return float64(ceilDiv(absInt(delta[0]), s.v))
}

// KCountMetric is k counting queries over u records: answers {0..u}^k in
// row-major order, adjacent when every coordinate differs by at most 1, so d
// is the Chebyshev distance (king moves for k = 2).
type KCountMetric struct {
	u, k int
	side int // u+1
	n    int
}

var (
	_ Graph   = (*KCountMetric)(nil)
	_ Lattice = (*KCountMetric)(nil)
)

// KCount returns the k-count metric for u >= 1 records and k >= 1 queries.
func KCount(u, k int) (*KCountMetric, error) {
	if u < 1 || k < 1 {
		return nil, run.BadInputf("kcount: u and k must be >= 1, got u=%d k=%d", u, k)
	}
	n, ok := powInt(u+1, k)
	if !ok {
		return nil, run.BadInputf("kcount: (u+1)^k answers for u=%d k=%d exceeds 2^53", u, k)
	}
	return &KCountMetric{u: u, k: k, side: u + 1, n: n}, nil
}

// Len is (u+1)^k.
func (m *KCountMetric) Len() int { return m.n }

// Dist is the Chebyshev distance between the base-(u+1) digit vectors.
func (m *KCountMetric) Dist(i, j int) float64 {
	d := 0
	for c := 0; c < m.k; c++ {
		d = max(d, absInt(i%m.side-j%m.side))
		i /= m.side
		j /= m.side
	}
	return float64(d)
}

// String is "kcount:u=U,k=K".
func (m *KCountMetric) String() string { return fmt.Sprintf("kcount:u=%d,k=%d", m.u, m.k) }

// Edges yields every pair i < j at Chebyshev distance 1, in increasing
// (i, j) order. The neighbours of i are enumerated by an odometer over the
// coordinates' valid ranges [c-1, c+1] ∩ [0, u], so memory is O(k) (the
// 3^k offsets were materialised before: 650 MB for k = 14).
func (m *KCountMetric) Edges() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		coord := make([]int, m.k)
		lo := make([]int, m.k)
		hi := make([]int, m.k)
		x := make([]int, m.k)
		for i := 0; i < m.n; i++ {
			// coord in row-major: coord[0] slowest.
			t := i
			for c := m.k - 1; c >= 0; c-- {
				coord[c] = t % m.side
				t /= m.side
				lo[c], hi[c] = max(coord[c]-1, 0), min(coord[c]+1, m.side-1)
				x[c] = lo[c]
			}
			for {
				j := 0
				for c := 0; c < m.k; c++ {
					j = j*m.side + x[c]
				}
				if j > i && !yield(i, j) {
					return
				}
				c := m.k - 1
				for ; c >= 0; c-- {
					if x[c] < hi[c] {
						x[c]++
						break
					}
					x[c] = lo[c]
				}
				if c < 0 {
					break
				}
			}
		}
	}
}

// Dims is [u+1, ..., u+1] (k times).
func (m *KCountMetric) Dims() []int {
	d := make([]int, m.k)
	for c := range d {
		d[c] = m.side
	}
	return d
}

// Offset is max_c |delta[c]|.
func (m *KCountMetric) Offset(delta []int) float64 {
	d := 0
	for _, x := range delta {
		d = max(d, absInt(x))
	}
	return float64(d)
}

// HammingMetric is the database space Val^u with |Val| = v and the Hamming
// distance (docs/MATH.md §2.1, §7). Database x has index Σ_c x_c v^{u-1-c}
// (row-major, individual 0 slowest). Len may be huge (v^u up to 2^53): the
// metric is symbolic and never allocates anything of size v^u; operations
// needing a dense n×n matrix refuse with a memory error.
type HammingMetric struct {
	u, v, n int
}

var (
	_ Graph         = (*HammingMetric)(nil)
	_ Separable     = (*HammingMetric)(nil)
	_ BallSymmetric = (*HammingMetric)(nil)
)

// Hamming returns the Hamming metric on v^u databases, u >= 1, v >= 2.
func Hamming(u, v int) (*HammingMetric, error) {
	if u < 1 || v < 2 {
		return nil, run.BadInputf("hamming: need u >= 1 and v >= 2, got u=%d v=%d", u, v)
	}
	n, ok := powInt(v, u)
	if !ok {
		return nil, run.BadInputf("hamming: v^u databases for u=%d v=%d exceeds 2^53", u, v)
	}
	return &HammingMetric{u: u, v: v, n: n}, nil
}

// U is the number of individuals.
func (h *HammingMetric) U() int { return h.u }

// V is the number of values per individual.
func (h *HammingMetric) V() int { return h.v }

// Len is v^u.
func (h *HammingMetric) Len() int { return h.n }

// Dist is the number of individuals whose values differ.
func (h *HammingMetric) Dist(i, j int) float64 {
	d := 0
	for c := 0; c < h.u; c++ {
		if i%h.v != j%h.v {
			d++
		}
		i /= h.v
		j /= h.v
	}
	return float64(d)
}

// String is "hamming:u=U,v=V".
func (h *HammingMetric) String() string { return fmt.Sprintf("hamming:u=%d,v=%d", h.u, h.v) }

// Edges yields every pair of databases differing in one individual.
func (h *HammingMetric) Edges() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i < h.n; i++ {
			p := 1
			for c := 0; c < h.u; c++ {
				digit := (i / p) % h.v
				for x := digit + 1; x < h.v; x++ {
					if !yield(i, i+(x-digit)*p) {
						return
					}
				}
				p *= h.v
			}
		}
	}
}

// Factors is u copies of Clique(v) (nil when u = 1).
func (h *HammingMetric) Factors() []Metric {
	if h.u < 2 {
		return nil
	}
	f := make([]Metric, h.u)
	for c := range f {
		f[c] = &CliqueMetric{n: h.v}
	}
	return f
}

// BallSizes is n_r = C(u,r)·(v-1)^r for r = 0..u.
func (h *HammingMetric) BallSizes() []int {
	s := make([]int, h.u+1)
	for r := range s {
		s[r] = binom(h.u, r) * ipow(h.v-1, r)
	}
	return s
}

// Norm selects a grid's distance.
type Norm int

// The norms of a grid.
const (
	Euclid Norm = iota
	Manhattan
	Chebyshev
)

// String is the norm's spec name.
func (n Norm) String() string {
	switch n {
	case Euclid:
		return "euclid"
	case Manhattan:
		return "manhattan"
	case Chebyshev:
		return "chebyshev"
	}
	return "norm(" + strconv.Itoa(int(n)) + ")"
}

// ParseNorm parses "euclid", "manhattan" or "chebyshev".
func ParseNorm(s string) (Norm, error) {
	switch s {
	case "euclid", "euclidean":
		return Euclid, nil
	case "manhattan":
		return Manhattan, nil
	case "chebyshev":
		return Chebyshev, nil
	}
	return 0, run.BadInputf("unknown norm %q (want euclid, manhattan or chebyshev)", s)
}

// GridMetric is a w×h grid of locations with spacing step (km): point
// (x, y) has index y·w + x and d = step·norm(dx, dy) in km. Scale by eps per
// km: dY = eps·d (geo-indistinguishability, docs/MATH.md §1.4).
type GridMetric struct {
	w, h int
	step float64
	norm Norm
	box  *GeoBox // the map area, nil for a grid not laid on a map (geo.go)
}

var (
	_ Lattice   = (*GridMetric)(nil)
	_ Separable = (*GridMetric)(nil)
)

// Grid returns the w×h grid metric with spacing step > 0 and the given norm.
func Grid(w, h int, step float64, norm Norm) (*GridMetric, error) {
	if w < 1 || h < 1 {
		return nil, run.BadInputf("grid: w and h must be >= 1, got w=%d h=%d", w, h)
	}
	if !(step > 0) || math.IsInf(step, 0) {
		return nil, run.BadInputf("grid: step must be a finite number > 0, got %v", step)
	}
	if norm < Euclid || norm > Chebyshev {
		return nil, run.BadInputf("grid: unknown norm %v", norm)
	}
	hi, lo := bits.Mul64(uint64(w), uint64(h))
	if hi != 0 || lo > MaxAnswers {
		return nil, run.BadInputf("grid: w·h answers for w=%d h=%d exceeds 2^53", w, h)
	}
	return &GridMetric{w: w, h: h, step: step, norm: norm}, nil
}

// Len is w·h.
func (g *GridMetric) Len() int { return g.w * g.h }

// Dist is step·norm(dx, dy) in km.
func (g *GridMetric) Dist(i, j int) float64 {
	return g.Offset([]int{i/g.w - j/g.w, i%g.w - j%g.w})
}

// String is "grid:w=W,h=H,step=S,norm=N", followed by ",bbox=S,W,N,E" for
// a grid on a map (GeoGrid).
func (g *GridMetric) String() string {
	s := fmt.Sprintf("grid:w=%d,h=%d,step=%s,norm=%s", g.w, g.h,
		strconv.FormatFloat(g.step, 'g', -1, 64), g.norm)
	if g.box != nil {
		s += ",bbox=" + g.box.String()
	}
	return s
}

// Step is the grid spacing in km.
func (g *GridMetric) Step() float64 { return g.step }

// Norm is the grid's norm.
func (g *GridMetric) Norm() Norm { return g.norm }

// Dims is [h, w] (row-major: y slowest).
func (g *GridMetric) Dims() []int { return []int{g.h, g.w} }

// Offset is step·norm(delta[1], delta[0]) for delta = (dy, dx).
func (g *GridMetric) Offset(delta []int) float64 {
	dx, dy := float64(absInt(delta[1])), float64(absInt(delta[0]))
	switch g.norm {
	case Manhattan:
		return g.step * (dx + dy)
	case Chebyshev:
		return g.step * max(dx, dy)
	}
	return g.step * math.Hypot(dx, dy)
}

// Factors is, for the Manhattan norm with w, h > 1, the column h×1 and the
// row w×1 grids with the same step (d = step·|dy| + step·|dx|); nil
// otherwise (Euclid and Chebyshev do not separate into a sum).
func (g *GridMetric) Factors() []Metric {
	if g.norm != Manhattan || g.w < 2 || g.h < 2 {
		return nil
	}
	return []Metric{
		&GridMetric{w: 1, h: g.h, step: g.step, norm: Manhattan},
		&GridMetric{w: g.w, h: 1, step: g.step, norm: Manhattan},
	}
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// powInt is b^e when it is at most MaxAnswers.
func powInt(b, e int) (int, bool) {
	r := uint64(1)
	for range e {
		hi, lo := bits.Mul64(r, uint64(b))
		if hi != 0 || lo > MaxAnswers {
			return 0, false
		}
		r = lo
	}
	return int(r), true
}

func ipow(b, e int) int {
	r := 1
	for range e {
		r *= b
	}
	return r
}

// binom is C(n, k) for values that fit an int.
func binom(n, k int) int {
	if k < 0 || k > n {
		return 0
	}
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}

// Package reftest holds independent reference metrics for tests: each
// computes distances by a direct method (explicit adjacency and
// Floyd–Warshall, or a formula written differently from the library) so
// that tests can compare the library's metrics and mechanisms against them.
package reftest

// Small reference metrics for the tests of measures, bounds, baselines and the
// audit. They are written independently of the package's own metric types, by
// brute force, so that a test audits a mechanism against a metric it does not
// share code with.

import (
	"fmt"
	"iter"
	"math"

	"github.com/optdp/optdp/mech/metric"
)

// Graph is a graph metric given by an adjacency predicate on 0..n-1, with
// distances from breadth-first search (brute force, small n only).
type Graph struct {
	name string
	n    int
	adj  func(i, j int) bool
	dist [][]float64
}

var _ metric.Graph = (*Graph)(nil)

// NewGraph builds the graph metric named name on 0..n-1 with the edges
// adj(i, j) and all distances by breadth-first search (O(n²) memory).
func NewGraph(name string, n int, adj func(i, j int) bool) *Graph {
	g := &Graph{name: name, n: n, adj: adj, dist: make([][]float64, n)}
	for s := 0; s < n; s++ {
		d := make([]float64, n)
		for i := range d {
			d[i] = math.Inf(1)
		}
		d[s] = 0
		queue := []int{s}
		for len(queue) > 0 {
			i := queue[0]
			queue = queue[1:]
			for j := 0; j < n; j++ {
				if j != i && math.IsInf(d[j], 1) && adj(i, j) {
					d[j] = d[i] + 1
					queue = append(queue, j)
				}
			}
		}
		g.dist[s] = d
	}
	return g
}

func (g *Graph) Len() int              { return g.n }
func (g *Graph) Dist(i, j int) float64 { return g.dist[i][j] }
func (g *Graph) String() string        { return g.name }
func (g *Graph) Edges() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i < g.n; i++ {
			for j := i + 1; j < g.n; j++ {
				if g.adj(i, j) && !yield(i, j) {
					return
				}
			}
		}
	}
}

// Abs is |a|.
func Abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

// Line is the path 0..n-1 (counting query on n-1 records).
func Line(n int) *Graph {
	return NewGraph(fmt.Sprintf("line:n=%d", n), n, func(i, j int) bool { return Abs(i-j) == 1 })
}

// Ring is the cycle Z_n.
func Ring(n int) *Graph {
	return NewGraph(fmt.Sprintf("ring:n=%d", n), n, func(i, j int) bool {
		return Abs(i-j) == 1 || Abs(i-j) == n-1
	})
}

// Clique is the complete graph K_n.
func Clique(n int) *Graph {
	return NewGraph(fmt.Sprintf("clique:n=%d", n), n, func(i, j int) bool { return i != j })
}

// Sum is the sum query of u values in 0..v: answers 0..uv, adjacent when
// they differ by at most v.
func Sum(u, v int) *Graph {
	return NewGraph(fmt.Sprintf("sum:u=%d,v=%d", u, v), u*v+1, func(i, j int) bool {
		return i != j && Abs(i-j) <= v
	})
}

// KCount is k counts over u records: {0..u}^k (row-major), adjacent when
// every coordinate differs by at most 1 (king moves for k = 2).
func KCount(u, k int) *Graph {
	n := 1
	for c := 0; c < k; c++ {
		n *= u + 1
	}
	return NewGraph(fmt.Sprintf("kcount:u=%d,k=%d", u, k), n, func(i, j int) bool {
		if i == j {
			return false
		}
		for c := 0; c < k; c++ {
			if Abs(i%(u+1)-j%(u+1)) > 1 {
				return false
			}
			i /= u + 1
			j /= u + 1
		}
		return true
	})
}

// Hamming is Val^u with |Val| = v, databases indexed by base-v digits,
// adjacent when they differ in exactly one individual.
func Hamming(u, v int) *Graph {
	n := 1
	for c := 0; c < u; c++ {
		n *= v
	}
	return NewGraph(fmt.Sprintf("hamming:u=%d,v=%d", u, v), n, func(i, j int) bool {
		diff := 0
		for c := 0; c < u; c++ {
			if i%v != j%v {
				diff++
			}
			i /= v
			j /= v
		}
		return diff == 1
	})
}

// Matrix is a metric given by a distance function (not a Graph, so the
// audit checks every pair).
type Matrix struct {
	Name string
	N    int
	D    func(i, j int) float64
}

var _ metric.Metric = Matrix{}

func (m Matrix) Len() int              { return m.N }
func (m Matrix) Dist(i, j int) float64 { return m.D(i, j) }
func (m Matrix) String() string        { return m.Name }

// Euclid is the Euclidean metric (km) on a w x h grid with the given step,
// point i at column i%w, row i/w.
func Euclid(w, h int, step float64) Matrix {
	return Matrix{Name: fmt.Sprintf("grid:w=%d,h=%d,step=%g,norm=euclid", w, h, step),
		N: w * h,
		D: func(i, j int) float64 {
			return step * math.Hypot(float64(i%w-j%w), float64(i/w-j/w))
		},
	}
}

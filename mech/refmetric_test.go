package mech

// Small reference metrics for the tests of measures, bounds, baselines and the
// audit. They are written independently of the package's own metric types, by
// brute force, so that a test audits a mechanism against a metric it does not
// share code with.

import (
	"fmt"
	"iter"
	"math"
)

// refGraph is a graph metric given by an adjacency predicate on 0..n-1, with
// distances from breadth-first search (brute force, small n only).
type refGraph struct {
	name string
	n    int
	adj  func(i, j int) bool
	dist [][]float64
}

var _ Graph = (*refGraph)(nil)

func newRefGraph(name string, n int, adj func(i, j int) bool) *refGraph {
	g := &refGraph{name: name, n: n, adj: adj, dist: make([][]float64, n)}
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

func (g *refGraph) Len() int              { return g.n }
func (g *refGraph) Dist(i, j int) float64 { return g.dist[i][j] }
func (g *refGraph) String() string        { return g.name }
func (g *refGraph) Edges() iter.Seq2[int, int] {
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

func refAbs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

// refLine is the path 0..n-1 (counting query on n-1 records).
func refLine(n int) *refGraph {
	return newRefGraph(fmt.Sprintf("line:n=%d", n), n, func(i, j int) bool { return refAbs(i-j) == 1 })
}

// refRing is the cycle Z_n.
func refRing(n int) *refGraph {
	return newRefGraph(fmt.Sprintf("ring:n=%d", n), n, func(i, j int) bool {
		return refAbs(i-j) == 1 || refAbs(i-j) == n-1
	})
}

// refClique is the complete graph K_n.
func refClique(n int) *refGraph {
	return newRefGraph(fmt.Sprintf("clique:n=%d", n), n, func(i, j int) bool { return i != j })
}

// refSum is the sum query of u values in 0..v: answers 0..uv, adjacent when
// they differ by at most v.
func refSum(u, v int) *refGraph {
	return newRefGraph(fmt.Sprintf("sum:u=%d,v=%d", u, v), u*v+1, func(i, j int) bool {
		return i != j && refAbs(i-j) <= v
	})
}

// refKCount is k counts over u records: {0..u}^k (row-major), adjacent when
// every coordinate differs by at most 1 (king moves for k = 2).
func refKCount(u, k int) *refGraph {
	n := 1
	for c := 0; c < k; c++ {
		n *= u + 1
	}
	return newRefGraph(fmt.Sprintf("kcount:u=%d,k=%d", u, k), n, func(i, j int) bool {
		if i == j {
			return false
		}
		for c := 0; c < k; c++ {
			if refAbs(i%(u+1)-j%(u+1)) > 1 {
				return false
			}
			i /= u + 1
			j /= u + 1
		}
		return true
	})
}

// refHamming is Val^u with |Val| = v, databases indexed by base-v digits,
// adjacent when they differ in exactly one individual.
func refHamming(u, v int) *refGraph {
	n := 1
	for c := 0; c < u; c++ {
		n *= v
	}
	return newRefGraph(fmt.Sprintf("hamming:u=%d,v=%d", u, v), n, func(i, j int) bool {
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

// refMatrix is a metric given by a distance function (not a Graph, so the
// audit checks every pair).
type refMatrix struct {
	name string
	n    int
	d    func(i, j int) float64
}

var _ Metric = refMatrix{}

func (m refMatrix) Len() int              { return m.n }
func (m refMatrix) Dist(i, j int) float64 { return m.d(i, j) }
func (m refMatrix) String() string        { return m.name }

// refEuclid is the Euclidean metric (km) on a w x h grid with the given step,
// point i at column i%w, row i/w.
func refEuclid(w, h int, step float64) refMatrix {
	return refMatrix{
		name: fmt.Sprintf("grid:w=%d,h=%d,step=%g,norm=euclid", w, h, step),
		n:    w * h,
		d: func(i, j int) float64 {
			return step * math.Hypot(float64(i%w-j%w), float64(i/w-j/w))
		},
	}
}

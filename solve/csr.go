package solve

import (
	"fmt"
	"iter"
	"slices"
)

// CSR is a sparse symmetric matrix in compressed sparse row form, used for
// the adjacency matrices of answer graphs: products in O(edges), neighbour
// lists for audits over edges, breadth-first distances, and the bandwidth
// that tells a banded graph (the sum query on 0..uv has bandwidth v).
type CSR struct {
	n      int
	rowPtr []int // row i's entries are col[rowPtr[i]:rowPtr[i+1]], sorted
	col    []int
	val    []float64
}

var _ Operator = (*CSR)(nil)

// NewAdjacency returns the 0/1 adjacency matrix of the undirected graph on
// 0..n-1 with the given edges (each yielded once, either orientation;
// duplicates are merged). It returns ErrShape for an endpoint outside
// 0..n-1 or a self-loop.
func NewAdjacency(n int, edges iter.Seq2[int, int]) (*CSR, error) {
	if n < 1 {
		return nil, fmt.Errorf("solve: graph of %d vertices: %w", n, ErrShape)
	}
	deg := make([]int, n+1)
	var pairs [][2]int
	for i, j := range edges {
		if i < 0 || j < 0 || i >= n || j >= n || i == j {
			return nil, fmt.Errorf("solve: edge (%d, %d) in a graph of %d vertices: %w", i, j, n, ErrShape)
		}
		pairs = append(pairs, [2]int{i, j}, [2]int{j, i})
	}
	slices.SortFunc(pairs, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	pairs = slices.Compact(pairs)
	a := &CSR{n: n, rowPtr: make([]int, n+1), col: make([]int, len(pairs)), val: make([]float64, len(pairs))}
	for k, p := range pairs {
		deg[p[0]+1]++
		a.col[k] = p[1]
		a.val[k] = 1
	}
	for i := range n {
		a.rowPtr[i+1] = a.rowPtr[i] + deg[i+1]
	}
	return a, nil
}

// Len returns the number of vertices.
func (a *CSR) Len() int { return a.n }

// NNZ returns the number of stored entries (twice the number of edges).
func (a *CSR) NNZ() int { return len(a.col) }

// Row returns the column indices (ascending) and values of row i; the
// slices are shared and must not be modified.
func (a *CSR) Row(i int) (cols []int, vals []float64) {
	lo, hi := a.rowPtr[i], a.rowPtr[i+1]
	return a.col[lo:hi], a.val[lo:hi]
}

// MulVec writes A x into dst in O(NNZ).
func (a *CSR) MulVec(dst, x []float64) {
	for i := range a.n {
		var s float64
		for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
			s += a.val[k] * x[a.col[k]]
		}
		dst[i] = s
	}
}

// Bandwidth returns max |i - j| over the stored entries (0 for no edges).
func (a *CSR) Bandwidth() int {
	b := 0
	for i := range a.n {
		for _, j := range a.col[a.rowPtr[i]:a.rowPtr[i+1]] {
			b = max(b, abs(i-j))
		}
	}
	return b
}

// Distances writes the hop distance from src to every vertex into dist
// (length Len(); -1 for unreachable vertices) by breadth-first search in
// O(n + NNZ), using queue as workspace when it has capacity n.
func (a *CSR) Distances(src int, dist []int, queue []int) error {
	if src < 0 || src >= a.n {
		return fmt.Errorf("solve: source %d in a graph of %d vertices: %w", src, a.n, ErrShape)
	}
	if len(dist) != a.n {
		return fmt.Errorf("solve: distance slice has length %d, want %d: %w", len(dist), a.n, ErrShape)
	}
	for i := range dist {
		dist[i] = -1
	}
	queue = append(queue[:0], src)
	dist[src] = 0
	for h := 0; h < len(queue); h++ {
		u := queue[h]
		for _, v := range a.col[a.rowPtr[u]:a.rowPtr[u+1]] {
			if dist[v] < 0 {
				dist[v] = dist[u] + 1
				queue = append(queue, v)
			}
		}
	}
	return nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

package metric

import "iter"

// Metric is a distance on the answers 0..Len()-1 of a query.
//
// Dist is the unscaled distance: the number of hops for a query graph, or
// kilometres for a geometric metric. A privacy level eps scales it, dY = eps·d,
// and the privacy-constraints matrix is Phi[i][j] = exp(-eps·d(i,j)).
// Points in different components of a disconnected graph are at distance
// +Inf (Phi = 0 there).
type Metric interface {
	// Len is the number of answers n = |Y|.
	Len() int
	// Dist is d(i,j) >= 0, symmetric, zero exactly on the diagonal.
	Dist(i, j int) float64
	// String is the metric's spec in the CLI's syntax, e.g. "line:n=6".
	String() string
}

// Graph is a metric given by shortest paths in an answer graph. eps-DP of a
// mechanism need only be checked on its edges (pairs at distance 1).
type Graph interface {
	Metric
	// Edges yields every edge (i, j) once, with i < j.
	Edges() iter.Seq2[int, int]
}

// PathGraph is a metric of shortest paths along weighted edges (a road
// network): d(i,j) is the least sum of the edge lengths d(u,v) along a path
// from i to j, so that the constraints at eps·d(u,v) on the edges imply
// those at eps·d(i,j) on every pair (the ratios multiply along a shortest
// path, docs/MATH.md §1.3), up to the rounding of the sums, which an exact
// audit over every pair settles.
type PathGraph interface {
	Metric
	// PathEdges lists edges (i, j), i < j, each a shortest path between
	// its ends, whose shortest paths give every distance; ok is false when
	// the metric has no such list.
	PathEdges() (edges [][2]int, ok bool)
}

// Lattice is a metric on a row-major box lattice whose distance depends only
// on the coordinate differences (translation invariance): Line, Sum, KCount
// and Grid. Phi is then (block-)Toeplitz, which structured solvers exploit
// (docs/MATH.md §2.2, §12.2).
type Lattice interface {
	Metric
	// Dims is the box's side lengths, slowest-varying first: point
	// (c_0, ..., c_{k-1}) has index ((c_0·Dims[1] + c_1)·Dims[2] + ...).
	// The product of Dims is Len.
	Dims() []int
	// Offset is the distance between two points whose coordinates differ by
	// delta (len(delta) == len(Dims())). It depends only on the absolute
	// value of each coordinate difference (the Toeplitz solvers and the
	// offset sampler rely on it), so Offset(delta) == Offset(-delta).
	Offset(delta []int) float64
}

// Separable is a metric that is the sum of its factors' metrics on the
// row-major product of their answer sets: d(i, j) = Σ_f d_f(i_f, j_f). Its Phi
// is the Kronecker product of the factors' Phi (in the order of Factors), and
// so is its inverse (docs/MATH.md §2.2, §12.4): Hamming (u cliques of size v)
// and the Manhattan Grid (two scaled lines).
type Separable interface {
	Metric
	// Factors returns the factor metrics, slowest-varying first, or nil when
	// the metric does not split into two or more factors (e.g. a 1×h grid).
	// The product of the factors' Len is Len.
	Factors() []Metric
}

// BallSymmetric is a metric in which every ball of radius r has the same
// number of points n_r (rings, cliques, Hamming graphs, distance-regular and
// vertex-transitive graphs). The tight-constraints mechanism then has the
// closed form z = 1 / Σ_r n_r e^{-eps r} (docs/MATH.md §3.5).
type BallSymmetric interface {
	Metric
	// BallSizes returns n_r for r = 0..diameter (n_0 = 1; the sizes sum to
	// Len), or nil when the metric is not ball-symmetric or this could not be
	// established (e.g. a large user graph).
	BallSizes() []int
}

package mech

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

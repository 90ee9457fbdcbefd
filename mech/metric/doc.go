// Package metric holds the answer spaces of optdp: a finite set of answers
// 0..n-1 with a distance d (docs/MATH.md §1, §2.1), and the
// privacy-constraints matrix Phi[i][j] = exp(-eps·d(i,j)) built from it
// (§2.3).
//
//   - The Metric interface (metric.go) and its refinements Graph (eps-DP
//     need only be checked on edges), Lattice (translation invariant on a
//     box: Phi is block-Toeplitz), Separable (a product of metrics: Phi is a
//     Kronecker product) and BallSymmetric (balls of equal sizes: closed
//     forms).
//   - The structural facts the solvers exploit, asked of the metric instead
//     of switched on its type (capability.go): PathStep (a line, or a
//     one-row grid), PhiPositiveDefinite (negative type, Schoenberg),
//     PhiLambdaMin (closed-form eigenvalue bounds), BallSizesOf.
//   - The built-in metrics (metrics.go): Line, Ring, Clique, Sum, KCount,
//     Hamming, Grid (Euclidean, Manhattan, Chebyshev); graphs from edge
//     lists (graph.go: NewGraph, ReadEdgeList); distance matrices
//     (metric_matrix.go: NewMatrix, ReadDistCSV).
//   - Grids on a map (geo.go, §18.5): GeoBox, GeoGrid (the step in km from a
//     bounding box on WGS84), KmPerDegree, GridMetric.CellOfLatLon and
//     CellOfXY.
//   - Point sets (points.go, locator.go): Points (planar km) and LatLon
//     (great-circle km from unit vectors with a proven rounding bound,
//     sphere.go, §3.10), with the nearest-location lookup.
//   - The CLI's metric specs (spec.go): Parse("grid:w=100,h=100,step=1"),
//     Kinds.
//   - Phi (phi.go): Phi, PhiLimit, PhiTo, DistCache, and CheckEps, the one
//     validation of a privacy level.
package metric

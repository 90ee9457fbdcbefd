// Package mech designs optimal differentially private mechanisms over a
// finite answer set with a metric, and measures what they leak.
//
// The mathematics is summarised in shared/MATH.md (sections 1-6); each
// formula has one home:
//   - metrics (metric.go, metrics.go, graph.go, metric_matrix.go, spec.go):
//     Line, Ring, Clique, Sum, KCount, Hamming, Grid, NewGraph,
//     ReadEdgeList, NewMatrix, ReadDistCSV and ParseMetric for the CLI's
//     specs; the structure interfaces Lattice, Separable and BallSymmetric
//     tell the solvers what they may exploit (§1, §8);
//   - Phi = exp(-eps d) (phi.go), the tight-constraints mechanism (tight.go,
//     Tight; solver choice in solvers.go, structured paths in structured.go,
//     the matrix-free mechanism in free.go), its threshold eps* (threshold.go,
//     Threshold) and closed forms for ball-symmetric spaces (symmetric.go)
//     (§4, §8);
//   - regular priors (regular.go): Regular, RegularProduct for Hamming spaces
//     with product priors, Corner, RatioBound, PriorBounds (§2);
//   - measures (measure.go): Utility, OptimalRemap, MinEntropy,
//     CondMinEntropy, Leakage, MinCapacity (§3);
//   - database leakage bounds (bound.go): Bnd, RangeBound, IndividualBound,
//     BndMechanism (§6);
//   - baselines (baseline.go, planar.go): TruncatedGeometric,
//     GeometricPerCount, RandomizedResponse, Exponential, PlanarLaplace,
//     PlanarGeometric (§5);
//   - the optimal mechanism for any prior by linear programming (optimal.go,
//     Optimal, over package lp);
//   - the DP audit (audit.go, Audit) that every mechanism returned passes,
//     and sampling (sample.go) with crypto/rand by default and an explicit
//     SeededSource for experiments.
//
// Where the papers' reported numbers differ from a careful computation
// (thresholds of the sum and 2-count case studies, the regularity range of
// the database example), the evidence is in threshold.go's notes and in
// TestThresholdPaperCaseStudies and TestRegularProductPaperExample.
//
// The matrix mechanism for linear counting queries lives in mech/linear.
package mech

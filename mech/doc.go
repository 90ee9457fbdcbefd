// Package mech designs optimal differentially private mechanisms over a
// finite answer set with a metric, and measures what they leak.
//
// The mathematics is summarised in shared/MATH.md (sections 1-6):
//   - metrics over answer sets (Metric, and the constructors Line, Ring,
//     Clique, Sum, KCount, Hamming, Grid, NewGraph, NewMatrix);
//   - the privacy-constraints matrix Phi = exp(-eps d) and the
//     tight-constraints mechanism (Tight), its threshold, regular priors;
//   - utility, min-entropy leakage and the papers' bounds;
//   - baselines (truncated geometric, randomized response, planar Laplace...);
//   - a DP audit that every returned mechanism passes.
//
// The matrix mechanism for linear counting queries lives in mech/linear.
package mech

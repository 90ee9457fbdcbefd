// Package mech holds what a user applies to any mechanism, whoever built it:
// a mechanism is a row-stochastic matrix X (rows true answers, columns
// reported answers) over a metric.Metric.
//
//   - The DP audit (audit.go, Audit; machinery in exact_audit.go,
//     exact_dd.go, exact_exp.go): the smallest eps' with
//     X[i][o] <= e^{eps'·d(i,h)} X[h][o] for every constrained pair, and an
//     exact verdict at eps, without tolerance (docs/MATH.md §9); every
//     mechanism optdp hands out passes it, built with a strict margin
//     (margin.go: BuildLevel, Harden).
//   - Sampling (sample.go, exact_sample.go, §10): Source, CryptoSource
//     (crypto/rand, the default for real releases), SeededSource
//     (reproducible experiments only), Sampler (exact: realises exactly
//     X[i][o]/Σ_o X[i][o] and proves it private), AliasTable (float, not
//     exact).
//   - Measures (measure.go, §6): Utility, OptimalRemap, MinEntropy,
//     CondMinEntropy, Leakage, MinCapacity.
//   - Quantitative information flow of any channel (§18): qif.go
//     (GVulnerability, PostGVulnerability, AddGLeakage, MulGLeakage,
//     BayesRisk, PostBayesRisk, ShannonEntropy, CondShannonEntropy,
//     ShannonLeakage, GuessingEntropy, CondGuessingEntropy), capacity.go
//     (ShannonCapacity by Blahut–Arimoto, MulGCapacity), compose.go
//     (Cascade, Parallel, RefinedBy by LP with a certificate either way).
//   - Priors for maps (prior.go, §18.5): PriorFromPoints, PriorFromRaster.
//   - Database leakage bounds (bound.go, §7): Bnd, RangeBound,
//     IndividualBound, BndMechanism.
//   - Baselines (baseline.go, planar.go, §8): TruncatedGeometric,
//     GeometricPerCount, RandomizedResponse, Exponential, PlanarLaplace,
//     PlanarGeometric; each audits itself before it is returned.
//   - Validation (validate.go): ValidatePrior, ValidateDistribution,
//     ValidateStochastic, ValidateDenseSize.
//
// The mechanisms themselves are designed in the subpackages: metric (answer
// spaces and Phi), tight (the tight-constraints mechanism, thresholds,
// regular priors), optimal (the LP-optimal mechanism for any prior) and
// linear (the matrix mechanism for linear counting queries).
package mech

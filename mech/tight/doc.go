// Package tight builds the tight-constraints mechanism of a metric and
// answers the questions around it (docs/MATH.md §3, §4, §5, §12):
//
//   - Solve (tight.go): solve Phi z = 1; the mechanism X[i][k] =
//     Phi[i][k]·z_k exists iff z >= 0, and is then optimal for every regular
//     prior. The verdict is three-way (Yes, No, Borderline) with a rounding
//     bound, and every X returned passes mech.Audit. Estimate (plan.go) says
//     which solver Solve will use, its memory and an estimated time.
//   - Solvers (solvers.go, structured.go, banded.go, symmetric.go): closed
//     forms for paths and ball-symmetric metrics, Kronecker factorisation for
//     separable metrics, certified Toeplitz/FFT Krylov solves for lattices,
//     a truncated banded Cholesky for graphs of small bandwidth, dense
//     Cholesky otherwise. The solver is chosen from the metric's capabilities
//     (package metric), never from its concrete type.
//   - FreeMechanism (free.go): the matrix-free mechanism for large n (rows,
//     utility, sampling, audit without forming X).
//   - Threshold (threshold.go): the smallest eps at which the mechanism
//     exists, bracketed by sign-certified evaluations; notes on where the
//     papers' thresholds disagree with this computation.
//   - Regular priors (regular.go, §5): Regular, RegularProduct (Hamming
//     spaces with product priors), Corner, RatioBound, PriorBounds.
//
// Options embed run.Settings (memory Budget, Progress); nil means defaults.
package tight

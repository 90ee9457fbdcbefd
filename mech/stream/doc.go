// Package stream is the matrix mechanism for streams and private training:
// prefix sums released step by step, with users who participate in one step
// (single participation), in k steps b apart (fixed epochs) or in at most k
// steps at least b apart (minimum separation). docs/MATH.md §19 has the
// mathematics.
//
// A factorisation A = B C of the prefix-sum matrix A (n×n lower-triangular
// ones) releases ŝ = B(C x + z) = A x + B z with z Gaussian: C (lower
// triangular, the strategy) is applied online, and B = A C⁻¹ is post-processing.
// Its error is sens(C)²·‖B‖²_F (total squared error; RMSE is its square
// root over n) or sens(C)²·max_i ‖B_i‖² (max error), in units of the noise
// multiplier σ/sens, where sens(C) is the sensitivity of C under the
// participation [Schema], computed exactly by [GramSensitivity] (enumerated
// over participation patterns, never assumed from the strategy's shape).
//
// Strategies: [OptimizeDense] (the certified optimum of
// min tr(AᵀA X⁻¹) s.t. every participation pattern's sensitivity ≤ 1, X =
// CᵀC: sdp.OptimizeL2 for single participation, a dual L-BFGS method with a
// duality-gap certificate for fixed epochs), [OptimizeToeplitz] (banded
// Toeplitz C, b coefficients, any n: O(n·b) per evaluation) and the
// baselines [Baselines] (identity, binary tree, Honaker's least-squares
// tree, the square-root factorisation C = A^{1/2}). [Factor] turns a Gram
// X into the lower-triangular C with CᵀC = X, and [Release] answers a
// stream online with exact discrete Gaussian noise.
//
// The package follows the conventions of package run: long computations
// take a context.Context first, options embed run.Settings, errors wrap
// run's sentinels behind "stream: ".
package stream

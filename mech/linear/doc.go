// Package linear implements the matrix mechanism for linear counting queries
// (docs/MATH.md §13–§15; Li, Hay, Rastogi, Miklau and McGregor,
// "Optimizing Linear Counting Queries Under Differential Privacy").
//
// A data vector x holds n counts. A Workload W (m×n) is the set of linear
// queries the analyst wants; a Strategy A (p×n, full column rank) is the set
// the mechanism actually asks. The mechanism releases y = A x + noise,
// reconstructs x_hat = A^+ y by least squares and answers W x_hat. Its error
// depends on W only through the Gram matrix W^T W:
//
//	TSE(W, A) = Var(noise) · tr(W^T W (A^T A)^+),   Var = 2 (D1(A)/eps)^2 for Laplace.
//
// The pieces, and where each formula lives:
//   - workloads (workload.go): Identity, Total, AllRange, Prefix,
//     WidthRange, RandomRange, Ranges, Kron (d-D ranges, e.g. Range2D),
//     Marginals, Union, FromMatrix, ReadMatrix; each exposes its Gram in a
//     structured form (Gram: a sum of Kronecker products, gram.go);
//   - strategies (strategy.go): IdentityStrategy, Hierarchical, Wavelet,
//     WorkloadStrategy, Eigen, KronStrategy, StrategyFromMatrix; sensitivities
//     L1 and L2 (for Kronecker products, the factors' sensitivities multiply);
//   - exact error (error.go, gaussian.go; per factor by Cholesky of A^T A
//     only when it is well conditioned, else by QR or SVD of A, so that
//     every reported error is exact to about 1e-11, docs/MATH.md §15.9):
//     ProfileTrace, LaplaceNoise,
//     GaussianNoise (the paper's calibration), AnalyticGaussianNoise (Balle and
//     Wang 2018), Evaluate (TSE and RMSE), QueryVariances, Profile and
//     MinL2Strategy (the L2-minimal strategy of an error profile);
//   - private answering (answer.go, noise.go): Answer (eps-DP, exact
//     discrete Laplace noise on a fine dyadic grid) and AnswerGaussian
//     ((eps, delta)-DP, exact discrete Gaussian, zCDP calibration), with
//     randomness from a Source: CryptoSource() for releases, SeededSource
//     for experiments.
//
// Kronecker structure is kept throughout: for W = ⊗ W_f and A = ⊗ A_f the
// trace term is the product of the factors' trace terms and D1(A) is the
// product of the factors' D1, so a 256×256 domain never forms a 65536² matrix.
//
//   - product domains (product.go, census.go, spec.go, records.go): a
//     workload over attributes is a union (Union, with weights by Scale) of
//     Kronecker products (Kron) of per-attribute blocks (Identity, Total,
//     IdentityTotal, Prefix, AllRange, WidthRange, Ranges, FromMatrix) or
//     Marginals over attributes of any sizes; CensusSF1Persons is the 2010
//     Census SF1 Persons workload of the HDMM paper; ParseWorkloadJSON
//     reads the documented JSON workload file; Sensitivity and Gram are
//     computed factor-wise, never over the domain squared; Histogram
//     counts CSV records into the domain's cells (package
//     mech/linear/tables reads records and histograms, CSV or Parquet, in
//     one streaming pass); Labels (labels.go) names each query's cells;
//   - stacked strategies in the marginal algebra (kronsum.go, gaussmarg.go;
//     docs/MATH.md §13.8, §15.6): MarginalsStrategy (weighted marginals)
//     and ResidualStrategy (the residual basis), whose exact errors cost
//     O(2^d) per Gram term; OptimalGaussianMarginals, the closed-form
//     optimal Gaussian strategy for weighted marginals at any domain size;
//   - marginal workloads without cells (margplan.go, margans.go;
//     docs/MATH.md §15.11): PlanGaussianMarginals plans a weighted
//     marginal workload in the residual basis for the sum- or max-variance
//     loss (the latter certified by its Lagrangian dual), and
//     AnswerGaussianMarginals releases it from records or histogram rows
//     (MarginalData: ReadMarginalRecords for CSV records, package tables'
//     ReadMarginal for CSV or Parquet records or histograms) with exact
//     discrete Gaussian noise per residual,
//     never forming the full histogram; ParseMarginalWorkload reads the
//     CLI's marginal specs and workload files of marginals;
//   - prefix and range attributes of those workloads (margbasis.go,
//     margtyped.go, margansq.go; docs/MATH.md §15.11):
//     MarginalPlanOptions.AttrQueries asks an attribute's prefixes or all
//     its ranges; its residual is measured in a tree basis with optimised
//     weights, variances are exact per query, Dual is a valid lower bound;
//     ParseMarginalWorkloadQueries reads "prefix=" and "allrange=";
//   - strategy optimisation (optimize.go): Optimize picks the solver of
//     package sdp from the Gram's structure (dense, Kronecker, marginals;
//     L1 for Laplace, L2 with a dual certificate for Gaussian; for unions
//     of Kronecker products the per-attribute block coordinate descent and
//     weighted marginals searched from covering designs and sparse unions
//     (docs/MATH.md §15.10), for marginal workloads under Gaussian noise the
//     closed form), never returns a strategy worse than identity,
//     hierarchical or wavelet, and re-checks the optimiser's objective with
//     this package's own error code. Options follow package run:
//     *OptimizeOptions embedding run.Settings (memory Budget in bytes,
//     checked before the Gram matrix and workspaces are allocated;
//     run.Progress reports); errors wrap run's sentinels (run.ErrTooLarge,
//     run.ErrBadInput).
package linear

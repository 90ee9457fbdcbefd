// Package sdp finds strategies for the matrix mechanism by convex and
// rank-constrained optimisation (docs/MATH.md §15).
//
// Every solver takes the workload only through its Gram matrix G = W^T W (a
// *mat.SymDense, or a list of factor Grams for Kronecker and marginal
// workloads) and returns strategies as *mat.Dense, so the package does not
// depend on how workloads are represented.
//
// Two problems are solved:
//
//   - L2 (the (eps, delta) Gaussian mechanism, convex): minimise
//     tr(G X^{-1}) over positive definite X with diag(X) <= 1; the strategy is
//     any A with A^T A = X. [OptimizeL2] runs a Newton-CG method on
//     {X : diag(X) = 1} and certifies its answer with the Lagrange dual bound
//     [L2Dual]; when G is a constant times the all-range, prefix or suffix
//     Gram (whose inverse is tridiagonal) it instead runs Newton's method on
//     the n dual multipliers with O(n) quadrature kernels and a dqds
//     certificate (docs/MATH.md §15.7; all ranges n = 1024 in about 1 CPU
//     second); [SVDBound] is the closed-form lower bound of Li et al.
//     [OptimizeL2Kron] solves Kronecker workloads factor-wise with a
//     certificate for the whole problem.
//   - L1 (the eps-DP Laplace mechanism, not convex): minimise
//     D1(A)^2 tr(G (A^T A)^{-1}), D1 the largest column L1 norm ([L1Error]).
//     [OptimizeL1] optimises a p-Identity strategy A = [I; Θ] D^{-1} (Θ >= 0,
//     D normalising columns to unit L1 norm) by L-BFGS with seeded restarts
//     and never returns anything worse than the caller's baselines;
//     [OptimizeL1Kron] and [OptimizeL1Marginals] do the same factor-wise for
//     Kronecker products and unions of Kronecker products (marginals, the
//     census tables), the latter refined by block coordinate descent over
//     the attributes (each factor re-optimised against the Gram matrix
//     reduced by the others, with the identity and the total as
//     candidates; bcd.go);
//     [OptimizeL1MarginalWeights] optimises a weighted union of marginals
//     for marginal workloads with an exact spectral formula evaluated by
//     fast subset-sum transforms, and [OptimizeL1MarginalWeightsSpectrum]
//     for any workload given by its spectrum tr(G E_T) in the marginal
//     algebra (docs/MATH.md §15.4).
//   - Unions of strategies: [UnionSplit] and [UnionError] give the optimal
//     split of the privacy budget between blocks that each answer their own
//     part of the workload (L1: (Σ e_g^{1/3})³, L2: (Σ √e_g)²;
//     docs/MATH.md §15.8); package linear searches the groupings.
//
// The package follows the conventions of package run: long-running
// functions take a context.Context first (cancellation returns ctx.Err()
// wrapped); options are passed by pointer (nil = defaults) and embed
// run.Settings, whose Budget is checked (in bytes, before the workspaces
// are allocated; [L2Bytes]) and whose Progress callback receives
// run.Progress reports (Stage "l2 newton", "l1 restart 2/8", ...); errors
// wrap run's sentinels ([run.ErrBadInput], [run.ErrTooLarge]). Results are
// deterministic for a given seed. Linear algebra runs
// through gonum's mat types and package backend, so `-tags netlib` moves it
// to OpenBLAS.
package sdp

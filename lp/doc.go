// Package lp solves the linear programs that define optimal privacy
// mechanisms for an arbitrary prior (docs/MATH.md §11):
//
//	maximise   sum_{i,o} C[i][o] X[i][o]
//	subject to X >= 0,  sum_o X[i][o] = 1 for every row i,
//	           X[i][o] <= W_k X[h][o] for every ratio constraint k = (i, h, W_k)
//	           and every column o.
//
// Rows are true answers, columns are outputs; with C[i][o] = pi_i g(i,o) the
// value is the expected gain of the best mechanism for the prior pi (any
// gain or minus any loss), and W_k = exp(eps d(i,h)) makes every feasible X
// eps·d-private.
//
// # Solvers
//
// Solve is the exact solver (solve.go). From a dense list of pairs it first
// drops those implied by chains of others (Spanner with stretch 1), then
// runs a Mehrotra predictor-corrector interior-point method with Gondzio's
// centrality correctors (ipm.go, iterate.go). The ratio constraints are the
// same for every column and the columns are coupled only by the row sums,
// so the Newton system is reduced per column: column o contributes
// H_o = diag(z/x) + G^T diag(lambda/s) G, with the sparsity of the
// constraint graph, and the row sums give the dense n×n Schur complement
// S = sum_o H_o^{-1} (newton.go). The per-column systems are one interface,
// columnSystem, with a variant per file:
//
//   - newton_banded.go: the reverse Cuthill–McKee order, the banded LDL^T
//     of H_o (or its banded QR), S assembled by Takahashi's recurrence;
//   - newton_sparse.go: a fill-reducing order (minimum degree unless the
//     environment variable ldl.OrderEnv names another of ldl.Orders()), the
//     supernodal sparse LDL^T four columns at a time, the banded QR as the
//     fallback of a column whose pivots lost their digits, whichever of
//     the two modes is estimated cheaper;
//   - newton_percol.go: every column its own pairs, order and factor
//     (Generate with GenerateOptions.PerColumn).
//
// S is factored by Cholesky with iterative refinement, or, when assembling
// it costs far more than solving with the column factors, solved by
// conjugate gradients preconditioned by an earlier iteration's factor
// (newton_schur.go; Options.DirectSchur turns this off). With symmetries
// (Options.Symmetry) the solver keeps one column per orbit and solves on
// the vectors constant on orbits of rows (newton_orbits.go). Columns whose
// mass vanishes are left out during the solve and priced into the bound
// (ipm_drop.go; Options.KeepColumns turns this off). Near the optimum a
// direction that fails a sanity check is redone with QR for every column.
// The memory is checked against the budget before anything is allocated,
// and a lower bound of it before the symmetry search and the pruning;
// the pruning and SolveSpanner's spanner stop as soon as they keep more
// pairs than that bound leaves room for (MinBytes,
// ldl.SpannerOptions.MaxPairs). A
// cancelled context stops the per-column loops of an iteration (the
// columns not yet started are skipped), the pruning's searches and
// generation's scans, and is returned wrapped.
//
// Generate computes the exact optimum by constraint generation (generate.go,
// percol_generate.go, percol_elim.go): relaxations with a subset of the
// pairs give certified upper bounds, their repaired answers feasible lower
// bounds, and the violated pairs are added until the bounds meet.
// SolveSpanner solves the LP on a greedy delta-spanner's pairs with ratios
// W^{1/delta}, exactly private for every pair, and bounds its distance to
// the optimum by a relaxation started from the first LP's iterate
// (ipm_warm.go).
//
// # Certificates
//
// The answer is certified, not hoped for (certify.go). The returned X is
// made exactly feasible by mixing with the uniform matrix (Repair, checked
// in floating point against every pair of the problem given), and the dual
// bound comes from a dual vector made exactly feasible (Result.Y), so
// Dual >= the optimum >= Primal holds up to the rounding of the two sums,
// whichever factorisation produced the iterates.
//
// # Rooms
//
// This package holds the public face (Problem, Options, Result, Repair,
// Solve, Generate, SolveSpanner) and the interior-point method. The rest
// lives in:
//
//   - lp/ldl: the sparse symmetric factorisations of the H_o (banded,
//     supernodal LDL^T, four at a time), their orderings (RCM, minimum
//     degree, nested dissection, CHOLMOD's through package backend in the
//     netlib build), Takahashi's inverses and the greedy spanner; Pair is
//     ldl.Pair;
//   - lp/internal/kernel: the AVX2/FMA kernels and their Go loops (the
//     noasm build tag keeps only the Go loops);
//   - lp/internal/schur: the lazy Schur complement's conjugate gradients;
//   - lp/internal/orbit: symmetry groups and the orbit reduction;
//   - lp/internal/percol: the per-column factors of Generate's per-column
//     mode;
//   - lp/internal/price: the pricing LP of the column elimination;
//   - lp/internal/mem: huge-page allocation of the dense n×n buffers.
//
// Options embed run.Settings (memory Budget, Progress with Stage "ipm",
// "cuts" or "prune"); errors wrap run.ErrTooLarge, run.ErrNotConverged and
// run.ErrBadInput.
package lp

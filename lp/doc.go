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
// Solve is the exact solver. From a dense list of pairs it first drops those
// implied by chains of others (Spanner with stretch 1: a Manhattan grid's
// list of all pairs becomes its 4-neighbour edges), then runs a Mehrotra predictor-corrector
// interior-point method with Gondzio's centrality correctors. The ratio
// constraints are the same for every column and the columns are coupled
// only by the row sums, so the Newton system is reduced per column: column
// o contributes H_o = diag(z/x) + G^T diag(lambda/s) G, with the sparsity of
// the constraint graph, and the row sums give the dense n×n Schur
// complement S = sum_o H_o^{-1}, factored by Cholesky with two rounds of
// iterative refinement. Each H_o is factored in one of two row orders,
// whichever is estimated cheaper:
//
//   - banded (lp/band.go): reverse Cuthill–McKee order, an LDL^T of the
//     banded H_o, and S assembled by Takahashi's recurrence in O(n² b)
//     per column for bandwidth b (lines, rings, sum queries);
//   - sparse (lp/sparse.go): a minimum-degree order, a left-looking sparse
//     LDL^T, and S assembled by Takahashi's recurrence on the sparse factor,
//     sum_j (|L_{*j}|+1)(n-j) per column (2-D grids: 3× fewer flops than
//     banded at 20×20).
//
// When assembling S would cost far more than solving with the column
// factors (Manhattan grids of about 50×50 and up, by the estimated flop
// ratio), the solver keeps an earlier iteration's factor of S and solves
// S dy = r by conjugate gradients on the exact S (one solve per column per
// step) preconditioned by it, assembling afresh once the conjugate
// gradients cost about one assembly (docs/MATH.md §11.8;
// Options.DirectSchur turns this off; Result.SchurAssemblies and SchurCG
// report it). On that path S is only a preconditioner, and the sparse
// mode assembles it in single precision (half the bytes, twice the
// vector lanes), falling back to double precision for an S that single
// precision does not hold. The certificate does not depend on how the
// iterates were found.
//
// When the problem is invariant under a group of permutations of its
// points (Options.Symmetry: candidates, such as a grid's mirror images,
// that the solver checks exactly against C and the pairs; for the uniform
// prior on a square grid the dihedral group of order 8), the central path
// is invariant too: the solver keeps one column per orbit of outputs,
// weights it by the orbit's size, and solves the row-sum system on the
// vectors constant on orbits of rows, so an iteration costs about |G|
// times less (lp/symmetry.go, docs/MATH.md §11.9; Result.Symmetry). The
// answer and its certificate are expanded to and computed on the full
// problem.
//
// The fill-reducing order of the sparse mode is lp's minimum degree unless
// the environment variable OPTDP_LP_ORDER (OrderEnv) names another of
// Orders(): "mdpost" (minimum degree, postordered), "nd" (a pure-Go nested
// dissection), and in the netlib build SuiteSparse's "metis", "amd",
// "nesdis" and "cholmod" through cgo (backend_netlib.CholmodOrder); the
// numeric LDL^T and the assembly stay lp's, so the certificate does not
// depend on the order. Minimum degree is the default in both builds by
// measurement (bench/README.md, "CHOLMOD/METIS against the pure-Go sparse
// LDL^T"): no CHOLMOD order was faster on grids or spanners. Minimum degree
// has the fewest assembly multiply-adds sum_j (|L_{*j}|+1)(n-j) (Manhattan
// 50×50: 2.5e7 per column against 3.9e7 for AMD and 4.7e7 for METIS, at
// nearly the same nnz(L)), though the assembly, most of a column's time,
// is bound by its n² memory traffic more than by these flops; and CHOLMOD's
// numeric factorisation, simplicial or supernodal, was not faster than
// lp's LDL^T, on a factor that is at most a fifth of the column's time.
//
// Near the optimum the weights span some 30 orders of magnitude, and the
// LDL^T of an assembled H_o can lose its pivots to cancellation. The
// factorisation reports the smallest ratio of a pivot to its diagonal; when
// a pivot lost nearly all its digits, that column (sparse mode; every
// column from then on in the banded mode) is factored instead by the
// banded QR (Givens rotations) of the stacked square root
// [diag(z/x)^{1/2}; diag(lambda/s)^{1/2} G], which never forms H_o; when
// the direction fails a sanity check before the step, the iteration is
// redone with QR for every column, as are all later ones. One
// iteration costs O(m n² c + n³) for m columns and c the mean column count
// of the factor; the memory O(m (n + len(Pairs)) + n²) is checked against
// the Budget before anything is allocated.
//
// Generate computes the exact optimum by constraint generation: it solves
// relaxations with a subset of the pairs (certified upper bounds), repairs
// their answers against all pairs (feasible lower bounds), and adds the
// violated pairs until the bounds meet; with GenerateOptions.PerColumn
// each column has its own pairs (those violated in that column), so each
// H_o keeps its own sparse graph and fill-reducing order (lp/percol.go,
// docs/MATH.md §11.7), and the columns (outputs) that the relaxation does
// not use are left out of the next ones (lp/percol_elim.go), their terms
// in the bound kept by multipliers priced against the other columns.
// SolveSpanner solves the LP on the
// pairs of a greedy delta-spanner with ratios W^{1/delta} (Bordenabe,
// Chatzikokolakis and Palamidessi, CCS 2014): its answer is exactly private
// for every pair, and a relaxation gives the bound on how far from the
// optimum it is: a second LP of the same structure, started from the
// first's iterate (lp/ipm_warm.go, docs/MATH.md §11.5).
//
// # Certificates
//
// The answer is certified, not hoped for. The returned X is made exactly
// feasible by mixing with the uniform matrix (Repair, checked in floating
// point against every pair of the problem given, also the dropped ones),
// and the reported dual bound comes from a dual vector made exactly
// feasible (Result.Y) for the problem solved, a relaxation of the one
// given (with column elimination, from multipliers >= 0 on pairs of the
// problem given for every column, also those left out), so Dual >= the optimum >= Primal holds up to floating-point
// rounding of the two sums, whichever factorisation produced the iterates.
//
// Options embed run.Settings (memory Budget, Progress with Stage "ipm" or
// "cuts"); errors wrap run.ErrTooLarge, run.ErrNotConverged and
// run.ErrBadInput, re-exported here as run.ErrTooLarge and run.ErrNotConverged.
package lp

// Package lp solves the linear programs that define optimal privacy
// mechanisms for an arbitrary prior (docs/MATH.md §11):
//
//	maximise   sum_{i,o} C[i][o] X[i][o]
//	subject to X >= 0,  sum_o X[i][o] = 1 for every row i,
//	           X[i][o] <= W_k X[h][o] for every ratio constraint k = (i, h, W_k)
//	           and every column o.
//
// Rows are true answers, columns are outputs; with C[i][o] = pi_i g(i,o) the
// value is the expected gain of the best mechanism for the prior pi, and
// W_k = exp(eps d(i,h)) makes every feasible X eps·d-private.
//
// The ratio constraints are the same for every column, and the columns are
// coupled only by the row-sum equalities. Solve exploits this with a
// Mehrotra predictor-corrector interior-point method whose Newton system is
// reduced per column: each column o contributes an n×n matrix
// H_o = diag(z/x) + G^T diag(lambda/s) G with the sparsity of the constraint
// graph (banded: tridiagonal for a line). H_o is factored without being
// formed, by a banded QR (Givens rotations) of the stacked matrix
// [diag(z/x)^{1/2}; diag(lambda/s)^{1/2} G]: near the optimum the weights
// span some 30 orders of magnitude, and an LDL^T of the assembled H_o loses
// its pivots to cancellation. The row sums give an n×n dense Schur
// complement S = sum_o H_o^{-1}, assembled row by row from the banded
// factors (Takahashi's recurrence, O(n^2 b) per column for bandwidth b) and
// factored by a dense Cholesky. One iteration costs O(m n^2 b + n^3) for m
// columns; the memory is O(m (n + len(Pairs)) + n^2). Rows are first
// renumbered by reverse Cuthill–McKee when that shrinks b (rings, grids,
// general graphs).
//
// The answer is certified, not hoped for. The returned X is made exactly
// feasible by mixing with the uniform matrix (a convex combination of
// columns' constraints, see Repair), and the reported dual bound comes from a
// dual vector made exactly feasible (Result.Y), so Dual >= the optimum >=
// Primal holds up to floating-point rounding of the two sums.
package lp

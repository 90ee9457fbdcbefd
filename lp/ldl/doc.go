// Package ldl factors the sparse symmetric positive-definite matrices of
// lp's interior-point method (docs/MATH.md §11):
//
//	H = diag(d) + Gᵀ diag(w) G,
//
// where row k of G is W_k e_H - e_I for the pair k = (I, H, W_k) of a
// Graph on N rows. It holds:
//
//   - orderings of the rows: reverse Cuthill–McKee (RCM) for the banded
//     factor, and the fill-reducing orders of the sparse factor (minimum
//     degree, postordered minimum degree, nested dissection, and in the
//     netlib build CHOLMOD's through package backend), chosen by name
//     (FillReducing, Orders, OrderEnv);
//   - the banded factor (Band): LDLᵀ of the assembled H, or the QR
//     factorisation by Givens rotations of the stacked square root
//     [diag(d)^{1/2}; diag(w)^{1/2} G], which never forms H;
//   - the sparse factor (Symbolic, LDL): a left-looking supernodal LDLᵀ on
//     a symbolic structure shared by every matrix of the same Graph, four
//     matrices at a time interleaved (Factor4, Solve4);
//   - Takahashi's recurrence for the inverse: the upper triangle of H⁻¹
//     added to an n×n accumulator (Band.AddInverse, LDL.AddInverse, and in
//     single precision LDL.AddInverse32).
//
// The vector kernels are those of lp/internal/kernel. Nothing here
// allocates per call beyond the scratch the caller passes.
package ldl

// Pair is one row of G: the entries -1 at I and W at H (I != H, W > 1).
// The package lp uses the same type for its ratio constraints X[I][o] <=
// W·X[H][o], whose slack W x_H - x_I is that row times x.
type Pair struct {
	I, H int
	W    float64
}

// Graph is the pattern of the matrices H: N rows and the pairs that
// couple them (row k of G).
type Graph struct {
	N     int
	Pairs []Pair
}

// MinPivotRatio is the smallest ratio of a pivot of an LDLᵀ (Band.CholFactor,
// LDL.Factor, Factor4 report the smallest) to the diagonal entry it came
// from that lp accepts: below it the cancellation has eaten nearly all the
// digits, and the matrix is factored by QR instead (Band.QRFactor). Pivots
// that lost fewer digits still give useful Newton directions (the same
// iterates as with QR down to gaps of 1e-8 on 2-D grids).
const MinPivotRatio = 1e-14

package lp

// columnSystem is the per-column part of the Newton system: for every
// column o the matrix
//
//	H_o = diag(z_o/x_o) + G_oᵀ diag(λ_o/s_o) G_o
//
// (G_o the pairs of column o: the problem's, or the column's own in the
// per-column mode), factored at every iteration. The row sums couple the
// columns through the Schur complement S = sum_o H_o^{-1}, which
// factorSchur (direct), schurPCG (newton_schur.go, lazy) and the orbit
// reduction (newton_orbits.go) solve with; this interface is what they and
// the interior-point method call of the column factors. The variants:
//
//   - bandedColumns (newton_banded.go): the banded LDLᵀ, or QR, in the
//     reverse Cuthill–McKee order;
//   - sparseColumns (newton_sparse.go): the sparse LDLᵀ in a
//     fill-reducing order, four columns at a time, with the banded QR as
//     the fallback of a column whose pivots lost their digits;
//   - perColumnSystem (newton_percol.go): every column its own pairs,
//     order and factor (Generate with PerColumn).
//
// Worker w uses its own scratch: calls with different w may run
// concurrently, on different columns.
type columnSystem interface {
	// factor factors H_o from its diagonal diag and pair weights wt and,
	// unless acc is nil, adds H_o^{-1} to acc (the upper triangle of an
	// n×n accumulator, through ipm.addColumnInverse).
	factor(o, w int, diag, wt, acc []float64)
	// solve overwrites r with H_o^{-1} r with column o's current factor.
	solve(o, w int, r []float64)
	// addInverse adds H_o^{-1} to acc (the upper triangle of an n×n
	// accumulator in the solver's row order).
	addInverse(o, w int, acc []float64)
	// inverse sets the upper triangle of the n×n z to H_o^{-1} in the
	// row order it returns (perm[position] = row; nil: the solver's).
	inverse(o, w int, z []float64) (perm []int)
}

// colSolve overwrites r with H_o^{-1} r using column o's current factor.
func (s *ipm) colSolve(o, w int, r []float64) { s.cols.solve(o, w, r) }

// factorColumn factors column o's H_o from its diagonal and pair weights
// and, unless acc is nil, adds H_o^{-1} to acc (the upper triangle of an
// n×n accumulator).
func (s *ipm) factorColumn(o, w int, diag, wt, acc []float64) {
	s.cols.factor(o, w, diag, wt, acc)
}

// addColumnInverse adds H_o^{-1}, from column o's current factor, to acc
// (the upper triangle of an n×n accumulator): compressed to the orbits in
// the symmetric mode (addColumnInverseSym), in single precision for the
// lazy Schur complement's preconditioner (addColumnInverse32).
func (s *ipm) addColumnInverse(o, w int, acc []float64) {
	if s.sg != nil {
		s.addColumnInverseSym(o, w)
		return
	}
	if s.pcg != nil && s.pcg.single {
		s.addColumnInverse32(o, w, acc)
		return
	}
	s.cols.addInverse(o, w, acc)
}

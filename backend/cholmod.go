package backend

import (
	"errors"
	"fmt"
)

// SparseOrdering selects a fill-reducing ordering of a sparse symmetric
// matrix from SuiteSparse's CHOLMOD (with METIS), which only the netlib
// build has.
type SparseOrdering int

const (
	// OrderCholmod is CHOLMOD's own strategy: AMD, then METIS when AMD's
	// factor has nnz(L) >= 5 nnz(A) and >= 500 nnz(L) flops, the one of
	// fewer nonzeros kept.
	OrderCholmod SparseOrdering = iota
	// OrderAMD is approximate minimum degree.
	OrderAMD
	// OrderMETIS is METIS's nested dissection (METIS_NodeND).
	OrderMETIS
	// OrderNESDIS is CHOLMOD's nested dissection: METIS edge separators
	// turned into node separators, leaves by constrained minimum degree.
	OrderNESDIS
	// OrderNatural keeps the given order (no permutation, no
	// postordering).
	OrderNatural
)

// String names the ordering as CHOLMOD does.
func (o SparseOrdering) String() string {
	switch o {
	case OrderCholmod:
		return "cholmod"
	case OrderAMD:
		return "amd"
	case OrderMETIS:
		return "metis"
	case OrderNESDIS:
		return "nesdis"
	case OrderNatural:
		return "natural"
	}
	return fmt.Sprintf("SparseOrdering(%d)", int(o))
}

// ErrNoSparse is returned by SparseOrder and NewSparseFactor in a build
// without CHOLMOD (the pure-Go build). It wraps errors.ErrUnsupported.
var ErrNoSparse = fmt.Errorf("backend: CHOLMOD needs the netlib build: %w", errors.ErrUnsupported)

// HasSparse reports whether the active backend has CHOLMOD, that is whether
// SparseOrder and NewSparseFactor work (the netlib build).
func HasSparse() bool { return hasSparse }

// SparseOrder returns the fill-reducing permutation perm (perm[new] = old:
// row new of P A Pᵀ is row perm[new] of A) that CHOLMOD's analysis chooses
// for the ordering ord, and the predicted nnz(L) of the factor of P A Pᵀ,
// diagonal included. The n×n symmetric pattern of A is given by its lower
// triangle in compressed columns: colPtr (n+1 column starts) and rowIdx
// (row indices, ascending in each column, all >= the column, the diagonal
// present). Only the analysis runs; no values are needed. The error wraps
// ErrNoSparse without CHOLMOD.
func SparseOrder(n int, colPtr, rowIdx []int, ord SparseOrdering) (perm []int, nnzL int, err error) {
	return sparseOrder(n, colPtr, rowIdx, ord)
}

// SparseFactor is CHOLMOD's numeric factorisation of a sparse symmetric
// positive-definite matrix A with a fixed pattern: P A Pᵀ = L D Lᵀ
// (simplicial) or L Lᵀ (supernodal). It holds C memory: Close releases
// it. It is not safe for concurrent use.
type SparseFactor interface {
	// Perm returns the permutation P as perm[new] = old.
	Perm() []int
	// NnzL is the number of entries of L, diagonal included, predicted by
	// the analysis.
	NnzL() int
	// Factor computes the factorisation for the values vals of A's lower
	// triangle, aligned with the pattern's rowIdx; an error when a pivot
	// is not positive.
	Factor(vals []float64) error
	// Solve overwrites b with A⁻¹ b with the last successful Factor.
	Solve(b []float64) error
	// LDL writes the factorisation as P A Pᵀ = L D Lᵀ with unit lower
	// triangular L: the n pivots D into d and the strictly lower entries
	// of L into l on the caller's pattern colPtr, rowIdx (compressed
	// columns of the permuted matrix, rows ascending and > the column). A
	// supernodal L Lᵀ is converted (d_j = L_jj², L_ij / L_jj). Every
	// nonzero of CHOLMOD's factor must fall on that pattern, otherwise LDL
	// returns an error. work is n values, zero on entry and on return.
	LDL(d []float64, colPtr, rowIdx []int, l, work []float64) error
	// Close releases CHOLMOD's memory.
	Close()
}

// NewSparseFactor analyses the n×n symmetric matrix whose lower triangle
// has the pattern colPtr, rowIdx (as for SparseOrder): it orders the rows
// by ord, postordered by the elimination tree unless ord is OrderNatural,
// and prepares a supernodal (supernodal true) or simplicial numeric
// factorisation of about 8·(nnz(A) + nnz(L)) bytes. The error wraps
// ErrNoSparse without CHOLMOD.
func NewSparseFactor(n int, colPtr, rowIdx []int, ord SparseOrdering, supernodal bool) (SparseFactor, error) {
	return newSparseFactor(n, colPtr, rowIdx, ord, supernodal)
}

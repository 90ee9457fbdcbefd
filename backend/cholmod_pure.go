//go:build !netlib

package backend

const hasSparse = false

func sparseOrder(int, []int, []int, SparseOrdering) ([]int, int, error) {
	return nil, 0, ErrNoSparse
}

func newSparseFactor(int, []int, []int, SparseOrdering, bool) (SparseFactor, error) {
	return nil, ErrNoSparse
}

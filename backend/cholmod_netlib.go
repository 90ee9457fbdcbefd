//go:build netlib

package backend

import (
	"fmt"

	"github.com/optdp/optdp/backend_netlib"
)

const hasSparse = true

func cholmodOrdering(ord SparseOrdering) (backend_netlib.CholmodOrdering, error) {
	switch ord {
	case OrderCholmod:
		return backend_netlib.CholmodDefault, nil
	case OrderAMD:
		return backend_netlib.CholmodAMD, nil
	case OrderMETIS:
		return backend_netlib.CholmodMETIS, nil
	case OrderNESDIS:
		return backend_netlib.CholmodNESDIS, nil
	case OrderNatural:
		return backend_netlib.CholmodNatural, nil
	}
	return 0, fmt.Errorf("backend: unknown sparse ordering %d: %w", int(ord), ErrShape)
}

func sparseOrder(n int, colPtr, rowIdx []int, ord SparseOrdering) ([]int, int, error) {
	o, err := cholmodOrdering(ord)
	if err != nil {
		return nil, 0, err
	}
	perm, nnz, err := backend_netlib.CholmodOrder(n, colPtr, rowIdx, o)
	if err != nil {
		return nil, 0, fmt.Errorf("backend: %w", err)
	}
	return perm, nnz, nil
}

func newSparseFactor(n int, colPtr, rowIdx []int, ord SparseOrdering, supernodal bool) (SparseFactor, error) {
	o, err := cholmodOrdering(ord)
	if err != nil {
		return nil, err
	}
	f, err := backend_netlib.NewCholmod(n, colPtr, rowIdx, o, supernodal)
	if err != nil {
		return nil, fmt.Errorf("backend: %w", err)
	}
	return f, nil
}

package ldl

import (
	"fmt"

	"github.com/optdp/optdp/backend"
)

// DefaultOrder is the fill-reducing order used when OrderEnv is unset:
// lp's minimum degree in both builds (BenchmarkColumnOrder and
// BenchmarkColumnCholmod measure the orders against each other).
const DefaultOrder = "md"

// externalOrders are the orderings of SuiteSparse's CHOLMOD (with METIS)
// that the build offers through OrderEnv: those of backend.SparseOrder in
// the netlib build, none in the pure-Go build.
var externalOrders = func() []string {
	if !backend.HasSparse() {
		return nil
	}
	return []string{"metis", "amd", "nesdis", "cholmod"}
}()

// externalOrder returns CHOLMOD's ordering name of p's pair graph
// (perm[new] = old), from CHOLMOD's analysis of the lower-triangle pattern.
// Once pl (nil: never) is done it returns nil, nil (CHOLMOD's own
// analysis, in C, runs to its end).
func externalOrder(pl *poll, name string, p *Graph) ([]int, error) {
	var ord backend.SparseOrdering
	switch name {
	case "metis":
		ord = backend.OrderMETIS
	case "amd":
		ord = backend.OrderAMD
	case "nesdis":
		ord = backend.OrderNESDIS
	case "cholmod":
		ord = backend.OrderCholmod
	default:
		return nil, fmt.Errorf("ldl: lp: unknown ordering %q", name)
	}
	colPtr, rowIdx := lowerPattern(pl, p)
	if colPtr == nil {
		return nil, nil
	}
	perm, _, err := backend.SparseOrder(p.N, colPtr, rowIdx, ord)
	if err != nil {
		return nil, fmt.Errorf("lp: %w", err)
	}
	return perm, nil
}

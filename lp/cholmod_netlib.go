//go:build netlib

package lp

import (
	"fmt"

	"github.com/optdp/optdp/backend_netlib"
)

// DefaultOrder is the fill-reducing order used when OrderEnv is unset: in
// the netlib build, lp's minimum degree (see bench/README.md, "CHOLMOD/METIS
// against the pure-Go sparse LDLᵀ", for the measurement behind the choice).
const DefaultOrder = "md"

// externalOrders are the orderings of SuiteSparse's CHOLMOD (with METIS)
// that the netlib build offers through OrderEnv.
var externalOrders = []string{"metis", "amd", "nesdis", "cholmod"}

// externalOrder returns CHOLMOD's ordering name of p's pair graph
// (perm[new] = old), from CHOLMOD's analysis of the lower-triangle pattern.
func externalOrder(name string, p *Problem) ([]int, error) {
	var ord backend_netlib.CholmodOrdering
	switch name {
	case "metis":
		ord = backend_netlib.CholmodMETIS
	case "amd":
		ord = backend_netlib.CholmodAMD
	case "nesdis":
		ord = backend_netlib.CholmodNESDIS
	case "cholmod":
		ord = backend_netlib.CholmodDefault
	default:
		return nil, fmt.Errorf("lp: unknown ordering %q", name)
	}
	colPtr, rowIdx := lowerPattern(p)
	perm, _, err := backend_netlib.CholmodOrder(p.N, colPtr, rowIdx, ord)
	if err != nil {
		return nil, fmt.Errorf("lp: %w", err)
	}
	return perm, nil
}

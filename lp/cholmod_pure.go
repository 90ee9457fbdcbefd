//go:build !netlib

package lp

import "errors"

// DefaultOrder is the fill-reducing order used when OrderEnv is unset: in
// the pure-Go build, lp's minimum degree (see bench/README.md, "CHOLMOD/METIS
// against the pure-Go sparse LDLᵀ", for the measurement behind the choice).
const DefaultOrder = "md"

// externalOrders is empty: the pure-Go build has no external ordering
// library.
var externalOrders []string

func externalOrder(string, *Problem) ([]int, error) {
	return nil, errors.New("lp: external orderings need the netlib build")
}

//go:build cgo

package main

import (
	"encoding/json"
	"slices"
	"strings"
)

// opKeys lists, for each op of a workload (false) or strategy (true)
// operator tree, the keys its node may carry besides "op" (optdp.h). A key
// of another op (m on an identity) would be ignored by the builder, so
// checkOpKeys refuses it.
var opKeys = map[bool]map[string][]string{
	false: {
		"identity": {"n"}, "total": {"n"}, "allrange": {"n"}, "prefix": {"n"},
		"width_range": {"n", "k"}, "random_range": {"n", "m", "seed"}, "ranges": {"n", "intervals"},
		"marginals": {"dims", "k"}, "scale": {"workload", "c"}, "kron": {"factors"}, "union": {"parts"},
		"matrix": {"rows", "cols", "data"}, "file": {"path"},
	},
	true: {
		"identity": {"n"}, "hierarchical": {"n", "b", "root"}, "wavelet": {"n"},
		"workload": {"workload"}, "eigen": {"workload"}, "kron": {"factors"},
		"matrix": {"rows", "cols", "data"},
	},
}

// checkOpKeys refuses a node of the operator tree in the JSON text s (already
// decoded and depth-checked) that carries a key its op does not read; what
// names the argument.
func checkOpKeys(s, what string, strategy bool) error {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return badInput("%s: %v", what, err)
	}
	return walkOpKeys(v, what, strategy)
}

func walkOpKeys(v any, what string, strategy bool) error {
	node, ok := v.(map[string]any)
	if !ok {
		return nil // null or a wrong type: the decoder has refused it
	}
	var op string
	for k, x := range node {
		if strings.EqualFold(k, "op") {
			op, _ = x.(string)
		}
	}
	allowed, known := opKeys[strategy][op]
	if !known {
		return nil // an unknown op: the builder names it
	}
	for k, x := range node {
		key := strings.ToLower(k)
		if key == "op" {
			continue
		}
		if !slices.Contains(allowed, key) {
			return badInput("%s: key %q does not apply to op %q (its keys: op, %s)", what, k, op, strings.Join(allowed, ", "))
		}
		switch key {
		case "workload":
			if err := walkOpKeys(x, what, false); err != nil {
				return err
			}
		case "factors", "parts":
			kids, _ := x.([]any)
			for _, kid := range kids {
				if err := walkOpKeys(kid, what, strategy); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

package main

import (
	"fmt"

	"github.com/optdp/optdp/mech"
)

func boundCommand() command {
	return command{
		name:    "bound",
		summary: "upper bounds on the min-entropy leakage of any eps-DP mechanism on a database of u individuals with v values",
		usage:   "--u U --v V --eps E [--range R] [--json]",
		examples: []string{
			"optdp bound --u 100 --v 2 --eps 5",
			"optdp bound --u 100 --v 2 --eps 5 --range 10 --json",
		},
		fields: boundFields,
		run:    runBound,
	}
}

// boundFields documents the JSON output of optdp bound.
var boundFields = []string{
	"u                number of individuals",
	"v                number of values per individual",
	"eps              privacy level",
	"bnd_bits         u·log2(v e^eps / (v-1+e^eps)): the largest min-entropy leakage of any eps-DP mechanism (reached)",
	"individual_bits  the leakage about one individual when the others are known",
	"range            the --range r; absent without --range",
	"range_bits       the bound for mechanisms with at most r outputs; absent without --range",
}

// boundOutput is the JSON output of optdp bound.
type boundOutput struct {
	U              int     `json:"u"`
	V              int     `json:"v"`
	Eps            float64 `json:"eps"`
	BndBits        float64 `json:"bnd_bits"`
	IndividualBits float64 `json:"individual_bits"`
	Range          int     `json:"range,omitempty"`
	RangeBits      *num    `json:"range_bits,omitempty"`
}

func runBound(env *runEnv, args []string) error {
	fs := newFlags(env, "bound")
	u := fs.Int("u", 0, "number of individuals u >= 1 (required)")
	v := fs.Int("v", 0, "number of values per individual v >= 2 (required)")
	eps := fs.Float64("eps", 0, "privacy level eps > 0 (required)")
	rng := fs.Int("range", 0, "size of the mechanism's output range r >= 1 (optional; adds range_bits)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	set := flagsGiven(fs)
	if !set["u"] || *u < 1 {
		return usagef("--u: want the number of individuals, an integer >= 1")
	}
	if !set["v"] || *v < 2 {
		return usagef("--v: want the number of values per individual, an integer >= 2")
	}
	if err := checkEpsFlag("eps", *eps, set["eps"]); err != nil {
		return err
	}
	if set["range"] && *rng < 1 {
		return usagef("--range %d: want an output range size >= 1", *rng)
	}
	b, err := mech.Bnd(*u, *v, *eps)
	if err != nil {
		return err
	}
	ind, err := mech.IndividualBound(*v, *eps)
	if err != nil {
		return err
	}
	res := boundOutput{U: *u, V: *v, Eps: *eps, BndBits: b, IndividualBits: ind}
	if set["range"] {
		r, err := mech.RangeBound(*u, *v, *rng, *eps)
		if err != nil {
			return err
		}
		res.Range, res.RangeBits = *rng, numPtr(r)
	}
	if *asJSON {
		return writeJSON(env.stdout, res)
	}
	w := env.stdout
	fmt.Fprintf(w, "database     u = %d individuals, v = %d values, eps = %s\n", *u, *v, fmtFloat(*eps))
	fmt.Fprintf(w, "bnd          %.6g bits (leakage bound of any eps-DP mechanism, reached by one)\n", b)
	fmt.Fprintf(w, "individual   %.6g bits (about one individual when the others are known)\n", ind)
	if res.RangeBits != nil {
		fmt.Fprintf(w, "range        %.6g bits (mechanisms with at most %d outputs)\n", float64(*res.RangeBits), *rng)
	}
	return nil
}

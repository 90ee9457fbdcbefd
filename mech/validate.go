package mech

import (
	"fmt"
	"math"

	"github.com/optdp/optdp/run"

	"gonum.org/v1/gonum/mat"
)

// SumTol is the absolute tolerance with which a prior, or a row of a noise
// matrix or remap, must sum to 1.
const SumTol = 1e-9

// ValidatePrior checks that prior is a probability distribution on n
// answers: length n, every entry finite and >= 0, summing to 1 within SumTol.
func ValidatePrior(prior []float64, n int) error {
	return ValidateDistribution(prior, n, "prior")
}

// ValidateDistribution is ValidatePrior for a distribution called name.
func ValidateDistribution(p []float64, n int, name string) error {
	if len(p) != n {
		return run.BadInputf("%s has %d entries, want %d (one per answer)", name, len(p), n)
	}
	sum := 0.0
	for i, v := range p {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return run.BadInputf("%s[%d] = %v: every probability must be finite and >= 0", name, i, v)
		}
		sum += v
	}
	if math.Abs(sum-1) > SumTol {
		return run.BadInputf("%s sums to %.12g, not 1 (tolerance %g)", name, sum, SumTol)
	}
	return nil
}

// ValidateStochastic checks that x is a non-empty row-stochastic matrix:
// every entry finite and >= 0 and every row summing to 1 within SumTol.
// name ("noise matrix", "remap") is used in the error message.
func ValidateStochastic(x *mat.Dense, name string) error {
	if x == nil || x.IsEmpty() {
		return run.BadInputf("%s is empty", name)
	}
	r, c := x.Dims()
	for i := 0; i < r; i++ {
		row := x.RawRowView(i)
		sum := 0.0
		for o, v := range row[:c] {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return run.BadInputf("%s[%d][%d] = %v: every entry must be finite and >= 0", name, i, o, v)
			}
			sum += v
		}
		if math.Abs(sum-1) > SumTol {
			return run.BadInputf("%s row %d sums to %.12g, not 1 (tolerance %g)", name, i, sum, SumTol)
		}
	}
	return nil
}

// ValidateDenseSize refuses, before it is allocated, an r x c dense matrix
// that is empty (run.ErrBadInput) or larger than MaxDenseEntries entries
// (run.ErrTooLarge, with the memory it would need).
func ValidateDenseSize(r, c int, what string) error {
	if r <= 0 || c <= 0 {
		return run.BadInputf("%s: size %d x %d must be positive", what, r, c)
	}
	return run.Budget(8*MaxDenseEntries).Check(fmt.Sprintf("%s: a %d x %d dense matrix", what, r, c), run.DenseBytes(r, c, 1),
		"use a smaller domain, or a structured mechanism (package tight's matrix-free mechanism)")
}

// validateNoUnderflow refuses a mechanism whose entries, all positive in
// exact arithmetic, include one below the smallest normal float64: there the
// ratios that privacy is made of are lost (a 0 next to a positive entry is an
// infinite privacy loss), so the mechanism cannot be represented.
func validateNoUnderflow(data []float64, what string) error {
	for _, v := range data {
		if v < 0x1p-1022 { // the smallest normal float64
			return run.BadInputf("%s: an entry underflows float64 (%v): eps times the largest distance is too large (> ~708) to represent the mechanism; use a smaller eps or domain", what, v)
		}
	}
	return nil
}

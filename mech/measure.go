package mech

// Utility, remaps and min-entropy leakage (docs/MATH.md §6).

import (
	"fmt"
	"math"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// Utility is the binary-gain utility U(X, pi, R) = sum_i pi_i (XR)[i][i] of the
// noise matrix x (n x m) under the prior pi with the remap R (m x n,
// row-stochastic: R[o][i] is the probability of guessing i after output o).
// A nil remap is the identity and then x must be square. x and remap must be
// row-stochastic and prior a distribution on the n answers; otherwise an
// error says which input is wrong.
func Utility(x *mat.Dense, prior []float64, remap *mat.Dense) (float64, error) {
	if err := ValidateStochastic(x, "noise matrix"); err != nil {
		return 0, fmt.Errorf("utility: %w", err)
	}
	n, m := x.Dims()
	if err := ValidatePrior(prior, n); err != nil {
		return 0, fmt.Errorf("utility: %w", err)
	}
	if remap == nil {
		if n != m {
			return 0, fmt.Errorf("mech: utility: the identity remap needs a square noise matrix, got %d x %d: %w", n, m, run.ErrBadInput)
		}
		u := 0.0
		for i, p := range prior {
			u += p * x.At(i, i)
		}
		return u, nil
	}
	if err := ValidateStochastic(remap, "remap"); err != nil {
		return 0, fmt.Errorf("utility: %w", err)
	}
	if rr, rc := remap.Dims(); rr != m || rc != n {
		return 0, fmt.Errorf("mech: utility: remap is %d x %d, want %d x %d (outputs x answers): %w", rr, rc, m, n, run.ErrBadInput)
	}
	u := 0.0
	for i, p := range prior {
		if p == 0 {
			continue
		}
		row := x.RawRowView(i)
		s := 0.0
		for o, v := range row {
			s += v * remap.At(o, i)
		}
		u += p * s
	}
	return u, nil
}

// OptimalRemap returns the remap maximising the utility of x under prior and
// that utility U* = sum_o max_i pi_i X[i][o]: remap[o] is the guessed answer
// after output o, the smallest i attaining the maximum.
func OptimalRemap(x *mat.Dense, prior []float64) (remap []int, utility float64, err error) {
	if err := ValidateStochastic(x, "noise matrix"); err != nil {
		return nil, 0, fmt.Errorf("optimal remap: %w", err)
	}
	n, m := x.Dims()
	if err := ValidatePrior(prior, n); err != nil {
		return nil, 0, fmt.Errorf("optimal remap: %w", err)
	}
	remap = make([]int, m)
	best := make([]float64, m)
	for i := range best {
		best[i] = -1
	}
	for i, p := range prior {
		row := x.RawRowView(i)
		for o, v := range row {
			if g := p * v; g > best[o] {
				best[o], remap[o] = g, i
			}
		}
	}
	for _, g := range best {
		utility += g
	}
	return remap, utility, nil
}

// MinEntropy is the min-entropy H(pi) = -log2 max_i pi_i of a prior, in bits.
func MinEntropy(prior []float64) (float64, error) {
	if err := ValidatePrior(prior, len(prior)); err != nil {
		return 0, fmt.Errorf("min-entropy: %w", err)
	}
	return -math.Log2(maxOf(prior)), nil
}

// CondMinEntropy is the conditional min-entropy
// H(X, pi) = -log2 sum_o max_i pi_i X[i][o] of the prior given the output of
// x, in bits.
func CondMinEntropy(x *mat.Dense, prior []float64) (float64, error) {
	_, u, err := OptimalRemap(x, prior)
	if err != nil {
		return 0, fmt.Errorf("conditional min-entropy: %w", err)
	}
	return -math.Log2(u), nil
}

// Leakage is the min-entropy leakage L(X, pi) = H(pi) - H(X, pi) =
// log2(U*/max_i pi_i) of x under prior, in bits (>= 0).
func Leakage(x *mat.Dense, prior []float64) (float64, error) {
	_, u, err := OptimalRemap(x, prior)
	if err != nil {
		return 0, fmt.Errorf("leakage: %w", err)
	}
	return math.Log2(u / maxOf(prior)), nil
}

// MinCapacity is the min-capacity of x, the largest min-entropy leakage over
// all priors, reached at the uniform prior: log2 sum_o max_i X[i][o] bits.
func MinCapacity(x *mat.Dense) (float64, error) {
	if err := ValidateStochastic(x, "noise matrix"); err != nil {
		return 0, fmt.Errorf("min-capacity: %w", err)
	}
	n, m := x.Dims()
	colMax := make([]float64, m)
	for i := 0; i < n; i++ {
		for o, v := range x.RawRowView(i) {
			colMax[o] = math.Max(colMax[o], v)
		}
	}
	s := 0.0
	for _, v := range colMax {
		s += v
	}
	return math.Log2(s), nil
}

// maxOf is the largest entry of a non-empty slice.
func maxOf(v []float64) float64 {
	m := v[0]
	for _, x := range v[1:] {
		m = math.Max(m, x)
	}
	return m
}

package mech

// Quantitative information flow measures of any channel (docs/MATH.md §18):
// g-vulnerability and g-leakage, Bayes risk for a loss, Shannon entropy and
// mutual information, guessing entropy. The capacities are in capacity.go,
// the composition of channels and refinement in compose.go.
//
// A channel is a row-stochastic matrix C (n secrets x m observations), a
// prior pi a distribution on the n secrets. A gain matrix G is n x k: G[x][w]
// is the gain g(w, x) of the guess w when the secret is x (rows secrets,
// columns guesses, the layout of the LP's objective in docs/MATH.md §11). A
// loss matrix L has the same layout, L[x][w] = l(w, x). Entries of G and L may
// be negative; they must be finite.

import (
	"fmt"
	"math"
	"slices"

	"github.com/optdp/optdp/run"

	"gonum.org/v1/gonum/mat"
)

// validateGain checks that g is a finite n x k matrix with n rows (one per
// secret) and k >= 1 columns (guesses); name is "gain" or "loss".
func validateGain(g *mat.Dense, n int, name string) error {
	if g == nil || g.IsEmpty() {
		return run.BadInputf("%s matrix is empty", name)
	}
	r, c := g.Dims()
	if r != n {
		return run.BadInputf("%s matrix has %d rows, want %d (one per secret; columns are guesses)", name, r, n)
	}
	for x := 0; x < r; x++ {
		for w, v := range g.RawRowView(x)[:c] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return run.BadInputf("%s[%d][%d] = %v: every entry must be finite", name, x, w, v)
			}
		}
	}
	return nil
}

// validateChannel checks a channel and a prior on its rows.
func validateChannel(c *mat.Dense, prior []float64) error {
	if err := ValidateStochastic(c, "channel"); err != nil {
		return err
	}
	n, _ := c.Dims()
	return ValidatePrior(prior, n)
}

// GVulnerability is the prior g-vulnerability
//
//	V_g(pi) = max_w sum_x pi_x G[x][w],
//
// the expected gain of the best single guess (Alvim et al., The Science of
// Quantitative Information Flow, ch. 3). g is n x k (rows secrets, columns
// guesses) and may have negative entries; prior is a distribution on n
// secrets. The identity gain gives the Bayes (min-) vulnerability max_x pi_x.
func GVulnerability(prior []float64, g *mat.Dense) (float64, error) {
	if err := ValidatePrior(prior, len(prior)); err != nil {
		return 0, fmt.Errorf("g-vulnerability: %w", err)
	}
	if err := validateGain(g, len(prior), "gain"); err != nil {
		return 0, fmt.Errorf("g-vulnerability: %w", err)
	}
	v, _ := priorExtreme(prior, g, 1)
	return v, nil
}

// PostGVulnerability is the posterior g-vulnerability
//
//	V_g[pi, C] = sum_y max_w sum_x pi_x C[x][y] G[x][w],
//
// the expected gain of an adversary who sees the output y of channel c
// (n x m) and then makes the best guess (Science of QIF, ch. 5). It is
// >= V_g(pi) for every g (the adversary may ignore y).
func PostGVulnerability(c *mat.Dense, prior []float64, g *mat.Dense) (float64, error) {
	if err := validateChannel(c, prior); err != nil {
		return 0, fmt.Errorf("posterior g-vulnerability: %w", err)
	}
	if err := validateGain(g, len(prior), "gain"); err != nil {
		return 0, fmt.Errorf("posterior g-vulnerability: %w", err)
	}
	v, err := postExtreme(c, prior, g, 1)
	if err != nil {
		return 0, fmt.Errorf("posterior g-vulnerability: %w", err)
	}
	return v, nil
}

// AddGLeakage is the additive g-leakage L+_g(pi, C) = V_g[pi, C] - V_g(pi)
// (>= 0; Science of QIF, ch. 5).
func AddGLeakage(c *mat.Dense, prior []float64, g *mat.Dense) (float64, error) {
	post, err := PostGVulnerability(c, prior, g)
	if err != nil {
		return 0, fmt.Errorf("additive g-leakage: %w", err)
	}
	pre, _ := priorExtreme(prior, g, 1)
	return post - pre, nil
}

// MulGLeakage is the multiplicative g-leakage in bits,
//
//	Lx_g(pi, C) = log2( V_g[pi, C] / V_g(pi) )   (>= 0),
//
// defined when V_g(pi) > 0 (Science of QIF, ch. 5, which requires a
// non-negative gain); otherwise an error matching run.ErrBadInput. With the
// identity gain it is the min-entropy leakage (Leakage).
func MulGLeakage(c *mat.Dense, prior []float64, g *mat.Dense) (float64, error) {
	post, err := PostGVulnerability(c, prior, g)
	if err != nil {
		return 0, fmt.Errorf("multiplicative g-leakage: %w", err)
	}
	pre, _ := priorExtreme(prior, g, 1)
	if !(pre > 0) {
		return 0, run.BadInputf("multiplicative g-leakage: V_g(pi) = %g is not > 0 (use a non-negative gain, or the additive leakage)", pre)
	}
	return math.Log2(post / pre), nil
}

// BayesRisk is the prior expected loss of the best guess for the loss
// matrix l (n x k, L[x][w] = l(w, x), entries may be negative):
//
//	U_l(pi) = min_w sum_x pi_x L[x][w]
//
// (Science of QIF, ch. 3: uncertainty as expected loss). A loss is a
// negated gain: BayesRisk(pi, L) = -GVulnerability(pi, -L).
func BayesRisk(prior []float64, l *mat.Dense) (float64, error) {
	if err := ValidatePrior(prior, len(prior)); err != nil {
		return 0, fmt.Errorf("mech: Bayes risk: %w", err)
	}
	if err := validateGain(l, len(prior), "loss"); err != nil {
		return 0, fmt.Errorf("mech: Bayes risk: %w", err)
	}
	v, _ := priorExtreme(prior, l, -1)
	return v, nil
}

// PostBayesRisk is the posterior expected loss
//
//	U_l[pi, C] = sum_y min_w sum_x pi_x C[x][y] L[x][w]   (<= U_l(pi)),
//
// the expected loss of an adversary (or analyst) who sees the output of
// channel c and then makes the best guess: for the distance loss it is the
// expected error of the optimal remap.
func PostBayesRisk(c *mat.Dense, prior []float64, l *mat.Dense) (float64, error) {
	if err := validateChannel(c, prior); err != nil {
		return 0, fmt.Errorf("posterior Bayes risk: %w", err)
	}
	if err := validateGain(l, len(prior), "loss"); err != nil {
		return 0, fmt.Errorf("posterior Bayes risk: %w", err)
	}
	v, err := postExtreme(c, prior, l, -1)
	if err != nil {
		return 0, fmt.Errorf("posterior Bayes risk: %w", err)
	}
	return v, nil
}

// priorExtreme is max_w (sign 1) or min_w (sign -1) of sum_x pi_x G[x][w]
// and the first w attaining it, for validated inputs.
func priorExtreme(prior []float64, g *mat.Dense, sign float64) (float64, int) {
	_, k := g.Dims()
	best, arg := math.Inf(-1), 0
	for w := 0; w < k; w++ {
		s := 0.0
		for x, p := range prior {
			if p != 0 {
				s += p * g.At(x, w)
			}
		}
		if sign*s > best {
			best, arg = sign*s, w
		}
	}
	return sign * best, arg
}

// postExtreme is sum_y max_w (sign 1) or min_w (sign -1) of
// sum_x pi_x C[x][y] G[x][w], for validated inputs, by one product
// J^T G with J = diag(pi) C (m x k).
func postExtreme(c *mat.Dense, prior []float64, g *mat.Dense, sign float64) (float64, error) {
	_, m := c.Dims()
	_, k := g.Dims()
	if err := ValidateDenseSize(m, k, "outputs x guesses"); err != nil {
		return 0, err
	}
	j := joint(c, prior)
	var s mat.Dense
	s.Mul(j.T(), g)
	total := 0.0
	for y := 0; y < m; y++ {
		best := math.Inf(-1)
		for _, v := range s.RawRowView(y) {
			best = math.Max(best, sign*v)
		}
		total += sign * best
	}
	return total, nil
}

// joint is the joint matrix J[x][y] = pi_x C[x][y].
func joint(c *mat.Dense, prior []float64) *mat.Dense {
	n, m := c.Dims()
	j := mat.NewDense(n, m, nil)
	for x, p := range prior {
		if p == 0 {
			continue
		}
		dst := j.RawRowView(x)
		for y, v := range c.RawRowView(x)[:m] {
			dst[y] = p * v
		}
	}
	return j
}

// ShannonEntropy is H(pi) = -sum_x pi_x log2 pi_x in bits (0 log 0 = 0).
func ShannonEntropy(prior []float64) (float64, error) {
	if err := ValidatePrior(prior, len(prior)); err != nil {
		return 0, fmt.Errorf("mech: Shannon entropy: %w", err)
	}
	return entropy(prior), nil
}

// entropy is -sum p log2 p over the positive entries of p.
func entropy(p []float64) float64 {
	h := 0.0
	for _, v := range p {
		if v > 0 {
			h -= v * math.Log2(v)
		}
	}
	return h
}

// CondShannonEntropy is the conditional Shannon entropy in bits
//
//	H(pi | C) = sum_y p(y) H(pi | y) = -sum_{x,y} J[x][y] log2( J[x][y] / p(y) ),
//
// with J[x][y] = pi_x C[x][y] and p(y) = sum_x J[x][y].
func CondShannonEntropy(c *mat.Dense, prior []float64) (float64, error) {
	if err := validateChannel(c, prior); err != nil {
		return 0, fmt.Errorf("conditional Shannon entropy: %w", err)
	}
	j := joint(c, prior)
	p := outputDist(j)
	n, m := j.Dims()
	h := 0.0
	for x := 0; x < n; x++ {
		for y, v := range j.RawRowView(x)[:m] {
			if v > 0 {
				h -= v * math.Log2(v/p[y])
			}
		}
	}
	return math.Max(h, 0), nil
}

// outputDist is p(y) = sum_x J[x][y].
func outputDist(j *mat.Dense) []float64 {
	n, m := j.Dims()
	p := make([]float64, m)
	for x := 0; x < n; x++ {
		for y, v := range j.RawRowView(x)[:m] {
			p[y] += v
		}
	}
	return p
}

// ShannonLeakage is the mutual information between the secret and the
// output of channel c under prior, in bits:
//
//	I(pi; C) = H(pi) - H(pi | C) = sum_{x,y} J[x][y] log2( C[x][y] / p(y) )   (>= 0).
//
// It is computed by the second form (no cancellation between two
// entropies); rounding below 0 is returned as 0.
func ShannonLeakage(c *mat.Dense, prior []float64) (float64, error) {
	if err := validateChannel(c, prior); err != nil {
		return 0, fmt.Errorf("mech: Shannon leakage: %w", err)
	}
	return mutualInfo(c, prior), nil
}

// mutualInfo is I(pi; C) in bits for validated inputs.
func mutualInfo(c *mat.Dense, prior []float64) float64 {
	j := joint(c, prior)
	p := outputDist(j)
	n, m := c.Dims()
	s := 0.0
	for x := 0; x < n; x++ {
		if prior[x] == 0 {
			continue
		}
		cr := c.RawRowView(x)
		for y, v := range j.RawRowView(x)[:m] {
			if v > 0 {
				s += v * math.Log2(cr[y]/p[y])
			}
		}
	}
	return math.Max(s, 0)
}

// GuessingEntropy is Massey's guessing entropy
//
//	G(pi) = sum_{i=1..n} i * pi_(i),   pi_(1) >= pi_(2) >= ... (sorted decreasingly),
//
// the expected number of guesses "is the secret x?" of an adversary who
// tries the secrets in order of decreasing probability. The uniform prior on
// n secrets has G = (n+1)/2; a point mass has G = 1.
func GuessingEntropy(prior []float64) (float64, error) {
	if err := ValidatePrior(prior, len(prior)); err != nil {
		return 0, fmt.Errorf("guessing entropy: %w", err)
	}
	return guesses(slices.Clone(prior)), nil
}

// guesses sorts p decreasingly (in place) and returns sum_i i p_(i).
func guesses(p []float64) float64 {
	slices.SortFunc(p, func(a, b float64) int {
		switch {
		case a > b:
			return -1
		case a < b:
			return 1
		}
		return 0
	})
	s := 0.0
	for i, v := range p {
		s += float64(i+1) * v
	}
	return s
}

// CondGuessingEntropy is the posterior guessing entropy
//
//	G(pi | C) = sum_y p(y) G(pi | y) = sum_y sum_i i * J_(i)[y],
//
// where J_(1)[y] >= J_(2)[y] >= ... is column y of the joint matrix
// J[x][y] = pi_x C[x][y] sorted decreasingly: the expected number of guesses
// after seeing the output. It is <= G(pi).
func CondGuessingEntropy(c *mat.Dense, prior []float64) (float64, error) {
	if err := validateChannel(c, prior); err != nil {
		return 0, fmt.Errorf("conditional guessing entropy: %w", err)
	}
	j := joint(c, prior)
	n, m := j.Dims()
	col := make([]float64, n)
	s := 0.0
	for y := 0; y < m; y++ {
		mat.Col(col, y, j)
		s += guesses(col)
	}
	return s, nil
}

package mech

// The Shannon capacity of a channel by the Blahut–Arimoto iteration, with a
// certified bracket (docs/MATH.md §18.3).

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/run"

	"gonum.org/v1/gonum/mat"
)

// CapacityOptions are the options of ShannonCapacity; nil means the
// defaults.
type CapacityOptions struct {
	// Tol is the width Upper - Lower in bits at which the iteration stops
	// (0 = 1e-9).
	Tol float64 `json:"tol"`
	// MaxIter bounds the iterations (0 = 100000).
	MaxIter int `json:"max_iter"`
	run.Settings
}

// CapacityResult is a certified bracket on the Shannon capacity
// max_pi I(pi; C): Lower <= capacity <= Upper, in bits.
type CapacityResult struct {
	// Lower = I(Prior; C), the mutual information of the prior reached.
	Lower float64 `json:"lower"`
	// Upper = max_x D( C[x] || q ) with q = Prior·C the output distribution:
	// for every output distribution q, max_pi I(pi; C) <= max_x D(C[x] || q)
	// (the minimax form of the capacity, max_pi I = min_q max_x D(C[x] || q);
	// Blahut 1972).
	Upper float64 `json:"upper"`
	// Prior is the input distribution attaining Lower.
	Prior []float64 `json:"prior"`
	// Iter is the number of Blahut–Arimoto steps taken.
	Iter int `json:"iterations"`
}

// ShannonCapacity brackets the Shannon capacity max_pi I(pi; C) of the
// channel c (n x m, row-stochastic) in bits by the Blahut–Arimoto iteration
// (Blahut 1972; Arimoto 1972):
//
//	q = p C,   D_x = D( C[x] || q ) = sum_y C[x][y] ln( C[x][y] / q_y ),
//	p_x <- p_x e^{D_x} / sum_x' p_x' e^{D_x'},
//
// from the uniform p. Every step gives the bracket
//
//	I(p; C) = sum_x p_x D_x  <=  capacity  <=  max_x D_x,
//
// and the iteration stops when the width is <= opts.Tol. When MaxIter steps
// do not reach it, the result holds the bracket reached and the error wraps
// run.ErrNotConverged. Cancelling ctx stops the work with ctx.Err().
// The binary symmetric channel with crossover p has capacity 1 - h(p).
func ShannonCapacity(ctx context.Context, c *mat.Dense, opts *CapacityOptions) (*CapacityResult, error) {
	if err := ValidateStochastic(c, "channel"); err != nil {
		return nil, fmt.Errorf("mech: Shannon capacity: %w", err)
	}
	if opts == nil {
		opts = &CapacityOptions{}
	}
	if err := opts.Budget.Validate(); err != nil {
		return nil, fmt.Errorf("mech: Shannon capacity: %w", err)
	}
	tol, maxIter := opts.Tol, opts.MaxIter
	if tol == 0 {
		tol = 1e-9
	}
	if maxIter == 0 {
		maxIter = 100000
	}
	if math.IsNaN(tol) || tol < 0 || maxIter < 0 {
		return nil, run.BadInputf("mech: Shannon capacity: Tol = %v and MaxIter = %d must be >= 0", opts.Tol, opts.MaxIter)
	}
	n, m := c.Dims()
	p := make([]float64, n)
	for i := range p {
		p[i] = 1 / float64(n)
	}
	q := make([]float64, m)
	d := make([]float64, n)
	res := &CapacityResult{Prior: p}
	const ln2 = math.Ln2
	for it := 1; ; it++ {
		// q = p C and the divergences D_x (nats).
		clear(q)
		for x, px := range p {
			for y, v := range c.RawRowView(x)[:m] {
				q[y] += px * v
			}
		}
		lower, upper := 0.0, math.Inf(-1)
		for x := range p {
			s := 0.0
			for y, v := range c.RawRowView(x)[:m] {
				if v > 0 {
					s += v * math.Log(v/q[y])
				}
			}
			d[x] = s
			lower += p[x] * s
			upper = math.Max(upper, s)
		}
		res.Lower, res.Upper, res.Iter = math.Max(lower/ln2, 0), math.Max(upper/ln2, 0), it
		if res.Upper-res.Lower <= tol {
			return res, nil
		}
		if it >= maxIter {
			return res, fmt.Errorf("mech: Shannon capacity: bracket [%.12g, %.12g] bits after %d steps, width above %g: %w", res.Lower, res.Upper, it, tol, run.ErrNotConverged)
		}
		if it%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("mech: Shannon capacity: %w", err)
			}
			pr := run.NewProgress(run.StageBlahutArimoto)
			pr.Iter, pr.MaxIter, pr.Gap, pr.Value = it, maxIter, res.Upper-res.Lower, res.Lower
			opts.Report(pr)
		}
		// p_x <- p_x e^{D_x - max D} / Z (the shift keeps the weights <= 1;
		// the floor keeps every input in use, so that q > 0 wherever a row
		// of C is, and the bracket stays finite).
		z := 0.0
		for x := range p {
			p[x] = math.Max(p[x]*math.Exp(d[x]-upper), 1e-200)
			z += p[x]
		}
		for x := range p {
			p[x] /= z
		}
	}
}

// GCapacityOptions are the options of MulGCapacity; nil means the defaults.
type GCapacityOptions struct {
	// MaxStrategies bounds the exhaustive search over strategies (maps from
	// outputs to guesses), one small LP each (0 = 4096). Above it, the
	// capacity is bracketed by an ascent (Lower) and the min-capacity
	// (Upper).
	MaxStrategies int `json:"max_strategies"`
	run.Settings
}

// GCapacityResult brackets the multiplicative g-capacity in bits:
// Lower <= max_pi log2(V_g[pi, C] / V_g(pi)) <= Upper.
type GCapacityResult struct {
	// Lower = log2(V_g[Prior, C] / V_g(Prior)), recomputed for the prior
	// found.
	Lower float64 `json:"lower"`
	// Upper: the LPs' optimum when Exact, otherwise the min-capacity
	// log2 sum_y max_x C[x][y] (the "miracle" theorem: no non-negative gain
	// leaks more multiplicatively than the identity gain at its worst prior;
	// Science of QIF, ch. 7).
	Upper float64 `json:"upper"`
	// Prior is the prior attaining Lower.
	Prior []float64 `json:"prior"`
	// Exact reports that every strategy was tried: Upper is the capacity
	// (up to the simplex's tolerance) and Lower is attained.
	Exact bool `json:"exact"`
	// LPs is the number of linear programs solved.
	LPs int `json:"lps"`
}

// MulGCapacity is the multiplicative g-capacity of channel c (n x m) for
// the fixed gain g (n x k, G[x][w] >= 0, each secret with a positive gain
// for some guess), the largest multiplicative g-leakage over all priors:
//
//	MLx_g(C) = max_pi log2( V_g[pi, C] / V_g(pi) ).
//
// Both vulnerabilities are homogeneous of degree 1 in pi, so with pi >= 0
// unnormalised it is log2 of
//
//	max { V_g[pi, C] : pi >= 0, sum_x pi_x G[x][w] <= 1 for every w },
//
// a convex function maximised over a polytope. Writing
// V_g[pi, C] = max_s sum_y sum_x pi_x C[x][y] G[x][s(y)] over the
// strategies s (one guess per output), the maximum is the largest of one LP
// per strategy. When the k^m' strategies (m' the outputs that occur) are at
// most opts.MaxStrategies, all are solved and the result is exact;
// otherwise an alternating ascent (LP for the prior, best response for the
// strategy) from the uniform prior gives Lower, and Upper is the
// min-capacity. No polynomial algorithm is known in general (for the
// additive Bayes capacity the problem is NP-hard; Science of QIF, ch. 7).
func MulGCapacity(ctx context.Context, c, g *mat.Dense, opts *GCapacityOptions) (*GCapacityResult, error) {
	if err := ValidateStochastic(c, "channel"); err != nil {
		return nil, fmt.Errorf("g-capacity: %w", err)
	}
	n, m := c.Dims()
	if err := validateGain(g, n, "gain"); err != nil {
		return nil, fmt.Errorf("g-capacity: %w", err)
	}
	_, k := g.Dims()
	for x := 0; x < n; x++ {
		pos := false
		for w, v := range g.RawRowView(x)[:k] {
			if v < 0 {
				return nil, run.BadInputf("g-capacity: gain[%d][%d] = %v: the multiplicative capacity needs a non-negative gain", x, w, v)
			}
			pos = pos || v > 0
		}
		if !pos {
			return nil, run.BadInputf("g-capacity: secret %d has gain 0 for every guess, so V_g(pi) = 0 for the prior on it", x)
		}
	}
	if opts == nil {
		opts = &GCapacityOptions{}
	}
	if err := opts.Budget.Validate(); err != nil {
		return nil, fmt.Errorf("g-capacity: %w", err)
	}
	maxS := opts.MaxStrategies
	if maxS == 0 {
		maxS = 4096
	}
	if maxS < 0 {
		return nil, run.BadInputf("g-capacity: MaxStrategies = %d must be >= 0", maxS)
	}
	if err := opts.Budget.Check("g-capacity LP (dense simplex tableau)", 2*tableauBytes(k, n+k), "use fewer guesses"); err != nil {
		return nil, fmt.Errorf("g-capacity: %w", err)
	}
	// The outputs that occur.
	var outs []int
	for y := 0; y < m; y++ {
		for x := 0; x < n; x++ {
			if c.At(x, y) > 0 {
				outs = append(outs, y)
				break
			}
		}
	}
	res := &GCapacityResult{}
	// value solves the LP of the strategy s (guess s[i] after output outs[i]).
	value := func(s []int) (float64, []float64, error) {
		a := make([]float64, n)
		for i, y := range outs {
			for x := 0; x < n; x++ {
				a[x] += c.At(x, y) * g.At(x, s[i])
			}
		}
		res.LPs++
		return gCapacityLP(ctx, a, g)
	}
	best, bestPi := -1.0, []float64(nil)
	consider := func(v float64, pi []float64) {
		if v > best {
			best, bestPi = v, pi
		}
	}
	total := 1.0
	for range outs {
		total *= float64(k)
	}
	if total <= float64(maxS) {
		s := make([]int, len(outs))
		for {
			if res.LPs%256 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, fmt.Errorf("g-capacity: %w", err)
				}
				pr := run.NewProgress(run.StageGCapacity)
				pr.Iter, pr.MaxIter, pr.Frac = res.LPs, int(total), float64(res.LPs)/total
				opts.Report(pr)
			}
			v, pi, err := value(s)
			if err != nil {
				return nil, err
			}
			consider(v, pi)
			i := 0
			for ; i < len(s); i++ {
				if s[i]++; s[i] < k {
					break
				}
				s[i] = 0
			}
			if i == len(s) {
				break
			}
		}
		res.Exact = true
	} else {
		// Alternating ascent from the uniform prior.
		pi := make([]float64, n)
		for i := range pi {
			pi[i] = 1 / float64(n)
		}
		for round := 0; round < 1000; round++ {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("g-capacity: %w", err)
			}
			s := bestResponse(c, g, pi, outs)
			v, next, err := value(s)
			if err != nil {
				return nil, err
			}
			if v <= best*(1+1e-12) {
				break
			}
			consider(v, next)
			pi = next
		}
	}
	// The prior found, normalised, and its leakage recomputed.
	sum := 0.0
	for _, v := range bestPi {
		sum += v
	}
	if !(sum > 0) {
		return nil, fmt.Errorf("mech: g-capacity: the LP returned no prior")
	}
	res.Prior = make([]float64, n)
	for i, v := range bestPi {
		res.Prior[i] = v / sum
	}
	post, err := postExtreme(c, res.Prior, g, 1)
	if err != nil {
		return nil, fmt.Errorf("g-capacity: %w", err)
	}
	pre, _ := priorExtreme(res.Prior, g, 1)
	res.Lower = math.Max(math.Log2(post/pre), 0)
	if res.Exact {
		res.Upper = math.Max(math.Log2(best), res.Lower)
	} else {
		mc, err := MinCapacity(c)
		if err != nil {
			return nil, err
		}
		res.Upper = math.Max(mc, res.Lower)
	}
	return res, nil
}

// bestResponse is the strategy maximising sum_x pi_x C[x][y] G[x][w] for
// each output in outs.
func bestResponse(c, g *mat.Dense, pi []float64, outs []int) []int {
	n, _ := c.Dims()
	_, k := g.Dims()
	s := make([]int, len(outs))
	for i, y := range outs {
		best := math.Inf(-1)
		for w := 0; w < k; w++ {
			v := 0.0
			for x := 0; x < n; x++ {
				v += pi[x] * c.At(x, y) * g.At(x, w)
			}
			if v > best {
				best, s[i] = v, w
			}
		}
	}
	return s
}

// gCapacityLP solves max a·pi subject to G^T pi <= 1, pi >= 0 (bounded as
// every row of G has a positive entry) from the all-slack basis.
func gCapacityLP(ctx context.Context, a []float64, g *mat.Dense) (float64, []float64, error) {
	n, k := g.Dims()
	A := mat.NewDense(k, n+k, nil)
	b := make([]float64, k)
	cost := make([]float64, n+k)
	for w := 0; w < k; w++ {
		for x := 0; x < n; x++ {
			A.Set(w, x, g.At(x, w))
		}
		A.Set(w, n+w, 1)
		b[w] = 1
	}
	for x := 0; x < n; x++ {
		cost[x] = -a[x]
	}
	basis := make([]int, k)
	for w := range basis {
		basis[w] = n + w
	}
	t, err := newTableau(A, b, cost, basis, nil)
	if err == nil {
		err = t.solve(ctx)
	}
	if err != nil {
		return 0, nil, fmt.Errorf("g-capacity: %w", err)
	}
	z := t.x()
	v := 0.0
	pi := make([]float64, n)
	for x := 0; x < n; x++ {
		pi[x] = math.Max(z[x], 0)
		v += a[x] * pi[x]
	}
	return v, pi, nil
}

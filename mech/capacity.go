package mech

// The Shannon capacity of a channel by the Blahut–Arimoto iteration, with a
// certified bracket (docs/MATH.md §6.5).

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/solve/run"

	"gonum.org/v1/gonum/mat"
)

// CapacityOptions are the options of ShannonCapacity; nil means the
// defaults.
type CapacityOptions struct {
	// Tol is the width Upper - Lower in bits at which the iteration stops
	// (0 = 1e-9).
	Tol float64
	// MaxIter bounds the iterations (0 = 100000).
	MaxIter int
	run.Settings
}

// CapacityResult is a certified bracket on the Shannon capacity
// max_pi I(pi; C): Lower <= capacity <= Upper, in bits.
type CapacityResult struct {
	// Lower = I(Prior; C), the mutual information of the prior reached.
	Lower float64
	// Upper = max_x D( C[x] || q ) with q = Prior·C the output distribution:
	// for every output distribution q, max_pi I(pi; C) <= max_x D(C[x] || q)
	// (the dual of the capacity problem; Cover & Thomas, Thm 13.1.1 and
	// problem 13.8; Csiszár & Körner).
	Upper float64
	// Prior is the input distribution attaining Lower.
	Prior []float64
	// Iter is the number of Blahut–Arimoto steps taken.
	Iter int
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
		return nil, fmt.Errorf("Shannon capacity: %w", err)
	}
	if opts == nil {
		opts = &CapacityOptions{}
	}
	tol, maxIter := opts.Tol, opts.MaxIter
	if tol == 0 {
		tol = 1e-9
	}
	if maxIter == 0 {
		maxIter = 100000
	}
	if math.IsNaN(tol) || tol < 0 || maxIter < 0 {
		return nil, run.BadInputf("Shannon capacity: Tol = %v and MaxIter = %d must be >= 0", opts.Tol, opts.MaxIter)
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
			return res, fmt.Errorf("Shannon capacity: bracket [%.12g, %.12g] bits after %d steps, width above %g: %w", res.Lower, res.Upper, it, tol, run.ErrNotConverged)
		}
		if it%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("Shannon capacity: %w", err)
			}
			pr := run.NewProgress("blahut-arimoto")
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

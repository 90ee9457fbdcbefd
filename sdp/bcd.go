package sdp

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// maxBCDCycles bounds the cycles of refineKron.
const maxBCDCycles = 30

// errInaccurate marks a factor whose error term came out negative or NaN in
// floating point (an ill-conditioned strategy); refineKron rejects it.
var errInaccurate = errors.New("sdp: error term not computable accurately")

// totalStrategy returns the 1×n strategy 1^T (the total, D1 = 1).
func totalStrategy(n int) *mat.Dense {
	a := mat.NewDense(1, n, nil)
	for j := 0; j < n; j++ {
		a.Set(0, j, 1)
	}
	return a
}

// refineKron improves a Kronecker strategy A = ⊗_f A_f for the workload
// G = Σ_t w_t ⊗_f G_tf by block coordinate descent (the scheme of HDMM's
// Kronecker templates). With every factor but f fixed, the error
// Σ_t w_t ∏_g F_tg(A_g), F_tg = L1Error(G_tg, A_g), is F(A_f) =
// L1Error(Σ_t c_t G_tf, A_f) with c_t = w_t ∏_{g≠f} F_tg: one dense problem
// of order n_f, solved by OptimizeL1 warm started at the current Θ_f with
// the current factor, the identity, the total 1^T (optimal for an attribute
// the workload only totals) and cands[f] as baselines, so no step
// increases the error. Cycles stop when one improves the error by less
// than a relative 1e-9. thetas[f] is the factor's Θ when it is a
// p-Identity strategy, else nil; factors and thetas are updated in place.
func refineKron(ctx context.Context, terms []KronTerm, factors, thetas []*mat.Dense, cands [][]*mat.Dense, ps []int, o *L1Options) (float64, int, error) {
	nf := len(factors)
	vals := make([][]float64, len(terms))
	for t := range terms {
		vals[t] = make([]float64, nf)
	}
	setVals := func(f int) error {
		n := terms[0].Factors[f].SymmetricDim()
		d1, err := maxColNorm1(factors[f], n)
		if err != nil {
			return err
		}
		gi, err := newGramInverse(factors[f])
		if err != nil {
			return err
		}
		for t, term := range terms {
			v := d1 * d1 * gi.trace(term.Factors[f])
			if !(v >= 0) || math.IsNaN(v) {
				return errInaccurate
			}
			vals[t][f] = v
		}
		return nil
	}
	for f := 0; f < nf; f++ {
		if err := setVals(f); err != nil {
			return 0, 0, fmt.Errorf("sdp: refining the Kronecker strategy: factor %d: %w", f, err)
		}
	}
	total := func() float64 {
		s := 0.0
		for t, term := range terms {
			p := term.Weight
			for f := 0; f < nf; f++ {
				p *= vals[t][f]
			}
			s += p
		}
		return s
	}
	cur := total()
	iters := 0
	for cycle := 0; cycle < maxBCDCycles; cycle++ {
		start := cur
		for f := 0; f < nf; f++ {
			if err := ctxErr(ctx, "L1 Kronecker refinement"); err != nil {
				return 0, 0, err
			}
			n := terms[0].Factors[f].SymmetricDim()
			g := mat.NewSymDense(n, nil)
			finite := true
			for t, term := range terms {
				c := term.Weight
				for h := 0; h < nf; h++ {
					if h != f {
						c *= vals[t][h]
					}
				}
				if math.IsInf(c, 0) || math.IsNaN(c) {
					finite = false
					break
				}
				if c != 0 {
					g.AddSym(g, scaledSym(c, term.Factors[f]))
				}
			}
			if !finite {
				continue
			}
			if _, err := checkGram(g); err != nil {
				continue // the other factors zero this attribute out
			}
			bl := []*mat.Dense{factors[f], identityStrategy(n), totalStrategy(n)}
			bl = append(bl, cands[f]...)
			opt := L1Options{Settings: o.Settings, P: ps[f], Restarts: max(4, o.Restarts), Seed: factorSeed(o.Seed, (cycle+1)*nf+f),
				MaxIter: o.MaxIter, Baselines: bl, Init: thetas[f]}
			if thetas[f] != nil {
				if r, _ := thetas[f].Dims(); r != ps[f] {
					opt.Init = nil
				}
			}
			r, err := OptimizeL1(ctx, g, &opt)
			if err != nil {
				return 0, 0, fmt.Errorf("sdp: refining factor %d: %w", f, err)
			}
			iters += r.Iterations
			if r.Baseline == 0 {
				continue // the current factor is still the best
			}
			old, oldTheta := factors[f], thetas[f]
			factors[f], thetas[f] = r.A, r.Theta
			err = setVals(f)
			if err != nil && err != errInaccurate {
				return 0, 0, err
			}
			if v := total(); err != nil || !(v < cur) {
				factors[f], thetas[f] = old, oldTheta // rounding: keep the old factor
				if err := setVals(f); err != nil {
					return 0, 0, err
				}
			} else {
				cur = v
			}
		}
		if !(cur < start*(1-1e-9)) {
			break
		}
	}
	return cur, iters, nil
}

// scaledSym returns c·a as a new matrix.
func scaledSym(c float64, a *mat.SymDense) *mat.SymDense {
	out := mat.NewSymDense(a.SymmetricDim(), nil)
	out.ScaleSym(c, a)
	return out
}

// identityStrategy returns the n×n identity strategy.
func identityStrategy(n int) *mat.Dense {
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		a.Set(i, i, 1)
	}
	return a
}

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

// bcdRestarts is the number of restarts of each block problem of
// refineKron, fixed so that a refinement does not depend on the caller's
// number of restarts.
const bcdRestarts = 4

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
	total := func() float64 { return weightedProducts(terms, vals) }
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
			opt := L1Options{Settings: o.Settings, P: ps[f], Restarts: bcdRestarts, Seed: factorSeed(o.Seed, (cycle+1)*nf+f),
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

// OptimizeL2KronSum finds a Kronecker strategy X = ⊗_f X_f (unit diagonal,
// so D2 = 1) for the L2 problem with G = Σ_t w_t ⊗_f G_tf, terms with the
// same factor orders (a union of Kronecker workloads such as the census
// tables), by block coordinate descent: with every factor but f fixed the
// objective Σ_t w_t ∏_g tr(G_tg X_g^{-1}) is tr(G̃ X_f^{-1}) with
// G̃ = Σ_t w_t ∏_{g≠f} tr(G_tg X_g^{-1}) G_tf, a convex problem of order
// n_f solved by OptimizeL2 (to a relative gap of 1e-7, or opt.RelGap if
// larger); cycles stop when one improves the objective by less than a
// relative 1e-7 (at most 30). Each step solves its block
// exactly, so the objective never increases, but the answer is only
// optimal among Kronecker strategies up to the block method's convergence.
// Its certificate is valid for every strategy: since G ⪰ w_t ⊗_f G_tf,
// the optimum is at least max_t w_t ∏_f Dual(G_tf), the certified optima of
// the single terms (Dual, Gap and RelGap of the result; the gap is usually
// large, as the bound ignores all terms but one).
func OptimizeL2KronSum(ctx context.Context, terms []KronTerm, opt *L2Options) (*L2KronResult, error) {
	if err := checkTerms(terms); err != nil {
		return nil, err
	}
	// Blocks are solved to a relative gap of 1e-7 in at most 40 Newton
	// iterations: the descent does not need more, and the certificate is
	// valid whatever the blocks' accuracy.
	sub := L2Options{RelGap: 1e-7, MaxIter: 40}
	if opt != nil {
		sub.Settings = opt.Settings
		sub.MaxCG = opt.MaxCG
		if opt.RelGap > sub.RelGap {
			sub.RelGap = opt.RelGap
		}
		if opt.MaxIter > 0 && opt.MaxIter < sub.MaxIter {
			sub.MaxIter = opt.MaxIter
		}
	}
	opt = &sub
	nf := len(terms[0].Factors)
	xs := make([]*mat.SymDense, nf)
	as := make([]*L2Result, nf)
	inv := make([]*mat.SymDense, nf)
	setInv := func(f int) error {
		var ch mat.Cholesky
		if !ch.Factorize(xs[f]) {
			return fmt.Errorf("sdp: factor %d not positive definite", f)
		}
		var xi mat.SymDense
		if err := ch.InverseTo(&xi); err != nil {
			return err
		}
		inv[f] = &xi
		return nil
	}
	for f := 0; f < nf; f++ {
		n := terms[0].Factors[f].SymmetricDim()
		xs[f] = mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			xs[f].SetSym(i, i, 1)
		}
		if err := setInv(f); err != nil {
			return nil, err
		}
	}
	vals := make([][]float64, len(terms))
	for t, term := range terms {
		vals[t] = make([]float64, nf)
		for f, g := range term.Factors {
			vals[t][f] = traceProd(g, inv[f])
		}
	}
	total := func() float64 { return weightedProducts(terms, vals) }
	cur := total()
	res := &L2KronResult{}
	for cycle := 0; cycle < maxBCDCycles; cycle++ {
		start := cur
		for f := 0; f < nf; f++ {
			n := terms[0].Factors[f].SymmetricDim()
			g := mat.NewSymDense(n, nil)
			for t, term := range terms {
				c := term.Weight
				for h := 0; h < nf; h++ {
					if h != f {
						c *= vals[t][h]
					}
				}
				g.AddSym(g, scaledSym(c, term.Factors[f]))
			}
			r, err := OptimizeL2(ctx, g, opt)
			if err != nil {
				return nil, fmt.Errorf("sdp: L2 block %d: %w", f, err)
			}
			old, oldInv, oldVals := xs[f], inv[f], make([]float64, len(terms))
			for t := range terms {
				oldVals[t] = vals[t][f]
			}
			xs[f] = r.X
			if err := setInv(f); err != nil {
				xs[f], inv[f] = old, oldInv
				continue
			}
			for t, term := range terms {
				vals[t][f] = traceProd(term.Factors[f], inv[f])
			}
			if v := total(); v < cur {
				cur, as[f] = v, r
			} else {
				xs[f], inv[f] = old, oldInv
				for t := range terms {
					vals[t][f] = oldVals[t]
				}
			}
		}
		if !(cur < start*(1-1e-7)) {
			break
		}
	}
	for f := 0; f < nf; f++ {
		if as[f] == nil { // the identity was kept
			n := xs[f].SymmetricDim()
			as[f] = &L2Result{X: xs[f], A: identityStrategy(n), Converged: true}
		}
	}
	res.Factors, res.Objective = as, cur
	// Certificate: the best single-term bound (each distinct factor Gram
	// solved once).
	type solved struct {
		g    *mat.SymDense
		dual float64
	}
	var cache []solved
	dualOf := func(g *mat.SymDense) (float64, error) {
		for _, c := range cache {
			if c.g == g || mat.Equal(c.g, g) {
				return c.dual, nil
			}
		}
		r, err := OptimizeL2(ctx, g, opt)
		if err != nil {
			return 0, err
		}
		cache = append(cache, solved{g, r.Dual})
		return r.Dual, nil
	}
	for _, term := range terms {
		b := term.Weight
		for f, g := range term.Factors {
			d, err := dualOf(g)
			if err != nil {
				return nil, fmt.Errorf("sdp: L2 bound, factor %d: %w", f, err)
			}
			b *= d
		}
		res.Dual = math.Max(res.Dual, b)
	}
	res.Gap = math.Max(res.Objective-res.Dual, 0)
	res.RelGap = res.Gap / res.Objective
	return res, nil
}

// weightedProducts is Σ_t w_t Π_f vals[t][f]: the objective of a union of
// Kronecker terms from each term's per-factor values.
func weightedProducts(terms []KronTerm, vals [][]float64) float64 {
	s := 0.0
	for t, term := range terms {
		p := term.Weight
		for _, v := range vals[t] {
			p *= v
		}
		s += p
	}
	return s
}

package stream

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// StageMinSep is the Progress stage of the minimum-separation dense
// optimum's rounds.
const StageMinSep run.Stage = "stream minsep"

// msDual evaluates the Lagrange dual of the dense problem on an active set
// of constraints v (±1 on a pattern): with Λ = Σ λ_v v vᵀ and S = A Λ Aᵀ,
//
//	Φ = tr S^{1/2},  X(Λ) = Aᵀ S^{-1/2} A,  ∂Φ/∂λ_v = ½ vᵀ X(Λ) v,
//
// (S and Λ^{1/2} G Λ^{1/2} share their eigenvalues, and Aᵀ S^{-1/2} A =
// Λ^{-1/2}(Λ^{1/2} G Λ^{1/2})^{1/2} Λ^{-1/2}), so d = Φ²/Σλ.
type msDual struct {
	n    int
	pats [][]int
	sgns [][]int

	phi, sum float64
	x        *mat.SymDense
}

func (d *msDual) add(p, s []int) {
	d.pats = append(d.pats, append([]int(nil), p...))
	d.sgns = append(d.sgns, append([]int(nil), s...))
}

// eval computes Φ, Σλ and X for λ = exp(θ) and writes ½ vᵀ X v into gv.
// It returns errDualSingular (possibly wrapped) when S is not positive
// definite, and ctx's error (wrapped) when ctx is done during the
// eigendecomposition of S.
func (d *msDual) eval(ctx context.Context, theta, gv []float64) error {
	n := d.n
	lam := mat.NewDense(n, n, nil)
	d.sum = 0
	for c, p := range d.pats {
		l := math.Exp(theta[c])
		d.sum += l
		s := d.sgns[c]
		for a, i := range p {
			for b, j := range p {
				lam.Set(i, j, lam.At(i, j)+l*float64(s[a]*s[b]))
			}
		}
	}
	// S = A Λ Aᵀ: S_ij = Σ_{a<=i, b<=j} Λ_ab (two-dimensional prefix sums).
	ps := mat.NewSymDense(n, nil)
	row := make([]float64, n)
	colAcc := make([]float64, n)
	for i := 0; i < n; i++ {
		acc := 0.0
		for j := 0; j < n; j++ {
			acc += lam.At(i, j)
			colAcc[j] += acc
			row[j] = colAcc[j]
		}
		for j := 0; j <= i; j++ {
			ps.SetSym(j, i, row[j])
		}
	}
	vals, vecs, err := backend.EigenSymContext(ctx, ps)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("%w: %w", errDualSingular, err)
	}
	d.phi = 0
	w := mat.DenseCopyOf(vecs)
	for t, v := range vals {
		if !(v > 0) {
			return errDualSingular
		}
		d.phi += math.Sqrt(v)
		f := math.Pow(v, -0.25)
		for i := 0; i < n; i++ {
			w.Set(i, t, w.At(i, t)*f)
		}
	}
	// R = S^{-1/2} = W Wᵀ; X = Aᵀ R A: X_ij = Σ_{a>=i, b>=j} R_ab.
	var r mat.Dense
	r.Mul(w, w.T())
	x := mat.NewSymDense(n, nil)
	for i := range colAcc {
		colAcc[i] = 0
	}
	for i := n - 1; i >= 0; i-- {
		acc := 0.0
		for j := n - 1; j >= 0; j-- {
			acc += r.At(i, j)
			colAcc[j] += acc
			row[j] = colAcc[j]
		}
		for j := i; j < n; j++ {
			x.SetSym(i, j, row[j])
		}
	}
	d.x = x
	for c, p := range d.pats {
		s := d.sgns[c]
		v := 0.0
		for a, i := range p {
			for b, j := range p {
				v += float64(s[a]*s[b]) * x.At(i, j)
			}
		}
		gv[c] = v / 2
	}
	return nil
}

// denseMinSep is OptimizeDense under minimum separation with k > 1: the
// Lagrange dual of §19.2 over every pattern and sign vector (up to a
// global sign), at most maxFullConstraints of them (ErrTooLarge beyond).
func denseMinSep(ctx context.Context, n int, s Schema, opt *DenseOptions) (*DenseResult, error) {
	if err := opt.Budget.CheckDense("stream: dense optimisation", n, 6, "use the Toeplitz or BLT family"); err != nil {
		return nil, err
	}
	if c := minSepConstraints(n, s, maxFullConstraints); c > maxFullConstraints {
		return nil, fmt.Errorf("stream: the dense optimum under %v on n = %d has more than %d patterns and sign vectors: %w (use the Toeplitz or BLT family)", s, n, maxFullConstraints, run.ErrTooLarge)
	}
	if err := opt.Budget.Check("stream: minsep constraints", float64(maxFullConstraints)*float64(8*(2*s.K+8)), ""); err != nil {
		return nil, err
	}
	tol := opt.RelGap
	if tol == 0 {
		tol = 1e-6
	}
	return denseMinSepFull(ctx, n, s, &msDual{n: n}, tol, opt)
}

// maxFullConstraints bounds the constraints (patterns × sign vectors up to
// a global sign) that denseMinSep lists in full.
const maxFullConstraints = 2_000_000

// minSepConstraints counts the minimum-separation patterns of [0, n)
// weighted by their 2^(size-1) sign vectors, stopping once past limit: c[r][j]
// = the weighted count of patterns of r more steps starting at or after j.
func minSepConstraints(n int, s Schema, limit int) int {
	// cnt[r][j]: patterns of exactly r steps, all >= j.
	prev := make([]int, n+s.B+1) // r-1
	cur := make([]int, n+s.B+1)
	for j := range prev {
		if j < n {
			prev[j] = n - j // r = 1
		}
	}
	total := n
	for r := 2; r <= s.K; r++ {
		for j := n - 1; j >= 0; j-- {
			cur[j] = min(cur[j+1]+prev[j+s.B], limit+1)
		}
		cur[n] = 0
		w := cur[0] // times 2^(r-1) sign vectors, capped (no overflow on 32-bit int)
		for i := 1; i < r && w <= limit; i++ {
			w *= 2
		}
		total = min(total+w, limit+1)
		if total > limit || cur[0] == 0 {
			return total
		}
		prev, cur = cur, prev
		for j := range cur {
			cur[j] = 0
		}
	}
	return total
}

// denseMinSepFull maximises the dual over every constraint, with the
// primal bound Φ·max_v vᵀ X(Λ) v of every iterate (exact: all constraints
// are listed); MaxIter bounds the iterations (0: 100000).
func denseMinSepFull(ctx context.Context, n int, s Schema, d *msDual, tol float64, opt *DenseOptions) (*DenseResult, error) {
	var rec func(p []int, next int)
	rec = func(p []int, next int) {
		if len(p) > 0 {
			for mask := 0; mask < 1<<(len(p)-1); mask++ {
				sg := make([]int, len(p))
				sg[0] = 1
				for a := 1; a < len(p); a++ {
					sg[a] = 1 - 2*(mask>>(a-1)&1)
				}
				d.add(p, sg)
			}
		}
		if len(p) == s.K {
			return
		}
		for j := next; j < n; j++ {
			rec(append(p, j), j+s.B)
		}
	}
	rec(nil, 0)
	maxIter := opt.MaxIter
	if maxIter == 0 {
		maxIter = 100000
	}
	// Φ is concave and homogeneous of degree ½ in λ (d is scale
	// invariant), so the dual is max Φ over the simplex. Phase 1: the
	// multiplicative update λ_v ← λ_v (vᵀXv / Σ_u λ_u uᵀXu)² (Σ_u λ_u
	// ∂Φ/∂λ_u = Φ/2; the square of the classical algorithm of optimal
	// design, sublinear but robust). Phase 2: L-BFGS on log λ over the
	// multipliers phase 1 left above 1e-9 of the largest (the others stay
	// 0), which converges fast once the inactive ones are gone. The primal
	// bound is taken over all constraints at every iterate.
	m := len(d.pats)
	theta := make([]float64, m)
	lam := make([]float64, m)
	for c := range lam {
		lam[c] = 1 / float64(m)
	}
	gv := make([]float64, m)
	bestDual, bestPrimal := 0.0, math.Inf(1)
	var bestX *mat.SymDense
	dualTheta := make([]float64, m)
	iters := 0
	observe := func(th []float64) (gap float64, err error) {
		if err := d.eval(ctx, th, gv); err != nil {
			return math.Inf(1), err
		}
		dual := d.phi * d.phi / d.sum
		mx := 0.0
		for _, v := range gv {
			mx = math.Max(mx, 2*v)
		}
		if dual > bestDual {
			bestDual = dual
			copy(dualTheta, th)
		}
		if p := d.phi * mx; p < bestPrimal {
			bestPrimal, bestX = p, d.x
		}
		gap = (bestPrimal - bestDual) / bestPrimal
		pr := run.NewProgress(StageMinSep)
		pr.Iter, pr.MaxIter, pr.Value, pr.Gap = iters+1, maxIter, bestPrimal, gap
		opt.Report(pr)
		return gap, nil
	}
	gap := math.Inf(1)
	for ; iters < maxIter && iters < minSepPhase1 && gap > minSepSwitch; iters++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for c, l := range lam {
			theta[c] = math.Log(l)
		}
		var err error
		if gap, err = observe(theta); err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("stream: minsep dual: %w", err)
			}
			return nil, fmt.Errorf("stream: minsep dual: %w: %w", err, run.ErrNotConverged)
		}
		if gap <= tol {
			break
		}
		avg := 0.0
		for c, v := range gv {
			avg += lam[c] * 2 * v
		}
		for c, v := range gv {
			r := 2 * v / avg
			lam[c] *= r * r
		}
	}
	if gap > tol && iters < maxIter {
		top := 0.0
		for _, l := range lam {
			top = math.Max(top, l)
		}
		var sup []int
		for c, l := range lam {
			theta[c] = math.Inf(-1)
			if l >= 1e-9*top {
				sup = append(sup, c)
			}
		}
		v := make([]float64, len(sup))
		for a, c := range sup {
			v[a] = math.Log(lam[c])
		}
		f := func(x, g []float64) float64 {
			for a, c := range sup {
				theta[c] = x[a]
			}
			if d.eval(ctx, theta, gv) != nil {
				return math.Inf(1) // outside the domain, or stopped by ctx (minimizeLBFGS then returns its error)
			}
			for a, c := range sup {
				g[a] = -math.Exp(x[a]) * (2*gv[c]/d.phi - 1/d.sum)
			}
			return -(2*math.Log(d.phi) - math.Log(d.sum))
		}
		_, it, _, err := minimizeLBFGS(ctx, f, v, maxIter-iters, func(_ int, _ float64, x []float64) bool {
			for a, c := range sup {
				theta[c] = x[a]
			}
			iters++
			g, err := observe(theta)
			return err == nil && g <= tol
		})
		_ = it
		if err != nil {
			return nil, err
		}
	}
	if bestX == nil {
		return nil, fmt.Errorf("stream: minsep dual: no iterate: %w", run.ErrNotConverged)
	}
	res, err := finishDense(ctx, bestX, s, bestDual, "multiplicative + lbfgs dual", iters, tol)
	if res != nil {
		for c := range dualTheta {
			res.Multipliers = append(res.Multipliers, Multiplier{Pattern: d.pats[c], Signs: d.sgns[c], Lambda: math.Exp(dualTheta[c])})
		}
	}
	return res, err
}

// The multiplicative phase of denseMinSepFull runs at most minSepPhase1
// iterations, and stops at the relative gap minSepSwitch.
const (
	minSepPhase1 = 3000
	minSepSwitch = 1e-3
)

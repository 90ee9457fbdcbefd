package lp

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/optdp/optdp/lp/internal/kernel"
	"github.com/optdp/optdp/lp/internal/orbit"
	"github.com/optdp/optdp/run"
)

// steps returns the primal and dual step limits of the current direction.
func (s *ipm) steps() (ap, ad float64) {
	ap = min(s.stepTo(s.x, s.d.x), s.stepTo(s.s, s.d.s))
	ad = min(s.stepTo(s.zx, s.d.zx), s.stepTo(s.lam, s.d.lam))
	return ap, ad
}

// maxCorrectors is the number of Gondzio centrality correctors tried per
// iteration: each costs one more solve with the factors at hand, far less
// than the factorisation, and lengthens short steps. Not in the lazy
// iterations of the Schur complement (newton_schur.go, lp/internal/schur), where a solve is
// a run of conjugate gradients (10-30 products S v, each a solve with
// every column's factor): there the correctors saved a few iterations but
// cost more than those (Manhattan 40×40 with the hot-spot prior: 41 iterations
// and 357-392 CPU s with them, 43 and 298 CPU s without; one corrector:
// 39 and 366 CPU s). They do run in the iteration that assembled S in
// single precision (schur.Lazy.Single), whose solves are conjugate gradients
// preconditioned by the fresh factor: a few products each.
const maxCorrectors = 2

// centralityCorrectors applies Gondzio's multiple centrality correctors to
// the current direction s.d with step limits ap, ad and returns the new
// limits. Each corrector aims the complementarity products at the trial
// point (steps raised by 0.2) into [0.1, 10]·sigmaMu, solving the Newton
// system with only that target as right-hand side; it is kept when it
// lengthens the steps.
func (s *ipm) centralityCorrectors(sigmaMu, ap, ad float64) (float64, float64) {
	if s.pcg.Aged() {
		return ap, ad
	}
	if s.dc.x == nil {
		s.dc = newNewton(len(s.x), len(s.s), s.n)
		s.zero = make([]float64, max(len(s.x), s.n))
		s.tx = make([]float64, len(s.x))
	}
	const delta, bmin, bmax = 0.2, 0.1, 10.0
	lo, hi := bmin*sigmaMu, bmax*sigmaMu
	for range maxCorrectors {
		if ap >= 1 && ad >= 1 {
			break
		}
		tp, td := min(1, ap+delta), min(1, ad+delta)
		s.each(len(s.x), func(j0, j1 int) {
			for j := j0; j < j1; j++ {
				s.tx[j] = centralTarget((s.x[j]+tp*s.d.x[j])*(s.zx[j]+td*s.d.zx[j]), lo, hi)
			}
		})
		ts := pairRHS{s: s.s, lam: s.lam, ds: s.d.s, dl: s.d.lam, gondzio: true, tp: tp, td: td, low: lo, high: hi}
		z := s.zero
		s.solveNewton(z[:len(s.x)], z[:s.n], nil, s.tx, ts, &s.dc)
		s.add(&s.d, &s.dc, 1)
		np, nd := s.steps()
		if min(np, nd) >= min(ap, ad)+0.1*delta {
			ap, ad = np, nd
			continue
		}
		s.add(&s.d, &s.dc, -1)
		break
	}
	return ap, ad
}

// centralTarget is the change of a complementarity product v that a
// centrality corrector asks for: up to lo, down to hi (by at most hi), or
// none within [lo, hi].
func centralTarget(v, lo, hi float64) float64 {
	switch {
	case v < lo:
		return lo - v
	case v > hi:
		return max(hi-v, -hi)
	}
	return 0
}

// trustworthy reports whether the step (ap, ad) along the current direction
// keeps the objective values finite and does not multiply the relative gap
// by more than 100 (from prevGap, the gap after the previous iteration): a
// direction that fails is a symptom of the LDL^T's cancellation.
func (s *ipm) trustworthy(ap, ad, prevGap float64) bool {
	primal := -s.wdot(s.c, s.x, s.n) - ap*s.wdot(s.c, s.d.x, s.n)
	var dual float64
	for i, v := range s.y {
		dual += v + ad*s.d.y[i]
	}
	if math.IsNaN(primal) || math.IsInf(primal, 0) || math.IsNaN(dual) || math.IsInf(dual, 0) {
		return false
	}
	gap := math.Abs(dual-primal) / max(math.Abs(primal), math.Abs(dual), 1e-300)
	return !(gap > 100*prevGap && gap > 1e-6)
}

// complementarity returns the mean of x∘zx and s∘lam after steps ap, ad.
func (s *ipm) complementarity(ap, ad float64) float64 {
	var sum float64
	if s.sg == nil {
		sum = s.sum(len(s.x), func(lo, hi int) float64 {
			var t float64
			for k := lo; k < hi; k++ {
				t += (s.x[k] + ap*s.d.x[k]) * (s.zx[k] + ad*s.d.zx[k])
			}
			return t
		})
		sum += s.sum(len(s.s), func(lo, hi int) float64 {
			var t float64
			for k := lo; k < hi; k++ {
				t += (s.s[k] + ap*s.d.s[k]) * (s.lam[k] + ad*s.d.lam[k])
			}
			return t
		})
		return sum / float64(len(s.x)+len(s.s))
	}
	n, np := s.n, s.np
	for o, w := range s.sg.ColW {
		var t float64
		for k := o * n; k < (o+1)*n; k++ {
			t += (s.x[k] + ap*s.d.x[k]) * (s.zx[k] + ad*s.d.zx[k])
		}
		for k := o * np; k < (o+1)*np; k++ {
			t += (s.s[k] + ap*s.d.s[k]) * (s.lam[k] + ad*s.d.lam[k])
		}
		sum += w * t
	}
	return sum / s.entries()
}

// mu is the mean complementarity product of the current iterate.
func (s *ipm) mu() float64 {
	return (s.wdot(s.x, s.zx, s.n) + s.wdot(s.s, s.lam, s.np)) / s.entries()
}

// certify repairs a copy of the current X and bounds the optimum from the
// current multipliers. With keepLam, a certificate better than best (the
// best so far, nil for none) also keeps the multipliers, in best's buffer.
func (s *ipm) certify(ctx context.Context, margin, tol float64, keepLam bool, best *Result) (*Result, error) {
	n, m := s.n, s.m
	var x, lam []float64
	if s.sg != nil {
		m = s.p.M
		x = s.sg.ExpandX(s.x, n, m)
		lam = s.lam // the representatives' (see symmetry.dualBound)
	} else if s.dr != nil {
		// Columns left out (lp/ipm_drop.go) are zero.
		m = s.p.M
		x = make([]float64, n*m)
		for j, o := range s.dr.colOf {
			for i := 0; i < n; i++ {
				x[i*m+o] = s.x[j*n+i]
			}
		}
	} else {
		x, lam = make([]float64, n*m), s.lam
		for o := 0; o < m; o++ {
			for i := 0; i < n; i++ {
				x[i*m+o] = s.x[o*n+i]
			}
		}
	}
	var t, dual float64
	var y []float64
	var err error
	if s.pc != nil {
		t, err = s.pc.Repair(x, margin, &s.stop)
		dual, y = perColumnBound(s.pc, s.p, s.lam)
	} else if s.sg != nil {
		t, err = repair(s.p, x, margin, &s.stop)
		dual, y = s.sg.DualBound((*orbit.Problem)(s.p), lam, s.sg.RowAct)
	} else if s.dr != nil {
		t, err = repair(s.p, x, margin, &s.stop)
		if err == nil {
			dual, y, err = s.dropBound(ctx, s.p.objective(x), tol)
		}
	} else {
		t, err = repair(s.p, x, margin, &s.stop)
		dual, y = dualBound(s.p, lam)
	}
	if err != nil {
		return nil, err
	}
	primal := s.p.objective(x)
	r := &Result{X: x, Primal: primal, Dual: dual, Gap: relGap(primal, dual), Mix: t, Y: y}
	r.SchurAssemblies, r.SchurCG = s.pcg.Assemblies, s.pcg.Total
	r.Symmetry = 1
	r.Columns = s.m
	if s.sg != nil {
		r.Columns = s.p.M
		r.Symmetry = s.sg.Order
	}
	if keepLam && (best == nil || r.Gap < best.Gap) {
		// The multipliers go with the certificate that becomes the best
		// (run's keep), in the buffer of the one it replaces: one copy of
		// pairs × columns, however many certificates.
		var buf []float64
		if best != nil {
			buf, best.lam = best.lam, nil
		}
		if s.dr != nil {
			r.lam = s.fullLam(buf)
			r.left = slices.Clone(s.dr.lam)
		} else {
			r.lam = append(buf[:0], lam...)
		}
		r.lamSym = s.sg
	}
	return r, nil
}

func (s *ipm) run(ctx context.Context, o config) (*Result, error) {
	// A cancelled ctx stops the per-column loops (ipm.stop) and is
	// reported at the next check below: within one column's work.
	s.stop.Store(ctx.Err() != nil)
	defer context.AfterFunc(ctx, func() { s.stop.Store(true) })()
	interrupted := func(it int) error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("lp: solve interrupted in iteration %d: %w", it, err)
		}
		return nil
	}
	s.pcg = s.newSchurPCG(o)
	if err := interrupted(0); err != nil {
		return nil, err
	}
	warm := s.warmStart(o.warm)
	if !warm && o.colWarm != nil {
		warm = s.colWarmStart(o.colWarm, o.colAct)
	}
	if warm {
		s.pcg.Warm = true
	} else {
		s.start()
	}
	var best *Result
	stale := 0 // certified iterations since the best certificate improved
	keep := func(r *Result) {
		if best == nil || r.Gap < best.Gap {
			best, stale = r, 0
		} else {
			stale++
		}
	}
	bad := 0 // iterations that lost ground, a sign of numerical breakdown
	prevGap := math.Inf(1)
	for it := 1; it <= o.MaxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("lp: solve interrupted after %d iterations: %w", it-1, err)
		}
		s.residuals()
		mu := s.mu()
		if err := s.factor(); err != nil || s.stop.Load() {
			if cerr := interrupted(it); cerr != nil {
				return nil, cerr
			}
			return best, fmt.Errorf("lp: iteration %d: %w", it, err)
		}
		// The predictor only sets sigma and the second-order terms: its
		// Schur solve by conjugate gradients may be loose.
		s.pcg.Loose = true
		s.direction(0, false)
		ap, ad := s.steps()
		muAff := s.complementarity(ap, ad)
		sigma := math.Pow(muAff/mu, 3)
		s.each(len(s.cx), func(lo, hi int) {
			for k := lo; k < hi; k++ {
				s.cx[k] = s.d.x[k] * s.d.zx[k]
			}
		})
		s.pcg.Loose = false
		s.direction(sigma*mu, true)
		ap, ad = s.steps()
		ap, ad = s.centralityCorrectors(sigma*mu, ap, ad)
		if err := interrupted(it); err != nil {
			return nil, err
		}
		const eta = 0.995
		ap, ad = min(1, eta*ap), min(1, eta*ad)
		if !s.useQR && !s.trustworthy(ap, ad, prevGap) {
			// The LDL^T directions went wrong (cancellation in the
			// assembled systems): redo this iteration with QR.
			s.useQR = true
			it--
			continue
		}
		// The positivity of x, s, zx, lam is kept by the step rule;
		// stepPositive guards against an exact zero from rounding.
		s.stepPositive(s.x, ap, s.d.x)
		s.stepPositive(s.s, ap, s.d.s)
		s.stepPositive(s.zx, ad, s.d.zx)
		s.stepPositive(s.lam, ad, s.d.lam)
		kernel.Axpy(s.y, ad, s.d.y)

		primal := -s.wdot(s.c, s.x, s.n)
		var dual float64
		for _, v := range s.y {
			dual += v
		}
		gap := math.Abs(dual-primal) / max(math.Abs(primal), math.Abs(dual), 1e-300)
		prevGap = gap
		if w := o.capture; w != nil && !w.taken && gap <= w.gap && s.sg == nil && s.pc == nil {
			s.capture(w) // for another LP's warm start (lp/ipm_warm.go)
		}
		if w := o.colCapture; w != nil && gap <= w.gap && s.pc != nil && !w.taken {
			s.colCapture(w, o.colAct) // for the next round's start (lp/percol_warm.go)
		}
		s.pcg.NearOptimum(gap)
		s.dropColumns(gap)
		if o.Progress != nil {
			pr := run.NewProgress("ipm")
			pr.Iter, pr.MaxIter, pr.Gap, pr.Value = it, o.MaxIter, gap, primal
			fac := "ldl"
			if s.useQR {
				fac = "qr"
			} else if k := countTrue(s.isQR); k > 0 {
				fac = fmt.Sprintf("ldl, qr in %d of %d columns", k, s.m)
			}
			cols := ""
			if s.dr != nil && s.dr.out > 0 {
				cols = fmt.Sprintf(", %d of %d columns in", s.m, s.dr.m0)
			}
			if warm && it == 1 {
				cols += ", warm start"
			}
			pr.Message = fmt.Sprintf("dual %.10g, mu %.3g, %s, steps %.2g %.2g%s%s", dual, mu, fac, ap, ad, s.pcg.Status(), cols)
			o.Report(pr)
		}
		// Certify once the iterates are close; keep the best certificate, as
		// rounding eventually limits how far the iteration can go.
		if gap <= max(1e-3, o.Tol) || it == o.MaxIter {
			r, err := s.certify(ctx, o.Margin, o.Tol, o.keepLam, best)
			if err != nil {
				if cerr := interrupted(it); cerr != nil {
					return nil, cerr
				}
				return nil, err
			}
			r.Iterations = it
			r.warm = warm
			if o.test.record != nil {
				c := testCounts{schurSingle: s.pcg.Singles, schurF32: s.pcg.F32}
				if s.dr != nil {
					c.restarts = s.dr.restarts
				}
				o.test.record(r, c)
			}
			keep(r)
			if r.Gap <= o.Tol {
				return r, nil
			}
			if s.dr != nil && len(s.dr.revive) > 0 {
				if o.boundOnly && best.Gap <= boundSlack*o.Tol {
					// The bound counts the columns left out with their
					// priced multipliers: valid, if looser than Tol.
					return best, nil
				}
				// Columns left out do not price out: bring them back
				// (lp/ipm_drop.go).
				s.restart()
				s.pcg = s.newSchurPCG(o)
				stale, bad, prevGap = 0, 0, math.Inf(1)
				continue
			}
			if r.Gap > 100*best.Gap {
				bad++
			}
		}
		if ap < 1e-8 && ad < 1e-8 {
			bad++
		}
		if (bad >= 3 || stale >= 8) && s.pcg.On {
			// Directions from conjugate gradients with an earlier factor
			// of S stopped improving the certificate: assemble S at every
			// iteration from here on (newton_schur.go, lp/internal/schur).
			s.pcg.On, bad, stale = false, 0, 0
			continue
		}
		if (bad >= 3 || stale >= 8) && !s.useQR {
			// The LDL^T of the assembled matrices has lost its accuracy
			// (tight constraints of huge weight): continue from here with
			// the orthogonal factorisation.
			s.useQR, bad, stale = true, 0, 0
			continue
		}
		if bad >= 3 || stale >= 8 {
			if best == nil {
				return nil, fmt.Errorf("%w: stalled at iteration %d with relative gap %.3g", run.ErrNotConverged, it, gap)
			}
			return best, fmt.Errorf("%w: stalled at iteration %d; best certified gap %.3g (tolerance %.3g)", run.ErrNotConverged, it, best.Gap, o.Tol)
		}
	}
	if best == nil {
		return nil, fmt.Errorf("%w: relative gap still above 1e-3 after %d iterations", run.ErrNotConverged, o.MaxIter)
	}
	return best, fmt.Errorf("%w: certified gap %.3g after %d iterations (tolerance %.3g)", run.ErrNotConverged, best.Gap, o.MaxIter, o.Tol)
}

package lp

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/lp/internal/orbit"
	"github.com/optdp/optdp/lp/internal/schur"
	"github.com/optdp/optdp/lp/ldl"
	"github.com/optdp/optdp/run"
)

// solvePlan is how solveAs solves a problem: its row orders and the
// workspace it allocates, found from the pairs' graph alone.
type solvePlan struct {
	// perm is the bandwidth-reducing order (perm[new] = old), nil when it
	// does not narrow the band.
	perm []int
	// mdPerm and sym are the fill-reducing order and its symbolic
	// factorisation, nil for the banded mode.
	mdPerm []int
	sym    *ldl.Symbolic
	// sg is the symmetric mode's reduction (nil without symmetries).
	sg *orbit.Group
	// need is the workspace in bytes, what names the problem in messages.
	need float64
	what string
	// bandCap and bandNeed are the sparse mode's rule for the QR
	// fallback's bands (bandBudget).
	bandCap  int64
	bandNeed func(int64) error
}

// planSolve is solveAs's plan for p under o: the cheaper of a
// bandwidth-reducing order (reverse Cuthill–McKee) with banded per-column
// factors and a fill-reducing one (minimum degree) with sparse factors,
// by their estimated flops per column (banded: n²b/2 for the inverse plus
// n b² for the factor; sparse: symbolic.flops), and the workspace that
// mode allocates. It reads p's pairs only (C may be nil).
func planSolve(ctx context.Context, p *Problem, o config, elems [][]int) (*solvePlan, error) {
	pl := &solvePlan{bandCap: math.MaxInt64}
	perm, err := ldl.RCM(ctx, p.graph())
	if err != nil {
		return nil, fmt.Errorf("lp: %w", err)
	}
	bw := permutedBandwidth(p, perm)
	if pb := p.bandwidth(); bw >= pb {
		perm, bw = nil, pb
	}
	pl.perm = perm
	n, b := float64(p.N), float64(bw)
	bandFlops := n*n*b/2 + n*b*b
	if !o.Banded && p.N > 2 && len(p.Pairs) > 0 {
		if pl.mdPerm, pl.sym, err = ldl.FillReducing(ctx, p.graph()); err != nil { // the order of OPTDP_LP_ORDER (ldl.OrderEnv)
			return nil, fmt.Errorf("lp: %w", err)
		}
		if !(pl.sym.Flops() < 0.6*bandFlops) {
			pl.mdPerm, pl.sym = nil, nil
		}
	}
	sym := pl.sym
	// The symmetric mode's reduction, in the row order solved.
	mr := p.M
	if elems != nil {
		rowPerm := perm
		if sym != nil {
			rowPerm = pl.mdPerm
		}
		pl.sg = orbit.NewGroup(elems, rowPerm)
		mr = len(pl.sg.Cols)
	}
	sg := pl.sg
	pl.what = fmt.Sprintf("lp: %d×%d problem with %d ratio pairs", p.N, p.M, len(p.Pairs))
	need := workspaceBytes(p.N, mr, len(p.Pairs), bw, o.Workers)
	w := float64(max(1, o.Workers))
	if sym != nil {
		// The factors, by blocks of four columns (newIPM), and the
		// per-worker scratch of Takahashi's recurrence and the factor.
		need += 8 * (float64(4*((mr+3)/4))*(n+float64(sym.NNZ())) + w*(n*n+float64(sym.QuadWork())))
		if sg == nil {
			// ldl.Factor4's per-worker diagonals, pair weights and scratch.
			need += 8 * w * (4*n + 4*float64(len(p.Pairs)) + float64(sym.Factor4Work()))
			if lazyOn(o, pcgRatio(sym, 0, p.N, mr)) && singleProducts(o) {
				// L in single precision for the lazy path's products.
				need += l32Bytes(sym, mr)
			}
		}
		// The QR fallback's banded factors: only for the columns whose
		// LDL^T fails.
		need, pl.bandCap, pl.bandNeed = bandBudget(o.Budget, need-float64(mr)*8*n*(b+1), 8*n*(b+1), mr)
	}
	if sg == nil {
		// The lazy Schur complement's chunk sums, recycled directions and
		// per-worker vectors of ldl.Solve4 (newton_schur.go: schurOperator.Apply; schur.Lazy's recycling).
		need += 8 * (n*float64(mr)/pcgChunk + n + 2*schur.Recycle*n + 5*w*n)
	}
	if dropsColumns(o, sg, p.M) {
		// The multipliers kept for the columns left out (lp/ipm_drop.go):
		// at most those of every column.
		need += 8 * float64(p.M) * float64(len(p.Pairs))
	}
	// The certificate: the full X and Repair's copy of it, and the
	// multipliers handed back (SolveSpanner's first LP: pairs × the
	// columns solved).
	need += 8 * 2 * n * float64(p.M)
	if o.keepLam {
		need += 8 * float64(mr) * float64(len(p.Pairs))
	}
	if sg == nil && (o.capture != nil || o.warm != nil && o.warm.taken) {
		// The iterate kept for another LP's start (lp/ipm_warm.go).
		need += warmBytes(n, float64(p.M), float64(len(p.Pairs)))
	}
	if sg != nil {
		// The orbit sums, and (banded mode) the per-worker inverses.
		no := float64(sg.NOrb)
		need += 8 * (w*(no*no+no) + no*no)
		if sym == nil {
			need += 8 * w * n * n
		}
	}
	pl.need = need
	return pl, nil
}

// KeptBytes is the workspace in bytes that Solve (spanner false) or
// SolveSpanner's first LP (spanner true) asks of its budget, and refuses
// beyond (wrapping run.ErrTooLarge), for an n×m problem without
// symmetries whose LP keeps the pairs ps as given: Solve's after dropping
// the implied pairs (Spanner at delta 1), SolveSpanner's the spanner.
// opts is the solve's: Tol, Workers and the other settings the mode
// depends on. It reads the structure of ps only (the orders and the
// symbolic factorisation the solve computes, in O(pairs + fill) time) and
// allocates no workspace, so a caller that has the kept pairs can refuse
// the problem at once. Errors for malformed pairs, and when ctx is
// cancelled.
func KeptBytes(ctx context.Context, n, m int, ps []Pair, spanner bool, opts *Options) (float64, error) {
	o := opts.withDefaults()
	if spanner {
		o.keepLam, o.capture = true, &warmPoint{}
	}
	p := &Problem{N: n, M: m, Pairs: ps}
	if n < 1 || m < 1 || n > math.MaxInt32 || m > math.MaxInt32 {
		return 0, fmt.Errorf("lp: kept pairs of a %d×%d problem: %w", n, m, run.ErrBadInput)
	}
	for k, q := range ps {
		if q.I < 0 || q.I >= n || q.H < 0 || q.H >= n || q.I == q.H || !(q.W > 1) || math.IsInf(q.W, 1) {
			return 0, fmt.Errorf("lp: kept pair %d = (%d,%d,%v) malformed: %w", k, q.I, q.H, q.W, run.ErrBadInput)
		}
	}
	pl, err := planSolve(ctx, p, o, nil)
	if err != nil {
		return 0, err
	}
	return pl.need, nil
}

// bandBudget is the sparse mode's memory rule for the QR fallback's banded
// factors (band bytes each), which bandOf allocates only for the columns
// whose LDL^T fails: the estimate base (everything else) plus a reserve of
// one band per 16 of the m columns is what the budget must hold; the solve
// may then use as many bands as the budget has room for (limit), and
// needs' error (wrapping run.ErrTooLarge) reports the first one past that.
func bandBudget(budget run.Budget, base, band float64, m int) (need float64, limit int64, needs func(count int64) error) {
	reserve := math.Ceil(float64(m) / 16)
	need = base + reserve*band
	limit = math.MaxInt64
	if budget != run.Unlimited {
		limit = int64(reserve + math.Max(0, math.Floor((float64(budget.Bytes())-need)/band)))
	}
	needs = func(count int64) error {
		what := fmt.Sprintf("lp: the QR fallback of %d of the %d columns (%s each)", count, m, run.FormatBytes(band))
		if err := budget.Check(what, base+float64(count)*band, "raise the budget"); err != nil {
			return err
		}
		return fmt.Errorf("%s exceeds the memory budget: %w", what, run.ErrTooLarge) // not reached: limit is what fits
	}
	return need, limit, needs
}

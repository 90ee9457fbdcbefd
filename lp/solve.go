package lp

import (
	"context"
	"fmt"
	"math"
	"runtime"

	"github.com/optdp/optdp/lp/internal/orbit"
	"github.com/optdp/optdp/lp/internal/schur"
	"github.com/optdp/optdp/lp/ldl"
	"github.com/optdp/optdp/run"
)

// cholMinRatio is the smallest pivot/diagonal ratio accepted from the
// LDL^T of an assembled matrix (ldl.MinPivotRatio): below it, the column is
// refactored by QR (and every later factorisation uses QR). A direction
// that goes wrong anyway is caught by trustworthy, and the iteration
// redone with QR.
const cholMinRatio = ldl.MinPivotRatio

// Solve maximises the problem p with a Mehrotra predictor-corrector
// interior-point method (see the package documentation) and returns a
// certified solution: an exactly feasible X (after Repair) and a dual bound.
//
// Unless opts.KeepPairs is set, Solve first drops, from a dense list (more
// than 16 pairs per row on average), the pairs implied by chains of others (Spanner with delta = 1: for a Manhattan grid's list of
// all pairs, everything but the 4-neighbour edges), solves with the rest —
// a relaxation, so its dual bound holds for p — and repairs the answer
// against every pair of p, so X is feasible for p itself.
//
// It returns an error before allocating when the workspace would exceed
// opts.Budget (wrapping run.ErrTooLarge, with the estimate), when the problem is
// malformed, when ctx is cancelled, and run.ErrNotConverged (with the best
// Result) when the tolerance was not reached.
func Solve(ctx context.Context, p *Problem, opts *Options) (*Result, error) {
	return solve(ctx, p, opts.withDefaults())
}

// solve is Solve under the configuration o (defaults applied).
func solve(ctx context.Context, p *Problem, o config) (*Result, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	elems, err := orbit.Find((*orbit.Problem)(p), o.Symmetry)
	if err != nil {
		return nil, err
	}
	q := p
	// Pruning pays for dense pair lists (all pairs of a metric); sparse
	// graphs (lines, bands, grids' edges) rarely have implied pairs, and
	// the search's distance cache grows as N² (Spanner). With symmetries
	// the pruned list is kept invariant (whole orbits of pairs).
	if !o.KeepPairs && len(p.Pairs) > pruneMinDegree*p.N {
		sp, _, err := ldl.Spanner(ctx, p.N, p.Pairs, 1, &ldl.SpannerOptions{Settings: run.Settings{Budget: o.Budget}, Symmetry: elems})
		if err != nil {
			return nil, err
		}
		if len(sp) < len(p.Pairs) {
			q = &Problem{N: p.N, M: p.M, C: p.C, Pairs: sp}
		}
	}
	r, err := solveAs(ctx, q, o, elems)
	if r == nil || q == p {
		return r, err
	}
	// The pairs dropped hold up to the rounding of their ratios: repair
	// against all of them.
	if rerr := r.repairFor(p, o.Margin); rerr != nil {
		return nil, rerr
	}
	return r, err
}

// boundSlack is how far past Tol a solve for its bound (Options.boundOnly)
// accepts a certificate rather than restart to bring columns back.
const boundSlack = 10

// pruneMinDegree is the mean number of pairs per row above which Solve
// drops implied pairs first.
const pruneMinDegree = 16

// repairFor makes r.X feasible for p (Repair with the given margin) and
// updates Mix, Primal and Gap; Dual, a bound for a relaxation of p, stays.
func (r *Result) repairFor(p *Problem, margin float64) error {
	t, err := Repair(p, r.X, margin)
	if err != nil {
		return err
	}
	if t > 0 {
		r.Mix = 1 - (1-r.Mix)*(1-t)
		r.Primal = p.objective(r.X)
		r.Gap = relGap(r.Primal, r.Dual)
	}
	return nil
}

// relGap is (dual-primal)/max(|dual|,|primal|), 0 when both vanish.
func relGap(primal, dual float64) float64 {
	if scale := max(math.Abs(primal), math.Abs(dual)); scale > 0 {
		return (dual - primal) / scale
	}
	return 0
}

// solveAs runs the interior-point method on p as given, in the cheaper of
// two row orders: a bandwidth-reducing one (reverse Cuthill–McKee) with
// banded per-column factors, or a fill-reducing one (minimum degree) with
// sparse factors, chosen by their estimated flops per column (banded:
// n²b/2 for the inverse plus n b² for the factor; sparse: symbolic.flops).
// The answer is numbered back to p's rows.
//
// elems, when not nil, is a group of symmetries of p (orbit.Find), used
// by the symmetric mode.
func solveAs(ctx context.Context, p *Problem, o config, elems [][]int) (*Result, error) {
	perm := ldl.RCM(p.graph())
	q := permuted(p, perm)
	if q.bandwidth() >= p.bandwidth() {
		q, perm = p, nil
	}
	n, b := float64(p.N), float64(q.bandwidth())
	bandFlops := n*n*b/2 + n*b*b
	var mdPerm []int
	var sym *ldl.Symbolic
	if !o.Banded && p.N > 2 && len(p.Pairs) > 0 {
		mdPerm, sym = ldl.FillReducing(p.graph()) // the order of OPTDP_LP_ORDER (ldl.OrderEnv)
		if !(sym.Flops() < 0.6*bandFlops) {
			mdPerm, sym = nil, nil
		}
	}
	// The symmetric mode's reduction, in the row order solved.
	var sg *orbit.Group
	mr := p.M
	if elems != nil {
		rowPerm := perm
		if sym != nil {
			rowPerm = mdPerm
		}
		sg = orbit.NewGroup(elems, rowPerm)
		mr = len(sg.Cols)
	}
	what := fmt.Sprintf("lp: %d×%d problem with %d ratio pairs", p.N, p.M, len(p.Pairs))
	need := q.workspaceBytes(o.Workers, mr)
	w := float64(max(1, o.Workers))
	bandCap := int64(math.MaxInt64)
	var bandNeed func(int64) error
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
		need, bandCap, bandNeed = bandBudget(o.Budget, need-float64(mr)*8*n*(b+1), 8*n*(b+1), mr)
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
	if err := o.Budget.Check(what, need, "raise the budget, or use fewer pairs (a spanner)"); err != nil {
		return nil, err
	}
	if need >= gcBeforeBytes {
		// The garbage of an earlier solve (SolveSpanner's first LP,
		// Generate's previous round) would otherwise stay until the heap
		// has doubled (GOGC): collect it, so that this workspace reuses
		// its memory and the process stays near the estimate.
		runtime.GC()
	}
	var r *Result
	var err error
	defer func() {
		if r != nil {
			r.Pairs = len(p.Pairs)
		}
	}()
	switch {
	case sym != nil:
		qs := permuted(p, mdPerm)
		sym.SetPairs(qs.graph())
		// The banded fallback's order, in qs's numbering.
		inv := make([]int, p.N)
		for k, old := range mdPerm {
			inv[old] = k
		}
		rperm := make([]int, p.N)
		for k := range rperm {
			old := k
			if perm != nil {
				old = perm[k]
			}
			rperm[k] = inv[old]
		}
		s := newIPM(qs, o.Workers, sym, q, rperm, sg)
		s.dropper(o)
		s.bandCap.Store(bandCap)
		s.bandNeed = bandNeed
		r, err = s.run(ctx, o)
		perm = mdPerm
	case perm == nil:
		s := newIPM(p, o.Workers, nil, nil, nil, sg)
		s.dropper(o)
		r, err = s.run(ctx, o)
	default:
		s := newIPM(q, o.Workers, nil, nil, nil, sg)
		s.dropper(o)
		r, err = s.run(ctx, o)
	}
	if r != nil && perm != nil {
		x, y := make([]float64, len(r.X)), make([]float64, p.N)
		for k, old := range perm {
			copy(x[old*p.M:(old+1)*p.M], r.X[k*p.M:(k+1)*p.M])
			y[old] = r.Y[k]
		}
		r.X, r.Y = x, y
	}
	if need >= gcBeforeBytes {
		// The workspace is garbage now: collect it, so that what the
		// caller allocates next (SolveSpanner's bounds and second LP)
		// reuses its memory instead of adding to it.
		runtime.GC()
	}
	return r, err
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
	if budget >= 0 {
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

// gcBeforeBytes is the workspace estimate from which solveAs runs the
// garbage collector before allocating (Euclidean 50×50 spanner, hot-spot
// prior: 12.2 GB peak without, two LPs' workspaces of about 6.6 GB each).
const gcBeforeBytes = 64 << 20

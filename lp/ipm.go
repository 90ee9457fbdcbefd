package lp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/optdp/optdp/lp/internal/kernel"
	"github.com/optdp/optdp/lp/internal/mem"
	"github.com/optdp/optdp/lp/ldl"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// Options tunes Solve. The zero value (or a nil pointer) means the defaults.
type Options struct {
	// Settings: Budget bounds the solver's workspace (see
	// Problem.WorkspaceBytes; 0 = run.DefaultBudget, 4 GiB; negative = no
	// limit), larger problems are refused before anything is allocated;
	// Progress, when set, receives a run.Progress after every iteration with
	// Stage "ipm", Iter, MaxIter, Gap (the relative gap of the current,
	// uncertified iterate) and Value (its primal objective).
	run.Settings
	// Tol is the target relative gap (Dual-Primal)/max(|Dual|,|Primal|)
	// between the certified bounds; default 1e-8.
	Tol float64
	// MaxIter caps the interior-point iterations; default 200.
	MaxIter int
	// Workers is the number of goroutines sharing the columns; default
	// GOMAXPROCS.
	Workers int
	// Margin is the relative tightening of the ratios used by Repair;
	// default 1e-12.
	Margin float64
	// KeepPairs solves with the pairs as given, without first dropping
	// those implied by chains of others (see Solve).
	KeepPairs bool

	// KeepColumns keeps every column (output) in the solve. By default
	// Solve leaves out, as the iteration approaches the optimum, the
	// columns whose mass vanishes (docs/MATH.md §11.10: solves to a Tol of
	// 1e-5 or looser, without symmetries, from 64 columns; SolveSpanner's
	// second LP starts without the columns its first left out), and
	// Generate with PerColumn the columns whose reduced costs show them
	// unused (§11.7). Either way the certified bound still covers every
	// column, and a column that no longer prices out comes back.
	KeepColumns bool

	// Banded forces the banded per-column factorisation (in the reverse
	// Cuthill–McKee order) even where the sparse one (minimum degree) is
	// estimated cheaper.
	Banded bool

	// DirectSchur assembles and factors the row-sum Schur complement
	// S = sum_o H_o^{-1} at every iteration. By default, on problems
	// where the assembly costs much more than a sweep of solves with the
	// per-column factors (n in the thousands), Solve reuses an earlier
	// iteration's factor of S as the preconditioner of conjugate gradients
	// on the exact S (see schurPCG in lp/schur_pcg.go), assembling afresh
	// only when they slow down.
	DirectSchur bool

	// Symmetry lists candidate symmetries of the problem: permutations g
	// of the N = M points, acting on rows and columns alike. Those that
	// map the problem onto itself exactly (C[g(i)][g(o)] = C[i][o], and
	// every pair (I, H, W) to a pair (g(I), g(H), W)) generate a group G;
	// Solve then keeps one column per orbit of G and sums the rest by
	// symmetry (docs/MATH.md §11.9), about |G| times less work per
	// iteration. The others are ignored (Result.Symmetry reports |G|). The
	// answer and its certificate are computed on the full problem, so
	// they do not depend on the symmetries. The per-column mode
	// (GenerateOptions.PerColumn) ignores them.
	Symmetry [][]int
}

// config is a solve's Options, defaults applied (Options.withDefaults),
// with the settings that SolveSpanner and Generate pass to the solves they
// run and the test hooks.
type config struct {
	Options
	keepLam bool // keep the multipliers in Result.lam (SolveSpanner)
	// startOut, by column, leaves the columns with multipliers out of
	// the solve from the start (lp/ipm_drop.go), those multipliers
	// standing for them in the bound (SolveSpanner: the columns its
	// first LP left out, for the second).
	startOut [][]float64
	// boundOnly: the solve is wanted for its certified bound
	// (SolveSpanner's second LP). Columns left out that do not price out
	// within Tol at the end test (once the columns in are within Tol,
	// not Tol/2, lp/ipm_drop.go) are not brought back (which restarts the
	// iteration) when the certified gap is within boundSlack·Tol: the
	// best certificate is returned, its bound counting their priced
	// multipliers (valid, looser than Tol).
	boundOnly bool
	// capture, when not nil, keeps the first iterate whose relative gap
	// is at most capture.gap; warm, when taken, is the start point
	// instead of start's if it fits (lp/ipm_warm.go: SolveSpanner).
	capture, warm *warmPoint
	// test holds the settings only tests use (export_test.go).
	test testHooks
}

// testHooks are settings of a solve that only tests change (through
// export_test.go); the zero value is what Solve uses.
type testHooks struct {
	dropAll         bool // leave out every column but the heaviest at the first check (lp/ipm_drop.go)
	schurMode       int  // 1: lazy Schur complement whenever possible, 2: on with the automatic tuning, -1: off
	schurDouble     bool // the lazy Schur complement's assemblies, and its products' L, in double precision
	schurSingleFail bool // the first single-precision S taken as out of range
}

// Result is a certified solution of a Problem.
type Result struct {
	// X is the solution, row-major N×M: nonnegative, rows summing to 1 (up to
	// rounding), and satisfying every ratio constraint exactly in floating
	// point (see Repair).
	X []float64
	// Primal is the objective C·X of the returned X.
	Primal float64
	// Dual is an upper bound on the optimum from an exactly feasible dual
	// point, so Primal <= optimum <= Dual up to the rounding of the sums.
	Dual float64
	// Gap is (Dual-Primal)/max(|Dual|,|Primal|) (0 when both vanish).
	Gap float64
	// Iterations is the number of interior-point iterations.
	Iterations int
	// Pairs is the number of ratio constraints per column of the LP
	// solved: after dropping implied pairs (Solve), of the last relaxation
	// (Generate), of the spanner (SolveSpanner).
	Pairs int
	// Mix is the weight of the uniform matrix mixed in by Repair.
	Mix float64
	// Y is the certified dual row multipliers (Dual = sum Y).
	Y []float64
	// SchurAssemblies counts the assemblies of the Schur complement S up to
	// the iterate returned (one per iteration unless the lazy Schur
	// complement kept an earlier factor, see Options.DirectSchur), SchurCG
	// the conjugate-gradient iterations of the solves with an earlier
	// factor (each costs one solve with every column's factor).
	SchurAssemblies, SchurCG int
	// Symmetry is the order of the symmetry group the solver used (see
	// Options.Symmetry); 1 when it used none.
	Symmetry int
	// Columns is the number of columns (outputs) still in the solve at
	// the iterate returned: M unless some were left out as unused (see
	// Options.KeepColumns); X is 0 in the others before Repair.
	Columns int

	lam []float64 // the ratio multipliers behind Dual, when Options.keepLam
	// lamSym, when not nil, is the symmetry whose representatives' columns
	// lam holds (the symmetric mode: symmetry.dualBound with its colAct).
	lamSym *symmetry
	// left, by column, holds the multipliers of the columns left out of
	// the solve (lp/ipm_drop.go), when Options.keepLam; nil otherwise.
	left [][]float64
	// restarts counts the restarts that brought columns left out back
	// (lp/ipm_drop.go).
	restarts int
	// warm: the solve started from another LP's iterate (Options.warm,
	// lp/ipm_warm.go).
	warm bool
	// schurSingle counts the SchurAssemblies made in single precision
	// (the lazy Schur complement's preconditioner, schurPCG.single).
	schurSingle int
	// schurF32 counts the products S v made with the single-precision
	// copy of L in use (solve4F32, for the blocks whose copy is current;
	// tests).
	schurF32 int
}

func (o *Options) withDefaults() config {
	var r config
	if o != nil {
		r.Options = *o
	}
	if !(r.Tol > 0) {
		r.Tol = 1e-8
	}
	if r.MaxIter <= 0 {
		r.MaxIter = 200
	}
	if r.Workers <= 0 {
		r.Workers = runtime.GOMAXPROCS(0)
	}
	if !(r.Margin > 0) {
		r.Margin = 1e-12
	}
	return r
}

// ipm holds the interior-point state. Per-column data is stored column by
// column: x[o*n+i] is X[i][o], s[o*np+k] is the slack of pair k in column o.
type ipm struct {
	p       *Problem
	n, m    int
	np      int
	workers int

	c               []float64 // c[o*n+i] = -C[i][o] (minimisation form)
	x, zx           []float64 // primal X and the duals of X >= 0
	s, lam          []float64 // ratio slacks W x_H - x_I and their duals
	y               []float64 // row-sum duals
	rd, rp, rs      []float64 // dual, row-sum and ratio residuals
	rcx             []float64 // complementarity right-hand side of x∘zx
	d               newton    // the Newton direction
	dc              newton    // a centrality corrector
	zero, tx        []float64 // the corrector's right-hand sides
	cx              []float64 // Mehrotra's second-order term dx∘dzx
	scratchN        []float64
	order           []int       // pairs sorted by min(I,H)
	wt, qrR, qrWork [][]float64 // per-worker scratch of factor
	r1              []float64   // reduced right-hand sides, per column
	fac             []ldl.Band  // per-column banded factors of H_o
	schur           *mat.SymDense
	chol            mat.Cholesky
	accS            [][]float64 // per-worker accumulators of sum_o H_o^{-1}
	accV            [][]float64 // per-worker accumulators of sum_o H_o^{-1} r1_o
	ring, scratch   [][]float64
	scratch4        [][]float64 // per worker: 4n values, interleaved (solveColumns)
	cols4           [][]float64 // per worker: 4n values, four columns' vectors (solveColumns)
	kappa           float64     // scale of the gain
	// useQR selects the orthogonal factorisation of the per-column systems
	// (robust, slower) instead of the LDL^T of the assembled matrix; the
	// solver switches to it when the LDL^T iteration stalls.
	useQR  bool
	qrUsed []bool // per worker: a column needed QR in this factorisation

	// The sparse mode (sym != nil): the rows are in a fill-reducing order,
	// column o's LDL^T is sf[o]; the QR fallback factors fac[o] (allocated
	// when first needed) in the bandwidth-reducing order rperm (rperm[k] is
	// the row of this order at position k of the banded one), with the
	// pairs renumbered in rpairs.
	sym     *ldl.Symbolic
	sf      []ldl.LDL
	isQR    []bool      // per column: the current factor is fac[o], not sf[o]
	rperm   []int       // banded order -> this order
	rpairs  *Problem    // the problem in the banded order
	rorder  []int       // rpairs' pairs sorted by min(I,H)
	zbuf    [][]float64 // per worker: the n×n inverse (sparse) or its banded copy
	permBuf [][]float64 // per worker: a permuted vector
	ldlWork [][]float64 // per worker: the sparse factor's scratch
	// Per worker, without symmetries or per-column pairs: the diagonals
	// and pair weights of four columns, and factor4's scratch (nil: the
	// columns are factored one at a time).
	diag4, wt4, f4Work [][]float64
	// With the lazy Schur complement (schurPCG.on) in a solve to Tol 1e-3
	// or looser (singleProducts): every block's L rounded to single
	// precision (4·nnz values per block of four
	// columns, positional as sf), which its conjugate-gradient products
	// read (solve4F32), and by column whether the copy is of its current
	// factor (factorBlock writes it; factorColumn, which does not, clears
	// it).
	l32   []float32
	l32ok []bool
	// The banded factors allocated so far (bandOf) and how many the memory
	// budget leaves room for (see solveAs); bandShort is set when a column
	// needed one beyond that, bandNeed is the error to report then.
	bands, bandCap atomic.Int64
	bandShort      atomic.Bool
	bandNeed       func(count int64) error

	// cols is the per-column part of the Newton system in the variant
	// of this solve (bandedColumns, sparseColumns or perColumnSystem).
	cols columnSystem

	pcg *schurPCG // the lazy Schur complement (nil: assemble at every iteration)
	// The per-column mode (pc != nil, lp/percol.go): column o has its own
	// ratio constraints pc.pairs[o], with slacks and multipliers at
	// s[pc.off[o]+k], and its own fill-reducing order and factor pc.cols[o].
	pc *perColumn

	// The symmetric mode (sg != nil, lp/symmetry.go): the m columns are
	// representatives of the orbits of columns, sg.cols[o] in p's
	// numbering, each standing for sg.colW[o] columns; the Schur complement
	// is the norb×norb reduced S~, assembled from per-worker orbit sums
	// accO (upper triangles) and accD (diagonals).
	sg         *symmetry
	accO, accD [][]float64

	// dr, when not nil, leaves out the columns whose mass vanishes
	// (lp/ipm_drop.go); the arrays above then hold only the columns
	// still in, dr.colOf naming them.
	dr *dropper
}

// wdot is the sum over all columns of a·b for per-column blocks of the
// given stride: with symmetries, each representative counted for its orbit.
func (s *ipm) wdot(a, b []float64, stride int) float64 {
	if s.sg == nil {
		return s.sum(len(a), func(lo, hi int) float64 { return dot(a[lo:hi], b[lo:hi]) })
	}
	var t float64
	for o, w := range s.sg.colW {
		t += w * dot(a[o*stride:(o+1)*stride], b[o*stride:(o+1)*stride])
	}
	return t
}

// colWeight is the number of columns that column o stands for.
func (s *ipm) colWeight(o int) float64 {
	if s.sg == nil {
		return 1
	}
	return s.sg.colW[o]
}

// entries is the number of x and s entries of the full problem.
func (s *ipm) entries() float64 {
	if s.sg == nil {
		return float64(len(s.x) + len(s.s))
	}
	var t float64
	for _, w := range s.sg.colW {
		t += w
	}
	return t * float64(s.n+s.np)
}

// pairsOf returns column o's ratio constraints and the offset of its
// slacks and multipliers in s.s and s.lam.
func (s *ipm) pairsOf(o int) ([]Pair, int) {
	if s.pc != nil {
		return s.pc.pairs[o], s.pc.off[o]
	}
	return s.p.Pairs, o * s.np
}

// weights sets diag to column o's diagonal z_x/x and wt (resliced to the
// column's pairs, and returned) to its pair weights lambda/s: H_o =
// diag(diag) + G^T diag(wt) G.
func (s *ipm) weights(o int, diag, wt []float64) []float64 {
	n := s.n
	for i := 0; i < n; i++ {
		diag[i] = s.zx[o*n+i] / s.x[o*n+i]
	}
	pairs, off := s.pairsOf(o)
	wt = wt[:len(pairs)]
	for k := range wt {
		wt[k] = s.lam[off+k] / s.s[off+k]
	}
	return wt
}

// blocks runs f(lo, hi, w) on every worker w for a contiguous range of
// whole blocks of four columns (the last one possibly partial).
func (s *ipm) blocks(f func(lo, hi, w int)) {
	if s.workers == 1 {
		f(0, s.m, 0)
		return
	}
	nb := (s.m + 3) / 4
	var wg sync.WaitGroup
	for w := range s.workers {
		lo, hi := min(s.m, 4*(w*nb/s.workers)), min(s.m, 4*((w+1)*nb/s.workers))
		wg.Go(func() { f(lo, hi, w) })
	}
	wg.Wait()
}

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
	elems, err := symmetries(p, o.Symmetry)
	if err != nil {
		return nil, err
	}
	q := p
	// Pruning pays for dense pair lists (all pairs of a metric); sparse
	// graphs (lines, bands, grids' edges) rarely have implied pairs, and
	// the search's distance cache grows as N² (Spanner). With symmetries
	// the pruned list is kept invariant (whole orbits of pairs).
	if !o.KeepPairs && len(p.Pairs) > pruneMinDegree*p.N {
		sp, _, err := ldl.Spanner(p.N, p.Pairs, 1, o.Budget, elems)
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
// elems, when not nil, is a group of symmetries of p (symmetries), used
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
		mdPerm, sym = ldl.FillReducing(p.graph()) // lp/cholmod_order.go: OPTDP_LP_ORDER
		if !(sym.Flops() < 0.6*bandFlops) {
			mdPerm, sym = nil, nil
		}
	}
	// The symmetric mode's reduction, in the row order solved.
	var sg *symmetry
	mr := p.M
	if elems != nil {
		rowPerm := perm
		if sym != nil {
			rowPerm = mdPerm
		}
		sg = newSymmetry(elems, rowPerm)
		mr = len(sg.cols)
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
			// factor4's per-worker diagonals, pair weights and scratch.
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
		// per-worker vectors of solve4 (lp/schur_pcg.go: apply, keep).
		need += 8 * (n*float64(mr)/pcgChunk + n + 2*pcgRecycle*n + 5*w*n)
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
		no := float64(sg.norb)
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

// newIPM allocates the solver for p. With sym nil, the per-column factors
// are banded (p's own bandwidth); otherwise p's rows are in sym's
// fill-reducing order, and rp is p in a bandwidth-reducing order for the QR
// fallback, rperm mapping its rows to p's.
//
// sg, when not nil, selects the symmetric mode: one column per orbit.
func newIPM(p *Problem, workers int, sym *ldl.Symbolic, rp *Problem, rperm []int, sg *symmetry) *ipm {
	n, m, np := p.N, p.M, len(p.Pairs)
	cols := func(o int) int { return o }
	if sg != nil {
		m = len(sg.cols)
		cols = func(o int) int { return sg.cols[o] }
	}
	workers = max(1, min(workers, m))
	nm, pm := n*m, np*m
	s := &ipm{p: p, n: n, m: m, np: np, workers: workers, sym: sym, sg: sg}
	if sym == nil {
		s.cols = bandedColumns{s}
	} else {
		s.cols = sparseColumns{s}
	}
	s.bandCap.Store(math.MaxInt64)
	// The iterate's arrays (pairs × columns: 388 MB each at 50×50) are
	// advised to huge pages: their first writes fault in 2 MiB at a time
	// (the start of the 50×50 Euclidean spanner LP spent some 15 CPU s in
	// 4 KiB page faults), and the passes over them miss the TLB less.
	alloc := mem.Alloc
	s.c, s.x, s.zx, s.rd, s.rcx, s.cx, s.r1 = alloc(nm), alloc(nm), alloc(nm), alloc(nm), alloc(nm), alloc(nm), alloc(nm)
	s.s, s.lam, s.rs = alloc(pm), alloc(pm), alloc(pm)
	s.y, s.rp, s.scratchN = alloc(n), alloc(n), alloc(n)
	s.d = newNewton(nm, pm, n)
	if sg != nil {
		s.schur = mat.NewSymDense(sg.norb, nil)
	} else {
		s.schur = mat.NewSymDense(n, mem.Alloc(n*n))
	}
	s.accS = make([][]float64, workers)
	s.accV = make([][]float64, workers)
	s.scratch = make([][]float64, workers)
	s.wt = make([][]float64, workers)
	s.qrUsed = make([]bool, workers)
	s.permBuf = make([][]float64, workers)
	for w := range workers {
		if w > 0 && sg == nil {
			s.accS[w] = mem.Alloc(n * n)
		}
		s.accV[w] = alloc(n)
		s.scratch[w] = alloc(n)
		if sym != nil {
			s.scratch4 = append(s.scratch4, alloc(4*n))
			s.cols4 = append(s.cols4, alloc(4*n))
		}
		s.wt[w] = alloc(np)
		s.permBuf[w] = alloc(n)
	}
	if sym != nil {
		s.ldlWork = make([][]float64, workers)
		for w := range workers {
			s.ldlWork[w] = alloc(sym.QuadWork())
		}
		if sg == nil {
			s.diag4, s.wt4, s.f4Work = make([][]float64, workers), make([][]float64, workers), make([][]float64, workers)
			for w := range workers {
				s.diag4[w], s.wt4[w], s.f4Work[w] = alloc(4*n), alloc(4*np), alloc(sym.Factor4Work())
			}
		}
	}
	if sym == nil {
		s.rpairs = p
		s.allocBands()
	} else {
		s.rpairs, s.rperm = rp, rperm
		// The factors of columns 4k..4k+3 share block k: their pivots
		// one after the other, then L interleaved (entry q of column
		// 4k+c at 4q+c), which solve4 reads as 4-vectors in the
		// conjugate-gradient products. The blocks are positional: a
		// column's factor is recomputed in its place every iteration.
		nz := sym.NNZ()
		blocks := (m + 3) / 4
		data := alloc(blocks * 4 * (n + nz))
		s.sf = make([]ldl.LDL, m)
		for o := range s.sf {
			k, c := o/4, o%4
			blk := data[k*4*(n+nz) : (k+1)*4*(n+nz)]
			s.sf[o] = ldl.LDL{Sym: sym, D: blk[c*n : (c+1)*n], L: blk[min(4*n+c, len(blk)):], St: 4}
		}
		s.isQR = make([]bool, m)
	}
	if sym != nil || sg != nil {
		s.zbuf = make([][]float64, workers)
		for w := range workers {
			s.zbuf[w] = mem.Alloc(n * n)
		}
	}
	if sg != nil {
		s.accO, s.accD = make([][]float64, workers), make([][]float64, workers)
		for w := range workers {
			s.accO[w], s.accD[w] = alloc(sg.norb*sg.norb), alloc(sg.norb)
		}
	}
	for i := 0; i < n; i++ {
		for o := 0; o < m; o++ {
			s.c[o*n+i] = -p.C[i*p.M+cols(o)]
		}
	}
	return s
}

// solveColumns computes H_o^{-1} u_o for every column o, u_o filled by
// set and then handed to use (with the worker's index; u is the worker's
// scratch). The four columns of one block of factors (newIPM) go through
// solve4 together, one pass over the block instead of four passes each
// reading every fourth value; the others (the QR fallback, a last partial
// block) one by one. Each worker takes a contiguous range of whole blocks,
// and within it the columns in order.
func (s *ipm) solveColumns(set func(o int, u []float64), use func(o, w int, u []float64)) {
	work := func(lo, hi, w int) {
		u := s.scratch[w]
		for o := lo; o < hi; {
			if f, ok := s.quad(o, hi); ok {
				r4, c4 := s.scratch4[w], s.cols4[w]
				u0, u1, u2, u3 := c4[:s.n], c4[s.n:2*s.n], c4[2*s.n:3*s.n], c4[3*s.n:]
				set(o, u0)
				set(o+1, u1)
				set(o+2, u2)
				set(o+3, u3)
				kernel.Interleave4(r4, u0, u1, u2, u3)
				ldl.Solve4(&f, r4)
				kernel.Deinterleave4(r4, u0, u1, u2, u3)
				use(o, w, u0)
				use(o+1, w, u1)
				use(o+2, w, u2)
				use(o+3, w, u3)
				o += 4
				continue
			}
			set(o, u)
			s.colSolve(o, w, u)
			use(o, w, u)
			o++
		}
	}
	s.blocks(work)
}

// parallel runs f(o, w) for every column o, the columns split into
// contiguous blocks, one per worker w.
func (s *ipm) parallel(f func(o, w int)) {
	if s.workers == 1 {
		for o := 0; o < s.m; o++ {
			f(o, 0)
		}
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < s.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := w * s.m / s.workers; o < (w+1)*s.m/s.workers; o++ {
				f(o, w)
			}
		}()
	}
	wg.Wait()
}

// start sets a strictly interior, primal and dual feasible point: the
// uniform matrix, unit-scaled complementarity products, and row duals large
// enough for the dual constraints.
func (s *ipm) start() {
	n, m := s.n, s.m
	s.setKappa()
	kappa := s.kappa
	// The uniform matrix over all columns (the symmetric mode keeps only
	// representatives of s.p.M columns).
	cols := float64(s.p.M)
	if s.dr != nil {
		cols = float64(s.m) // the columns in (lp/ipm_drop.go)
	}
	for k := range s.x {
		s.x[k] = 1 / cols
	}
	for o := 0; o < m; o++ {
		pairs, off := s.pairsOf(o)
		for k, q := range pairs {
			s.s[off+k] = (q.W - 1) / float64(s.p.M)
			s.lam[off+k] = kappa / max(q.W-1, 1e-3)
		}
	}
	// y_i = max_o (-c - G^T lam) + kappa, zx = c + y + G^T lam >= kappa.
	gl := make([]float64, n*m)
	s.addGTlam(gl, s.lam, 1)
	for i := range s.y {
		s.y[i] = math.Inf(-1)
	}
	for o := 0; o < m; o++ {
		for i := 0; i < n; i++ {
			s.y[i] = max(s.y[i], -s.c[o*n+i]-gl[o*n+i])
		}
	}
	if s.sg != nil {
		// Column g(r) holds the representative r's values at g's rows.
		s.sg.orbitMax(s.y)
	}
	for i := range s.y {
		s.y[i] += kappa
	}
	for o := 0; o < m; o++ {
		for i := 0; i < n; i++ {
			s.zx[o*n+i] = s.c[o*n+i] + s.y[i] + gl[o*n+i]
		}
	}
}

// addGTlam adds scale·G^T lam_o to dst_o for every column (dst column-major).
func (s *ipm) addGTlam(dst, lam []float64, scale float64) {
	n := s.n
	for o := 0; o < s.m; o++ {
		pairs, off := s.pairsOf(o)
		d, l := dst[o*n:o*n+n], lam[off:off+len(pairs)]
		for k, q := range pairs {
			d[q.I] += scale * l[k]
			d[q.H] -= scale * q.W * l[k]
		}
	}
}

// residuals computes rd = c + y + G^T lam - zx, rp = sum_o x_o - 1 and
// rs = G x + s.
func (s *ipm) residuals() {
	n := s.n
	s.parallel(func(o, _ int) {
		rd := s.rd[o*n : o*n+n]
		for i := range rd {
			k := o*n + i
			rd[i] = s.c[k] + s.y[i] - s.zx[k]
		}
		xo := s.x[o*n : o*n+n]
		pairs, off := s.pairsOf(o)
		so, ro, lo := s.s[off:off+len(pairs)], s.rs[off:off+len(pairs)], s.lam[off:off+len(pairs)]
		for k, q := range pairs {
			rd[q.I] += lo[k]
			rd[q.H] -= q.W * lo[k]
			ro[k] = xo[q.I] - q.W*xo[q.H] + so[k]
		}
	})
	clear(s.rp)
	for o := 0; o < s.m; o++ {
		xo := s.x[o*n : o*n+n]
		wo := s.colWeight(o)
		for i, v := range xo {
			s.rp[i] += wo * v
		}
	}
	if s.sg != nil {
		s.sg.orbitMean(s.rp)
	}
	for i := range s.rp {
		s.rp[i]--
	}
}

func maxAbs(v []float64) float64 {
	var r float64
	for _, x := range v {
		r = max(r, math.Abs(x))
	}
	return r
}

// factor builds and factors H_o = diag(zx/x) + G^T diag(lam/s) G for every
// column, assembles the Schur complement sum_o H_o^{-1} and factors it.
func (s *ipm) factor() error {
again:
	if s.sym != nil && s.fac == nil {
		s.allocBands()
	}
	// The lazy Schur complement (lp/schur_pcg.go) may keep an earlier
	// iteration's factor of S and skip the assembly; its recycled CG
	// directions belong to the previous S.
	s.pcg.forget()
	lazy := s.pcg.skipAssembly()
	if !lazy {
		s.clearSchurAcc()
	}
	column := func(o, w int) {
		diag, wt := s.scratch[w], s.wt[w]
		wt = s.weights(o, diag, wt)
		var acc []float64
		if !lazy {
			acc = s.schurAcc(w)
		}
		s.factorColumn(o, w, diag, wt, acc)
	}
	if s.f4Work == nil || s.useQR || s.pc != nil {
		s.parallel(column)
	} else {
		// The sparse mode: four columns of a block at once (factor4).
		s.blocks(func(lo, hi, w int) {
			for o := lo; o < hi; {
				if o%4 != 0 || o+4 > hi {
					column(o, w)
					o++
					continue
				}
				var acc []float64
				if !lazy {
					acc = s.schurAcc(w)
				}
				s.factorBlock(o, w, acc)
				o += 4
			}
		})
	}
	if s.bandShort.Load() {
		return s.bandNeed(s.bands.Load() + 1)
	}
	redo := false
	for w, u := range s.qrUsed {
		redo = redo || (u && !s.useQR && (s.sym != nil || s.pc != nil))
		s.useQR = s.useQR || u
		s.qrUsed[w] = false
	}
	if redo {
		goto again
	}
	if lazy {
		return nil
	}
	err := s.factorSchur()
	s.pcg.assemblyDone()
	return err
}

// clearSchurAcc clears the workers' accumulators of sum_o H_o^{-1}
// before an assembly (the symmetric mode's orbit sums, the
// single-precision ones of buf32, or S itself for worker 0 and accS for
// the others).
func (s *ipm) clearSchurAcc() {
	for w := range s.workers {
		switch {
		case s.sg != nil:
			clear(s.accO[w])
			clear(s.accD[w])
		case s.pcg != nil && s.pcg.single:
			_, acc := s.buf32(w)
			clear(acc)
		case w == 0:
			clear(s.schur.RawSymmetric().Data)
		default:
			clear(s.accS[w])
		}
	}
}

// schurAcc returns worker w's accumulator of sum_o H_o^{-1}, cleared by
// clearSchurAcc: worker 0 sums into S itself, the others into accS (the
// symmetric mode into its orbit sums, where the returned slice only needs
// to be non-nil). With the single-precision assembly the sums go to buf32,
// and the returned n·n values are the scratch of the columns that
// addInverse32 refuses (addColumnInverse32).
func (s *ipm) schurAcc(w int) []float64 {
	switch {
	case s.sg != nil:
		return s.accO[w]
	case w == 0:
		return s.schur.RawSymmetric().Data
	}
	return s.accS[w]
}

// factorSchur sums the workers' accumulators into S and factors it by
// Cholesky, regularising slightly if rounding made it indefinite.
func (s *ipm) factorSchur() error {
	n := s.n
	raw := s.schur.RawSymmetric().Data
	if p := s.pcg; p != nil && p.single {
		if s.sumSingle(raw) && !p.failSingle && s.factorReg(raw, n) {
			p.assembled()
			p.singles++
			return nil
		}
		// Single precision did not hold this S (an entry out of range, or
		// not positive definite even regularised): assemble it again in
		// double precision, as every later assembly of this solve.
		p.single = false
		s.clearSchurAcc()
		s.parallel(func(o, w int) { s.addColumnInverse(o, w, s.schurAcc(w)) })
	}
	s.pcg.assembled()
	if s.sg != nil {
		n = s.sg.norb
		for w := 1; w < s.workers; w++ {
			axpy(s.accO[0], 1, s.accO[w])
			axpy(s.accD[0], 1, s.accD[w])
		}
		s.sg.reduced(raw, s.accO[0], s.accD[0])
	} else {
		for w := 1; w < s.workers; w++ {
			for k, v := range s.accS[w] {
				raw[k] += v
			}
		}
	}
	if s.factorReg(raw, n) {
		return nil
	}
	s.pcg.failed()
	return errors.New("lp: Schur complement is not positive definite")
}

// factorReg factors S (raw its data, n its order) by Cholesky, adding
// reg·max_i S_ii to the diagonal, reg = 1e-14, 1e-12, ..., 1e-6, if
// rounding made it indefinite; false when none of these is positive
// definite.
func (s *ipm) factorReg(raw []float64, n int) bool {
	if s.chol.Factorize(s.schur) {
		return true
	}
	var dmax float64
	for i := 0; i < n; i++ {
		dmax = max(dmax, raw[i*n+i])
	}
	for reg := 1e-14; reg < 1e-4; reg *= 100 {
		for i := 0; i < n; i++ {
			raw[i*n+i] += reg * dmax
		}
		if s.chol.Factorize(s.schur) {
			return true
		}
	}
	return false
}

// sumSingle sets the upper triangle of S (raw) to the sum of the workers'
// single-precision accumulators (buf32), and reports whether every sum is
// finite.
func (s *ipm) sumSingle(raw []float64) bool {
	n := s.n
	ok := true
	for w := range s.workers {
		_, acc := s.buf32(w)
		for j := 0; j < n; j++ {
			a, r := acc[j*n+j:j*n+n], raw[j*n+j:j*n+n]
			if w == 0 {
				for i, v := range a {
					r[i] = float64(v)
				}
				continue
			}
			for i, v := range a {
				r[i] += float64(v)
			}
		}
	}
	for j := 0; j < n && ok; j++ {
		for _, v := range raw[j*n+j : j*n+n] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				ok = false
				break
			}
		}
	}
	return ok
}

// newton is a right-hand side or a solution of the Newton system, in the
// layout of the iterate.
type newton struct {
	x, zx, s, lam, y []float64
}

func newNewton(nm, pm, n int) newton {
	return newton{mem.Alloc(nm), mem.Alloc(nm), mem.Alloc(pm), mem.Alloc(pm), mem.Alloc(n)}
}

// direction solves the Newton system for the complementarity targets
// x∘zx -> sigmaMu - cx and s∘lam -> sigmaMu - ds∘dlam, where cx and
// ds∘dlam are Mehrotra's second-order terms when corr is set (the
// predictor's direction, still in s.d). The result is in s.d.
func (s *ipm) direction(sigmaMu float64, corr bool) {
	// The right-hand side: rd, rp, rs from the residuals, and the
	// complementarity targets rcx (for x∘zx, stored) and the pairs' (for
	// s∘lam, computed where used: pairRHS).
	s.each(len(s.rcx), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			v := sigmaMu - s.x[j]*s.zx[j]
			if corr {
				v -= s.cx[j]
			}
			s.rcx[j] = v
		}
	})
	rcs := pairRHS{sigmaMu: sigmaMu, s: s.s, lam: s.lam}
	if corr {
		rcs.ds, rcs.dl = s.d.s, s.d.lam
	}
	s.solveNewton(s.rd, s.rp, s.rs, s.rcx, rcs, &s.d)
}

// pairRHS is the right-hand side r of the pairs' complementarity
// equations lam∘ds + s∘dlam = r in a Newton system, formed column by
// column where solveNewton uses it rather than stored (docs/MATH.md §11.4,
// "The passes over the pairs"):
//
//	r = sigmaMu - s∘lam            (the predictor: sigmaMu = 0),
//	r = sigmaMu - s∘lam - ds∘dl    (the corrector: ds, dl the predictor's
//	                                direction, which solveNewton may be
//	                                overwriting: each column is read first),
//	r = centralTarget((s + tp·ds)∘(lam + td·dl), low, high)
//	                               (a centrality corrector: gondzio).
type pairRHS struct {
	sigmaMu           float64
	s, lam, ds, dl    []float64
	gondzio           bool
	tp, td, low, high float64
}

// col is r restricted to the np entries of a column from off.
func (r pairRHS) col(off, np int) pairRHS {
	cut := func(v []float64) []float64 {
		if v == nil {
			return nil
		}
		return v[off : off+np : off+np]
	}
	r.s, r.lam, r.ds, r.dl = cut(r.s), cut(r.lam), cut(r.ds), cut(r.dl)
	return r
}

// fill sets dst to r (restricted to len(dst) entries by col): one tight
// loop per kind, into a worker's scratch that stays in cache.
func (r *pairRHS) fill(dst []float64) {
	k := len(dst)
	sv, lv := r.s[:k], r.lam[:k]
	switch {
	case r.gondzio:
		dsv, dlv := r.ds[:k], r.dl[:k]
		for i := range dst {
			dst[i] = centralTarget((sv[i]+r.tp*dsv[i])*(lv[i]+r.td*dlv[i]), r.low, r.high)
		}
	case r.ds != nil:
		dsv, dlv := r.ds[:k], r.dl[:k]
		for i := range dst {
			v := r.sigmaMu - sv[i]*lv[i]
			dst[i] = v - dsv[i]*dlv[i]
		}
	default:
		for i := range dst {
			dst[i] = r.sigmaMu - sv[i]*lv[i]
		}
	}
}

// solveNewton solves the Newton system
//
//	B^T dy + G^T dlam - dzx = -rd,  B dx = -rp,  G dx + ds = -rs,
//	zx∘dx + x∘dzx = rcx,  lam∘ds + s∘dlam = rcs
//
// with the factorisations of factor(), writing the solution into d. A nil
// rs stands for zeros.
func (s *ipm) solveNewton(rd, rp, rs, rcx []float64, rcs pairRHS, d *newton) {
	n := s.n
	for w := range s.accV {
		clear(s.accV[w])
	}
	// r1 = -rd + rcx/x - G^T ((rcs + lam rs)/s), per column; u = H_o^{-1} r1.
	s.parallel(func(o, w int) {
		r := s.r1[o*n : o*n+n]
		for i := range r {
			j := o*n + i
			r[i] = -rd[j] + rcx[j]/s.x[j]
		}
		pairs, off := s.pairsOf(o)
		np := len(pairs)
		rc := s.wt[w][:np]
		col := rcs.col(off, np)
		col.fill(rc)
		so, lo := s.s[off:off+np], s.lam[off:off+np]
		if rs == nil {
			for k, q := range pairs {
				t := rc[k] / so[k]
				r[q.I] -= t
				r[q.H] += q.W * t
			}
			return
		}
		ro := rs[off : off+np]
		for k, q := range pairs {
			t := (rc[k] + lo[k]*ro[k]) / so[k]
			r[q.I] -= t
			r[q.H] += q.W * t
		}
	})
	s.solveColumns(func(o int, u []float64) {
		copy(u, s.r1[o*n:o*n+n])
	}, func(o, w int, u []float64) {
		axpy(s.accV[w], s.colWeight(o), u)
	})
	// S dy = sum_o H_o^{-1} r1_o + rp.
	for i := range d.y {
		var v float64
		for w := range s.accV {
			v += s.accV[w][i]
		}
		d.y[i] = v
	}
	if s.sg != nil {
		s.sg.orbitMean(d.y)
	}
	axpy(d.y, 1, rp)
	s.schurSolve(d.y)
	s.solveColumns(func(o int, u []float64) {
		r := s.r1[o*n : o*n+n]
		for i := range u {
			u[i] = r[i] - d.y[i]
		}
	}, func(o, _ int, u []float64) {
		copy(d.x[o*n:o*n+n], u)
	})
	s.refine(rp, d)
	s.parallel(func(o, w int) {
		dx := d.x[o*n : o*n+n]
		dz := d.zx[o*n : o*n+n]
		pairs, off := s.pairsOf(o)
		np := len(pairs)
		// The pairs' complementarity right-hand side, before d.s and
		// d.lam are written (rcs may read them: the corrector's).
		rc := s.wt[w][:np]
		col := rcs.col(off, np)
		col.fill(rc)
		// dzx from the dual equation, so that the dual residual shrinks by
		// exactly (1-alpha) whatever the rounding in dx ...
		for i := range dz {
			dz[i] = rd[o*n+i] + d.y[i]
		}
		so, lo := s.s[off:off+np], s.lam[off:off+np]
		var ro []float64
		if rs != nil {
			ro = rs[off : off+np]
		}
		dso, dlo := d.s[off:off+np], d.lam[off:off+np]
		for k, q := range pairs {
			var ds float64
			if ro != nil {
				ds = -ro[k] - (dx[q.I] - q.W*dx[q.H])
			} else {
				ds = -(dx[q.I] - q.W*dx[q.H])
			}
			dl := (rc[k] - lo[k]*ds) / so[k]
			dso[k], dlo[k] = ds, dl
			dz[q.I] += dl
			dz[q.H] -= q.W * dl
		}
		// ... except where x is large and zx small (x basic): there the
		// complementarity equation gives dzx with far better relative accuracy.
		for i := range dz {
			j := o*n + i
			if s.zx[j] < s.kappa*s.x[j] {
				dz[i] = (rcx[j] - s.zx[j]*dx[i]) / s.x[j]
			}
		}
	})
}

// refine corrects dy and dx so that the row-sum equations B dx = -rp hold to
// working precision: with e = B dx + rp, the correction d solves S d = e, then
// dy += d and dx_o -= H_o^{-1} d. Two rounds of this iterative refinement
// recover the accuracy lost in the ill-conditioned Schur complement.
func (s *ipm) refine(rp []float64, d *newton) {
	if s.pcg.skipRefine() {
		// Conjugate gradients solved with S to their own tolerance on the
		// exact operator (lp/schur_pcg.go): e is their residual.
		return
	}
	n := s.n
	e := s.scratchN
	for range 2 {
		clear(e)
		var scale float64 // the largest term summed: rounding level
		for _, v := range rp {
			scale = max(scale, math.Abs(v))
		}
		for o := 0; o < s.m; o++ {
			wo := s.colWeight(o)
			for i, v := range d.x[o*n : o*n+n] {
				e[i] += wo * v
				scale = max(scale, wo*math.Abs(v))
			}
		}
		if s.sg != nil {
			s.sg.orbitMean(e)
		}
		axpy(e, 1, rp)
		// Stop once the residual is at the rounding level of its own
		// sum: another round cannot improve it, and costs m solves.
		if maxAbs(e) <= 4*float64(s.m)*0x1p-52*scale {
			return
		}
		s.schurSolve(e)
		axpy(d.y, 1, e)
		s.solveColumns(func(_ int, u []float64) {
			copy(u, e)
		}, func(o, _ int, u []float64) {
			axpy(d.x[o*n:o*n+n], -1, u)
		})
	}
}

// maxStep is min(alpha, min_{k: dv_k < 0} -v_k/dv_k): the largest step up
// to alpha keeping v + step·dv >= 0, as computed (the quotients rounded).
//
// Most entries cannot lower alpha, and testing that needs no division and
// no unpredictable branch: rounding is monotone and alpha is a float, so
// fl(-v_k/dv_k) < alpha only if -v_k/dv_k < alpha exactly, that is only if
// v_k + alpha·dv_k < 0 exactly, whose fused (once-rounded) value is then
// at most 0. An entry whose fused v_k + alpha·dv_k is positive therefore
// leaves alpha as it is; the others, a few per pass once alpha has
// settled, take the definition's branch (which also keeps its answer for
// zeros, negative v_k and NaNs). The result is the plain loop's to the
// bit (TestMaxStep).
func maxStep(v, dv []float64, alpha float64) float64 {
	v = v[:len(dv)]
	for k, d := range dv {
		if !(math.FMA(alpha, d, v[k]) > 0) && d < 0 {
			alpha = min(alpha, -v[k]/d)
		}
	}
	return alpha
}

// steps returns the primal and dual step limits of the current direction.
func (s *ipm) steps() (ap, ad float64) {
	ap = min(s.stepTo(s.x, s.d.x), s.stepTo(s.s, s.d.s))
	ad = min(s.stepTo(s.zx, s.d.zx), s.stepTo(s.lam, s.d.lam))
	return ap, ad
}

// maxCorrectors is the number of Gondzio centrality correctors tried per
// iteration: each costs one more solve with the factors at hand, far less
// than the factorisation, and lengthens short steps. Not in the lazy
// iterations of the Schur complement (lp/schur_pcg.go), where a solve is
// a run of conjugate gradients (10-30 products S v, each a solve with
// every column's factor): there the correctors saved a few iterations but
// cost more than those (Manhattan 40×40 with the hot-spot prior: 41 iterations
// and 357-392 CPU s with them, 43 and 298 CPU s without; one corrector:
// 39 and 366 CPU s). They do run in the iteration that assembled S in
// single precision (schurPCG.single), whose solves are conjugate gradients
// preconditioned by the fresh factor: a few products each.
const maxCorrectors = 2

// centralityCorrectors applies Gondzio's multiple centrality correctors to
// the current direction s.d with step limits ap, ad and returns the new
// limits. Each corrector aims the complementarity products at the trial
// point (steps raised by 0.2) into [0.1, 10]·sigmaMu, solving the Newton
// system with only that target as right-hand side; it is kept when it
// lengthens the steps.
func (s *ipm) centralityCorrectors(sigmaMu, ap, ad float64) (float64, float64) {
	if s.pcg.aged() {
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
	for o, w := range s.sg.colW {
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
func (s *ipm) certify(margin, tol float64, keepLam bool, best *Result) (*Result, error) {
	n, m := s.n, s.m
	var x, lam []float64
	if s.sg != nil {
		m = s.p.M
		x = s.sg.expandX(s.x, n, m)
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
		t, err = s.pc.repair(x, margin)
		dual, y = s.pc.dualBound(s.p, s.lam)
	} else if s.sg != nil {
		t, err = Repair(s.p, x, margin)
		dual, y = s.sg.dualBound(s.p, lam, s.sg.rowAct)
	} else if s.dr != nil {
		t, err = Repair(s.p, x, margin)
		dual, y = s.dropBound(s.p.objective(x), tol)
	} else {
		t, err = Repair(s.p, x, margin)
		dual, y = dualBound(s.p, lam)
	}
	if err != nil {
		return nil, err
	}
	primal := s.p.objective(x)
	r := &Result{X: x, Primal: primal, Dual: dual, Gap: relGap(primal, dual), Mix: t, Y: y}
	r.SchurAssemblies, r.SchurCG, r.schurSingle, r.schurF32 = s.pcg.assemblies, s.pcg.total, s.pcg.singles, s.pcg.f32
	r.Symmetry = 1
	r.Columns = s.m
	if s.sg != nil {
		r.Columns = s.p.M
		r.Symmetry = s.sg.order
	}
	if s.dr != nil {
		r.restarts = s.dr.restarts
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
	s.pcg = s.newSchurPCG(o)
	warm := s.warmStart(o.warm)
	if warm {
		s.pcg.warm = true
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
		if err := s.factor(); err != nil {
			return best, fmt.Errorf("lp: iteration %d: %w", it, err)
		}
		// The predictor only sets sigma and the second-order terms: its
		// Schur solve by conjugate gradients may be loose.
		s.pcg.loose = true
		s.direction(0, false)
		ap, ad := s.steps()
		muAff := s.complementarity(ap, ad)
		sigma := math.Pow(muAff/mu, 3)
		s.each(len(s.cx), func(lo, hi int) {
			for k := lo; k < hi; k++ {
				s.cx[k] = s.d.x[k] * s.d.zx[k]
			}
		})
		s.pcg.loose = false
		s.direction(sigma*mu, true)
		ap, ad = s.steps()
		ap, ad = s.centralityCorrectors(sigma*mu, ap, ad)
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
		axpy(s.y, ad, s.d.y)

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
		s.pcg.nearOptimum(gap)
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
			pr.Message = fmt.Sprintf("dual %.10g, mu %.3g, %s, steps %.2g %.2g%s%s", dual, mu, fac, ap, ad, s.pcg.status(), cols)
			o.Report(pr)
		}
		// Certify once the iterates are close; keep the best certificate, as
		// rounding eventually limits how far the iteration can go.
		if gap <= max(1e-3, o.Tol) || it == o.MaxIter {
			r, err := s.certify(o.Margin, o.Tol, o.keepLam, best)
			if err != nil {
				return nil, err
			}
			r.Iterations = it
			r.warm = warm
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
		if (bad >= 3 || stale >= 8) && s.pcg.on {
			// Directions from conjugate gradients with an earlier factor
			// of S stopped improving the certificate: assemble S at every
			// iteration from here on (lp/schur_pcg.go).
			s.pcg.on, bad, stale = false, 0, 0
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

func countTrue(v []bool) int {
	k := 0
	for _, b := range v {
		if b {
			k++
		}
	}
	return k
}

func dot(a, b []float64) float64 {
	var s float64
	for k, v := range a {
		s += v * b[k]
	}
	return s
}

func axpy(dst []float64, a float64, x []float64) {
	for k, v := range x {
		dst[k] += a * v
	}
}

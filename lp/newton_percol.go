package lp

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/optdp/optdp/lp/internal/percol"
	"github.com/optdp/optdp/run"
)

// perColumnBound is dualBound (lp/certify.go) for per-column pairs: with column
// o's multipliers lam[off[o]:off[o+1]] (negative ones as 0),
//
//	y_i = max_o ( C[i][o] - (G_o^T lam_o)_i ),  bound = sum_i y_i,
//
// an upper bound on the optimum of the LP with the per-column constraints
// (weak duality column by column, as in dualBound), and so on every LP
// whose columns have at least these constraints.
func perColumnBound(pc *percol.Factors, p *Problem, lam []float64) (float64, []float64) {
	return dualBoundBy(p, func(o int) ([]Pair, []float64) { return pc.Pairs[o], lam[pc.Off[o]:pc.Off[o+1]] })
}

// solveColumns solves the LP p with per-column constraints: column o
// constrained by the pairs p.Pairs[k] for k in cols[o] only (p.Pairs is
// otherwise ignored). The Result's X is exactly feasible for that LP
// (repaired), Dual is its certified bound from the exactly feasible Y,
// and lam holds the multipliers (column o's at the offsets of cols).
// The memory is checked against o.Budget twice: the iterate and the dense
// n×n parts before anything is allocated, and everything (with the
// symbolic factors' sizes) before the numeric factors are.
//
// prev, when not nil, is the structure of an earlier call on the same
// problem whose column lists the current ones extend: the columns left
// unchanged keep their symbolic analysis. solveColumns returns the
// structure for the next call.
func solveColumns(ctx context.Context, p *Problem, cols [][]int, o config, prev *percol.Factors) (*Result, *percol.Factors, error) {
	n, m := p.N, p.M
	workers := max(1, min(o.Workers, m))
	fn, fm := float64(n), float64(m)
	var total float64
	for _, ks := range cols {
		total += float64(len(ks))
	}
	what := fmt.Sprintf("lp: %d×%d problem with %.0f per-column ratio pairs", n, m, total)
	// The iterate and the dense Schur parts first, before the analysis;
	// then everything, with the factors' sizes known.
	dense := 8*(15*fn*fm+11*total+2*float64(workers)*fn*fn+3*total) + warmNeed(o, fn, fm, total)
	if err := o.Budget.Check(what, dense, "raise the budget, or use fewer pairs (a spanner)"); err != nil {
		return nil, nil, err
	}
	if dense >= gcBeforeBytes {
		// The previous round's factors are garbage now: collect them
		// before the analysis allocates, as solveAs does.
		runtime.GC()
	}
	pairs := make([][]Pair, m)
	for c, ks := range cols {
		pairs[c] = make([]Pair, len(ks))
		for t, k := range ks {
			pairs[c][t] = p.Pairs[k]
		}
	}
	// The analysis stops once its own bytes pass what the budget leaves
	// for it, before allocating much more than that.
	rest := 8*(15*fn*fm+11*total+float64(workers)*fn*fn) + warmNeed(o, fn, fm, total) + 4*total + 4*float64(len(p.Pairs))
	pc, need, err := percol.New(ctx, n, pairs, workers, prev, max(1, float64(o.Budget.Bytes())-rest), func(count int, f func(int)) { parallel(count, workers, f) })
	if errors.Is(err, percol.ErrOverLimit) {
		return nil, nil, fmt.Errorf("%s needs more than %s (its analysis stopped there), over the memory budget of %s; raise the budget, or use fewer pairs (a spanner): %w",
			what, run.FormatBytes(need+rest), run.FormatBytes(float64(o.Budget.Bytes())), run.ErrTooLarge)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := o.Budget.Check(what, need+rest, "raise the budget, or use fewer pairs (a spanner)"); err != nil {
		return nil, nil, err
	}
	pc.Alloc(workers)
	if o.Budget != run.Unlimited {
		// The QR fallback's bands: the reserve counted in need, and
		// whatever else the budget leaves.
		pc.SetBandLimit(float64(o.Budget.Bytes()) - need - rest + pc.BandReserve)
	}
	pc.Union, pc.UIdx = pairUnion(p.Pairs, cols, total)
	s, err := newIPM(ctx, &Problem{N: n, M: m, C: p.C}, workers, nil, nil, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	s.pc = pc
	s.cols = perColumnSystem{s}
	s.bandNeed = func(int64) error {
		return fmt.Errorf("%s: the QR fallback of the columns whose LDL^T failed needs more than the %s of bands the memory budget of %s leaves; raise the budget: %w",
			what, run.FormatBytes(pc.BandUsed()), run.FormatBytes(float64(o.Budget.Bytes())), run.ErrTooLarge)
	}
	maxLen := 0
	for _, ps := range pairs {
		maxLen = max(maxLen, len(ps))
	}
	s.np = maxLen
	tl := pc.Off[m]
	mk := func() []float64 { return make([]float64, tl) }
	s.s, s.lam, s.rs = mk(), mk(), mk()
	s.d = newNewton(n*m, tl, n)
	for w := range s.wt {
		s.wt[w] = make([]float64, maxLen)
	}
	o.keepLam = true
	r, err := s.run(ctx, o)
	if r != nil {
		r.Pairs = maxLen
	}
	return r, pc, err
}

// pairUnion returns the pairs of ps that some column lists in cols, each
// once, and for every column's pair in turn (column by column) its
// position in that union.
func pairUnion(ps []Pair, cols [][]int, total float64) ([]Pair, []int32) {
	pos := make([]int32, len(ps))
	for k := range pos {
		pos[k] = -1
	}
	var union []Pair
	uidx := make([]int32, 0, int(total))
	for _, ks := range cols {
		for _, k := range ks {
			if pos[k] < 0 {
				pos[k] = int32(len(union))
				union = append(union, ps[k])
			}
			uidx = append(uidx, pos[k])
		}
	}
	return union, uidx
}

// perColumnSystem is the per-column variant of the column factors
// (columnSystem): column o has its own pairs, fill-reducing order and
// factor in s.pc (percol.Factors.Factor, AddInverse, Solve). It has no
// symmetric reduction, so inverse is never called.
type perColumnSystem struct{ *ipm }

func (s perColumnSystem) factor(o, w int, diag, wt, acc []float64) {
	s.qrUsed[w] = s.pc.Factor(o, w, diag, wt, acc, s.useQR) || s.qrUsed[w]
	if s.pc.BandShort() {
		s.bandShort.Store(true) // the iteration stops with bandNeed's error
	}
}

func (s perColumnSystem) solve(o, w int, r []float64) { s.pc.Solve(o, w, r) }

func (s perColumnSystem) addInverse(o, w int, acc []float64) { s.pc.AddInverse(o, w, acc) }

func (s perColumnSystem) inverse(int, int, []float64) []int {
	panic("lp: the per-column mode has no symmetric reduction")
}

// warmNeed is the memory of the iterates kept for the rounds' warm starts
// (two colWarm, lp/percol_warm.go), when o keeps them.
func warmNeed(o config, n, m, total float64) float64 {
	if o.colCapture == nil {
		return 0
	}
	return 2 * colWarmBytes(n, m, total)
}

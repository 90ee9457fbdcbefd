package lp

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/optdp/optdp/lp/internal/kernel"
	"github.com/optdp/optdp/lp/internal/orbit"
	"github.com/optdp/optdp/lp/internal/price"
	"github.com/optdp/optdp/lp/ldl"
)

// Output elimination within one interior-point solve (docs/MATH.md
// §11.10). With a skewed prior the optimum uses a fraction of the outputs
// (Euclidean 20×20 spanner LP with the hot-spot prior: 135 of 400
// columns), and every column costs a factorisation and a solve per
// product of the conjugate gradients in every iteration.
//
//   - Leaving out: once the iterate's relative gap g is in [dropMinGap,
//     dropMaxGap], a column whose mass Σ_i X[i][o] is below dropMass·N/M
//     and at most 1/√dropSpan of its mass at the latest iteration whose
//     gap was at least dropSpan·g (the mass of an unused column shrinks
//     about as the gap does; that of a used one levels off) leaves the
//     iterate. Its X moves to the column in that gains most from it, which
//     keeps every row sum and ratio (compact). The compaction waits for
//     one column in dropBatch; problems with fewer than dropMinCols
//     columns, and the symmetric and per-column modes, keep every column.
//   - The bound: §11.2 holds for any λ_o ≥ 0, so a column left out keeps
//     the multipliers it had when it left; they are pushed along the pairs
//     and re-priced by the pricing LP of §11.7 (priceColumn) where their
//     term exceeds the row multipliers of the columns in (dropBound).
//   - Bringing back: when the columns in are within Tol/2 (Tol for a
//     solve wanted for its bound only) and those left out still do not
//     fit in the tolerance, the ones of largest excess come back and the
//     iteration restarts, the others still left out (restart); after
//     dropMaxRestarts restarts every column comes back.
//   - Only solves to a tolerance of dropMinTol or looser take part: to
//     1e-6 the pricing LP leaves excesses of that order on columns that
//     are barely unused, and each restart that brings one back costs a
//     solve (Manhattan 30×30 with the hot-spot prior: three restarts, one
//     column each, 111 iterations against 38).
const (
	dropMinCols     = 64
	dropMaxGap      = 0.5
	dropMinGap      = 1e-4
	dropSpan        = 4
	dropMass        = 0.1
	dropHist        = 16
	dropBatch       = 100
	dropReprice     = 4
	dropMaxRestarts = 3
	dropMinTol      = 1e-5
)

// massAt is the iterate's relative gap and the mass of every column of
// s.p (0 for those left out) at one iteration.
type massAt struct {
	gap  float64
	mass []float64
}

// dropper is the state of the output elimination; the ipm's arrays hold
// only the columns still in, colOf naming them.
type dropper struct {
	m0, workers int
	all         bool        // tests: leave out every column but the heaviest at the first check
	boundOnly   bool        // Options.boundOnly: the end test comes when the columns in are within Tol
	restarts    int         // restarts that brought columns back
	colOf       []int       // current column -> column of s.p
	lam         [][]float64 // by column of s.p: its multipliers since it left (nil while in)
	hist        []massAt    // the last dropHist iterations' column masses
	keep        []bool      // by column of s.p: never left out (brought back once)
	out         int         // columns left out
	certs       int         // certificates computed
	pricedAt    int         // the certificate at which the columns left out were last priced
	byI         [][]pushArc // the pairs of s.p by their row I, by ascending W (pairsByI; push)
	// The pricing LP's structure: s.sym, or in the banded mode a
	// minimum-degree order pperm (new -> old) with its structure and the
	// pairs renumbered (in the same order).
	psym   *ldl.Symbolic
	pperm  []int
	ppairs []Pair
	// pricers are the workers' factors and scratch for the pricing LPs,
	// kept from one bound to the next.
	pricers chan *pricer
	revive  []int // columns of s.p to bring back (certify found them)
}

func newDropper(m, workers int) *dropper {
	d := &dropper{m0: m, workers: workers, colOf: make([]int, m), lam: make([][]float64, m),
		keep: make([]bool, m)}
	for o := range d.colOf {
		d.colOf[o] = o
	}
	return d
}

// dropsColumns reports whether a solve of m columns under o, with the
// symmetry sg, leaves unused columns out: without symmetries, from
// dropMinCols columns, to a tolerance of at least dropMinTol, unless
// o.KeepColumns.
func dropsColumns(o config, sg *orbit.Group, m int) bool {
	return sg == nil && !o.KeepColumns && m >= dropMinCols && o.Tol >= dropMinTol
}

// dropper sets up the output elimination of a solve under o (see
// dropsColumns).
func (s *ipm) dropper(o config) {
	if s.pc != nil || !dropsColumns(o, s.sg, s.m) {
		return
	}
	s.dr = newDropper(s.m, s.workers)
	s.dr.all = o.test.dropAll
	s.dr.boundOnly = o.boundOnly
	s.leaveOut(o.startOut)
}

// dropColumns leaves out the columns whose mass vanishes (see the
// thresholds above); gap is the iterate's relative gap.
func (s *ipm) dropColumns(gap float64) {
	d := s.dr
	if d == nil || gap > dropMaxGap || gap < dropMinGap || s.m <= 1 {
		return
	}
	n, m := s.n, s.m
	mass := make([]float64, m)
	s.parallel(func(o, _ int) {
		var t float64
		for _, v := range s.x[o*n : o*n+n] {
			t += v
		}
		mass[o] = t
	})
	// The mass then: at the latest earlier iteration whose gap was at
	// least dropSpan times this one (by column of s.p).
	var then []float64
	for k := len(d.hist) - 1; k >= 0; k-- {
		if d.hist[k].gap >= dropSpan*gap {
			then = d.hist[k].mass
			break
		}
	}
	byCol := make([]float64, d.m0)
	for j, o := range d.colOf {
		byCol[o] = mass[j]
	}
	d.hist = append(d.hist, massAt{gap, byCol})
	if len(d.hist) > dropHist {
		d.hist = d.hist[1:]
	}
	thr := dropMass * float64(n) / float64(d.m0)
	out := make([]bool, m)
	cnt, big := 0, 0
	for j, v := range mass {
		o := d.colOf[j]
		// A decay at least as fast as the square root of the gap's: the
		// mass of an unused column shrinks about as the gap does, that of
		// a used one levels off at its final value.
		falls := then != nil && v <= then[o]/math.Sqrt(dropSpan)
		if (d.all || falls && v < thr) && !d.keep[o] {
			out[j] = true
			cnt++
		}
		if v > mass[big] {
			big = j
		}
	}
	if cnt == m { // cannot happen with a sane threshold: keep one column
		out[big] = false
		cnt--
	}
	if cnt == 0 || cnt*dropBatch < m {
		return
	}
	d.all = false
	s.compact(out, nil)
}

// compact removes the columns marked out from the iterate, keeping their
// multipliers for the certificate: the iterate's, or with given (by
// column of s.p, before the start point) those, and nothing to transfer.
func (s *ipm) compact(out []bool, given [][]float64) {
	d := s.dr
	n, np, m := s.n, s.np, s.m
	// The mass of a column left out moves to the column in that gains
	// most from it: x_o satisfies every ratio (G x_o + s_o = 0 up to the
	// residual), so x_j + x_o does with slacks s_j + s_o > s_j, and every
	// row sum stays as it was. The iterate stays interior and as feasible
	// as before; only its objective changes, by (C_j − C_o)·x_o.
	var in, gone []int
	for o := 0; o < m; o++ {
		if out[o] {
			gone = append(gone, o)
		} else {
			in = append(in, o)
		}
	}
	transfer := gone
	if given != nil {
		transfer = nil
	}
	to := make([]int, len(transfer))
	parallel(len(transfer), s.workers, func(k int) {
		xo := s.x[transfer[k]*n : transfer[k]*n+n]
		best, arg := math.Inf(1), in[0]
		for _, j := range in {
			if v := kernel.Dot(s.c[j*n:j*n+n], xo); v < best { // c = −C
				best, arg = v, j
			}
		}
		to[k] = arg
	})
	for k, o := range transfer {
		j := to[k]
		kernel.Axpy(s.x[j*n:j*n+n], 1, s.x[o*n:o*n+n])
		kernel.Axpy(s.s[j*np:j*np+np], 1, s.s[o*np:o*np+np])
	}
	mv := func(v []float64, stride, to, from int) {
		copy(v[to*stride:(to+1)*stride], v[from*stride:(from+1)*stride])
	}
	j := 0
	for o := 0; o < m; o++ {
		if out[o] {
			if c := d.colOf[o]; given != nil {
				d.lam[c] = given[c]
			} else {
				d.lam[c] = slices.Clone(s.lam[o*np : (o+1)*np])
			}
			d.out++
			continue
		}
		if j != o {
			for _, v := range [][]float64{s.c, s.x, s.zx} {
				mv(v, n, j, o)
			}
			mv(s.s, np, j, o)
			mv(s.lam, np, j, o)
			d.colOf[j] = d.colOf[o]
			// The sparse factors stay in their places (blocks of four
			// columns, see newIPM): the next iteration refactors column j
			// into sf[j], and nothing reads a factor before that. The
			// banded ones move with the column (each stays owned by one).
			if s.fac != nil {
				s.fac[j], s.fac[o] = s.fac[o], s.fac[j]
			}
		}
		j++
	}
	s.resize(j)
}

// leaveOut leaves out, before the first iteration, the columns with
// multipliers in lam (by column of s.p), which stand for them in the
// bound until they are priced (Options.startOut). It takes the slices
// over: push and the pricing change them in place.
func (s *ipm) leaveOut(lam [][]float64) {
	if lam == nil {
		return
	}
	out := make([]bool, s.m)
	cnt := 0
	for o := range out {
		if o < len(lam) && lam[o] != nil && len(lam[o]) == s.np {
			out[o] = true
			cnt++
		}
	}
	if cnt == 0 || cnt == s.m {
		return
	}
	s.compact(out, lam) // before the start point: nothing to transfer
}

// resize sets the number of columns of the iterate to m, reslicing every
// per-column array (their capacity is the full problem's).
func (s *ipm) resize(m int) {
	n, np := s.n, s.np
	nm, pm := n*m, np*m
	for _, v := range []*[]float64{&s.c, &s.x, &s.zx, &s.rd, &s.rcx, &s.cx, &s.r1, &s.d.x, &s.d.zx} {
		*v = (*v)[:nm]
	}
	for _, v := range []*[]float64{&s.s, &s.lam, &s.rs, &s.d.s, &s.d.lam} {
		*v = (*v)[:pm]
	}
	if s.dc.x != nil {
		s.dc.x, s.dc.zx, s.tx = s.dc.x[:nm], s.dc.zx[:nm], s.tx[:nm]
		s.dc.s, s.dc.lam = s.dc.s[:pm], s.dc.lam[:pm]
	}
	if s.sf != nil {
		s.sf, s.isQR = s.sf[:m], s.isQR[:m]
	}
	if s.fac != nil {
		s.fac = s.fac[:m]
	}
	d := s.dr
	d.colOf = d.colOf[:m]
	s.m = m
	s.workers = max(1, min(d.workers, m))
}

// restart starts the iteration again from the start point with the
// columns in d.revive brought back for good (d.keep), and the other
// columns left out kept out, their multipliers standing for them as
// before: splicing a column into an iterate that close to the optimum,
// with dual residuals of the order of its gains, stalls the steps
// (measured: steps of 1e-12), while a start without the columns left out
// costs a solve of the columns in. After dropMaxRestarts restarts every
// column comes back and stays.
func (s *ipm) restart() {
	d := s.dr
	for _, o := range d.revive {
		d.keep[o] = true
		d.lam[o] = nil
	}
	d.revive = d.revive[:0]
	d.restarts++
	out := d.lam
	if d.restarts >= dropMaxRestarts {
		for o := range d.keep {
			d.keep[o] = true
		}
		out = nil
	}
	d.lam = make([][]float64, d.m0)
	// The centrality correctors' arrays were allocated for fewer columns.
	s.dc, s.zero, s.tx = newton{}, nil, nil
	m := d.m0
	s.resize(m)
	n := s.n
	for o := 0; o < m; o++ {
		d.colOf[o] = o
		if s.isQR != nil {
			s.isQR[o] = false
		}
		for i := 0; i < n; i++ {
			s.c[o*n+i] = -s.p.C[i*s.p.M+o]
		}
	}
	d.out, d.hist = 0, nil
	s.useQR = false
	s.leaveOut(out)
	s.start()
}

// fullLam returns the multipliers of every column of s.p (np per column,
// in its order): the iterate's for the columns in, those kept for the
// columns left out. They are written into buf when it has room.
func (s *ipm) fullLam(buf []float64) []float64 {
	d, np := s.dr, s.np
	lam := buf
	if cap(lam) < d.m0*np {
		lam = make([]float64, d.m0*np)
	}
	lam = lam[:d.m0*np]
	clear(lam)
	for j, o := range d.colOf {
		copy(lam[o*np:(o+1)*np], s.lam[j*np:(j+1)*np])
	}
	for o, l := range d.lam {
		if l != nil {
			copy(lam[o*np:(o+1)*np], l)
		}
	}
	return lam
}

// dropBound is the certified bound of §11.2 over every column of s.p: the
// iterate's multipliers for the columns in, and for the columns left out
// those they kept. These are replaced by the pricing LP's (priceColumn,
// against yIn, the row multipliers of the columns in), where they leave a
// smaller excess over yIn: at the first certificate where the columns
// left out weaken the bound by more than the gap of the columns in, then
// at most every dropReprice certificates while they do; whenever they
// alone block a certificate that the columns in would pass with a tenth
// of tol to spare (priced then until the rest fits in half that slack);
// and at the end test, once the columns in are within tol/2 of the primal
// value (within tol for a bound only, d.boundOnly). At the end test,
// columns whose excess does not fit in what tol leaves are listed in
// d.revive, those of largest excess first.
//
// A cancelled ctx stops the pricing (its minimum-degree order, and between
// columns) with ctx's error, wrapped.
func (s *ipm) dropBound(ctx context.Context, primal, tol float64) (float64, []float64, error) {
	d, n, np, p := s.dr, s.n, s.np, s.p
	m := p.M
	d.certs++
	// y over the columns in.
	yIn := make([]float64, n)
	for i := range yIn {
		yIn[i] = math.Inf(-1)
	}
	t := make([]float64, n)
	term := func(o int, lam []float64) {
		for i := 0; i < n; i++ {
			t[i] = p.C[i*m+o]
		}
		for k, q := range p.Pairs {
			l := max(lam[k], 0)
			t[q.I] -= l
			t[q.H] += q.W * l
		}
	}
	for j, o := range d.colOf {
		term(o, s.lam[j*np:(j+1)*np])
		for i, v := range t {
			yIn[i] = max(yIn[i], v)
		}
	}
	dualIn := sumOf(yIn)
	gapIn := relGap(primal, dualIn)
	excess := func(o int) float64 {
		term(o, d.lam[o])
		var e float64
		for i, v := range t {
			e += max(0, v-yIn[i])
		}
		return e
	}
	// full returns the bound over every column, and the columns left out
	// with their excess over yIn.
	full := func() (float64, []float64, []int, []float64) {
		y := slices.Clone(yIn)
		var over []int
		var ex []float64
		for o, l := range d.lam {
			if l == nil {
				continue
			}
			if e := excess(o); e > 0 {
				over, ex = append(over, o), append(ex, e)
				for i, v := range t {
					y[i] = max(y[i], v)
				}
			}
		}
		return sumOf(y), y, over, ex
	}
	dual, y, over, ex := full()
	if len(over) > 0 {
		// First the cheap repair: push each excess along the pairs.
		if d.byI == nil {
			d.byI = pairsByI(p.Pairs, n)
		}
		for _, o := range over {
			term(o, d.lam[o])
			d.push(p, d.lam[o], t, yIn)
		}
		dual, y, over, ex = full()
	}
	// The end test: the columns left out are priced, and those that do
	// not fit are listed to come back, once the columns in are within
	// Tol/2; for a bound only, once they are within Tol. There the priced
	// excess of the columns left out, what they could add to the optimum
	// at these row multipliers, hardly moves as the columns in converge
	// (SolveSpanner's second LP at 50×50: 8e-4 of the bound while the
	// columns in went from 9e-4 to 6e-4), and the certificate passes
	// through boundSlack either way, 5-6 iterations later at Tol/2.
	final := gapIn <= tol/2 || d.boundOnly && gapIn <= tol
	weak := dual-dualIn > max(gapIn, tol/2)*math.Abs(dualIn)
	// slack is what the tolerance leaves past the gap of the columns in;
	// the columns left out block a certificate when they take more than
	// that while it is at least a tenth of the tolerance.
	scale := max(math.Abs(primal), math.Abs(dualIn))
	slack := tol*scale - (dualIn - primal)
	blocking := slack >= tol*scale/10 && dual-primal > tol*scale
	due := d.pricedAt == 0 || d.certs-d.pricedAt >= dropReprice
	if len(over) == 0 || !(final || blocking || weak && due) || d.pricedAt == d.certs {
		return dual, y, nil
	}
	d.pricedAt = d.certs
	// What the columns left out may add to the bound: as much as the gap
	// of the columns in, or what the tolerance leaves; when they block a
	// certificate, no more than twice that slack, so that the priced bound
	// can pass now.
	room := max(gapIn*math.Abs(dualIn), slack)
	if blocking {
		room = min(room, 2*slack)
	}
	// Price the columns of largest excess, until the others' sum fits in
	// a quarter of that.
	ord := make([]int, len(over))
	for k := range ord {
		ord[k] = k
	}
	slices.SortFunc(ord, func(a, b int) int { return cmp.Compare(ex[b], ex[a]) })
	rest := sumOf(ex)
	var todo []int
	for _, k := range ord {
		if rest <= room/4 {
			break
		}
		rest -= ex[k]
		todo = append(todo, k)
	}
	if d.psym == nil {
		// The pricing LP's factor: the solve's own sparse structure, or
		// (banded mode) a minimum-degree one of its own.
		d.psym, d.ppairs = s.sym, p.Pairs
		if s.sym == nil {
			perm, sym, err := ldl.MinimumDegreeContext(ctx, p.graph())
			if err != nil {
				d.psym, d.ppairs = nil, nil
				return 0, nil, fmt.Errorf("lp: pricing the columns left out: %w", err)
			}
			d.pperm, d.psym = perm, sym
			qs := permuted(p, d.pperm)
			d.psym.SetPairs(qs.graph())
			d.ppairs = qs.Pairs
		}
	}
	if d.pricers == nil {
		nz := d.psym.NNZ()
		d.pricers = make(chan *pricer, s.workers)
		for range s.workers {
			d.pricers <- &pricer{f: ldl.LDL{Sym: d.psym, D: make([]float64, n), L: make([]float64, nz)}, b: make([]float64, n)}
		}
	}
	parallel(len(todo), s.workers, func(kk int) {
		if s.stop.Load() {
			return
		}
		k := todo[kk]
		o := over[k]
		pr := <-d.pricers
		defer func() { d.pricers <- pr }()
		b := pr.b
		for i := range b {
			old := i
			if d.pperm != nil {
				old = d.pperm[i]
			}
			b[i] = p.C[old*m+o] - yIn[old]
		}
		lam, e := price.Column(&pr.f, b, d.ppairs, priceIter, &pr.pw)
		if e < ex[k] {
			d.lam[o] = lam
		}
	})
	if err := ctx.Err(); err != nil {
		return 0, nil, fmt.Errorf("lp: pricing the columns left out: %w", err)
	}
	dual, y, over, ex = full()
	d.revive = d.revive[:0]
	if final && relGap(primal, dual) > tol {
		// The columns of largest excess come back until the rest fit in
		// the tolerance left by the columns in.
		room := tol*max(math.Abs(primal), math.Abs(dualIn)) - (dualIn - primal)
		ord = make([]int, len(over))
		for k := range ord {
			ord[k] = k
		}
		slices.SortFunc(ord, func(a, b int) int { return cmp.Compare(ex[b], ex[a]) })
		rest = sumOf(ex)
		for _, k := range ord {
			if rest <= room/2 {
				break
			}
			rest -= ex[k]
			d.revive = append(d.revive, over[k])
		}
	}
	return dual, y, nil
}

// pricer is one worker's factor, right-hand side and scratch for the
// pricing LPs of dropBound.
type pricer struct {
	f  ldl.LDL
	b  []float64
	pw price.Work
}

// push lowers the excess of a column left out over y, t holding its term
// C_o − Gᵀlam, by raising lam along the pairs (pushExcess, as colElim.push
// does for per-column pair lists). Multipliers ≥ 0 on any pairs keep the
// bound valid (§11.2).
func (d *dropper) push(p *Problem, lam, t, y []float64) {
	pushExcess(d.byI, t, y, func(k int, e float64) { lam[k] += e })
}

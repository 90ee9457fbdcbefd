package lp

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/optdp/optdp/lp/internal/kernel"
	"github.com/optdp/optdp/lp/internal/mem"
	"github.com/optdp/optdp/lp/internal/orbit"
	"github.com/optdp/optdp/lp/internal/percol"
	"github.com/optdp/optdp/lp/internal/schur"
	"github.com/optdp/optdp/lp/ldl"
	"gonum.org/v1/gonum/mat"
)

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
	chol            mat.TriDense // the upper Cholesky factor of schur (backend.CholeskyStop)
	accS            [][]float64  // per-worker accumulators of sum_o H_o^{-1}
	accV            [][]float64  // per-worker accumulators of sum_o H_o^{-1} r1_o
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
	// and pair weights of four columns, and ldl.Factor4's scratch (nil: the
	// columns are factored one at a time).
	diag4, wt4, f4Work [][]float64
	// With the lazy Schur complement (schur.Lazy.On) in a solve to Tol 1e-3
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
	// stop is set when the solve's context is cancelled (ipm.run):
	// parallel and blocks then skip the columns they have not started,
	// so that an iteration's per-column work ends within one column's
	// factorisation, and run returns the context's error.
	stop atomic.Bool

	// cols is the per-column part of the Newton system in the variant
	// of this solve (bandedColumns, sparseColumns or perColumnSystem).
	cols columnSystem

	pcg *schur.Lazy // the lazy Schur complement (nil: assemble at every iteration)
	// The per-column mode (pc != nil, newton_percol.go): column o has its own
	// ratio constraints pc.pairs[o], with slacks and multipliers at
	// s[pc.off[o]+k], and its own fill-reducing order and factor pc.cols[o].
	pc *percol.Factors

	// The symmetric mode (sg != nil, newton_orbits.go, lp/internal/orbit): the m columns are
	// representatives of the orbits of columns, sg.cols[o] in p's
	// numbering, each standing for sg.colW[o] columns; the Schur complement
	// is the norb×norb reduced S~, assembled from per-worker orbit sums
	// accO (upper triangles) and accD (diagonals).
	sg         *orbit.Group
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
		return s.sum(len(a), func(lo, hi int) float64 { return kernel.Dot(a[lo:hi], b[lo:hi]) })
	}
	var t float64
	for o, w := range s.sg.ColW {
		t += w * kernel.Dot(a[o*stride:(o+1)*stride], b[o*stride:(o+1)*stride])
	}
	return t
}

// colWeight is the number of columns that column o stands for.
func (s *ipm) colWeight(o int) float64 {
	if s.sg == nil {
		return 1
	}
	return s.sg.ColW[o]
}

// entries is the number of x and s entries of the full problem.
func (s *ipm) entries() float64 {
	if s.sg == nil {
		return float64(len(s.x) + len(s.s))
	}
	var t float64
	for _, w := range s.sg.ColW {
		t += w
	}
	return t * float64(s.n+s.np)
}

// pairsOf returns column o's ratio constraints and the offset of its
// slacks and multipliers in s.s and s.lam.
func (s *ipm) pairsOf(o int) ([]Pair, int) {
	if s.pc != nil {
		return s.pc.Pairs[o], s.pc.Off[o]
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

// blocks runs f(lo, hi, w) on every worker w for contiguous ranges of
// whole blocks of four columns (the last one possibly partial), at most
// blockChunk columns per call; like parallel, it skips the rest once stop
// is set.
func (s *ipm) blocks(f func(lo, hi, w int)) {
	// Runs of at most blockChunk columns, so that a cancelled solve
	// (stop) leaves within one run.
	run := func(lo, hi, w int) {
		for a := lo; a < hi && !s.stop.Load(); a += blockChunk {
			f(a, min(hi, a+blockChunk), w)
		}
	}
	if s.workers == 1 {
		run(0, s.m, 0)
		return
	}
	nb := (s.m + 3) / 4
	var wg sync.WaitGroup
	for w := range s.workers {
		lo, hi := min(s.m, 4*(w*nb/s.workers)), min(s.m, 4*((w+1)*nb/s.workers))
		wg.Go(func() { run(lo, hi, w) })
	}
	wg.Wait()
}

// newIPM allocates the solver for p. With sym nil, the per-column factors
// are banded (p's own bandwidth); otherwise p's rows are in sym's
// fill-reducing order, and rp is p in a bandwidth-reducing order for the QR
// fallback, rperm mapping its rows to p's.
//
// sg, when not nil, selects the symmetric mode: one column per orbit.
//
// A cancelled ctx stops it between allocations (each of up to N·M or
// pairs·M values, whose zeroing or first writes take a good part of a
// second at N·M of some 10^7) with ctx's error.
func newIPM(ctx context.Context, p *Problem, workers int, sym *ldl.Symbolic, rp *Problem, rperm []int, sg *orbit.Group) (*ipm, error) {
	interrupted := func() error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("lp: interrupted while allocating the solver: %w", err)
		}
		return nil
	}
	n, m, np := p.N, p.M, len(p.Pairs)
	cols := func(o int) int { return o }
	if sg != nil {
		m = len(sg.Cols)
		cols = func(o int) int { return sg.Cols[o] }
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
	for _, a := range []*[]float64{&s.c, &s.x, &s.zx, &s.rd, &s.rcx, &s.cx, &s.r1} {
		if err := interrupted(); err != nil {
			return nil, err
		}
		*a = alloc(nm)
	}
	for _, a := range []*[]float64{&s.s, &s.lam, &s.rs} {
		if err := interrupted(); err != nil {
			return nil, err
		}
		*a = alloc(pm)
	}
	s.y, s.rp, s.scratchN = alloc(n), alloc(n), alloc(n)
	s.d = newNewton(nm, pm, n)
	if err := interrupted(); err != nil {
		return nil, err
	}
	if sg != nil {
		s.schur = mat.NewSymDense(sg.NOrb, nil)
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
	if err := interrupted(); err != nil {
		return nil, err
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
			s.accO[w], s.accD[w] = alloc(sg.NOrb*sg.NOrb), alloc(sg.NOrb)
		}
	}
	for i := 0; i < n; i++ {
		if i%256 == 0 {
			if err := interrupted(); err != nil {
				return nil, err
			}
		}
		for o := 0; o < m; o++ {
			s.c[o*n+i] = -p.C[i*p.M+cols(o)]
		}
	}
	return s, interrupted()
}

// blockChunk is the most columns (a multiple of four) blocks hands f at
// once, between checks of stop.
const blockChunk = 16

// parallel runs f(o, w) for every column o, the columns split into
// contiguous blocks, one per worker w; once stop is set (a cancelled
// solve), the columns not yet started are skipped and the results are
// garbage, which ipm.run discards.
func (s *ipm) parallel(f func(o, w int)) {
	if s.workers == 1 {
		for o := 0; o < s.m && !s.stop.Load(); o++ {
			f(o, 0)
		}
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < s.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := w * s.m / s.workers; o < (w+1)*s.m/s.workers && !s.stop.Load(); o++ {
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
	// The loops go by columns and give up once s.stop is set (the first
	// writes to the iterate's arrays fault their pages in: seconds at N·M
	// of some 10^7); run then reports the cancellation.
	for o := 0; o < m; o++ {
		if s.stop.Load() {
			return
		}
		xo := s.x[o*n : o*n+n]
		for i := range xo {
			xo[i] = 1 / cols
		}
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
	for o := 0; o < m && !s.stop.Load(); o++ {
		for i := 0; i < n; i++ {
			s.y[i] = max(s.y[i], -s.c[o*n+i]-gl[o*n+i])
		}
	}
	if s.sg != nil {
		// Column g(r) holds the representative r's values at g's rows.
		s.sg.OrbitMax(s.y)
	}
	for i := range s.y {
		s.y[i] += kappa
	}
	for o := 0; o < m && !s.stop.Load(); o++ {
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
		s.sg.OrbitMean(s.rp)
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

func countTrue(v []bool) int {
	k := 0
	for _, b := range v {
		if b {
			k++
		}
	}
	return k
}

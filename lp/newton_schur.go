package lp

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/optdp/optdp/lp/internal/kernel"
	"github.com/optdp/optdp/lp/ldl"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// schurPCG is the lazy row-sum Schur complement (docs/MATH.md §11.8).
//
// Every Newton system of the interior-point method reduces to
//
//	S dy = r,  S = sum_o H_o^{-1}  (n×n, dense),
//
// and the direct path assembles S column by column from the full inverses
// of the per-column factors (Takahashi's recurrence) and factors it by
// Cholesky. On 2-D grids the assembly costs about n² c/2 multiply-adds per
// column (c the mean column count of the sparse factor that Takahashi's
// recurrence reads), against 4·nnz(L)+3n for one solve with that column's
// factor: at n = 2500 (Manhattan 50×50) 2.4e7 against 1.5e5. S changes
// slowly from one iteration to the next, so an earlier iteration's
// Cholesky factor of S is a good preconditioner of conjugate gradients on
// the exact current S, whose product with a vector v is
//
//	S v = sum_o H_o^{-1} v  (one solve with each column's current factor).
//
// The products read each block's L rounded to single precision (ipm.l32,
// solve4F32), half the bytes of the stream that bounds them: CG runs on
// the symmetric positive definite S~ of those factors, S to within their
// rounding, and the difference shows only as a row-sum residual of the
// next iterate (docs/MATH.md §11.8).
//
// The interior-point iteration therefore factors the columns every time,
// but assembles and factors S only when conjugate gradients on the stale
// factor cost more than an assembly. Both costs are measured as they
// happen (the assembly is memory-bound, and at n = 2500 costs about 550 CG
// iterations, not the 176 that the flop counts say): a cycle is an
// assembly followed by lazy iterations, whose CG cost grows as the factor
// ages, and the next iteration assembles when the last lazy iteration's
// CG time exceeds the cycle's mean cost per iteration so far (the renewal
// rule that minimises the mean); a single solve whose CG time exceeds half
// an assembly stops, and S is assembled at once and the solve finished
// directly, as is the next solve of an iteration whose CG already cost an
// assembly. Before the first assembly, the preconditioner is the sparse
// sum_o H_o (m²(sum_o H_o)^{-1} <= S), while its CG costs less than half
// an assembly's estimate. The certificate does not depend on any of this: the Result is
// certified from the iterate (Repair, an exactly feasible dual), as with
// direct solves; inexact directions only cost iterations. Near the optimum
// (see nearOptimum) the row sums are refined with further CG solves, as
// the direct path refines them with its factor. The solves of one
// iteration share S, and each starts from the Galerkin solution in the
// span of the earlier ones' CG directions (keep). Since the assembled S
// serves only as the preconditioner, the sparse mode assembles it in
// single precision (single, addInverse32), and the iteration that
// assembles it solves by conjugate gradients too.
type schurPCG struct {
	s     *ipm
	on    bool    // lazy iterations are allowed
	ratio float64 // cost of an assembly over that of one CG iteration
	// cap is the CG iterations one solve may take; maxAge the lazy
	// iterations in a row at most; counted (tests) replaces the timing
	// rules by "always lazy, within cap".
	cap, maxAge int
	counted     bool
	tol         float64 // relative residual of the CG solves
	endgame     bool    // refine the row sums with CG too (nearOptimum)
	// loose: the current solve is a predictor's, solved to pcgLooseTol
	// before the end game (centrality correctors run only when S is
	// fresh, with direct solves).
	loose bool
	// warm: the iteration starts from another LP's iterate
	// (lp/ipm_warm.go), far along the central path, where the mean of
	// the H_o^{-1} preconditions poorly: assemble S at once.
	warm bool

	// single: S is assembled in single precision (addInverse32), half
	// the bytes and twice the vector lanes of the double-precision
	// recurrence, and is then only a preconditioner: the solves of the
	// iteration that assembled it go through conjugate gradients too,
	// which with a fresh factor take a few products (docs/MATH.md §11.8).
	// Off in the direct path, and for the rest of a solve once an S did
	// not fit single precision (factorSchur).
	single bool

	have  bool // s.chol holds a valid factor of some S
	fresh bool // ... of the current iteration's S
	age   int  // lazy iterations since the last assembly
	its   int  // CG iterations in the current interior-point iteration

	// Timing (seconds): the last assembly, the CG solves of the current
	// and of the previous interior-point iteration, all CG since the last
	// assembly; t0 is the start of the assembly under way.
	tAsm, tCG, tCGPrev, tCycle, tAll float64
	t0                               time.Time

	// Statistics: assemblies of S (singles of them in single precision),
	// lazy interior-point iterations, CG iterations in all.
	assemblies, singles, lazy, total int
	f32                              int // products that read L in single precision (apply)
	// failSingle (tests): take the next single-precision S as out of
	// range (factorSchur's fall back to double precision).
	failSingle bool

	b, x, r, z, p, q []float64
	u, u4            [][]float64 // per worker: n and 4n values (solve4)
	chunks           []float64   // apply's per-chunk sums
	dsum, wsum       []float64   // sum_o H_o: diagonal part, pair weights

	// Recycling (see keep): an S-orthonormal basis rp of the CG directions
	// of the current interior-point iteration's solves, rq = S rp, and the
	// buffers they use (pool, kept between iterations).
	rp, rq [][]float64
	pool   [][]float64
}

// Tuning of the lazy Schur complement (measured on Manhattan grids, see
// bench/README.md "Row-sum Schur complement at city scale" and "The lazy
// Schur path for the hot-spot prior"): it is used when an assembly costs
// more than pcgMinRatio CG iterations by the flop counts (Manhattan 40×40:
// 119, where it now saves a quarter of the time; 30×30: 75).
const (
	pcgMinRatio = 100
	// pcgTol is the relative residual of the other CG solves (the
	// corrector's, the refinement's) when the LP is solved to a Tol of
	// 1e-6 or tighter; looser Tols allow pcgTolFactor·Tol, up to
	// pcgTolMax (see corrTol). The residual is the error of the Newton
	// direction's row sums, which the certificate repairs (Repair): at
	// 1e-4 of the gap asked for it changes no certified figure, and the
	// Euclidean 40×40 spanner with the hot spots at Tol 1e-3 (both LPs)
	// took 117 iterations, 2640 CG and 617 CPU s at 1e-10, 119, 2275 and
	// 513 at 1e-7, but 144 iterations at 1e-5 (bench/README.md,
	// "Conjugate gradients to the gap asked for (session 11)").
	pcgTol       = 1e-10
	pcgTolFactor = 1e-4
	pcgTolMax    = 1e-7
	// pcgLooseTol is the relative residual of the predictor's solve
	// before the end game (Manhattan 40×40 hot spots: 2856, 2654 and 2496
	// CG iterations at 1e-6, 1e-4 and 1e-3, the same 42-43 iterations).
	pcgLooseTol = 1e-4
	// pcgSingleTol is the loosest CG tolerance (corrTol) at which the
	// products read L in single precision (solve4F32): S~ differs from S
	// by the rounding of L, about 1e-7 of it, within the tolerance of
	// solves to 1e-7 (Tol 1e-3 and looser) but not below it. Measured on
	// Manhattan 40×40 with the hot spots at Tol 1e-6 (CG to 1e-10), one
	// run each: 159.8 s, 41 iterations and 4007 CG with the copy against
	// 137.2 s, 46 and 3353 without; the 40×40 and 50×50 spanners at 1e-3
	// gain (bench/README.md, "The products' L in single precision
	// (session 16)").
	pcgSingleTol = 1e-7
	pcgMaxAge    = 8
	pcgMaxIts    = 2000
	// pcgRecycle is the most CG directions kept for the later solves of an
	// interior-point iteration (see keep).
	pcgRecycle = 128
	// pcgSolveFrac is the CG time of one solve, as a fraction of the last
	// assembly's, at which it stops and S is assembled.
	pcgSolveFrac = 0.5
	// pcgDirectGap is the relative gap of the iterate below which the row
	// sums are refined (see nearOptimum).
	pcgDirectGap = 1e-4
)

// newSchurPCG sets up the lazy Schur complement for s under the options:
// on when the estimated cost ratio of an assembly to a CG iteration is at
// least pcgMinRatio (or when a test forces it), off with DirectSchur.
func (s *ipm) newSchurPCG(o config) *schurPCG {
	p := &schurPCG{s: s, tol: corrTol(o.Tol), maxAge: pcgMaxAge}
	if s.pc != nil || s.sg != nil {
		// The symmetric mode's S~ is small (one row per orbit of rows),
		// and assembled from the representatives only: no lazy path.
		// Per-column pair sets (lp/percol.go): every column has its own
		// graph, which the cost model and the Σ_o H_o start below do not
		// cover; S is assembled at every iteration.
		return p
	}
	bw := 0
	if s.sym == nil {
		bw = s.rpairs.bandwidth()
	}
	p.ratio = pcgRatio(s.sym, bw, s.n, s.m)
	p.cap = pcgMaxIts
	p.on = lazyOn(o, p.ratio)
	if o.test.schurMode == 1 { // tests: lazy whenever possible
		p.counted = true
		p.cap, p.maxAge = 200, 1<<30
	}
	p.single = p.on && s.sym != nil && !o.test.schurDouble
	p.failSingle = o.test.schurSingleFail
	if p.on && s.f4Work != nil && s.l32 == nil && singleProducts(o) {
		// The blocks' L in single precision for the products
		// (solve4F32), kept across restarts; solveAs counted it
		// (l32Bytes).
		s.l32 = make([]float32, (cap(s.sf)+3)/4*4*s.sym.NNZ())
		s.l32ok = make([]bool, cap(s.sf))
	}
	if p.on {
		k := s.n
		p.b, p.x, p.r, p.z, p.p, p.q = make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k)
		p.u, p.u4 = make([][]float64, s.workers), make([][]float64, s.workers)
		for w := range s.workers {
			p.u[w], p.u4[w] = make([]float64, k), make([]float64, 4*k)
		}
	}
	return p
}

// pcgRatio is the cost of assembling and factoring S over that of one
// product S v by the flop counts, for m columns of n rows with the sparse
// structure sym (or, when sym is nil, the bandwidth bw): Takahashi's
// recurrence reads (c_j + 1)(n − j) values for column j of L of c_j
// entries, a solve 4·nnz(L) + 3n.
func pcgRatio(sym *ldl.Symbolic, bw, n, m int) float64 {
	fn, fm := float64(n), float64(m)
	var inv, sol float64
	if sym != nil {
		inv = sym.InverseReads()
		sol = 4*float64(sym.NNZ()) + 3*fn
	} else {
		b := float64(bw)
		inv, sol = fn*fn*b/2, 4*fn*b+3*fn
	}
	return (fm*inv + fn*fn*fn/3) / (fm*sol + 2*fn*fn)
}

// lazyOn reports whether a solve under o takes the lazy path at the cost
// ratio (pcgRatio): from pcgMinRatio, unless o.DirectSchur (tests: always
// with schurMode 1 or 2, never below 0).
func lazyOn(o config, ratio float64) bool {
	switch {
	case o.test.schurMode > 0:
		return true
	case o.test.schurMode < 0 || o.DirectSchur:
		return false
	}
	return ratio >= pcgMinRatio
}

// singleProducts reports whether the lazy path's products read L in
// single precision (ipm.l32) in a solve under o: when its CG solves stop
// at a relative residual of pcgSingleTol or looser (corrTol), not with
// o.test.schurDouble (tests).
func singleProducts(o config) bool {
	return !o.test.schurDouble && corrTol(o.Tol) >= pcgSingleTol
}

// l32Bytes is the memory of the single-precision copy of L (ipm.l32) for
// m columns with the sparse structure sym: 4 bytes per entry and column,
// by whole blocks of four, and a flag per column.
func l32Bytes(sym *ldl.Symbolic, m int) float64 {
	return 4*float64(4*((m+3)/4))*float64(sym.NNZ()) + float64(m)
}

// corrTol is the relative residual of the CG solves other than the
// predictor's for an LP solved to the relative gap tol:
// min(pcgTolMax, max(pcgTol, pcgTolFactor·tol)).
func corrTol(tol float64) float64 {
	return min(pcgTolMax, max(pcgTol, pcgTolFactor*tol))
}

// skipAssembly decides, at the start of an interior-point iteration's
// factorisation, whether it keeps the factor of an earlier S.
func (p *schurPCG) skipAssembly() bool {
	if p == nil || !p.on {
		return false
	}
	p.t0 = time.Now()
	if !p.have {
		// No factor of S yet: precondition with the arithmetic mean
		// while it costs less than (half) an assembly.
		lazy := p.counted || !p.warm && (p.its == 0 || p.tCG <= pcgSolveFrac*p.asmCost())
		p.its, p.tCGPrev, p.tCG = 0, p.tCG, 0
		if lazy {
			p.buildMean()
			p.fresh = false
			p.lazy++
		}
		return lazy
	}
	// The renewal rule: stay lazy while the last lazy iteration cost less
	// than the cycle's mean per iteration (assembly + CG so far over its
	// iterations).
	lazy := p.age < p.maxAge && (p.fresh || p.counted || p.tCG <= (p.tAsm+p.tCycle)/float64(p.age+1))
	p.its, p.tCGPrev, p.tCG = 0, p.tCG, 0
	if lazy {
		p.fresh = false
		p.age++
		p.lazy++
	}
	return lazy
}

// assembled records an assembly of the current S (its factorisation
// follows).
func (p *schurPCG) assembled() {
	if p == nil {
		return
	}
	p.assemblies++
	p.fresh, p.have, p.age = true, true, 0
}

// assemblyDone records the duration of the assembly started at p.t0.
func (p *schurPCG) assemblyDone() {
	if p != nil {
		p.tAsm, p.tCycle = time.Since(p.t0).Seconds(), 0
	}
}

// nearOptimum turns on the refinement of the row sums by further CG
// solves once the relative gap of the iterate is below pcgDirectGap: the
// last iterations, whose iterates are certified, need row sums exact to
// rounding, which the direct solve with iterative refinement gives and
// conjugate gradients to their tolerance alone do not (measured: a line of 60 rows
// stalls at a certified gap of 1.6e-7 without the refinement).
func (p *schurPCG) nearOptimum(gap float64) {
	if p != nil && gap <= pcgDirectGap {
		p.endgame = true
	}
}

// skipRefine reports whether the iterative refinement of the row sums is
// skipped: in lazy iterations before the end game, the CG residual is the
// refinement's residual, already at the CG tolerance.
func (p *schurPCG) skipRefine() bool { return p.stale() && !p.endgame }

// failed records that the factorisation of S failed: s.chol is unusable.
func (p *schurPCG) failed() {
	if p != nil {
		p.have = false
	}
}

// status is the lazy Schur complement's part of the progress message.
func (p *schurPCG) status() string {
	if p == nil || !p.on {
		return ""
	}
	state := "assembled"
	if p.single {
		state = "assembled in single precision"
	}
	if !p.fresh {
		state = fmt.Sprintf("lazy (age %d)", p.age)
	}
	return fmt.Sprintf(", S %s, cg %d (total %d, %d assemblies)", state, p.its, p.total, p.assemblies)
}

// stale reports whether solves with S go through conjugate gradients:
// s.chol factors an earlier iteration's S, or this iteration's assembled in
// single precision.
func (p *schurPCG) stale() bool { return p != nil && p.on && (!p.fresh || p.single) }

// aged reports whether s.chol factors an earlier iteration's S.
func (p *schurPCG) aged() bool { return p != nil && p.on && !p.fresh }

// schurSolve overwrites v with S^{-1} v: directly with the factor of the
// current S, or by conjugate gradients preconditioned with an earlier
// one; when these exceed their cap, S is assembled and factored now and
// the solve done directly. An ill-conditioned S is normal near the
// optimum; the mat.Condition warning of the direct solve is not an error
// here.
func (s *ipm) schurSolve(v []float64) {
	if p := s.pcg; p.stale() {
		// CG of this iteration already cost an assembly: assemble now
		// rather than solve again (measured on Manhattan 50×50: five
		// solves just under the per-solve limit cost two assemblies; with
		// half an assembly as the limit, 30×30 assembled too often).
		c := p.asmCost()
		spent := !p.counted && c > 0 && p.tCG > c
		if !spent && p.solve(v) {
			return
		}
		// Conjugate gradients slowed down: assemble the current S.
		p.t0 = time.Now()
		s.clearSchurAcc()
		s.parallel(func(o, w int) { s.addColumnInverse(o, w, s.schurAcc(w)) })
		err := s.factorSchur()
		p.assemblyDone()
		if err != nil {
			// Keep v (the right-hand side): the direction is poor, and the
			// next iteration's factorisation reports the error.
			return
		}
		if p.single && p.solve(v) {
			return // conjugate gradients with the fresh factor
		}
		// Else (or in double precision) the direct solve below; with a
		// single-precision S its row sums are only as accurate as S, an
		// error of the direction that the next iterations and Repair
		// remove, as they do the CG residual.
	}
	if sg := s.sg; sg != nil {
		// v is constant on the orbits of rows: solve S~ ṽ = Q^T v in the
		// orbit basis, ṽ_I = sqrt|I| v_I, and expand v_i = ṽ_I / sqrt|I|.
		t := make([]float64, sg.NOrb)
		for k, x := range v {
			t[sg.Orb[k]] += x / sg.SqrtSz[sg.Orb[k]]
		}
		tv := mat.NewVecDense(sg.NOrb, t)
		_ = s.chol.SolveVecTo(tv, tv)
		for k := range v {
			v[k] = t[sg.Orb[k]] / sg.SqrtSz[sg.Orb[k]]
		}
		return
	}
	cholSolve(&s.chol, v, s.workers)
}

// cholSolve overwrites v with S^{-1} v for the Cholesky factor c of S
// (S = UᵀU): Uᵀ w = v by rows of U (axpy), then U x = w by rows (dot),
// each a stream over the upper triangle. It is what mat.Cholesky.SolveVecTo
// computes, 11 times faster at n = 2500 (2.0 against 22 ms: gonum's
// Dtrsm is not made for one right-hand side; these row-oriented kernels
// stream U once per triangle). Past cholBlock rows they go by blocks of
// cholBlock: each block's triangle in order, and the rest of the rows'
// updates (forward) or dot products (backward), which are most of the
// stream, split among the workers; the backward pass's dot products are
// summed in two parts (the block's columns and the rest). The same bits
// for any number of workers.
func cholSolve(c *mat.Cholesky, v []float64, workers int) {
	u := c.RawU().(*mat.TriDense).RawTriangular()
	n, st, a := u.N, u.Stride, u.Data
	v = v[:n]
	if n <= cholBlock {
		for j := 0; j < n; j++ {
			row := a[j*st : j*st+n]
			w := v[j] / row[j]
			v[j] = w
			if w != 0 {
				floats.AddScaled(v[j+1:], -w, row[j+1:])
			}
		}
		for i := n - 1; i >= 0; i-- {
			row := a[i*st : i*st+n]
			v[i] = (v[i] - floats.Dot(row[i+1:], v[i+1:])) / row[i]
		}
		return
	}
	// split runs f on [lo, hi) cut into workers contiguous parts.
	split := func(lo, hi int, f func(lo, hi int)) {
		if workers <= 1 {
			f(lo, hi)
			return
		}
		var wg sync.WaitGroup
		for w := range workers {
			l, h := lo+(hi-lo)*w/workers, lo+(hi-lo)*(w+1)/workers
			if l < h {
				wg.Go(func() { f(l, h) })
			}
		}
		wg.Wait()
	}
	for b0 := 0; b0 < n; b0 += cholBlock {
		b1 := min(n, b0+cholBlock)
		for j := b0; j < b1; j++ {
			row := a[j*st : j*st+n]
			w := v[j] / row[j]
			v[j] = w
			if w != 0 {
				floats.AddScaled(v[j+1:b1], -w, row[j+1:b1])
			}
		}
		if b1 < n {
			split(b1, n, func(lo, hi int) {
				for j := b0; j < b1; j++ {
					if w := v[j]; w != 0 {
						floats.AddScaled(v[lo:hi], -w, a[j*st+lo:j*st+hi])
					}
				}
			})
		}
	}
	var far [cholBlock]float64
	for b1 := n; b1 > 0; b1 -= cholBlock {
		b0 := max(0, b1-cholBlock)
		if b1 < n {
			split(b0, b1, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					far[i-b0] = floats.Dot(a[i*st+b1:i*st+n], v[b1:])
				}
			})
		} else {
			clear(far[:])
		}
		for i := b1 - 1; i >= b0; i-- {
			row := a[i*st : i*st+n]
			v[i] = (v[i] - (floats.Dot(row[i+1:b1], v[i+1:b1]) + far[i-b0])) / row[i]
		}
	}
}

// cholBlock is the rows per block of cholSolve with several workers.
const cholBlock = 128

// residual has not fallen below tol within cap iterations.
func (p *schurPCG) solve(v []float64) bool {
	b, x, r, z, d, q := p.b, p.x, p.r, p.z, p.p, p.q
	start := time.Now()
	defer func() {
		t := time.Since(start).Seconds()
		p.tCG += t
		p.tCycle += t
		p.tAll += t
	}()
	tol := p.tol
	switch {
	case p.endgame:
		// The end game refines the row sums to rounding (nearOptimum),
		// whatever the gap asked for (corrTol).
		tol = pcgTol
	case p.loose:
		tol = max(tol, pcgLooseTol)
	}
	copy(b, v)
	bn := math.Sqrt(kernel.Dot(b, b))
	if bn == 0 {
		return true
	}
	clear(x)
	copy(r, b)
	if len(p.rp) > 0 {
		// Start from the Galerkin solution in the directions of this
		// iteration's earlier solves (same S), x = P Pᵀ b for the
		// S-orthonormal P, and its true residual b - S x (one product:
		// the residual b - (SP) Pᵀ b carries the rounding of the basis).
		for _, pk := range p.rp {
			kernel.Axpy(x, kernel.Dot(pk, b), pk)
		}
		p.apply(q, x)
		p.its++
		p.total++
		for i := range r {
			r[i] = b[i] - q[i]
		}
		if math.Sqrt(kernel.Dot(r, r)) >= bn {
			clear(x)
			copy(r, b)
		} else if math.Sqrt(kernel.Dot(r, r)) <= tol*bn {
			copy(v, x)
			return true
		}
	}
	p.precondition(z, r)
	copy(d, z)
	rz := kernel.Dot(r, z)
	for range p.cap {
		if c := p.asmCost(); !p.counted && c > 0 && time.Since(start).Seconds() > pcgSolveFrac*c {
			break
		}
		p.apply(q, d)
		p.its++
		p.total++
		dq := kernel.Dot(d, q)
		if !(dq > 0) || !(rz > 0) {
			break // S or the preconditioner lost definiteness to rounding
		}
		p.keep(d, q)
		a := rz / dq
		kernel.Axpy(x, a, d)
		kernel.Axpy(r, -a, q)
		if math.Sqrt(kernel.Dot(r, r)) <= tol*bn {
			copy(v, x)
			return true
		}
		p.precondition(z, r)
		rz1 := kernel.Dot(r, z)
		beta := rz1 / rz
		rz = rz1
		for i := range d {
			d[i] = z[i] + beta*d[i]
		}
	}
	return false
}

// keep adds the CG direction d, with q = S d, to the recycled basis: the
// later solves of the same interior-point iteration (the corrector after
// the predictor, the centrality correctors, the refinement) share S and
// start from the Galerkin solution in the span of the directions kept
// ("init-CG" Krylov recycling). d is made S-orthogonal to the basis by two
// passes of Gram–Schmidt (in the S inner product, with S P known) and
// S-normalised; a direction that the basis nearly spans is dropped.
func (p *schurPCG) keep(d, q []float64) {
	if len(p.rp) >= pcgRecycle {
		return
	}
	k := len(p.rp)
	if len(p.pool) < 2*(k+1) {
		p.pool = append(p.pool, make([]float64, len(d)), make([]float64, len(d)))
	}
	pd, pq := p.pool[2*k], p.pool[2*k+1]
	copy(pd, d)
	copy(pq, q)
	dq := kernel.Dot(d, q)
	for range 2 {
		for j, pj := range p.rp {
			c := kernel.Dot(p.rq[j], pd)
			kernel.Axpy(pd, -c, pj)
			kernel.Axpy(pq, -c, p.rq[j])
		}
	}
	nn := kernel.Dot(pd, pq)
	if !(nn > 1e-6*dq) {
		return
	}
	sc := 1 / math.Sqrt(nn)
	for i := range pd {
		pd[i] *= sc
		pq[i] *= sc
	}
	p.rp, p.rq = append(p.rp, pd), append(p.rq, pq)
}

// forget empties the recycled basis: the columns' factors, and with them
// S, have changed.
func (p *schurPCG) forget() {
	if p != nil {
		p.rp, p.rq = p.rp[:0], p.rq[:0]
	}
}

// buildMean sets the sparse sum_o H_o (up to the factor m², which CG does
// not see): its diagonal part and its pair weights.
func (p *schurPCG) buildMean() {
	s := p.s
	n, np := s.n, s.np
	if p.dsum == nil {
		p.dsum, p.wsum = make([]float64, n), make([]float64, np)
	}
	clear(p.dsum)
	clear(p.wsum)
	for o := 0; o < s.m; o++ {
		for i := 0; i < n; i++ {
			p.dsum[i] += s.zx[o*n+i] / s.x[o*n+i]
		}
		for k := 0; k < np; k++ {
			p.wsum[k] += s.lam[o*np+k] / s.s[o*np+k]
		}
	}
}

// asmCost is the measured time of the last assembly, or before the first
// its estimate from the flop ratio and the measured time of a CG
// iteration (an underestimate: the assembly is memory-bound); 0 when
// nothing is measured yet (no time limit).
func (p *schurPCG) asmCost() float64 {
	if p.tAsm > 0 || p.total == 0 {
		return p.tAsm
	}
	return p.ratio * p.tAll / float64(p.total)
}

// precondition sets z to an approximation of S^{-1} r: with the factor of
// an earlier S, or before there is one with the arithmetic mean of the H_o.
func (p *schurPCG) precondition(z, r []float64) {
	if !p.have {
		// m²(sum_o H_o)^{-1} <= S (operator convexity of the inverse): its
		// inverse (sum_o H_o)/m² is sparse.
		s := p.s
		for i, v := range r {
			z[i] = p.dsum[i] * v
		}
		for k, q := range s.p.Pairs {
			g := p.wsum[k] * (r[q.I] - q.W*r[q.H])
			z[q.I] += g
			z[q.H] -= q.W * g
		}
		return
	}
	copy(z, r)
	cholSolve(&p.s.chol, z, p.s.workers)
}

// apply sets dst to S v = sum_o H_o^{-1} v with the current per-column
// factors: for a block of four whose single-precision copy of L is
// current, with that copy (solve4F32), except in the end game, whose
// refinement needs S's row sums to rounding (nearOptimum). The columns are handed out in chunks of pcgChunk as workers
// become free (a worker slowed by the other's memory traffic, or by
// columns on the QR fallback, takes fewer), and each chunk's sum is kept
// apart and the chunks summed in order: the result does not depend on
// which worker took which chunk.
func (p *schurPCG) apply(dst, v []float64) {
	s := p.s
	n, m := s.n, s.m
	nc := (m + pcgChunk - 1) / pcgChunk
	if len(p.chunks) != nc*n {
		p.chunks = make([]float64, nc*n)
	}
	clear(p.chunks)
	if s.l32 != nil && !p.endgame {
		p.f32++
	}
	var next atomic.Int64
	work := func(w int) {
		u := p.u[w]
		for {
			c := int(next.Add(1)) - 1
			if c >= nc {
				return
			}
			acc := p.chunks[c*n : (c+1)*n]
			end := min(m, (c+1)*pcgChunk)
			for o := c * pcgChunk; o < end; {
				if f, ok := s.quad(o, end); ok {
					// Four columns at once (solve4), summed in order.
					r4 := p.u4[w]
					kernel.Bcast4(r4, v)
					single := !p.endgame && s.l32 != nil && s.l32ok[o] && s.l32ok[o+1] && s.l32ok[o+2] && s.l32ok[o+3]
					if single {
						nz4 := 4 * s.sym.NNZ()
						ldl.Solve4F32(&f, s.l32[o/4*nz4:(o/4+1)*nz4], r4)
					} else {
						ldl.Solve4(&f, r4)
					}
					kernel.Sum4(acc, r4)
					o += 4
					continue
				}
				copy(u, v)
				s.colSolve(o, w, u)
				kernel.Axpy(acc, 1, u)
				o++
			}
		}
	}
	if s.workers == 1 {
		work(0)
	} else {
		var wg sync.WaitGroup
		for w := range s.workers {
			wg.Go(func() { work(w) })
		}
		wg.Wait()
	}
	copy(dst, p.chunks[:n])
	for c := 1; c < nc; c++ {
		kernel.Axpy(dst, 1, p.chunks[c*n:(c+1)*n])
	}
}

// pcgChunk is the number of columns a worker takes at a time in apply.
const pcgChunk = 16

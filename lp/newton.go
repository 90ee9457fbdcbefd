package lp

import (
	"errors"
	"math"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/lp/internal/kernel"
	"github.com/optdp/optdp/lp/internal/mem"
	"github.com/optdp/optdp/lp/internal/percol"
	"github.com/optdp/optdp/lp/ldl"
)

// columnSystem is the per-column part of the Newton system: for every
// column o the matrix
//
//	H_o = diag(z_o/x_o) + G_oᵀ diag(λ_o/s_o) G_o
//
// (G_o the pairs of column o: the problem's, or the column's own in the
// per-column mode), factored at every iteration. The row sums couple the
// columns through the Schur complement S = sum_o H_o^{-1}, which
// factorSchur (direct), schur.Lazy (newton_schur.go, lazy) and the orbit
// reduction (newton_orbits.go) solve with; this interface is what they and
// the interior-point method call of the column factors. The variants:
//
//   - bandedColumns (newton_banded.go): the banded LDLᵀ, or QR, in the
//     reverse Cuthill–McKee order;
//   - sparseColumns (newton_sparse.go): the sparse LDLᵀ in a
//     fill-reducing order, four columns at a time, with the banded QR as
//     the fallback of a column whose pivots lost their digits;
//   - perColumnSystem (newton_percol.go): every column its own pairs,
//     order and factor (Generate with PerColumn).
//
// Worker w uses its own scratch: calls with different w may run
// concurrently, on different columns.
type columnSystem interface {
	// factor factors H_o from its diagonal diag and pair weights wt and,
	// unless acc is nil, adds H_o^{-1} to acc (the upper triangle of an
	// n×n accumulator, through ipm.addColumnInverse).
	factor(o, w int, diag, wt, acc []float64)
	// solve overwrites r with H_o^{-1} r with column o's current factor.
	solve(o, w int, r []float64)
	// addInverse adds H_o^{-1} to acc (the upper triangle of an n×n
	// accumulator in the solver's row order).
	addInverse(o, w int, acc []float64)
	// inverse sets the upper triangle of the n×n z to H_o^{-1} in the
	// row order it returns (perm[position] = row; nil: the solver's).
	inverse(o, w int, z []float64) (perm []int)
}

// colSolve overwrites r with H_o^{-1} r using column o's current factor.
func (s *ipm) colSolve(o, w int, r []float64) { s.cols.solve(o, w, r) }

// factorColumn factors column o's H_o from its diagonal and pair weights
// and, unless acc is nil, adds H_o^{-1} to acc (the upper triangle of an
// n×n accumulator).
func (s *ipm) factorColumn(o, w int, diag, wt, acc []float64) {
	s.cols.factor(o, w, diag, wt, acc)
}

// addColumnInverse adds H_o^{-1}, from column o's current factor, to acc
// (the upper triangle of an n×n accumulator): compressed to the orbits in
// the symmetric mode (addColumnInverseSym), in single precision for the
// lazy Schur complement's preconditioner (addColumnInverse32).
func (s *ipm) addColumnInverse(o, w int, acc []float64) {
	if s.sg != nil {
		s.addColumnInverseSym(o, w)
		return
	}
	if s.pcg != nil && s.pcg.Single {
		s.addColumnInverse32(o, w, acc)
		return
	}
	s.cols.addInverse(o, w, acc)
}

// solveColumns computes H_o^{-1} u_o for every column o, u_o filled by
// set and then handed to use (with the worker's index; u is the worker's
// scratch). The four columns of one block of factors (newIPM) go through
// ldl.Solve4 together, one pass over the block instead of four passes each
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

// factor builds and factors H_o = diag(zx/x) + G^T diag(lam/s) G for every
// column, assembles the Schur complement sum_o H_o^{-1} and factors it.
func (s *ipm) factor() error {
again:
	if s.sym != nil && s.fac == nil {
		s.allocBands()
	}
	// The lazy Schur complement (newton_schur.go, lp/internal/schur) may keep an earlier
	// iteration's factor of S and skip the assembly; its recycled CG
	// directions belong to the previous S.
	s.pcg.Forget()
	lazy := s.pcg.SkipAssembly()
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
		// The sparse mode: four columns of a block at once (ldl.Factor4).
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
	if s.stop.Load() {
		// Cancelled: the columns left are skipped, so the sums and the
		// factorisation of S would be of a partial assembly.
		return errStopped
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
	s.pcg.AssemblyDone()
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
		case s.pcg != nil && s.pcg.Single:
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

// errStopped is returned by the steps of an iteration that gave up because
// s.stop was set; ipm.run reports the context's error instead.
var errStopped = errors.New("lp: stopped (the solve's context was cancelled)")

// factorSchur sums the workers' accumulators into S and factors it by
// Cholesky, regularising slightly if rounding made it indefinite.
func (s *ipm) factorSchur() error {
	n := s.n
	raw := s.schur.RawSymmetric().Data
	if p := s.pcg; p != nil && p.Single {
		if s.sumSingle(raw) && !p.FailSingle && s.factorReg(raw, n) {
			p.Assembled()
			p.Singles++
			return nil
		}
		// Single precision did not hold this S (an entry out of range, or
		// not positive definite even regularised): assemble it again in
		// double precision, as every later assembly of this solve.
		p.Single = false
		s.clearSchurAcc()
		s.parallel(func(o, w int) { s.addColumnInverse(o, w, s.schurAcc(w)) })
	}
	s.pcg.Assembled()
	if s.sg != nil {
		n = s.sg.NOrb
		for w := 1; w < s.workers; w++ {
			kernel.Axpy(s.accO[0], 1, s.accO[w])
			kernel.Axpy(s.accD[0], 1, s.accD[w])
		}
		s.sg.Reduced(raw, s.accO[0], s.accD[0])
	} else {
		for w := 1; w < s.workers; w++ {
			for k, v := range s.accS[w] {
				raw[k] += v
			}
		}
		if s.pc != nil {
			percol.FoldUpper(raw, n) // the per-column factors add by rows
		}
	}
	if s.factorReg(raw, n) {
		return nil
	}
	if s.stop.Load() {
		return errStopped
	}
	s.pcg.Failed()
	return errors.New("lp: Schur complement is not positive definite")
}

// factorReg factors S (raw its data, n its order) by Cholesky
// (backend.CholeskyStop, which gives up between panels once s.stop is set),
// adding reg·max_i S_ii to the diagonal, reg = 1e-14, 1e-12, ..., 1e-6, if
// rounding made it indefinite; false when none of these is positive
// definite, or when the solve was stopped.
func (s *ipm) factorReg(raw []float64, n int) bool {
	if backend.CholeskyStop(&s.chol, s.schur, &s.stop) {
		return true
	}
	if s.stop.Load() {
		return false
	}
	var dmax float64
	for i := 0; i < n; i++ {
		dmax = max(dmax, raw[i*n+i])
	}
	for reg := 1e-14; reg < 1e-4; reg *= 100 {
		for i := 0; i < n; i++ {
			raw[i*n+i] += reg * dmax
		}
		if backend.CholeskyStop(&s.chol, s.schur, &s.stop) {
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
		kernel.Axpy(s.accV[w], s.colWeight(o), u)
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
		s.sg.OrbitMean(d.y)
	}
	kernel.Axpy(d.y, 1, rp)
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
	if s.pcg.SkipRefine() {
		// Conjugate gradients solved with S to their own tolerance on the
		// exact operator (newton_schur.go, lp/internal/schur): e is their residual.
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
			s.sg.OrbitMean(e)
		}
		kernel.Axpy(e, 1, rp)
		// Stop once the residual is at the rounding level of its own
		// sum: another round cannot improve it, and costs m solves.
		if maxAbs(e) <= 4*float64(s.m)*0x1p-52*scale {
			return
		}
		s.schurSolve(e)
		kernel.Axpy(d.y, 1, e)
		s.solveColumns(func(_ int, u []float64) {
			copy(u, e)
		}, func(o, _ int, u []float64) {
			kernel.Axpy(d.x[o*n:o*n+n], -1, u)
		})
	}
}

package lp

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/optdp/optdp/lp/internal/kernel"
	"github.com/optdp/optdp/lp/internal/percol"
	"github.com/optdp/optdp/lp/internal/schur"
	"github.com/optdp/optdp/lp/ldl"
)

// newSchurPCG sets up the lazy Schur complement for s under the options:
// on when the estimated cost ratio of an assembly to a CG iteration is at
// least schur.MinRatio (or when a test forces it), off with DirectSchur.
func (s *ipm) newSchurPCG(o config) *schur.Lazy {
	p := &schur.Lazy{Tol: schur.CorrTol(o.Tol), MaxAge: schur.DefaultMaxAge}
	p.Op = schurOperator{s, p}
	if s.sg != nil {
		// The symmetric mode's S~ is small (one row per orbit of rows),
		// and assembled from the representatives only: no lazy path.
		return p
	}
	switch {
	case s.pc != nil:
		p.Ratio = perColumnRatio(s.pc, s.n)
	case s.sym == nil:
		p.Ratio = pcgRatio(nil, s.rpairs.bandwidth(), s.n, s.m)
	default:
		p.Ratio = pcgRatio(s.sym, 0, s.n, s.m)
	}
	p.Cap = schur.MaxIts
	p.On = lazyOn(o, p.Ratio)
	if o.test.schurMode == 1 { // tests: lazy whenever possible
		p.Counted = true
		p.Cap, p.MaxAge = 200, 1<<30
	}
	p.Single = p.On && s.sym != nil && !o.test.schurDouble
	p.FailSingle = o.test.schurSingleFail
	if p.On && s.f4Work != nil && s.l32 == nil && singleProducts(o) {
		// The blocks' L in single precision for the products
		// (solve4F32), kept across restarts; solveAs counted it
		// (l32Bytes).
		s.l32 = make([]float32, (cap(s.sf)+3)/4*4*s.sym.NNZ())
		s.l32ok = make([]bool, cap(s.sf))
	}
	if p.On {
		k := s.n
		p.B, p.X, p.R, p.Z, p.P, p.Q = make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k)
		p.U, p.U4 = make([][]float64, s.workers), make([][]float64, s.workers)
		for w := range s.workers {
			p.U[w], p.U4[w] = make([]float64, k), make([]float64, 4*k)
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

// perColumnRatio is pcgRatio for per-column pairs (newton_percol.go):
// every column's Takahashi reads and solve by its own symbolic factor,
// the scatter of its n²/2 inverse entries counted as reads.
func perColumnRatio(pc *percol.Factors, n int) float64 {
	fn := float64(n)
	var asm, sol float64
	for o := range pc.Cols {
		asm += pc.Cols[o].LDL.Sym.InverseReads() + fn*fn/2
		sol += pc.SolveReads(o)
	}
	return (asm + fn*fn*fn/3) / (sol + 2*fn*fn)
}

// lazyOn reports whether a solve under o takes the lazy path at the cost
// ratio (pcgRatio): from schur.MinRatio, unless o.DirectSchur (tests: always
// with schurMode 1 or 2, never below 0).
func lazyOn(o config, ratio float64) bool {
	switch {
	case o.test.schurMode > 0:
		return true
	case o.test.schurMode < 0 || o.DirectSchur:
		return false
	}
	return ratio >= schur.MinRatio
}

// singleProducts reports whether the lazy path's products read L in
// single precision (ipm.l32) in a solve under o: when its CG solves stop
// at a relative residual of schur.SingleTol or looser (schur.CorrTol), not with
// o.test.schurDouble (tests).
func singleProducts(o config) bool {
	return !o.test.schurDouble && schur.CorrTol(o.Tol) >= schur.SingleTol
}

// l32Bytes is the memory of the single-precision copy of L (ipm.l32) for
// m columns with the sparse structure sym: 4 bytes per entry and column,
// by whole blocks of four, and a flag per column.
func l32Bytes(sym *ldl.Symbolic, m int) float64 {
	return 4*float64(4*((m+3)/4))*float64(sym.NNZ()) + float64(m)
}

// schurSolve overwrites v with S^{-1} v: directly with the factor of the
// current S, or by conjugate gradients preconditioned with an earlier
// one; when these exceed their cap, S is assembled and factored now and
// the solve done directly. An ill-conditioned S is normal near the
// optimum; the mat.Condition warning of the direct solve is not an error
// here.
func (s *ipm) schurSolve(v []float64) {
	if p := s.pcg; p.Stale() {
		// CG of this iteration already cost an assembly: assemble now
		// rather than solve again (measured on Manhattan 50×50: five
		// solves just under the per-solve limit cost two assemblies; with
		// half an assembly as the limit, 30×30 assembled too often).
		c := p.AsmCost()
		spent := !p.Counted && c > 0 && p.TCG > c
		if !spent && p.Solve(v) {
			return
		}
		// Conjugate gradients slowed down: assemble the current S.
		p.T0 = time.Now()
		s.clearSchurAcc()
		s.parallel(func(o, w int) { s.addColumnInverse(o, w, s.schurAcc(w)) })
		err := s.factorSchur()
		p.AssemblyDone()
		if err != nil {
			// Keep v (the right-hand side): the direction is poor, and the
			// next iteration's factorisation reports the error.
			return
		}
		if p.Single && p.Solve(v) {
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
		schur.CholSolve(&s.chol, t, s.workers)
		for k := range v {
			v[k] = t[sg.Orb[k]] / sg.SqrtSz[sg.Orb[k]]
		}
		return
	}
	schur.CholSolve(&s.chol, v, s.workers)
}

// schurOperator is the solver's side of the lazy Schur complement p
// (schur.Operator): the products with S, the preconditioner and the sparse
// mean of the H_o, all from s's current iterate and column factors.
type schurOperator struct {
	s *ipm
	p *schur.Lazy
}

// BuildMean sets the sparse sum_o H_o (up to the factor m², which CG does
// not see): its diagonal part and its pair weights.
func (op schurOperator) BuildMean() {
	s, p := op.s, op.p
	n, np := s.n, s.np
	if s.pc != nil {
		// Every column's pairs are its own: the weights are summed over
		// the union of the columns' pairs.
		np = len(s.pc.Union)
	}
	if p.DSum == nil {
		p.DSum, p.WSum = make([]float64, n), make([]float64, np)
	}
	clear(p.DSum)
	clear(p.WSum)
	for o := 0; o < s.m; o++ {
		for i := 0; i < n; i++ {
			p.DSum[i] += s.zx[o*n+i] / s.x[o*n+i]
		}
	}
	if s.pc != nil {
		for t, u := range s.pc.UIdx {
			p.WSum[u] += s.lam[t] / s.s[t]
		}
		return
	}
	for o := 0; o < s.m; o++ {
		for k := 0; k < np; k++ {
			p.WSum[k] += s.lam[o*np+k] / s.s[o*np+k]
		}
	}
}

// Precondition sets z to an approximation of S^{-1} r: with the factor of
// an earlier S, or before there is one with the arithmetic mean of the H_o.
func (op schurOperator) Precondition(z, r []float64) {
	p := op.p
	if !p.Have {
		// m²(sum_o H_o)^{-1} <= S (operator convexity of the inverse): its
		// inverse (sum_o H_o)/m² is sparse.
		s := op.s
		for i, v := range r {
			z[i] = p.DSum[i] * v
		}
		pairs := s.p.Pairs
		if s.pc != nil {
			pairs = s.pc.Union
		}
		for k, q := range pairs {
			g := p.WSum[k] * (r[q.I] - q.W*r[q.H])
			z[q.I] += g
			z[q.H] -= q.W * g
		}
		return
	}
	copy(z, r)
	schur.CholSolve(&op.s.chol, z, op.s.workers)
}

// Apply sets dst to S v = sum_o H_o^{-1} v with the current per-column
// factors: for a block of four whose single-precision copy of L is
// current, with that copy (solve4F32), except in the end game, whose
// refinement needs S's row sums to rounding (nearOptimum). The columns are handed out in chunks of pcgChunk as workers
// become free (a worker slowed by the other's memory traffic, or by
// columns on the QR fallback, takes fewer), and each chunk's sum is kept
// apart and the chunks summed in order: the result does not depend on
// which worker took which chunk.
func (op schurOperator) Apply(dst, v []float64) {
	s, p := op.s, op.p
	n, m := s.n, s.m
	nc := (m + pcgChunk - 1) / pcgChunk
	if len(p.Chunks) != nc*n {
		p.Chunks = make([]float64, nc*n)
	}
	clear(p.Chunks)
	if s.l32 != nil && !p.Endgame {
		p.F32++
	}
	var next atomic.Int64
	work := func(w int) {
		u := p.U[w]
		for {
			c := int(next.Add(1)) - 1
			if c >= nc {
				return
			}
			acc := p.Chunks[c*n : (c+1)*n]
			end := min(m, (c+1)*pcgChunk)
			for o := c * pcgChunk; o < end; {
				if f, ok := s.quad(o, end); ok {
					// Four columns at once (ldl.Solve4), summed in order.
					r4 := p.U4[w]
					kernel.Bcast4(r4, v)
					single := !p.Endgame && s.l32 != nil && s.l32ok[o] && s.l32ok[o+1] && s.l32ok[o+2] && s.l32ok[o+3]
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
	copy(dst, p.Chunks[:n])
	for c := 1; c < nc; c++ {
		kernel.Axpy(dst, 1, p.Chunks[c*n:(c+1)*n])
	}
}

// pcgChunk is the number of columns a worker takes at a time in apply.
const pcgChunk = 16

// Package schur holds the lazy row-sum Schur complement of lp's
// interior-point method (docs/MATH.md §11.8): the solves S dy = r with
// S = sum_o H_o^{-1} by conjugate gradients on the exact S, preconditioned
// by the Cholesky factor of an earlier iteration's S (or, before there is
// one, by the sparse mean of the H_o), with the rules that decide when S is
// assembled afresh (Lazy), and the dense triangular solves with a factor
// of S (CholSolve).
package schur

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/optdp/optdp/lp/internal/kernel"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Operator is what Lazy needs of the solver.
type Operator interface {
	// Apply sets dst = S v with the current per-column factors.
	Apply(dst, v []float64)
	// Precondition sets z to an approximation of S^{-1} r.
	Precondition(z, r []float64)
	// BuildMean sets Lazy.DSum and Lazy.WSum to the sparse sum_o H_o (its
	// diagonal part and its pair weights), the preconditioner before
	// there is a factor of S.
	BuildMean()
}

// Lazy is the lazy row-sum Schur complement (docs/MATH.md §11.8).
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
// (see NearOptimum) the row sums are refined with further CG solves, as
// the direct path refines them with its factor. The solves of one
// iteration share S, and each starts from the Galerkin solution in the
// span of the earlier ones' CG directions (keep). Since the assembled S
// serves only as the preconditioner, the sparse mode assembles it in
// single precision (Single; ldl.LDL.AddInverse32), and the iteration that
// assembles it solves by conjugate gradients too.
type Lazy struct {
	// Op is the solver: the products S v, the preconditioner and the
	// sparse mean of the H_o.
	Op    Operator
	On    bool    // lazy iterations are allowed
	Ratio float64 // cost of an assembly over that of one CG iteration
	// Cap is the CG iterations one solve may take; MaxAge the lazy
	// iterations in a row at most; Counted (tests) replaces the timing
	// rules by "always lazy, within cap".
	Cap, MaxAge int
	Counted     bool
	Tol         float64 // relative residual of the CG solves
	Endgame     bool    // refine the row sums with CG too (NearOptimum)
	// Loose: the current solve is a predictor's, solved to LooseTol
	// before the end game (centrality correctors run only when S is
	// fresh, with direct solves).
	Loose bool
	// Warm: the iteration starts from another LP's iterate
	// (lp's warm start), far along the central path, where the mean of
	// the H_o^{-1} preconditions poorly: assemble S at once.
	Warm bool

	// Single: S is assembled in single precision (ldl.LDL.AddInverse32), half
	// the bytes and twice the vector lanes of the double-precision
	// recurrence, and is then only a preconditioner: the solves of the
	// iteration that assembled it go through conjugate gradients too,
	// which with a fresh factor take a few products (docs/MATH.md §11.8).
	// Off in the direct path, and for the rest of a solve once an S did
	// not fit single precision (lp's factorSchur).
	Single bool

	Have  bool // the solver's factor of S (Operator.Precondition) is valid for some S
	Fresh bool // ... of the current iteration's S
	Age   int  // lazy iterations since the last assembly
	Its   int  // CG iterations in the current interior-point iteration

	// Timing (seconds): the last assembly, the CG solves of the current
	// and of the previous interior-point iteration, all CG since the last
	// assembly; T0 is the start of the assembly under way.
	TAsm, TCG, TCGPrev, TCycle, TAll float64
	T0                               time.Time

	// Statistics: assemblies of S (singles of them in single precision),
	// lazy interior-point iterations, CG iterations in all.
	Assemblies, Singles, Lazy, Total int
	F32                              int // products that read L in single precision (apply)
	// FailSingle (tests): take the next single-precision S as out of
	// range (lp's factorSchur falls back to double precision).
	FailSingle bool

	B, X, R, Z, P, Q []float64
	U, U4            [][]float64 // per worker: n and 4n values (solve4)
	Chunks           []float64   // apply's per-chunk sums
	DSum, WSum       []float64   // sum_o H_o: diagonal part, pair weights

	// Recycling (see keep): an S-orthonormal basis rp of the CG directions
	// of the current interior-point iteration's solves, rq = S rp, and the
	// buffers they use (pool, kept between iterations).
	rp, rq [][]float64
	pool   [][]float64
}

// Tuning of the lazy Schur complement, measured by BenchmarkLPManhattan,
// BenchmarkLPManhattanCity and BenchmarkLPEuclidSpannerCity (bench/).
const (
	// MinRatio is the cost ratio (an assembly of S over one CG iteration,
	// by the flop counts) from which the lazy path is used (Manhattan
	// 40×40: 119; 30×30: 75).
	MinRatio = 100
	// CGTol is the relative residual of the CG solves other than the
	// predictor's when the LP is solved to a Tol of 1e-6 or tighter;
	// looser Tols allow TolFactor·Tol, up to TolMax (CorrTol). The
	// residual is the error of the Newton direction's row sums, which the
	// certificate repairs (Repair): at 1e-4 of the gap asked for it
	// changes no certified figure, and tighter residuals cost CG
	// iterations, looser ones interior-point iterations.
	CGTol     = 1e-10
	TolFactor = 1e-4
	TolMax    = 1e-7
	// LooseTol is the relative residual of the predictor's solve before
	// the end game: looser predictors took fewer CG iterations for the
	// same interior-point iterations.
	LooseTol = 1e-4
	// SingleTol is the loosest CG tolerance (CorrTol) at which the
	// products read L in single precision (ldl.Solve4F32): S~ differs
	// from S by the rounding of L, about 1e-7 of it, within the tolerance
	// of solves to 1e-7 (Tol 1e-3 and looser) but not below it.
	SingleTol = 1e-7
	// DefaultMaxAge is the most lazy iterations in a row, MaxIts the CG
	// iterations one solve may take.
	DefaultMaxAge = 8
	MaxIts        = 2000
	// Recycle is the most CG directions kept for the later solves of an
	// interior-point iteration (see keep).
	Recycle = 128
	// SolveFrac is the CG time of one solve, as a fraction of the last
	// assembly's, at which it stops and S is assembled.
	SolveFrac = 0.5
	// DirectGap is the relative gap of the iterate below which the row
	// sums are refined (see NearOptimum).
	DirectGap = 1e-4
)

// CorrTol is the relative residual of the CG solves other than the
// predictor's for an LP solved to the relative gap tol:
// min(TolMax, max(CGTol, TolFactor·tol)).
func CorrTol(tol float64) float64 {
	return min(TolMax, max(CGTol, TolFactor*tol))
}

// SkipAssembly decides, at the start of an interior-point iteration's
// factorisation, whether it keeps the factor of an earlier S.
func (p *Lazy) SkipAssembly() bool {
	if p == nil || !p.On {
		return false
	}
	p.T0 = time.Now()
	if !p.Have {
		// No factor of S yet: precondition with the arithmetic mean
		// while it costs less than (half) an assembly.
		lazy := p.Counted || !p.Warm && (p.Its == 0 || p.TCG <= SolveFrac*p.AsmCost())
		p.Its, p.TCGPrev, p.TCG = 0, p.TCG, 0
		if lazy {
			p.Op.BuildMean()
			p.Fresh = false
			p.Lazy++
		}
		return lazy
	}
	// The renewal rule: stay lazy while the last lazy iteration cost less
	// than the cycle's mean per iteration (assembly + CG so far over its
	// iterations).
	lazy := p.Age < p.MaxAge && (p.Fresh || p.Counted || p.TCG <= (p.TAsm+p.TCycle)/float64(p.Age+1))
	p.Its, p.TCGPrev, p.TCG = 0, p.TCG, 0
	if lazy {
		p.Fresh = false
		p.Age++
		p.Lazy++
	}
	return lazy
}

// Assembled records an assembly of the current S (its factorisation
// follows).
func (p *Lazy) Assembled() {
	if p == nil {
		return
	}
	p.Assemblies++
	p.Fresh, p.Have, p.Age = true, true, 0
}

// AssemblyDone records the duration of the assembly started at p.T0.
func (p *Lazy) AssemblyDone() {
	if p != nil {
		p.TAsm, p.TCycle = time.Since(p.T0).Seconds(), 0
	}
}

// NearOptimum turns on the refinement of the row sums by further CG
// solves once the relative gap of the iterate is below DirectGap: the
// last iterations, whose iterates are certified, need row sums exact to
// rounding, which the direct solve with iterative refinement gives and
// conjugate gradients to their tolerance alone do not (measured: a line of 60 rows
// stalls at a certified gap of 1.6e-7 without the refinement).
func (p *Lazy) NearOptimum(gap float64) {
	if p != nil && gap <= DirectGap {
		p.Endgame = true
	}
}

// SkipRefine reports whether the iterative refinement of the row sums is
// skipped: in lazy iterations before the end game, the CG residual is the
// refinement's residual, already at the CG tolerance.
func (p *Lazy) SkipRefine() bool { return p.Stale() && !p.Endgame }

// Failed records that the factorisation of S failed: s.chol is unusable.
func (p *Lazy) Failed() {
	if p != nil {
		p.Have = false
	}
}

// Status is the lazy Schur complement's part of the progress message.
func (p *Lazy) Status() string {
	if p == nil || !p.On {
		return ""
	}
	state := "assembled"
	if p.Single {
		state = "assembled in single precision"
	}
	if !p.Fresh {
		state = fmt.Sprintf("lazy (age %d)", p.Age)
	}
	return fmt.Sprintf(", S %s, cg %d (total %d, %d assemblies)", state, p.Its, p.Total, p.Assemblies)
}

// Stale reports whether solves with S go through conjugate gradients:
// s.chol factors an earlier iteration's S, or this iteration's assembled in
// single precision.
func (p *Lazy) Stale() bool { return p != nil && p.On && (!p.Fresh || p.Single) }

// Aged reports whether s.chol factors an earlier iteration's S.
func (p *Lazy) Aged() bool { return p != nil && p.On && !p.Fresh }

// CholSolve overwrites v with S^{-1} v for the upper Cholesky factor u of S
// (S = UᵀU, as backend.CholeskyStop leaves it): Uᵀ w = v by rows of U (axpy), then U x = w by rows (dot),
// each a stream over the upper triangle. It is what mat.Cholesky.SolveVecTo
// computes, 11 times faster at n = 2500 (2.0 against 22 ms: gonum's
// Dtrsm is not made for one right-hand side; these row-oriented kernels
// stream U once per triangle). Past cholBlock rows they go by blocks of
// cholBlock: each block's triangle in order, and the rest of the rows'
// updates (forward) or dot products (backward), which are most of the
// stream, split among the workers; the backward pass's dot products are
// summed in two parts (the block's columns and the rest). The same bits
// for any number of workers.
func CholSolve(c *mat.TriDense, v []float64, workers int) {
	u := c.RawTriangular()
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

// cholBlock is the rows per block of CholSolve with several workers.
const cholBlock = 128

// Solve overwrites v with S^{-1} v by conjugate gradients preconditioned
// by Op.Precondition, the products by Op.Apply, started from the Galerkin
// solution in the recycled directions (keep). It returns false, v
// unchanged, when the relative residual has not fallen below the tolerance
// (Tol, CGTol in the end game, LooseTol for a loose solve) within Cap
// iterations or half an assembly's time.
func (p *Lazy) Solve(v []float64) bool {
	b, x, r, z, d, q := p.B, p.X, p.R, p.Z, p.P, p.Q
	start := time.Now()
	defer func() {
		t := time.Since(start).Seconds()
		p.TCG += t
		p.TCycle += t
		p.TAll += t
	}()
	tol := p.Tol
	switch {
	case p.Endgame:
		// The end game refines the row sums to rounding (NearOptimum),
		// whatever the gap asked for (CorrTol).
		tol = CGTol
	case p.Loose:
		tol = max(tol, LooseTol)
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
		p.Op.Apply(q, x)
		p.Its++
		p.Total++
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
	p.Op.Precondition(z, r)
	copy(d, z)
	rz := kernel.Dot(r, z)
	for range p.Cap {
		if c := p.AsmCost(); !p.Counted && c > 0 && time.Since(start).Seconds() > SolveFrac*c {
			break
		}
		p.Op.Apply(q, d)
		p.Its++
		p.Total++
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
		p.Op.Precondition(z, r)
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
func (p *Lazy) keep(d, q []float64) {
	if len(p.rp) >= Recycle {
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

// Forget empties the recycled basis: the columns' factors, and with them
// S, have changed.
func (p *Lazy) Forget() {
	if p != nil {
		p.rp, p.rq = p.rp[:0], p.rq[:0]
	}
}

// AsmCost is the measured time of the last assembly, or before the first
// its estimate from the flop ratio and the measured time of a CG
// iteration (an underestimate: the assembly is memory-bound); 0 when
// nothing is measured yet (no time limit).
func (p *Lazy) AsmCost() float64 {
	if p.TAsm > 0 || p.Total == 0 {
		return p.TAsm
	}
	return p.Ratio * p.TAll / float64(p.Total)
}

// Basis returns the recycled directions of the current interior-point
// iteration: the S-orthonormal P (rp) and S P (rq), column by column.
func (p *Lazy) Basis() (rp, rq [][]float64) { return p.rp, p.rq }

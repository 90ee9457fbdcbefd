package lp

import "github.com/optdp/optdp/lp/internal/kernel"

// vecChunk is the number of entries of the iterate's long vectors (x, zx:
// n·m entries; s, lam: one per pair and column) that a worker takes at a
// time in the elementwise passes of the interior-point iteration (steps,
// complementarity, right-hand sides, updates). At 50×50 these vectors
// hold 6.25 and 24.5 million entries, and done by one goroutine their
// passes kept the other core idle for about a tenth of the run.
const vecChunk = 1 << 15

// each runs f(lo, hi) on the chunks [lo, hi) of [0, k), vecChunk entries
// each, handed out to the workers as they come free (parallel, in
// lp/percol_elim.go).
func (s *ipm) each(k int, f func(lo, hi int)) {
	nc := (k + vecChunk - 1) / vecChunk
	parallel(nc, s.workers, func(c int) { f(c*vecChunk, min((c+1)*vecChunk, k)) })
}

// sum returns the sum over the chunks of [0, k) of f(lo, hi), added in the
// chunks' order: the same to the bit for any number of workers.
func (s *ipm) sum(k int, f func(lo, hi int) float64) float64 {
	part := make([]float64, (k+vecChunk-1)/vecChunk)
	s.each(k, func(lo, hi int) { part[lo/vecChunk] = f(lo, hi) })
	var t float64
	for _, v := range part {
		t += v
	}
	return t
}

// stepTo is kernel.MaxStep(v, dv, 1) over the chunks of v: the largest alpha in
// (0, 1] keeping v + alpha·dv >= 0.
func (s *ipm) stepTo(v, dv []float64) float64 {
	part := make([]float64, (len(v)+vecChunk-1)/vecChunk)
	s.each(len(v), func(lo, hi int) { part[lo/vecChunk] = kernel.MaxStep(v[lo:hi], dv[lo:hi], 1) })
	alpha := 1.0
	for _, a := range part {
		alpha = min(alpha, a)
	}
	return alpha
}

// axpy sets dst += a·x by chunks.
func (s *ipm) axpy(dst []float64, a float64, x []float64) {
	s.each(len(x), func(lo, hi int) { kernel.Axpy(dst[lo:hi], a, x[lo:hi]) })
}

// stepPositive sets v = max(v + a·dv, 1e-300) by chunks: the step of an
// iterate that must stay positive, in one pass.
func (s *ipm) stepPositive(v []float64, a float64, dv []float64) {
	s.each(len(v), func(lo, hi int) {
		v, dv := v[lo:hi], dv[lo:hi]
		for k, d := range dv {
			v[k] = max(v[k]+a*d, 1e-300)
		}
	})
}

// add sets d += a·e by chunks.
func (s *ipm) add(d, e *newton, a float64) {
	s.axpy(d.x, a, e.x)
	s.axpy(d.zx, a, e.zx)
	s.axpy(d.s, a, e.s)
	s.axpy(d.lam, a, e.lam)
	kernel.Axpy(d.y, a, e.y)
}

package backend

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// errStopped is tql's answer when stop was set; the caller returns the
// context's error instead.
var errStopped = errors.New("backend: stopped")

// tql computes the eigenvalues of the symmetric tridiagonal matrix with
// diagonal d and subdiagonal e[:n-1] (e[n-1] = 0) by the implicit QL method
// with Wilkinson's shift (tql2 of Bowdler, Martin, Reinsch and Wilkinson,
// Numer. Math. 11, 1968; the 0-based form of Numerical Recipes' tqli). The
// eigenvalues overwrite d, unsorted, and e is destroyed. Every plane
// rotation G acting on components i, i+1 is applied to rows i, i+1 of the
// n×n row-major w, stride ld (w ← Gᵀ w); starting from the identity, row j
// of w ends as the eigenvector of d[j]. An off-diagonal e_m is negligible
// when e_m² <= u²·|d_m|·|d_{m+1}| (u = 2⁻⁵³, LAPACK's dsteqr test) or |e_m|
// <= 2⁻⁹⁶⁰, far under any entry of a matrix scaled as EigenSymContext
// scales it. stop is read before each sweep; more than 30·n sweeps in all
// is ErrNotConverged.
func tql(d, e, w []float64, n, ld int, stop *atomic.Bool) error {
	const tiny = 0x1p-960
	rot := &rotations{w: w, n: n, ld: ld}
	sweeps, maxSweeps := 0, 30*n
	for l := 0; l < n; l++ {
		for {
			m := l
			for ; m < n-1; m++ {
				em := math.Abs(e[m])
				if em*em <= 0x1p-106*math.Abs(d[m])*math.Abs(d[m+1]) || em <= tiny {
					break
				}
			}
			if m == l {
				break
			}
			if stop.Load() {
				return errStopped
			}
			if sweeps++; sweeps > maxSweeps {
				return fmt.Errorf("tridiagonal QL: %d sweeps: %w", maxSweeps, ErrNotConverged)
			}
			// Wilkinson's shift from the leading 2×2 block, then one
			// bulge chase from the bottom (m) to the top (l).
			g := (d[l+1] - d[l]) / (2 * e[l])
			r := math.Hypot(g, 1)
			g = d[m] - d[l] + e[l]/(g+math.Copysign(r, g))
			s, c, p := 1.0, 1.0, 0.0
			i := m - 1
			deflated := false
			for ; i >= l; i-- {
				f, b := s*e[i], c*e[i]
				r = math.Hypot(f, g)
				e[i+1] = r
				if r == 0 {
					// Underflow: the matrix splits at i+1.
					d[i+1] -= p
					e[m] = 0
					deflated = true
					break
				}
				s, c = f/r, g/r
				g = d[i+1] - p
				r = (d[i]-g)*s + 2*c*b
				p = s * r
				d[i+1] = g + p
				g = c*r - b
				rot.add(i, c, s)
			}
			if deflated {
				continue
			}
			d[l] -= p
			e[l] = g
			e[m] = 0
		}
	}
	rot.flush()
	return nil
}

// rotations holds plane rotations in the order they are to be applied to
// the rows of an n×n row-major matrix, so that the rotations of many QL
// sweeps pass over the matrix once, a strip of columns at a time, instead
// of streaming the whole matrix through memory once a sweep.
type rotations struct {
	w      []float64
	n, ld  int   // order and row stride of w
	row    []int // rotation r acts on rows row[r], row[r]+1
	cs, sn []float64
}

// rotBatch is the number of rotated entries (rotations times n) that
// rotations.add lets pend: 2²⁵, about 0.2 GFLOP, 8n rotations at n =
// 2048 and a bounded pause between two reads of the stop flag at any n. A
// variable so that tests can shrink it.
var rotBatch = 1 << 25

// add appends the rotation (r_i, r_{i+1}) ← (c r_i - s r_{i+1}, s r_i + c
// r_{i+1}) and applies the pending ones once they rotate rotBatch entries.
func (q *rotations) add(i int, c, s float64) {
	q.row = append(q.row, i)
	q.cs = append(q.cs, c)
	q.sn = append(q.sn, s)
	if len(q.row) >= max(rotBatch/q.n, 1) {
		q.flush()
	}
}

// rotStrip is the width in columns of the strips flush works on: a strip of
// all n rows (n·rotStrip·8 bytes) stays in cache while every pending
// rotation passes over it.
const rotStrip = 64

// flush applies the pending rotations in order, strip by strip, the strips
// shared out among GOMAXPROCS goroutines when there is enough work.
func (q *rotations) flush() {
	if len(q.row) == 0 {
		return
	}
	strips := (q.n + rotStrip - 1) / rotStrip
	p := min(runtime.GOMAXPROCS(0), strips)
	if p < 2 || len(q.row)*q.n < 1<<16 {
		q.apply(0, q.n)
	} else {
		var wg sync.WaitGroup
		var next atomic.Int64
		for range p {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					k := int(next.Add(1)) - 1
					if k >= strips {
						return
					}
					q.apply(k*rotStrip, min((k+1)*rotStrip, q.n))
				}
			}()
		}
		wg.Wait()
	}
	q.row, q.cs, q.sn = q.row[:0], q.cs[:0], q.sn[:0]
}

// apply applies the pending rotations to the columns k0..k1-1, strip by
// strip.
func (q *rotations) apply(k0, k1 int) {
	w, ld := q.w, q.ld
	for s0 := k0; s0 < k1; s0 += rotStrip {
		s1 := min(s0+rotStrip, k1)
		for r, i := range q.row {
			c, s := q.cs[r], q.sn[r]
			ri := w[i*ld+s0 : i*ld+s1]
			rj := w[(i+1)*ld+s0 : (i+1)*ld+s1]
			rj = rj[:len(ri)]
			for k, x := range ri {
				y := rj[k]
				rj[k] = s*x + c*y
				ri[k] = c*x - s*y
			}
		}
	}
}

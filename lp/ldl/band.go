package ldl

import "math"

// Band is the LDL^T factorisation of a symmetric positive definite N×N
// matrix of half-bandwidth B, stored by rows of the lower band:
// A[i*(B+1)+t] is L[i][i-t] for t = 1..B (L unit lower triangular) and
// A[i*(B+1)] is D[i]. The caller allocates A (N·(B+1) values) before the
// first factorisation; the methods are not safe for concurrent use.
type Band struct {
	N, B  int       // order and half-bandwidth
	A     []float64 // the factor, N·(B+1) values
	hdiag []float64 // CholFactor's scratch: the assembled diagonal
}

// hugePivot replaces a pivot that vanished (a rank-deficient factor), which
// removes that direction from the Newton step (the usual interior-point
// safeguard).
const hugePivot = 1e128

// Solve overwrites r with A^{-1} r using the factorisation.
func (m *Band) Solve(r []float64) {
	n, b, w := m.N, m.B, m.B+1
	a := m.A
	for i := 0; i < n; i++ {
		ri := a[i*w:]
		v := r[i]
		for k := max(0, i-b); k < i; k++ {
			v -= ri[i-k] * r[k]
		}
		r[i] = v
	}
	for i := 0; i < n; i++ {
		r[i] /= a[i*w]
	}
	for i := n - 1; i >= 0; i-- {
		v := r[i]
		for t := 1; t <= b && i+t < n; t++ {
			v -= a[(i+t)*w+t] * r[i+t]
		}
		r[i] = v
	}
}

// AddInverse adds A^{-1} to the upper triangle of the row-major n×n matrix s
// (stride n), using the factorisation. ring is scratch of (b+1)·n values.
//
// With A = L D L^T, Z = A^{-1} satisfies Z L = L^{-T} D^{-1}, whose strictly
// lower part vanishes and whose diagonal is 1/d_j. Reading row j of that
// identity for columns i > j gives Takahashi's recurrence
//
//	Z[j][i] = -sum_{t=1..B} L[j+t][j] Z[j+t][i],  Z[j][j] = 1/d_j - sum_t L[j+t][j] Z[j][j+t],
//
// so rows are produced from the last upwards, each from the b rows below it,
// which a ring buffer of b+1 rows holds. Cost: about n^2 b flops.
func (m *Band) AddInverse(s, ring []float64) {
	n, b, w := m.N, m.B, m.B+1
	a := m.A
	var ls [4]float64
	var srcs [4][]float64
	for j := n - 1; j >= 0; j-- {
		row := ring[(j%w)*n : (j%w)*n+n]
		tmax := min(b, n-1-j)
		// Entries j < i < j+tmax: some Z[j+t][i] lie below the diagonal of
		// row j+t and are read by symmetry.
		for i := j + 1; i < j+tmax; i++ {
			var v float64
			for t := 1; t <= tmax; t++ {
				z := ring[((j+t)%w)*n+i]
				if i < j+t {
					z = ring[(i%w)*n+j+t]
				}
				v -= a[(j+t)*w+t] * z
			}
			row[i] = v
		}
		// Entries i >= j+tmax, four source rows per pass.
		lo := j + tmax
		if lo < n {
			dst := row[lo:n]
			clear(dst)
			for t0 := 1; t0 <= tmax; t0 += 4 {
				g := min(4, tmax-t0+1)
				for q := 0; q < g; q++ {
					t := t0 + q
					ls[q] = a[(j+t)*w+t]
					srcs[q] = ring[((j+t)%w)*n+lo : ((j+t)%w)*n+n]
				}
				switch g {
				case 4:
					l0, l1, l2, l3 := ls[0], ls[1], ls[2], ls[3]
					s0, s1, s2, s3 := srcs[0][:len(dst)], srcs[1][:len(dst)], srcs[2][:len(dst)], srcs[3][:len(dst)]
					for i := range dst {
						dst[i] -= l0*s0[i] + l1*s1[i] + l2*s2[i] + l3*s3[i]
					}
				case 3:
					l0, l1, l2 := ls[0], ls[1], ls[2]
					s0, s1, s2 := srcs[0][:len(dst)], srcs[1][:len(dst)], srcs[2][:len(dst)]
					for i := range dst {
						dst[i] -= l0*s0[i] + l1*s1[i] + l2*s2[i]
					}
				case 2:
					l0, l1 := ls[0], ls[1]
					s0, s1 := srcs[0][:len(dst)], srcs[1][:len(dst)]
					for i := range dst {
						dst[i] -= l0*s0[i] + l1*s1[i]
					}
				default:
					l0 := ls[0]
					s0 := srcs[0][:len(dst)]
					for i := range dst {
						dst[i] -= l0 * s0[i]
					}
				}
			}
		}
		d := 1 / a[j*w]
		for t := 1; t <= tmax; t++ {
			d -= a[(j+t)*w+t] * row[j+t]
		}
		row[j] = d
		out := s[j*n+j : j*n+n]
		in := row[j:n]
		in = in[:len(out)]
		for i, v := range in {
			out[i] += v
		}
	}
}

// QRFactor sets the band to the LDL^T factorisation of H = A^T A, where A
// has the row sqrt(diag[i])·e_i for every i and the row
// sqrt(wt[k])·(e_I - W e_H) for every pair k, without ever forming H: it
// computes the banded upper triangular R of A = QR by Givens rotations
// (H = R^T R, so d_j = R_jj^2 and L[j+t][j] = R[j][j+t]/R_jj).
//
// Forming H squares its condition number, and an interior-point method's H
// mixes huge weights (tight constraints) with tiny ones, so the elimination
// of H cancels catastrophically; the orthogonal factorisation of A does not.
// Rows are inserted by leading column (order lists the pairs sorted by
// min(I,H)); a row then meets at most b+1 rows of R before it vanishes, so a
// column costs O((n + len(pairs)) b^2). r and work are scratch of n·(b+1)
// and n+b+1 values.
func (m *Band) QRFactor(diag []float64, pairs []Pair, wt []float64, order []int, r, work []float64) {
	n, b, w := m.N, m.B, m.B+1
	clear(r)
	insert := func(c int) {
		// work holds a row with support in [c, c+b]. Every row inserted so
		// far began at a column <= c, so R's rows have no entries beyond c+b
		// either, and the rotations stay inside [c, c+b].
		end := min(n-1, c+b)
		for j := c; j <= end; j++ {
			v := work[j]
			if v == 0 {
				continue
			}
			rj := r[j*w : j*w+w]
			if rj[0] == 0 {
				// Empty row of R: the work row becomes it.
				for t := 0; j+t <= end; t++ {
					rj[t] = work[j+t]
					work[j+t] = 0
				}
				return
			}
			h := hypot(rj[0], v)
			cs, sn := rj[0]/h, v/h
			rj[0] = h
			work[j] = 0
			wk := work[j+1 : end+1]
			for t := range wk {
				a, x := rj[t+1], wk[t]
				rj[t+1] = cs*a + sn*x
				wk[t] = -sn*a + cs*x
			}
		}
		clear(work[c : end+1])
	}
	next := 0
	for c := 0; c < n; c++ {
		work[c] = math.Sqrt(diag[c])
		insert(c)
		for ; next < len(order); next++ {
			k := order[next]
			q := pairs[k]
			if min(q.I, q.H) != c {
				break
			}
			sw := math.Sqrt(wt[k])
			work[q.I] = sw
			work[q.H] = -sw * q.W
			insert(c)
		}
	}
	clear(m.A)
	for j := 0; j < n; j++ {
		rj := r[j*w : j*w+w]
		d := rj[0] * rj[0]
		if !(d > 1e-300) || math.IsInf(d, 0) {
			m.A[j*w] = hugePivot
			continue
		}
		m.A[j*w] = d
		for t := 1; t <= b && j+t < n; t++ {
			m.A[(j+t)*w+t] = rj[t] / rj[0]
		}
	}
}

// hypot is sqrt(a²+b²), without math.Hypot's cost when the squares cannot
// overflow or underflow.
func hypot(a, b float64) float64 {
	const lo, hi = 1e-150, 1e150
	aa, ab := math.Abs(a), math.Abs(b)
	if aa < hi && ab < hi && (aa > lo || ab > lo) {
		return math.Sqrt(a*a + b*b)
	}
	return math.Hypot(a, b)
}

// CholFactor sets the band to the LDL^T factorisation of the assembled
// H = diag + G^T diag(wt) G (G's row k is e_I - W e_H for pair k), by the
// banded right-looking elimination: O(n b² + len(pairs)) flops, some 10-100
// times less than QRFactor. It loses accuracy when the weights span many
// orders of magnitude (the cancellation described at QRFactor), which the
// solver detects as a stall and then switches to QRFactor. A pivot that is
// not positive and finite (breakdown) is replaced by hugePivot, which drops
// that direction. CholFactor returns the smallest ratio of a pivot to the
// diagonal entry it came from (0 after a breakdown): 10^-k means that
// cancellation cost that pivot about k of its 16 digits.
func (m *Band) CholFactor(diag []float64, pairs []Pair, wt []float64) float64 {
	n, b, w := m.N, m.B, m.B+1
	a := m.A
	clear(a)
	// Assemble the lower band: a[i*w+t] = H[i][i-t].
	for i := 0; i < n; i++ {
		a[i*w] = diag[i]
	}
	for k, q := range pairs {
		c := wt[k]
		a[q.I*w] += c
		a[q.H*w] += c * q.W * q.W
		i, j := max(q.I, q.H), min(q.I, q.H)
		a[i*w+i-j] -= c * q.W
	}
	if len(m.hdiag) != n {
		m.hdiag = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		m.hdiag[i] = a[i*w]
	}
	ratio := 1.0
	// Right-looking LDL^T: for column j, L[i][j] = H[i][j]/d_j, and the
	// trailing block H[i][k] -= L[i][j] H[k][j] for j < k <= i <= j+b.
	for j := 0; j < n; j++ {
		d := a[j*w]
		if !(d > 1e-300) || math.IsInf(d, 0) {
			// Drop the column: no coupling to later rows.
			a[j*w] = hugePivot
			for i := j + 1; i <= min(n-1, j+b); i++ {
				a[i*w+i-j] = 0
			}
			ratio = 0
			continue
		}
		ratio = min(ratio, d/m.hdiag[j])
		end := min(n-1, j+b)
		for i := j + 1; i <= end; i++ {
			hij := a[i*w+i-j]
			if hij == 0 {
				continue
			}
			l := hij / d
			// Row i, columns k = j+1..i: a[i*w+i-k] -= l * H[k][j].
			for k := j + 1; k <= i; k++ {
				a[i*w+i-k] -= l * a[k*w+k-j]
			}
		}
		for i := j + 1; i <= end; i++ {
			a[i*w+i-j] /= d
		}
	}
	return ratio
}

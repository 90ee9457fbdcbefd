package mech

// The machinery of the exact DP audit (docs/MATH.md §9.5): per pair a
// float64 decision in the log domain when it is conclusive by a proven
// margin, math/big with an enclosure of e^{eps·d} otherwise.

import (
	"context"
	"fmt"
	"math"
	"math/big"

	"github.com/optdp/optdp/mech/metric"
	"gonum.org/v1/gonum/mat"
)

// exactAuditor holds the state of one exact audit of the realised
// distribution Y[i][o] = X[i][o]/s_i, where s_i are exact row scales
// (sums == nil: s_i = 1, Y = X).
type exactAuditor struct {
	x    *mat.Dense
	eps  float64
	sums []*big.Float // exact s_i, or nil
	sumF []float64    // s_i rounded to nearest
	encs map[float64]*expEnc
	rep  AuditReport
	viol float64 // level of rep.Violation
	// xs holds the columns that pair and direction read, cols their
	// indices in x (nil: xs is x): those not constant down the rows, and
	// the first constant positive one, whose quotient (1, times the row
	// scales' ratio) and verdict every constant positive column shares
	// (the columns an optimal mechanism leaves unused, mixed with the
	// uniform matrix); constant zero columns constrain nothing.
	xs   *mat.Dense
	cols []int
	// ctx, if not nil, is polled by run between rows (every 1024 edges of
	// a Graph); run returns its error once it is done.
	ctx context.Context
}

// expEnc caches the enclosure of e^t, t = eps·d, for one distance d.
type expEnc struct {
	t      *big.Float
	prec   uint
	lo, hi *big.Float
	dd     *ddBounds // double-double enclosure, formed on first use
}

func newExactAuditor(x *mat.Dense, sums []*big.Float, eps float64) *exactAuditor {
	a := &exactAuditor{x: x, eps: eps, sums: sums, encs: map[float64]*expEnc{}}
	a.rep.Worst = [3]int{-1, -1, -1}
	a.xs = x
	if a.cols = auditColumns(x); a.cols != nil {
		r, _ := x.Dims()
		a.xs = mat.NewDense(r, len(a.cols), nil)
		for i := range r {
			row, g := x.RawRowView(i), a.xs.RawRowView(i)
			for k, o := range a.cols {
				g[k] = row[o]
			}
		}
	}
	if sums != nil {
		a.sumF = make([]float64, len(sums))
		for i, s := range sums {
			a.sumF[i], _ = s.Float64()
		}
	}
	return a
}

// auditColumns returns exactAuditor.cols for x, nil when every column is
// read. A column constant down the rows (bitwise equal entries) is 0
// everywhere, which pair skips, or has the quotient 1 exactly in every
// pair: of those with a finite positive value, only the first is kept.
// Columns are left out only when at least a quarter of them are
// constant; otherwise the copy of the others would cost more memory than
// the audit saves.
func auditColumns(x *mat.Dense) []int {
	r, c := x.Dims()
	// The candidates, narrowed row by row (most columns of a mechanism
	// that uses its outputs differ at the second row).
	first := x.RawRowView(0)
	cand := make([]int, 0, c)
	for k, v := range first {
		if v >= 0 && !math.IsInf(v, 1) {
			cand = append(cand, k)
		}
	}
	for i := 1; i < r && len(cand) > 0; i++ {
		row := x.RawRowView(i)
		kept := cand[:0]
		for _, k := range cand {
			if row[k] == first[k] {
				kept = append(kept, k)
			}
		}
		cand = kept
	}
	if 4*len(cand) < c {
		// Too few to pay for the gathered copy of the others (exactAuditor.xs).
		return nil
	}
	constant := make([]bool, c)
	for _, k := range cand {
		constant[k] = true
	}
	var cols []int
	seen := false
	for k, cst := range constant {
		switch {
		case !cst:
			cols = append(cols, k)
		case first[k] > 0 && !seen:
			cols, seen = append(cols, k), true
		}
	}
	if len(cols) == c {
		return nil
	}
	return cols
}

// run checks every constrained pair of m (edges of a Graph at d = 1).
func (a *exactAuditor) run(m metric.Metric) error {
	r, _ := a.x.Dims()
	if g, ok := m.(metric.Graph); ok {
		k := 0
		for i, h := range g.Edges() {
			if i < 0 || h < 0 || i >= r || h >= r || i == h {
				return fmt.Errorf("mech: audit: metric %s yields an invalid edge (%d,%d) for answers 0..%d", m, i, h, r-1)
			}
			if k%1024 == 0 {
				if err := a.stopped(); err != nil {
					return err
				}
			}
			k++
			a.pair(i, h, 1)
		}
		return nil
	}
	for i := 0; i < r; i++ {
		if err := a.stopped(); err != nil {
			return err
		}
		for h := i + 1; h < r; h++ {
			d := m.Dist(i, h)
			switch {
			case math.IsNaN(d) || d <= 0:
				return fmt.Errorf("mech: audit: metric %s has d(%d,%d) = %v: distinct answers need a distance > 0", m, i, h, d)
			case math.IsInf(d, 1):
				continue // different components: no constraint
			}
			a.pair(i, h, d)
		}
	}
	return nil
}

// stopped returns the context's error, wrapped, once a.ctx is done.
func (a *exactAuditor) stopped() error {
	if a.ctx == nil {
		return nil
	}
	if err := a.ctx.Err(); err != nil {
		return fmt.Errorf("mech: audit: %w", err)
	}
	return nil
}

// report finishes the report: the exact verdict, and Eps moved by at most
// an ulp so that it agrees with the verdict.
func (a *exactAuditor) report() AuditReport {
	rep := a.rep
	rep.Private = rep.Violation == nil
	switch {
	case rep.Private && rep.Eps > a.eps:
		rep.Eps = a.eps
	case !rep.Private && rep.Eps <= a.eps:
		rep.Eps = math.Nextafter(a.eps, math.Inf(1))
	}
	return rep
}

// pair decides both directions of the pair (i, h) at distance d.
func (a *exactAuditor) pair(i, h int, d float64) {
	a.rep.Pairs++
	ri, rh := a.xs.RawRowView(i), a.xs.RawRowView(h)
	var qUp, qDn float64
	oUp, oDn := -1, -1
	var over []int // columns whose quotient overflows float64
	scaled := a.sums != nil
	for k, u := range ri {
		v := rh[k]
		switch {
		case u == 0 && v == 0:
			continue
		case v == 0:
			a.violate(i, h, k, math.Inf(1), d)
			continue
		case u == 0:
			a.violate(h, i, k, math.Inf(1), d)
			continue
		}
		// Without row scales a quotient below 1 never binds; with them it
		// can still be the largest realised one, so every column counts
		// in both directions.
		if scaled || u >= v {
			if q := u / v; math.IsInf(q, 1) {
				over = append(over, k)
			} else if q > qUp {
				qUp, oUp = q, k
			}
		}
		if scaled || v >= u {
			if q := v / u; math.IsInf(q, 1) {
				over = append(over, k)
			} else if q > qDn {
				qDn, oDn = q, k
			}
		}
	}
	a.direction(i, h, d, qUp, oUp, ri, rh)
	a.direction(h, i, d, qDn, oDn, rh, ri)
	for _, k := range over {
		u, v, from, to := ri[k], rh[k], i, h
		if v > u {
			u, v, from, to = v, u, h, i
		}
		l := logPos(u) - logPos(v) + a.adj(from, to)
		a.level(from, to, k, l, d)
		if a.decide(l, u, v, from, to, d) {
			continue
		}
		a.violate(from, to, k, l, d)
	}
}

// adj is ln(s_h/s_i) in float64 (0 without row scales): the realised
// quotient Y[i][o]/Y[h][o] is X[i][o]/X[h][o]·s_h/s_i.
func (a *exactAuditor) adj(i, h int) float64 {
	if a.sums == nil {
		return 0
	}
	return math.Log(a.sumF[h] / a.sumF[i])
}

// direction decides the columns with X[i][k], X[h][k] > 0 and a finite
// quotient X[i][k]/X[h][k], q the largest such quotient (at column o, -1
// for none).
func (a *exactAuditor) direction(i, h int, d, q float64, o int, ri, rh []float64) {
	if o < 0 {
		return
	}
	adj := a.adj(i, h)
	l := math.Log(q) + adj
	a.level(i, h, o, l, d)
	switch a.fast(l, d) {
	case 1:
		return // every column passes: their quotients are at most q
	case -1:
		a.violate(i, h, o, l, d)
		return
	}
	// Near the bound: decide column by column.
	for k, u := range ri {
		v := rh[k]
		if u == 0 || v == 0 || (u < v && a.sums == nil) {
			continue // decided in pair, or below 1 without row scales
		}
		qk := u / v
		if math.IsInf(qk, 1) {
			continue // decided with the overflowing columns
		}
		lk := math.Log(qk) + adj
		if !a.decide(lk, u, v, i, h, d) {
			a.violate(i, h, k, lk, d)
		}
	}
}

// logMargin bounds the error of a float64 log-ratio l (quotient rounding,
// the logarithm, the row-scale adjustment): 2^-46·(1+|l|), dozens of
// times the worst case of about 2^-50·(1+|l|).
func logMargin(l float64) float64 { return 0x1p-46 * (1 + math.Abs(l)) }

// fast compares the float64 log-ratio l with eps·d: 1 when
// l + logMargin(l) is below a lower bound of eps·d (the constraint holds),
// -1 when l - logMargin(l) is above an upper bound (it fails), 0 when it
// cannot tell.
func (a *exactAuditor) fast(l, d float64) int {
	if math.IsNaN(l) {
		return 0
	}
	tf := a.eps * d
	if math.IsInf(tf, 1) {
		if math.IsInf(l, 1) {
			return 0
		}
		return 1 // eps·d overflows float64: above every finite log-ratio
	}
	// tf = eps·d(1+θ), |θ| <= 2^-53; the ±2^-1073 covers a subnormal tf.
	tlo := tf*(1-0x1p-52) - 0x1p-1073
	thi := tf*(1+0x1p-52) + 0x1p-1073
	mg := logMargin(l)
	switch {
	case l+mg < tlo:
		return 1
	case l-mg > thi:
		return -1
	}
	return 0
}

// decide reports whether the constraint u·s_h <= e^{eps·d}·v·s_i holds
// (u = X[i][o], v = X[h][o] > 0), l its float64 log-ratio: by fast when
// conclusive, otherwise exactly.
func (a *exactAuditor) decide(l, u, v float64, i, h int, d float64) bool {
	switch a.fast(l, d) {
	case 1:
		return true
	case -1:
		return false
	}
	return a.exactLE(u, v, i, h, d)
}

// maxExactPrec is the precision at which an undecided comparison gives up
// and counts as a violation (it has never been reached: float64 inputs are
// separated from e^t far earlier).
const maxExactPrec = 1 << 14

// exactLE decides u·s_h <= e^t·v·s_i, t = eps·d, exactly.
func (a *exactAuditor) exactLE(u, v float64, i, h int, d float64) bool {
	lhs := new(big.Float).SetFloat64(u)
	rhs := new(big.Float).SetFloat64(v)
	if a.sums != nil {
		lhs = mulExact(lhs, a.sums[h])
		rhs = mulExact(rhs, a.sums[i])
	}
	e := a.enc(d)
	if e.t.MantExp(nil) > 20 {
		// t >= 2^20: e^t > 2^t, and lhs/rhs < 2^(exponent difference + 1).
		return lhs.MantExp(nil)-rhs.MantExp(nil)+1 < 1<<20
	}
	if a.sums == nil {
		// Exact float64 arithmetic against a 106-bit enclosure decides all
		// but ratios within about 2^-100 of e^t (exact_dd.go).
		if e.dd == nil {
			lo, hi := e.bounds(160)
			b := newDDBounds(lo, hi)
			e.dd = &b
		}
		if s, ok := ddCompare(u, v, e.dd.l1, e.dd.l2); ok && s <= 0 {
			return true
		}
		if s, ok := ddCompare(u, v, e.dd.u1, e.dd.u2); ok && s > 0 {
			return false
		}
	}
	r := new(big.Float)
	for prec := uint(128); prec <= maxExactPrec; prec *= 2 {
		lo, hi := e.bounds(prec)
		r.SetPrec(prec).SetMode(big.ToNegativeInf).Mul(rhs, lo)
		if lhs.Cmp(r) <= 0 {
			return true
		}
		r.SetMode(big.ToPositiveInf).Mul(rhs, hi)
		if lhs.Cmp(r) > 0 {
			return false
		}
	}
	return false
}

// mulExact is the exact product of two big.Floats.
func mulExact(x, y *big.Float) *big.Float {
	return new(big.Float).SetPrec(x.Prec()+y.Prec()).Mul(x, y)
}

// enc returns the cached enclosure record of e^{eps·d}.
func (a *exactAuditor) enc(d float64) *expEnc {
	e, ok := a.encs[d]
	if !ok {
		e = &expEnc{t: exactTimes(a.eps, d)}
		a.encs[d] = e
	}
	return e
}

// bounds returns an enclosure of e^t of at least prec bits.
func (e *expEnc) bounds(prec uint) (lo, hi *big.Float) {
	if e.prec < prec {
		e.lo, e.hi = expEnclosure(e.t, prec)
		e.prec = prec
	}
	return e.lo, e.hi
}

// level folds the log-ratio l of (i, h, o) at distance d into the measured
// level, o a column of xs.
func (a *exactAuditor) level(i, h, o int, l, d float64) {
	if lv := l / d; lv > a.rep.Eps {
		a.rep.Eps, a.rep.Worst = lv, [3]int{i, h, a.col(o)}
	}
}

// violate records that the constraint of (i, h, o) fails, l its
// log-ratio, o a column of xs.
func (a *exactAuditor) violate(i, h, o int, l, d float64) {
	a.level(i, h, o, l, d)
	if lv := l / d; a.rep.Violation == nil || lv > a.viol {
		a.rep.Violation = &Violation{I: i, H: h, O: a.col(o), LogRatio: l, Dist: d}
		a.viol = lv
	}
}

// col is column k of xs's index in x.
func (a *exactAuditor) col(k int) int {
	if a.cols == nil {
		return k
	}
	return a.cols[k]
}

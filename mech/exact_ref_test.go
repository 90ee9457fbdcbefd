package mech

// A brute-force exact DP audit for the tests of Audit and
// Sampler, written independently of them: integer fixed-point
// arithmetic (math/big.Int, floor and ceiling by hand) instead of big.Float
// rounding modes, every pair and every column compared, no float64 fast
// path.

import (
	"math"
	"math/big"
	"testing"

	"github.com/optdp/optdp/mech/metric"
)

// refExpFixed returns integers lo, hi with lo <= e^t·2^p <= hi for a
// rational t >= 0 (t <= 2048): e^t = (e^{t/2^k})^(2^k) with t/2^k <= 1/4,
// the Taylor series in fixed point with p+k+64 fractional bits (terms
// rounded down for lo, up for hi, plus the tail bound 2·x^{N+1}/(N+1)! for
// x <= 1/2), then k squarings rounded down and up.
func refExpFixed(t *big.Rat, p uint) (lo, hi *big.Int) {
	k := uint(0)
	quarter := big.NewRat(1, 4)
	x := new(big.Rat).Set(t)
	for x.Cmp(quarter) > 0 {
		x.Quo(x, big.NewRat(2, 1))
		k++
	}
	w := p + k + 64
	one := new(big.Int).Lsh(big.NewInt(1), w)
	// x in fixed point, rounded down and up.
	xs := new(big.Int).Mul(x.Num(), one)
	xlo, rem := new(big.Int).QuoRem(xs, x.Denom(), new(big.Int))
	xhi := new(big.Int).Set(xlo)
	if rem.Sign() != 0 {
		xhi.Add(xhi, big.NewInt(1))
	}
	sumLo, sumHi := new(big.Int).Set(one), new(big.Int).Set(one)
	tLo, tHi := new(big.Int).Set(one), new(big.Int).Set(one)
	for j := int64(1); ; j++ {
		den := new(big.Int).Mul(one, big.NewInt(j))
		tLo.Mul(tLo, xlo).Quo(tLo, den) // floor
		tHi.Mul(tHi, xhi)
		tHi.Add(tHi, new(big.Int).Sub(den, big.NewInt(1))).Quo(tHi, den) // ceil
		sumLo.Add(sumLo, tLo)
		sumHi.Add(sumHi, tHi)
		if tHi.Cmp(big.NewInt(1)) <= 0 {
			// Tail beyond j: at most 2·x^{j+1}/(j+1)! <= 2·tHi.
			sumHi.Add(sumHi, new(big.Int).Lsh(tHi, 1))
			sumHi.Add(sumHi, big.NewInt(1))
			break
		}
	}
	for range k {
		sumLo.Mul(sumLo, sumLo).Rsh(sumLo, w) // floor
		sumHi.Mul(sumHi, sumHi)
		sumHi.Add(sumHi, new(big.Int).Sub(one, big.NewInt(1))).Rsh(sumHi, w) // ceil
	}
	// From w to p fractional bits.
	lo = new(big.Int).Rsh(sumLo, w-p)
	hi = new(big.Int).Add(sumHi, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), w-p), big.NewInt(1)))
	hi.Rsh(hi, w-p)
	return lo, hi
}

// refRealised is a realised distribution W[i][o]/T[i] in integers.
type refRealised struct {
	w [][]*big.Int
	t []*big.Int
}

// refFromFloats is the matrix x itself (T = 2^K for every row, W = x·2^K),
// through big.Rat.SetFloat64.
func refFromFloats(rows [][]float64) refRealised {
	var k uint
	for _, row := range rows {
		for _, v := range row {
			d := new(big.Rat).SetFloat64(v).Denom()
			k = max(k, uint(d.BitLen()-1))
		}
	}
	var r refRealised
	for _, row := range rows {
		wr := make([]*big.Int, len(row))
		for o, v := range row {
			q := new(big.Rat).SetFloat64(v)
			num := new(big.Int).Lsh(q.Num(), k)
			wr[o] = num.Quo(num, q.Denom()) // exact: the denominator divides 2^k
		}
		r.w = append(r.w, wr)
		r.t = append(r.t, new(big.Int).Lsh(big.NewInt(1), k))
	}
	return r
}

// refNormalised is the matrix with each row divided by its exact sum: the
// distribution Sampler must realise.
func refNormalised(rows [][]float64) refRealised {
	r := refFromFloats(rows)
	for i, wr := range r.w {
		s := new(big.Int)
		for _, v := range wr {
			s.Add(s, v)
		}
		r.t[i] = s
	}
	return r
}

// refPairs is the constrained pairs of m: a Graph's edges at distance 1,
// otherwise every pair at finite distance.
func refPairs(m metric.Metric) []auditPair {
	var ps []auditPair
	if g, ok := m.(metric.Graph); ok {
		for i, h := range g.Edges() {
			ps = append(ps, auditPair{i, h, 1})
		}
		return ps
	}
	for i := 0; i < m.Len(); i++ {
		for h := i + 1; h < m.Len(); h++ {
			if d := m.Dist(i, h); !math.IsInf(d, 1) {
				ps = append(ps, auditPair{i, h, d})
			}
		}
	}
	return ps
}

// refVerdict is the brute-force exact audit's result.
type refVerdict struct {
	private bool
	viol    [3]int  // a violated (i, h, o), when not private
	level   float64 // max over constraints of ln(Y[i][o]/Y[h][o])/d, +Inf for positive over 0
	worst   [3]int  // where level is attained (-1s when no constraint binds)
}

// refAuditExact decides W[i][o]·T[h] <= e^{eps·d}·W[h][o]·T[i] for every
// constrained pair and output, in integers, raising the fixed-point
// precision until every comparison is decided (a test failure if 8192 bits
// do not suffice).
func refAuditExact(tb testing.TB, r refRealised, m metric.Metric, eps float64) refVerdict {
	return refAuditLevels(tb, r, m, eps, true)
}

// refPrivate is refAuditExact without the (slow) measured level.
func refPrivate(tb testing.TB, r refRealised, m metric.Metric, eps float64) refVerdict {
	return refAuditLevels(tb, r, m, eps, false)
}

func refAuditLevels(tb testing.TB, r refRealised, m metric.Metric, eps float64, levels bool) refVerdict {
	tb.Helper()
	v := refVerdict{private: true, viol: [3]int{-1, -1, -1}, worst: [3]int{-1, -1, -1}}
	type bounds struct {
		p      uint
		lo, hi *big.Int
	}
	cache := map[float64]*bounds{}
	a, b, as, rhs := new(big.Int), new(big.Int), new(big.Int), new(big.Int)
	for _, pr := range refPairs(m) {
		tr := new(big.Rat).Mul(new(big.Rat).SetFloat64(eps), new(big.Rat).SetFloat64(pr.d))
		for _, dir := range [2][2]int{{pr.i, pr.h}, {pr.h, pr.i}} {
			i, h := dir[0], dir[1]
			for o := range r.w[i] {
				a.Mul(r.w[i][o], r.t[h]) // Y[i][o]·T_i·T_h
				b.Mul(r.w[h][o], r.t[i]) // Y[h][o]·T_i·T_h
				if a.Sign() == 0 {
					continue
				}
				if levels && a.Cmp(b) > 0 {
					lv := math.Inf(1)
					if b.Sign() != 0 {
						lv = refLogRatio(a, b) / pr.d
					}
					if lv > v.level {
						v.level, v.worst = lv, [3]int{i, h, o}
					}
				}
				if b.Sign() == 0 {
					v.private, v.viol = false, [3]int{i, h, o}
					continue
				}
				if a.Cmp(b) <= 0 {
					continue // e^t >= 1
				}
				if tr.Cmp(big.NewRat(2048, 1)) > 0 {
					continue // a/b < 2^2098 < e^2048
				}
				for p := uint(256); ; p *= 2 {
					if p > 8192 {
						tb.Fatalf("reference audit undecided at (%d,%d,%d) with 8192 bits", i, h, o)
					}
					bd := cache[pr.d]
					if bd == nil || bd.p < p {
						lo, hi := refExpFixed(tr, p)
						bd = &bounds{p, lo, hi}
						cache[pr.d] = bd
					}
					as.Lsh(a, bd.p)
					if as.Cmp(rhs.Mul(b, bd.lo)) <= 0 {
						break
					}
					if as.Cmp(rhs.Mul(b, bd.hi)) > 0 {
						v.private, v.viol = false, [3]int{i, h, o}
						break
					}
				}
			}
		}
	}
	return v
}

// refLogRatio is ln(a/b) for big integers a, b > 0, to float64 accuracy:
// a/b = f·2^e with f in [0.5, 1) (big.Float, 64 bits), ln f + e·ln 2.
func refLogRatio(a, b *big.Int) float64 {
	q := new(big.Float).SetPrec(64).Quo(new(big.Float).SetInt(a), new(big.Float).SetInt(b))
	f := new(big.Float)
	e := q.MantExp(f)
	ff, _ := f.Float64()
	return math.Log(ff) + float64(e)*math.Ln2
}

// refRows returns the rows of a dense-like accessor as slices.
func refRows(n, m int, at func(i, o int) float64) [][]float64 {
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = make([]float64, m)
		for o := range rows[i] {
			rows[i][o] = at(i, o)
		}
	}
	return rows
}

func TestRefExpFixed(t *testing.T) {
	// e^1 = 2.718281828459045235360287471352662497757247093699959574966...
	e1, _ := new(big.Float).SetPrec(200).SetString("2.71828182845904523536028747135266249775724709369995957496696762772407663035354759")
	lo, hi := refExpFixed(big.NewRat(1, 1), 200)
	flo := new(big.Float).SetPrec(400).SetMantExp(new(big.Float).SetInt(lo), -200)
	fhi := new(big.Float).SetPrec(400).SetMantExp(new(big.Float).SetInt(hi), -200)
	if flo.Cmp(e1) > 0 || fhi.Cmp(e1) < 0 {
		t.Fatalf("e^1 not enclosed: [%s, %s]", flo.Text('g', 60), fhi.Text('g', 60))
	}
	w := new(big.Int).Sub(hi, lo)
	if w.BitLen() > 8 {
		t.Errorf("enclosure of e^1 too wide: %d units of 2^-200", w)
	}
	// e^{ln 2 · 10} is 1024 exactly for the real ln 2; for the rational
	// 0.6931471805599453 (= float64 Ln2, below ln 2) e^{10·Ln2} < 1024.
	lo, hi = refExpFixed(new(big.Rat).Mul(new(big.Rat).SetFloat64(math.Ln2), big.NewRat(10, 1)), 100)
	k1024 := new(big.Int).Lsh(big.NewInt(1024), 100)
	if hi.Cmp(k1024) >= 0 || new(big.Int).Sub(k1024, lo).BitLen() > 100-40 {
		t.Errorf("e^{10·fl(ln2)}: hi >= 1024 or far from it")
	}
}

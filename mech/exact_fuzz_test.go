package mech

import (
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/mech/internal/reftest"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// fuzzReader decodes fuzz bytes into entries; when the bytes run out it
// returns 1s.
type fuzzReader struct{ b []byte }

func (r *fuzzReader) byte() byte {
	if len(r.b) == 0 {
		return 1
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *fuzzReader) u64() uint64 {
	var buf [8]byte
	for k := range buf {
		buf[k] = r.byte()
	}
	return binary.LittleEndian.Uint64(buf[:])
}

// entry decodes one matrix entry >= 0: 0, a float64 from 8 raw bytes
// (|value|, non-finite values replaced by 1), a small dyadic value, a
// power of two down to the subnormals, or an entry of the previous row
// moved to sit within 3 ulps of the bound e^{±eps·d} (prev < 0: none).
func (r *fuzzReader) entry(prev, eps, d float64) float64 {
	switch r.byte() % 6 {
	case 0:
		return 0
	case 1:
		v := math.Abs(math.Float64frombits(r.u64()))
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 1
		}
		return v
	case 2:
		return float64(r.byte()) / 256
	case 3:
		return math.Ldexp(1, -int(r.u64()%1075))
	default:
		if prev <= 0 {
			return float64(r.byte()) / 64
		}
		f := math.Exp(eps * d)
		if r.byte()%2 == 0 {
			f = 1 / f
		}
		v := prev * f
		steps := int(r.byte()%7) - 3
		for range max(steps, -steps) {
			v = math.Nextafter(v, float64(steps)*math.Inf(1))
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return 1
		}
		return v
	}
}

// fuzzMetric is the line on n answers (a Graph) or, for the non-graph
// path, d(i,j) = |i-j|^p with p in {0.5, 1, 1.5}.
func fuzzMetric(n int, kind byte) metric.Metric {
	if kind%2 == 0 {
		return reftest.Line(n)
	}
	p := []float64{0.5, 1, 1.5}[int(kind/2)%3]
	return reftest.Matrix{Name: "power", N: n, D: func(i, j int) float64 {
		return math.Pow(math.Abs(float64(i-j)), p)
	}}
}

// FuzzAudit compares Audit with the brute-force exact reference
// on small matrices built from the fuzz bytes (raw float64 bits, zeros,
// subnormals, entries within ulps of the bound): the verdicts agree, a
// reported violation is one, and the measured level is the reference's.
func FuzzAudit(f *testing.F) {
	f.Add(uint8(2), uint8(2), 710.0, byte(0), []byte{1, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f})
	f.Add(uint8(3), uint8(3), 0.2, byte(0), []byte{2, 100, 2, 50, 2, 7, 4, 0, 3, 4, 1, 6, 4, 1, 5, 5, 0, 2, 4, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0})
	f.Add(uint8(4), uint8(2), 1.0, byte(3), []byte{3, 10, 0, 0, 0, 0, 0, 0, 0, 2, 9, 4, 0, 6, 5, 1, 3, 4, 1, 0, 2, 200})
	f.Add(uint8(2), uint8(1), 1e-12, byte(0), []byte{2, 77, 4, 0, 3})
	f.Add(uint8(3), uint8(3), 0.7, byte(0x80), []byte{2, 100, 2, 50, 2, 7, 4, 0, 3, 4, 1, 6, 4, 1, 5, 5, 0, 2, 4, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0})
	f.Add(uint8(2), uint8(4), 30.0, byte(5), []byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xef, 0x7f, 0, 3, 0x32, 0, 0, 0, 0, 0, 0, 0, 2, 1, 4, 1, 1, 4, 0, 6, 0, 5})
	f.Fuzz(func(t *testing.T, nb, cb uint8, eps float64, kind byte, data []byte) {
		if metric.CheckEps(eps) != nil {
			t.Skip()
		}
		n, cols := 2+int(nb%3), 1+int(cb%4)
		m := fuzzMetric(n, kind)
		r := &fuzzReader{b: data}
		rows := make([][]float64, n)
		for i := range rows {
			rows[i] = make([]float64, cols)
			for o := range rows[i] {
				prev, d := -1.0, 0.0
				if i > 0 {
					prev, d = rows[i-1][o], m.Dist(i-1, i)
				}
				rows[i][o] = r.entry(prev, eps, d)
			}
		}
		if kind&0x80 != 0 { // rows divided by their float64 sums: mechanisms
			for _, row := range rows {
				s := 0.0
				for _, v := range row {
					s += v
				}
				for o := range row {
					if s > 0 && !math.IsInf(s, 1) {
						row[o] /= s
					}
				}
			}
		}
		x := mat.NewDense(n, cols, nil)
		for i, row := range rows {
			copy(x.RawRowView(i), row)
		}
		rep, err := auditRatios(x, m, eps)
		if err != nil {
			t.Fatal(err)
		}
		// The public Audit: the same report for a mechanism, run.ErrBadInput
		// for rows whose exact sum (math/big) is off 1 by more than the
		// tolerance and the float64 summation's error (< 4u for 4 columns).
		far, near := false, true
		for _, row := range rows {
			s := new(big.Float).SetPrec(2200)
			for _, v := range row {
				s.Add(s, new(big.Float).SetFloat64(v))
			}
			dev, _ := s.Sub(s, big.NewFloat(1)).Float64()
			far = far || math.Abs(dev) > RowSumTol(cols)+0x1p-50
			near = near && math.Abs(dev) < RowSumTol(cols)-0x1p-50
		}
		switch pub, err := Audit(x, m, eps); {
		case far && !errors.Is(err, run.ErrBadInput):
			t.Fatalf("%v: rows not summing to 1 audited: %+v, %v", rows, pub, err)
		case near && (err != nil || pub.Private != rep.Private || pub.Eps != rep.Eps):
			t.Fatalf("%v: a mechanism: Audit %+v, %v; the ratios' audit %+v", rows, pub, err, rep)
		}
		ref := refAuditExact(t, refFromFloats(rows), m, eps)
		if rep.Private != ref.private {
			t.Fatalf("%v on %s at eps %v: exact audit private=%v (%+v), reference %v at %v", rows, m, eps, rep.Private, rep.Violation, ref.private, ref.viol)
		}
		if !rep.Private {
			if rep.Violation == nil || !refViolates(t, rows, rep.Violation, eps) {
				t.Fatalf("%v on %s at eps %v: reported violation %+v is not one", rows, m, eps, rep.Violation)
			}
			if rep.Eps <= eps {
				t.Fatalf("not private with Eps %v <= eps %v", rep.Eps, eps)
			}
		} else if rep.Eps > eps {
			t.Fatalf("private with Eps %v > eps %v", rep.Eps, eps)
		}
		switch {
		case math.IsInf(ref.level, 1):
			if !math.IsInf(rep.Eps, 1) {
				t.Fatalf("Eps %v, reference +Inf", rep.Eps)
			}
		case math.Abs(rep.Eps-ref.level) > 1e-12*max(1, ref.level) && math.Abs(ref.level-eps) > 1e-12*max(1, eps):
			// (Within 1e-12 of eps, Eps is moved to agree with the verdict.)
			t.Fatalf("%v on %s: Eps %v, reference %v", rows, m, rep.Eps, ref.level)
		}
	})
}

// FuzzSampler builds row-stochastic matrices from the fuzz bytes
// (zeros, bytes, subnormal powers of two, each row divided by its float64
// sum) and checks NewSampler against the references: it refuses
// exactly the matrices whose exactly normalised rows the brute-force audit
// finds not private; otherwise Prob is the reference's exact X[i][o]/s_i,
// every U maps to the right output or is rejected, and draws with a seeded
// source stay in range on outputs of positive probability.
func FuzzSampler(f *testing.F) {
	f.Add(uint8(3), 5.0, uint64(1), []byte{2, 100, 2, 50, 0, 3, 7, 2, 90, 2, 60, 2, 1})
	f.Add(uint8(4), 800.0, uint64(2), []byte{3, 0x32, 0, 0, 0, 0, 0, 0, 0, 2, 1, 2, 1, 0, 3, 0x31, 0, 0, 0, 0, 0, 0, 0, 2, 1, 2, 1, 0})
	f.Add(uint8(1), 0.1, uint64(3), []byte{2, 1, 2, 1})
	f.Add(uint8(2), 2.0, uint64(4), []byte{2, 255, 2, 1, 2, 128, 2, 128})
	f.Fuzz(func(t *testing.T, cb uint8, eps float64, seed uint64, data []byte) {
		if metric.CheckEps(eps) != nil {
			t.Skip()
		}
		cols := 1 + int(cb%5)
		r := &fuzzReader{b: data}
		rows := make([][]float64, 2)
		for i := range rows {
			rows[i] = make([]float64, cols)
			s := 0.0
			for o := range rows[i] {
				switch r.byte() % 4 {
				case 0:
				case 3:
					rows[i][o] = math.Ldexp(1, -int(r.u64()%1075))
				default:
					rows[i][o] = float64(r.byte())
				}
				s += rows[i][o]
			}
			if s == 0 {
				rows[i][0], s = 1, 1
			}
			for o := range rows[i] {
				rows[i][o] /= s
			}
		}
		x := mat.NewDense(2, cols, append(append([]float64{}, rows[0]...), rows[1]...))
		m := reftest.Line(2)
		s, err := NewSampler(x, m, eps, nil)
		ref := refPrivate(t, refNormalised(rows), m, eps)
		if (err == nil) != ref.private {
			t.Fatalf("%v at eps %v: sampler error %v, reference private %v at %v", rows, eps, err, ref.private, ref.viol)
		}
		if err != nil {
			return
		}
		rng := rand.New(rand.NewPCG(seed, 7))
		checkSamplerMapping(t, "fuzz", s, x, rng, 20)
		src := SeededSource(seed)
		for i := range 2 {
			for range 20 {
				o, err := s.Sample(i, src)
				if err != nil || o < 0 || o >= cols || rows[i][o] == 0 {
					t.Fatalf("Sample(%d) = %d, %v on row %v", i, o, err, rows[i])
				}
			}
		}
	})
}

package main

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/metric"
	"gonum.org/v1/gonum/mat"
)

// sameBits reports whether x and y have the same shape and bitwise the
// same entries (NaN payloads aside: any NaN matches any NaN).
func sameBits(x, y *mat.Dense) bool {
	r, c := x.Dims()
	if r2, c2 := y.Dims(); r2 != r || c2 != c {
		return false
	}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			a, b := x.At(i, j), y.At(i, j)
			if math.Float64bits(a) != math.Float64bits(b) && !(math.IsNaN(a) && math.IsNaN(b)) {
				return false
			}
		}
	}
	return true
}

// FuzzDecodeCSV: decodeCSV never panics, and what it accepts survives
// encodeCSV and decodeCSV again bit for bit.
func FuzzDecodeCSV(f *testing.F) {
	for _, s := range []string{"0.5,0.5\n0.5,0.5\n", ",\n,\n,\n", "1 2;3\t4\n", "# c\n1\n", "1,2\n3\n", "x", "",
		"NaN,+Inf\n-Inf,1e-320\n", "\x00\x00\n", "1,,2\n", "0x1p-3\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := decodeCSV(data)
		if err != nil {
			return
		}
		r, c := x.Dims()
		if r < 1 || c < 1 {
			t.Fatalf("accepted a %d×%d matrix", r, c)
		}
		y, err := decodeCSV(encodeCSV(x))
		if err != nil || !sameBits(x, y) {
			t.Fatalf("round trip failed: %v", err)
		}
	})
}

// FuzzDecodeNPY: decodeNPY never panics, and what it accepts survives
// encodeNPY and decodeNPY again bit for bit.
func FuzzDecodeNPY(f *testing.F) {
	f.Add(encodeNPY(mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, math.NaN()})))
	f.Add(encodeNPY(mat.NewDense(1, 1, []float64{0.5})))
	for _, s := range []string{"not numpy", "\x93NUMPY\x01\x00\xff\xff{'descr'", "\x93NUMPY\x09\x00", "\x93NUMPY\x02\x00\xff\xff\xff\xff",
		npyHeader("{'descr': '>f8', 'fortran_order': True, 'shape': (1, 2), }") + "\x3f\xf0\x00\x00\x00\x00\x00\x00\x40\x00\x00\x00\x00\x00\x00\x00",
		npyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999, 99999999999), }"),
		npyHeader("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }")} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := decodeNPY(data)
		if err != nil {
			return
		}
		y, err := decodeNPY(encodeNPY(x))
		if err != nil || !sameBits(x, y) {
			t.Fatalf("round trip failed: %v", err)
		}
	})
}

// FuzzParseNumbers: parseNumbers never panics, and what it accepts is
// the numbers of the non-comment lines in order (re-parsed here by
// splitting on the documented separators).
func FuzzParseNumbers(f *testing.F) {
	for _, s := range []string{"0.1 0.2\n0.7\n", "# c\n1,2;3\t4\r\n", ",,,\n", "x", "", "1e308 1e309 -0\n", "NaN\n"} {
		f.Add(s)
	}
	sep := regexp.MustCompile(`[,;\s]+`)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseNumbers(s)
		if err != nil {
			return
		}
		var want []float64
		for _, line := range strings.Split(s, "\n") {
			if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			for _, f := range sep.Split(line, -1) {
				if f == "" {
					continue
				}
				v, err := strconv.ParseFloat(f, 64)
				if err != nil {
					return // a separator parseFields does not know (e.g. \v): skip
				}
				want = append(want, v)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("parseNumbers(%q) = %v, want %v", s, got, want)
		}
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
				t.Fatalf("parseNumbers(%q)[%d] = %v, want %v", s, i, got[i], want[i])
			}
		}
	})
}

// FuzzParsePrior: parsePrior never panics on a hamming:u=2,v=3 metric; an
// accepted prior is a probability distribution on the 9 answers (when
// materialised) or on the 3 values. File-like specs are not fuzzed.
func FuzzParsePrior(f *testing.F) {
	for _, s := range []string{"uniform", "", "product:0.2,0.3,0.5", "product:0.5,0.5", "product:x", "product:", "nosuch",
		"product:1e308,1e308,-1e308", "product:NaN,0.5,0.5", "product:0.2 0.3\n0.5"} {
		f.Add(s)
	}
	m, err := metric.Hamming(2, 3)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		for _, p := range []string{"file:", "points:", "raster:"} {
			if strings.Contains(spec, p) {
				return
			}
		}
		ps, err := parsePrior(spec, m, true)
		if err != nil {
			return
		}
		for _, p := range [][]float64{ps.prior, ps.product} {
			if p == nil {
				continue
			}
			sum := 0.0
			for _, v := range p {
				if !(v >= 0 && v <= 1) {
					t.Fatalf("parsePrior(%q): entry %v", spec, v)
				}
				sum += v
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Fatalf("parsePrior(%q): sums to %v", spec, sum)
			}
		}
	})
}

// smallSpec reports whether every integer in spec is at most 64 (the spec
// fuzzers build what they parse; larger sizes are the corpus test's job).
func smallSpec(spec string) bool {
	for _, f := range regexp.MustCompile(`[0-9]+`).FindAllString(spec, -1) {
		if v, err := strconv.Atoi(f); err != nil || v > 64 {
			return false
		}
	}
	return true
}

// FuzzWorkloadStrategySpec: parseWorkload and parseStrategy never panic;
// an accepted pair has matching domains. Files and the optimised strategy
// are not fuzzed.
func FuzzWorkloadStrategySpec(f *testing.F) {
	for _, s := range [][2]string{{"prefix:n=8", "identity"}, {"allrange:n=4", "hier:b=2"}, {"width:n=8,k=3", "wavelet"},
		{"marginals:dims=2x3,k=1", "identity"}, {"range2d:n=4", "workload"}, {"random:n=4,m=3,seed=1", "eigen"},
		{"identity:n=0", "identity"}, {"prefix", "hier:b=1"}, {"nosuch:n=2", "nosuch"}, {"total:n=3", "hier:b=2,root=false"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, ws, ss string) {
		if strings.Contains(ws+ss, "file") || strings.Contains(ss, "opt") || strings.Contains(ws, "census") || !smallSpec(ws+ss) {
			return
		}
		w, err := parseWorkload(ws)
		if err != nil {
			return
		}
		a, err := parseStrategy(ss, w)
		if err != nil {
			return
		}
		_, n := w.Dims()
		if _, an := a.Dims(); an != n {
			t.Fatalf("workload %q (n = %d) with strategy %q (n = %d)", ws, n, ss, an)
		}
	})
}

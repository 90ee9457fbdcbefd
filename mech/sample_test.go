package mech

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/internal/reftest"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// chiSquare draws n samples from t and compares the counts with p by
// Pearson's statistic, over the outcomes of positive probability, against the
// 1 - 1e-6 quantile of chi-square with (#positive - 1) degrees of freedom:
// a correct sampler fails with probability 1e-6 per call. Outcomes of
// probability 0 must never be drawn.
func refChiSquare(t *testing.T, name string, p []float64, draw func() int, n int) {
	t.Helper()
	counts := make([]int, len(p))
	for s := 0; s < n; s++ {
		counts[draw()]++
	}
	stat, cells := 0.0, 0
	for k, pk := range p {
		if pk == 0 {
			if counts[k] != 0 {
				t.Errorf("%s: outcome %d of probability 0 drawn %d times", name, k, counts[k])
			}
			continue
		}
		e := float64(n) * pk
		stat += (float64(counts[k]) - e) * (float64(counts[k]) - e) / e
		cells++
	}
	if cells < 2 {
		return
	}
	limit := distuv.ChiSquared{K: float64(cells - 1)}.Quantile(1 - 1e-6)
	if stat > limit {
		t.Errorf("%s: chi-square %.2f > %.2f (dof %d, false-alarm rate 1e-6); counts %v", name, stat, limit, cells-1, counts)
	}
}

func TestAliasTableChiSquare(t *testing.T) {
	geo, _ := TruncatedGeometric(6, math.Ln2, 1)
	rows := [][]float64{
		{0.5, 0.25, 0.125, 0.125},
		{0, 0.3, 0, 0.7, 0},
		{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1},
		{1, 0, 0},
		{0, 0, 1},
		geo.RawRowView(0),
		geo.RawRowView(3),
		{0.01, 0.2, 0, 0.39, 0.4},
	}
	src := SeededSource(20261122)
	for i, p := range rows {
		tab, err := NewAliasTable(p)
		if err != nil {
			t.Fatal(err)
		}
		if tab.Len() != len(p) {
			t.Fatalf("row %d: Len %d", i, tab.Len())
		}
		refChiSquare(t, fmt.Sprintf("row %d", i), p, func() int { return tab.Sample(src) }, 200000)
	}
}

func TestSeededSourceReproducible(t *testing.T) {
	a, b, c := SeededSource(1), SeededSource(1), SeededSource(2)
	same, diff := true, false
	for k := 0; k < 100; k++ {
		va, vb, vc := a.Uint64(), b.Uint64(), c.Uint64()
		same = same && va == vb
		diff = diff || va != vc
	}
	if !same || !diff {
		t.Errorf("seeded sources: same seed equal %v, different seeds differ %v", same, diff)
	}
}

func TestCryptoSourceSmoke(t *testing.T) {
	src := CryptoSource()
	first := src.Uint64()
	allEqual := true
	for k := 0; k < 1000; k++ {
		if src.Uint64() != first {
			allEqual = false
		}
		if f := Uniform01(src); f < 0 || f >= 1 {
			t.Fatalf("Uniform01 = %v outside [0,1)", f)
		}
		if v := UniformInt(src, 7); v < 0 || v >= 7 {
			t.Fatalf("uniformInt(7) = %d", v)
		}
	}
	if allEqual {
		t.Error("crypto source returned 1001 equal words")
	}
	// Output 3 has probability 0 in every row (0/0 constrains nothing).
	x := mat.NewDense(4, 4, []float64{
		0.5, 0.25, 0.25, 0,
		0.25, 0.5, 0.25, 0,
		0.25, 0.25, 0.5, 0,
		0.25, 0.25, 0.5, 0,
	})
	s, err := NewSampler(x, reftest.Clique(4), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 1000; k++ {
		o, err := s.Sample(2, src)
		if err != nil || o < 0 || o > 2 {
			t.Fatalf("crypto sample from row 2 = %d, %v (output 3 has probability 0)", o, err)
		}
	}
}

func TestAliasTableErrors(t *testing.T) {
	cases := []struct {
		name, want string
		f          func() error
	}{
		{"empty", "empty distribution", func() error { _, err := NewAliasTable(nil); return err }},
		{"NaN", "distribution[1] = NaN", func() error { _, err := NewAliasTable([]float64{0.5, math.NaN()}); return err }},
		{"sum", "distribution sums to", func() error { _, err := NewAliasTable([]float64{0.5, 0.6}); return err }},
	}
	for _, c := range cases {
		err := c.f()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// BenchmarkAliasSample: one draw from a 10^4-outcome table with the crypto
// source and with the seeded one.
func BenchmarkAliasSample(b *testing.B) {
	row, _ := PlanarLaplaceRow(100, 100, 1, 1, 5050)
	tab, _ := NewAliasTable(row)
	for _, c := range []struct {
		name string
		src  Source
	}{{"crypto", CryptoSource()}, {"seeded", SeededSource(1)}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				tab.Sample(c.src)
			}
		})
	}
}

package metric

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// ratOf is the exact rational value of a float64.
func ratOf(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }

// hypotErr bounds fl(step·Hypot(dx, dy)) against step·sqrt(dx²+dy²),
// decided exactly by squaring (d̂² <= (1+τ)²·step²·(dx²+dy²) and
// d̂² >= (1-τ)²·step²·(dx²+dy²) in rationals), for every offset up to
// 200×200 and random offsets up to 2^26, at steps 1, 0.3, 1/3 and a bbox
// grid's; the largest error seen is logged (about 2-3 ulps).
func TestGridHypotError(t *testing.T) {
	bbox, err := GeoGrid(100, 100, GeoBox{South: 48.80, West: 2.25, North: 48.90, East: 2.42}, 0, Euclid)
	if err != nil {
		t.Fatal(err)
	}
	hi, lo := ratOf(1+hypotErr), ratOf(1-hypotErr)
	hi.Mul(hi, hi)
	lo.Mul(lo, lo)
	rng := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	for _, step := range []float64{1, 0.3, 1.0 / 3, bbox.Step()} {
		g, _ := Grid(2, 2, step, Euclid)
		check := func(dx, dy int) {
			d := g.Offset([]int{dy, dx})
			exact := new(big.Rat).SetInt64(int64(dx)*int64(dx) + int64(dy)*int64(dy))
			exact.Mul(exact, ratOf(step))
			exact.Mul(exact, ratOf(step))
			d2 := new(big.Rat).Mul(ratOf(d), ratOf(d))
			if d2.Cmp(new(big.Rat).Mul(exact, hi)) > 0 || d2.Cmp(new(big.Rat).Mul(exact, lo)) < 0 {
				t.Fatalf("step %v, offset (%d,%d): d̂ = %v beyond a relative %g of step·sqrt(%v)", step, dx, dy, d, hypotErr, exact.FloatString(3))
			}
			if e, _ := exact.Float64(); e > 0 {
				worst = max(worst, math.Abs(d/math.Sqrt(e)-1))
			}
		}
		for dx := 0; dx <= 200; dx++ {
			for dy := 0; dy <= 200; dy++ {
				check(dx, dy)
			}
		}
		for range 20000 {
			check(rng.IntN(1<<26), rng.IntN(1<<26))
		}
	}
	t.Logf("largest relative error seen %.3g = %.2f·2^-53 (bound %.2f·2^-53)", worst, worst*0x1p53, hypotErr*0x1p53)
}

// The grid's Defect covers the float64 triangle defects, decided exactly:
// the 100×100 grid's distances break the triangle inequality (the triple
// the note named, d(9328,2863) > d(5449,9328) + d(5449,2863)), so a
// zero Defect would be wrong, yet d̂(h,k) - d̂(i,k) <= (1+δ)·d̂(i,h) holds
// there and on random triples of grids with steps 1 and 0.3 and a bbox
// grid, and on every triple of a 9×7 grid with step 0.3.
func TestGridDefectBound(t *testing.T) {
	holds := func(g *GridMetric, b RoundingBound, i, h, k int) bool {
		l := new(big.Rat).Sub(ratOf(g.Dist(h, k)), ratOf(g.Dist(i, k)))
		r := new(big.Rat).Mul(ratOf(g.Dist(i, h)), new(big.Rat).Add(big.NewRat(1, 1), ratOf(b.Defect)))
		return l.Cmp(r) <= 0
	}
	g, _ := Grid(100, 100, 1, Euclid)
	b, ok := g.DistRounding()
	if !ok || !(b.Defect > 0) || b.Defect > 1e-12 || b.MinDist != 1 {
		t.Fatalf("bound %+v, %v", b, ok)
	}
	i, h, k := 5449, 9328, 2863
	sum := new(big.Rat).Add(ratOf(g.Dist(i, h)), ratOf(g.Dist(i, k)))
	if ratOf(g.Dist(h, k)).Cmp(sum) <= 0 {
		t.Errorf("d(%d,%d) <= d(%d,%d) + d(%d,%d): the known violation is gone", h, k, i, h, i, k)
	}
	if !holds(g, b, i, h, k) {
		t.Errorf("the bound fails on the known violation")
	}
	bbox, _ := GeoGrid(1000, 1000, GeoBox{South: 48.80, West: 2.25, North: 48.90, East: 2.42}, 0, Euclid)
	g3, _ := Grid(1000, 1000, 0.3, Euclid)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, g := range []*GridMetric{g, g3, bbox} {
		b, _ := g.DistRounding()
		n := g.Len()
		for range 30000 {
			i, h, k := rng.IntN(n), rng.IntN(n), rng.IntN(n)
			if i != h && !holds(g, b, i, h, k) {
				t.Fatalf("%s: bound %+v fails at (%d,%d,%d)", g, b, i, h, k)
			}
		}
	}
	small, _ := Grid(9, 7, 0.3, Euclid)
	sb, _ := small.DistRounding()
	n := small.Len()
	for i := range n {
		for h := range n {
			if h == i {
				continue
			}
			if small.Dist(i, h) < sb.MinDist {
				t.Fatalf("d(%d,%d) = %v below MinDist %v", i, h, small.Dist(i, h), sb.MinDist)
			}
			for k := range n {
				if !holds(small, sb, i, h, k) {
					t.Fatalf("9×7: bound fails at (%d,%d,%d)", i, h, k)
				}
			}
		}
	}
}

// L1 is a lower bound of Offset(delta)/|delta|_1, exactly, for every offset
// of small lattices of each kind, and close to the best one.
func TestLatticeL1Bound(t *testing.T) {
	mk := func(m Lattice, err error) Lattice {
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, c := range []struct {
		lat  Lattice
		best float64 // the infimum of Offset/|delta|_1
	}{
		{mk(Grid(60, 50, 0.3, Euclid)), 0.3 / math.Sqrt2},
		{mk(Grid(60, 50, 1, Chebyshev)), 0.5},
		{mk(Grid(60, 50, 0.7, Manhattan)), 0.7},
		{mk(Sum(30, 7)), 1.0 / 7},
		{mk(KCount(5, 3)), 1.0 / 3},
		{mk(Line(40)), 1},
	} {
		b, ok := DistRounding(c.lat)
		if !ok || !(b.L1 > 0) || b.L1 > c.best || b.L1 < c.best*(1-1e-9) {
			t.Fatalf("%s: L1 %v (%v), best %v", c.lat, b.L1, ok, c.best)
		}
		dims := c.lat.Dims()
		off := make([]int, len(dims))
		var walk func(j int)
		walk = func(j int) {
			if j == len(dims) {
				l1 := 0
				for _, v := range off {
					l1 += absInt(v)
				}
				lhs := new(big.Rat).Mul(ratOf(b.L1), new(big.Rat).SetInt64(int64(l1)))
				if ratOf(c.lat.Offset(off)).Cmp(lhs) < 0 {
					t.Fatalf("%s: Offset(%v) = %v < L1·%d", c.lat, off, c.lat.Offset(off), l1)
				}
				return
			}
			for v := -(dims[j] - 1); v < dims[j]; v++ {
				off[j] = v
				walk(j + 1)
			}
		}
		walk(0)
	}
}

// Integer metrics have Defect 0 and MinDist 1; a distance matrix's Defect
// covers NewMatrix's tolerance; every built-in metric of a spec has a bound.
func TestDistRoundingKinds(t *testing.T) {
	for _, spec := range []string{"line:n=5", "ring:n=6", "clique:n=4", "sum:u=3,v=2", "kcount:u=3,k=2", "hamming:u=3,v=2", "grid:w=3,h=4,step=2,norm=manhattan"} {
		m, err := Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		b, ok := DistRounding(m)
		_, isGrid := m.(*GridMetric)
		if !ok || (!isGrid && b.Defect != 0) || b.MinDist <= 0 {
			t.Errorf("%s: %+v, %v", spec, b, ok)
		}
	}
	mm, err := NewMatrix([][]float64{{0, 1, 2.5}, {1, 0, 1.5}, {2.5, 1.5, 0}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := mm.DistRounding()
	if want := (TriangleTol + 0x1p-50) * (1 + 2.5); b.MinDist != 1 || b.Defect < want || b.Defect > want*(1+1e-9) {
		t.Errorf("matrix: %+v, want Defect about %v", b, want)
	}
}

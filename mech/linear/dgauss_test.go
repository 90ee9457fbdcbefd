package linear

import (
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"testing"
)

func u128(hi, lo uint64) *big.Int {
	v := new(big.Int).SetUint64(hi)
	return v.Lsh(v, 64).Add(v, new(big.Int).SetUint64(lo))
}

// TestDiv128 checks the 128-bit quotient and remainder against math/big on
// random operands of every pair of bit lengths and on the edges (B = 1,
// 2^64 - 1, 2^64, 2^128 - 1; A below B; quotients of 2^64 and more, which
// must be refused).
func TestDiv128(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 128))
	word := func(nbits int) (uint64, uint64) {
		hi, lo := r.Uint64(), r.Uint64()
		switch {
		case nbits == 0:
			return 0, 0
		case nbits <= 64:
			return 0, lo>>(64-nbits) | 1<<(nbits-1)
		default:
			return hi>>(128-nbits) | 1<<(nbits-65), lo
		}
	}
	type pair struct{ aHi, aLo, bHi, bLo uint64 }
	var cases []pair
	for la := 0; la <= 128; la++ {
		for lb := 1; lb <= 128; lb++ {
			for k := 0; k < 3; k++ {
				aHi, aLo := word(la)
				bHi, bLo := word(lb)
				cases = append(cases, pair{aHi, aLo, bHi, bLo})
			}
		}
	}
	m := uint64(math.MaxUint64)
	cases = append(cases, pair{m, m, 0, 1}, pair{m, m, 0, m}, pair{m, m, 1, 0}, pair{m, m, m, m}, pair{m, m - 1, m, m},
		pair{0, m, 1, 0}, pair{1, 0, 1, 0}, pair{0, 5, m, m}, pair{m - 1, m, 0, m}, pair{1 << 63, 0, 1 << 63, 1})
	for _, c := range cases {
		a, b := u128(c.aHi, c.aLo), u128(c.bHi, c.bLo)
		wq, wr := new(big.Int).QuoRem(a, b, new(big.Int))
		q, rHi, rLo, ok := div128(c.aHi, c.aLo, c.bHi, c.bLo)
		if wq.BitLen() > 64 {
			if ok {
				t.Fatalf("%v / %v: ok with a quotient of %d bits", a, b, wq.BitLen())
			}
			continue
		}
		if !ok || q != wq.Uint64() || u128(rHi, rLo).Cmp(wr) != 0 {
			t.Fatalf("%v / %v: got %d r %v ok %v, want %v r %v", a, b, q, u128(rHi, rLo), ok, wq, wr)
		}
	}
}

// chiSquareCritical is the upper 1e-6 quantile of the chi-square law with
// df degrees of freedom by the Wilson–Hilferty approximation
// (z = 4.7534, the standard normal's 1 - 1e-6 quantile).
func chiSquareCritical(df int) float64 {
	d := float64(df)
	v := 1 - 2/(9*d) + 4.7534*math.Sqrt(2/(9*d))
	return d * v * v * v
}

// dgPMF returns the exact discrete Gaussian probabilities exp(-y²/(2n))/Z
// for |y| <= lim, Z summed over |y| <= lim + 40√n + 40 (the rest is below
// e^-800).
func dgPMF(n float64, lim int) map[int]float64 {
	ext := lim + int(40*math.Sqrt(n)) + 40
	z := 0.0
	for y := -ext; y <= ext; y++ {
		z += math.Exp(-float64(y) * float64(y) / (2 * n))
	}
	p := make(map[int]float64)
	for y := -lim; y <= lim; y++ {
		p[y] = math.Exp(-float64(y)*float64(y)/(2*n)) / z
	}
	return p
}

// chiSquareFit returns the chi-square statistic and degrees of freedom of
// the counts against the probabilities p (cells of expectation >= 5; the
// rest, both tails included, pooled into one cell).
func chiSquareFit(counts map[int]int, p map[int]float64, draws int) (float64, int) {
	stat, cells := 0.0, 0
	restObs, restExp := 0.0, float64(draws)
	for y, q := range p {
		e := q * float64(draws)
		if e < 5 {
			continue
		}
		o := float64(counts[y])
		stat += (o - e) * (o - e) / e
		restObs -= o
		restExp -= e
		cells++
	}
	restObs += float64(draws)
	if restExp > 1e-9 {
		stat += (restObs - restExp) * (restObs - restExp) / restExp
		cells++
	}
	return stat, cells - 1
}

// TestDiscreteGaussianFixedPMF: empirical frequencies of the fixed-width
// sampler against the exact pmf exp(-y²/2σ²)/Z (computed directly) by a
// chi-square test at significance 1e-6, seeded, for σ² from 1 to 5000.
func TestDiscreteGaussianFixedPMF(t *testing.T) {
	const draws = 200000
	src := SeededSource(21)
	for _, n := range []uint64{1, 2, 3, 17, 400, 5000} {
		counts := make(map[int]int)
		for i := 0; i < draws; i++ {
			y, b := discreteGaussianFixed(src, n)
			if b != nil {
				t.Fatalf("σ² = %d: a big result %v", n, b)
			}
			counts[int(y)]++
		}
		p := dgPMF(float64(n), int(12*math.Sqrt(float64(n)))+12)
		stat, df := chiSquareFit(counts, p, draws)
		if crit := chiSquareCritical(df); stat > crit {
			t.Errorf("σ² = %d: chi-square %.1f on %d df, critical %.1f at 1e-6", n, stat, df, crit)
		}
	}
}

// TestDiscreteGaussianFixedMoments: mean 0 and variance σ² (the discrete
// Gaussian's variance is σ² within a relative e^-5000 for σ >= 16,
// docs/MATH.md §15.11) for large σ² up to the fixed-width limit 2^62 - 1:
// within 6 standard errors (the variance's relative standard error is
// √(2/N) for a Gaussian).
func TestDiscreteGaussianFixedMoments(t *testing.T) {
	const draws = 40000
	src := SeededSource(22)
	for _, n := range []uint64{1 << 32, 1<<40 + 12345, 1<<56 - 1, 1<<61 + 1<<33 + 7, dgFixedMax - 1} {
		sum, sq := 0.0, 0.0
		for i := 0; i < draws; i++ {
			y, b := discreteGaussianFixed(src, n)
			v := float64(y)
			if b != nil {
				v, _ = new(big.Float).SetInt(b).Float64()
			}
			sum += v
			sq += v * v
		}
		sigma := math.Sqrt(float64(n))
		if mean := sum / draws; math.Abs(mean) > 6*sigma/math.Sqrt(draws) {
			t.Errorf("σ² = %d: mean %.4g, σ %.4g", n, mean, sigma)
		}
		if r := sq / draws / float64(n); math.Abs(r-1) > 6*math.Sqrt(2.0/draws) {
			t.Errorf("σ² = %d: variance ratio %.4f", n, r)
		}
	}
}

// TestDiscreteGaussianFixedMatchesBig: the fixed-width sampler and the
// math/big sampler (discreteGaussian) draw the same law: a two-sample
// chi-square test of homogeneity on bins of width σ/4 (tails pooled),
// significance 1e-6, at σ² = 12345 and at a σ² that is not a perfect
// square near 2^20.
func TestDiscreteGaussianFixedMatchesBig(t *testing.T) {
	const draws = 30000
	src := SeededSource(23)
	for _, n := range []uint64{12345, 1<<20 + 3} {
		sigma := math.Sqrt(float64(n))
		bin := func(y float64) int { return max(-12, min(12, int(math.Floor(y/(sigma/4))))) }
		a, b := make(map[int]float64), make(map[int]float64)
		for i := 0; i < draws; i++ {
			y, _ := discreteGaussianFixed(src, n)
			a[bin(float64(y))]++
			b[bin(float64(discreteGaussian(src, new(big.Int).SetUint64(n), big.NewInt(1)).Int64()))]++
		}
		stat, df := 0.0, -1
		for k := -12; k <= 12; k++ {
			if a[k]+b[k] == 0 {
				continue
			}
			e := (a[k] + b[k]) / 2 // equal sample sizes
			stat += (a[k]-e)*(a[k]-e)/e + (b[k]-e)*(b[k]-e)/e
			df++
		}
		if crit := chiSquareCritical(df); stat > crit {
			t.Errorf("σ² = %d: two-sample chi-square %.1f on %d df, critical %.1f", n, stat, df, crit)
		}
	}
}

// TestBernoulliExp128: the frequency of bernoulliExp128(A, B) against
// exp(-A/B) for 128-bit A and B with A/B from 0 to 9 (floor and remainder
// both exercised), and dgAcceptBig (the math/big branch) against its
// exp(-(yt - n)²/(2nt²)), within 5 standard errors; a quotient of 2^64 or
// more (math/big) returns false (probability below e^-(2^64)).
func TestBernoulliExp128(t *testing.T) {
	const draws = 100000
	src := &bitSource{src: SeededSource(24)}
	r := rand.New(rand.NewPCG(2, 128))
	for _, g := range []float64{0, 0.03, 0.7, 1, 2.5, 9} {
		bHi, bLo := r.Uint64()>>4|1<<59, r.Uint64() // 2^123 <= B < 2^124
		b := u128(bHi, bLo)
		bf, _ := new(big.Float).SetInt(b).Float64()
		a, _ := new(big.Float).SetFloat64(g * bf).Int(nil)
		if g == 1 {
			a.Set(b)
		}
		af, _ := new(big.Float).SetInt(a).Float64()
		want := math.Exp(-af / bf)
		aHi := new(big.Int).Rsh(a, 64).Uint64()
		aLo := a.Uint64()
		hits := 0
		for i := 0; i < draws; i++ {
			if bernoulliExp128(src, aHi, aLo, bHi, bLo) {
				hits++
			}
		}
		if f := float64(hits) / draws; math.Abs(f-want) > 5*math.Sqrt(want*(1-want)/draws)+1e-12 {
			t.Errorf("γ = %g: frequency %.5f, want %.5f", g, f, want)
		}
	}
	// dgAcceptBig at y = 3t: γ = (3t² - n)²/(2nt²).
	n := uint64(1000003)
	tt := isqrt64(n) + 1
	y := 3 * tt
	d := float64(y*tt) - float64(n)
	want := math.Exp(-d * d / (2 * float64(n) * float64(tt) * float64(tt)))
	hits := 0
	for i := 0; i < draws; i++ {
		if dgAcceptBig(src, new(big.Int).SetUint64(y), tt, n) {
			hits++
		}
	}
	if f := float64(hits) / draws; math.Abs(f-want) > 5*math.Sqrt(want*(1-want)/draws) {
		t.Errorf("dgAcceptBig: frequency %.5f, want %.5f", f, want)
	}
	if bernoulliExp128(src, math.MaxUint64, 0, 0, 3) {
		t.Error("exp(-2^128/3) accepted")
	}
	// |yt - n| >= 2^64 goes to math/big (γ >= 2^128/2^125 = 8 here).
	n = dgFixedMax - 1
	tt = isqrt64(n) + 1
	hi, lo := bits.Mul64(n, tt*tt)
	if dgAccept(src, 1<<62-1, tt, n, hi<<1|lo>>63, lo<<1) {
		t.Error("exp(-huge) accepted")
	}
}

// TestDiscreteGaussianFixedRange: the limits of the fixed-width range are
// refused loudly (the callers use discreteGaussian outside them).
func TestDiscreteGaussianFixedRange(t *testing.T) {
	for _, n := range []uint64{0, dgFixedMax, math.MaxUint64} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("σ² = %d: no panic", n)
				}
			}()
			discreteGaussianFixed(SeededSource(1), n)
		}()
	}
	for _, n := range []uint64{0, 1, 2, 3, 4, 15, 16, 1<<62 - 1, math.MaxUint64, 1 << 52, 1<<52 + 1, (1<<32 - 1) * (1<<32 - 1)} {
		s := isqrt64(n)
		w := new(big.Int).Sqrt(new(big.Int).SetUint64(n))
		if s != w.Uint64() {
			t.Errorf("isqrt64(%d) = %d, want %v", n, s, w)
		}
	}
}

// TestResidualNoise: the grid and integer variance of a residual (s_T² from
// 1e-9 to 1e30): s an integer >= 2^32, e the least grid exponent giving
// that, and s·4^-e between s_T²(1 + 1e-12) and that times 1 + 2^-32.
func TestResidualNoise(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 32))
	for k := 0; k < 2000; k++ {
		s2 := math.Pow(10, -9+39*r.Float64())
		rn := newResidualNoise(s2)
		lo := s2 * (1 + 1e-12)
		if rn.s != math.Floor(rn.s) || rn.s < residualGridMin || rn.e < 0 {
			t.Fatalf("s_T² = %g: s = %v, e = %d", s2, rn.s, rn.e)
		}
		if v := rn.variance(); v < lo || v > lo*(1+math.Ldexp(1, -32))*(1+1e-15) {
			t.Fatalf("s_T² = %g: variance %v outside [%v, +2^-32]", s2, v, lo)
		}
		if rn.e > 0 && math.Ldexp(lo, 2*(rn.e-1)) >= residualGridMin {
			t.Fatalf("s_T² = %g: grid 2^-%d is finer than needed", s2, rn.e)
		}
	}
}

// TestResidualNoiseWide: the math/big branches of measure — an integer
// variance s·||h||² of 2^62 or more, and a residual too large for z·2^e + Y
// in an int64 — keep the mean and the variance (2000 draws of each entry of
// a 1×3 residual, within 6 standard errors).
func TestResidualNoiseWide(t *testing.T) {
	src := SeededSource(31)
	for _, c := range []struct {
		rn residualNoise
		z  int64
	}{
		{residualNoise{s: math.Ldexp(1, 70) + math.Ldexp(1, 20), e: 0}, 5},
		{residualNoise{s: math.Ldexp(1, 33) + 1, e: 4}, 1<<61 - 12345},
		{residualNoise{s: math.Ldexp(1, 60), e: 0}, -(1 << 62)},
	} {
		ns := []int{2, 4} // rows: ||h||² = 2·2, 2·6, 2·12
		z := []int64{c.z, c.z, c.z}
		noisy := make([]float64, 3)
		const draws = 2000
		var sum, sq [3]float64
		for k := 0; k < draws; k++ {
			c.rn.measure(src, z, ns, noisy)
			for q, v := range noisy {
				d := v - float64(c.z)
				sum[q] += d
				sq[q] += d * d
			}
		}
		for q, h := range []float64{4, 12, 24} {
			want := c.rn.variance() * h
			if m := sum[q] / draws; math.Abs(m) > 6*math.Sqrt(want/draws) {
				t.Errorf("s = %g, e = %d, z = %d, entry %d: mean error %g, sd %g", c.rn.s, c.rn.e, c.z, q, m, math.Sqrt(want))
			}
			if r := sq[q] / draws / want; math.Abs(r-1) > 6*math.Sqrt(2.0/draws) {
				t.Errorf("s = %g, e = %d, z = %d, entry %d: variance ratio %.4f", c.rn.s, c.rn.e, c.z, q, r)
			}
		}
	}
}

// TestBitSource: bit hands out the bits of consecutive words, lowest first
// (each uniform and independent when the words are), and oneIn(1) draws
// nothing.
func TestBitSource(t *testing.T) {
	b := &bitSource{src: SeededSource(8)}
	ref := SeededSource(8)
	for w := 0; w < 5; w++ {
		word := ref.Uint64()
		for i := 0; i < 64; i++ {
			if !b.oneIn(1) {
				t.Fatal("oneIn(1) false")
			}
			if got, want := b.bit(), word>>i&1 == 1; got != want {
				t.Fatalf("word %d bit %d: %v, want %v", w, i, got, want)
			}
		}
	}
}

// TestFracAgainstComparison: frac and frac128 return exactly [U < p] for
// the uniform U = 0.b1 b2 ... whose bits they read (p = num/den), checked
// by comparing U's first 128 bits with p in math/big (U·den < num·2^128)
// on random and boundary fractions; a draw that reads more than 128 bits
// (probability 2^-128) would be skipped.
func TestFracAgainstComparison(t *testing.T) {
	rng := SeededSource(21)
	two128 := new(big.Int).Lsh(big.NewInt(1), 128)
	check := func(num, den *big.Int, got bool, words [2]uint64) {
		t.Helper()
		u := new(big.Int).SetUint64(bits.Reverse64(words[0]))
		u.Lsh(u, 64).Add(u, new(big.Int).SetUint64(bits.Reverse64(words[1])))
		lhs := new(big.Int).Mul(u, den)
		rhs := new(big.Int).Mul(num, two128)
		if want := lhs.Cmp(rhs) < 0; got != want {
			t.Fatalf("p = %v/%v: frac %v, U < p is %v", num, den, got, want)
		}
	}
	for trial := 0; trial < 20000; trial++ {
		w := [2]uint64{rng.Uint64(), rng.Uint64()}
		// 64-bit: den in [1, 2^64), num < den, with boundary cases.
		den := rng.Uint64() >> (rng.Uint64() % 64)
		switch trial % 5 {
		case 0:
			den = math.MaxUint64
		case 1:
			den = 3
		}
		den = max(den, 1)
		num := rng.Uint64() % den
		if trial%7 == 0 {
			num = den - 1
		}
		b := &bitSource{src: &fixedWords{w: w[:]}}
		check(new(big.Int).SetUint64(num), new(big.Int).SetUint64(den), b.frac(num, den), w)
		// 128-bit: B < 2^125, r < B.
		bHi, bLo := rng.Uint64()>>3, rng.Uint64()
		if bHi == 0 && bLo == 0 {
			bLo = 1
		}
		bb := new(big.Int).SetUint64(bHi)
		bb.Lsh(bb, 64).Add(bb, new(big.Int).SetUint64(bLo))
		rr := new(big.Int).SetUint64(rng.Uint64())
		rr.Lsh(rr, 64).Add(rr, new(big.Int).SetUint64(rng.Uint64()))
		rr.Mod(rr, bb)
		if trial%11 == 0 {
			rr.Sub(bb, big.NewInt(1))
		}
		rLo := new(big.Int).And(rr, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
		rHi := new(big.Int).Rsh(rr, 64).Uint64()
		b = &bitSource{src: &fixedWords{w: w[:]}}
		check(rr, bb, b.frac128(rHi, rLo, bHi, bLo), w)
	}
}

// fixedWords is a Source handing out w in order, then zeros.
type fixedWords struct {
	w []uint64
	i int
}

func (f *fixedWords) Uint64() uint64 {
	if f.i >= len(f.w) {
		return 0
	}
	f.i++
	return f.w[f.i-1]
}

// TestBelowUniform: below(n) returns every value of [0, n) equally often
// over all bit patterns of its first tries: with n = 5 (3 bits a try) the
// 2^15 patterns of five tries give each value the same count among the
// patterns decided within them.
func TestBelowUniform(t *testing.T) {
	for _, n := range []uint64{1, 2, 5, 7, 12} {
		counts := make([]int, n)
		l := bits.Len64(n - 1)
		tries := 15 / max(l, 1)
		for pat := uint64(0); pat < 1<<(l*tries); pat++ {
			var v uint64
			ok := false
			for k := 0; k < tries && n > 1; k++ {
				x := pat >> (k * l) & (1<<l - 1)
				if x < n {
					v, ok = x, true
					break
				}
			}
			if n == 1 {
				v, ok = 0, true
			}
			if !ok {
				continue
			}
			// The same draw through below, fed the pattern's bits.
			b := &bitSource{src: &fixedWords{w: []uint64{reverseBits(pat, l, tries)}}}
			if got := b.below(n); got != v {
				t.Fatalf("n=%d pattern %b: below %d, want %d", n, pat, got, v)
			}
			counts[v]++
		}
		for v := range counts {
			if counts[v] != counts[0] {
				t.Fatalf("n=%d: counts %v not uniform", n, counts)
			}
		}
	}
}

// reverseBits lays out tries groups of l bits of pat so that bitSource
// reads each group's bits most significant first, as below builds v.
func reverseBits(pat uint64, l, tries int) uint64 {
	var w uint64
	pos := 0
	for k := 0; k < tries; k++ {
		x := pat >> (k * l) & (1<<l - 1)
		for i := l - 1; i >= 0; i-- {
			w |= (x >> i & 1) << pos
			pos++
		}
	}
	return w
}

package percol

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// repairCase is a random n×m iterate (irregular magnitudes, some negative
// entries) with per-column pairs of random ratios, the shape lp's
// constraint generation hands Repair.
func repairCase(n, m, perCol int, seed uint64) (*Factors, []float64) {
	rng := rand.New(rand.NewPCG(seed, seed+9))
	pairs := make([][]Pair, m)
	for o := range pairs {
		for range perCol {
			i, h := rng.IntN(n), rng.IntN(n)
			if i != h {
				pairs[o] = append(pairs[o], Pair{I: i, H: h, W: math.Exp(0.1 + 2*rng.Float64())})
			}
		}
	}
	x := make([]float64, n*m)
	for k := range x {
		x[k] = math.Ldexp(rng.Float64(), -rng.IntN(30)) - 0.01
	}
	return &Factors{N: n, Pairs: pairs}, x
}

// TestRepairFeasible: without a stop flag Repair returns a stochastic
// matrix on which every column's pairs hold exactly in floating point (the
// properties lp.Repair guarantees), and a stop flag left unset changes
// nothing.
func TestRepairFeasible(t *testing.T) {
	pc, x := repairCase(40, 30, 60, 1)
	y := append([]float64(nil), x...)
	tx, err := pc.Repair(x, 1e-9, nil)
	if err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	ty, err := pc.Repair(y, 1e-9, &stop)
	if err != nil || ty != tx {
		t.Fatalf("with an unset stop flag: t = %v, %v; without %v", ty, err, tx)
	}
	n, m := pc.N, len(pc.Pairs)
	for i := 0; i < n; i++ {
		s := 0.0
		for o := 0; o < m; o++ {
			if v := x[i*m+o]; !(v >= 0) || v != y[i*m+o] {
				t.Fatalf("X[%d][%d] = %v (%v with the flag)", i, o, v, y[i*m+o])
			}
			s += x[i*m+o]
		}
		if math.Abs(s-1) > 1e-13 {
			t.Fatalf("row %d sums to %v", i, s)
		}
	}
	for o, ps := range pc.Pairs {
		for _, q := range ps {
			if x[q.I*m+o] > q.W*x[q.H*m+o] {
				t.Fatalf("column %d: pair (%d,%d) violated", o, q.I, q.H)
			}
		}
	}
}

// TestRepairStopped: with the stop flag set Repair gives up at its first
// check (within stopEvery pairs) and returns ErrStopped; set from another
// goroutine during the scans of a large case, it returns ErrStopped too
// (or the result, when the repair finished first). A hang guard of one
// minute fails the test.
func TestRepairStopped(t *testing.T) {
	pc, x := repairCase(300, 300, 3000, 2)
	var stop atomic.Bool
	stop.Store(true)
	if _, err := pc.Repair(append([]float64(nil), x...), 1e-9, &stop); !errors.Is(err, ErrStopped) {
		t.Fatalf("stop set: %v, want ErrStopped", err)
	}
	stop.Store(false)
	done := make(chan error, 1)
	go func() {
		_, err := pc.Repair(x, 1e-9, &stop)
		done <- err
	}()
	stop.Store(true)
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, ErrStopped) {
			t.Fatalf("stopped during the scans: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Repair did not return within a minute of the stop")
	}
}

// TestScatterFold: scatterRows of two symmetric matrices in two random
// orders, then FoldUpper, gives the upper triangle of their sum in the
// row numbering, S[perm[a]][perm[b]] = Σ z[a][b], computed entry by entry
// from the full matrices.
func TestScatterFold(t *testing.T) {
	rng := rand.New(rand.NewPCG(95, 96))
	const n = 37
	acc := make([]float64, n*n)
	want := make([]float64, n*n)
	for range 2 {
		perm := rng.Perm(n)
		z := make([]float64, n*n)
		for a := 0; a < n; a++ {
			for b := a; b < n; b++ {
				z[a*n+b] = rng.NormFloat64()
				z[b*n+a] = z[a*n+b]
			}
		}
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				want[perm[a]*n+perm[b]] += z[a*n+b]
			}
		}
		upper := slices.Clone(z)
		for a := 0; a < n; a++ {
			for b := 0; b < a; b++ {
				upper[a*n+b] = math.NaN() // scatterRows reads the upper triangle only
			}
		}
		scatterRows(acc, upper, perm, n)
	}
	FoldUpper(acc, n)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if d := math.Abs(acc[i*n+j] - want[i*n+j]); d > 1e-14 {
				t.Fatalf("S[%d][%d] = %v, want %v", i, j, acc[i*n+j], want[i*n+j])
			}
		}
	}
}

// TestSharedAnalysisInverse: columns with the same pairs as column 0 share
// its analysis (the same order) but get numeric factors of their own;
// every column's H_o^{-1}, added by Factor with an accumulator or by a
// Factor without one and AddInverse after it, matches the inverse of the
// dense H_o = diag(d) + G_oᵀ diag(w) G_o (gonum's LU), and Solve matches
// it on a vector.
func TestSharedAnalysisInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(97, 98))
	const n = 24
	graph := func() []Pair {
		var ps []Pair
		for i := 1; i < n; i++ { // a random tree, then random chords
			h := rng.IntN(i)
			w := math.Exp(0.2 + rng.Float64())
			ps = append(ps, Pair{I: i, H: h, W: w}, Pair{I: h, H: i, W: w})
		}
		for range n {
			if i, h := rng.IntN(n), rng.IntN(n); i != h {
				ps = append(ps, Pair{I: i, H: h, W: math.Exp(0.2 + 2*rng.Float64())})
			}
		}
		return ps
	}
	common := graph()
	pairs := [][]Pair{common, slices.Clone(common), graph(), slices.Clone(common)}
	par := func(count int, f func(int)) {
		for o := range count {
			f(o)
		}
	}
	pc, _, err := New(context.Background(), n, pairs, 1, nil, 0, par)
	if err != nil {
		t.Fatal(err)
	}
	pc.Alloc(1)
	if !slices.Equal(pc.Cols[1].Perm, pc.Cols[0].Perm) || !slices.Equal(pc.Cols[3].Perm, pc.Cols[0].Perm) {
		t.Fatal("columns 1 and 3 do not share column 0's order")
	}
	if &pc.Cols[1].LDL.L[0] == &pc.Cols[0].LDL.L[0] {
		t.Fatal("columns 0 and 1 share their numeric factor")
	}
	for o, ps := range pairs {
		diag := make([]float64, n)
		for i := range diag {
			diag[i] = math.Ldexp(0.5+rng.Float64(), rng.IntN(8)-4)
		}
		wt := make([]float64, len(ps))
		for k := range wt {
			wt[k] = math.Ldexp(0.5+rng.Float64(), rng.IntN(10)-5)
		}
		h := mat.NewDense(n, n, nil)
		for i, v := range diag {
			h.Set(i, i, v)
		}
		for k, q := range ps {
			// (e_I - W e_H)(e_I - W e_H)ᵀ times wt[k]
			h.Set(q.I, q.I, h.At(q.I, q.I)+wt[k])
			h.Set(q.H, q.H, h.At(q.H, q.H)+wt[k]*q.W*q.W)
			h.Set(q.I, q.H, h.At(q.I, q.H)-wt[k]*q.W)
			h.Set(q.H, q.I, h.At(q.H, q.I)-wt[k]*q.W)
		}
		var inv mat.Dense
		if err := inv.Inverse(h); err != nil {
			t.Fatal(err)
		}
		for _, late := range []bool{false, true} {
			acc := make([]float64, n*n)
			if late {
				pc.Factor(o, 0, diag, wt, nil, false)
				pc.AddInverse(o, 0, acc)
			} else {
				pc.Factor(o, 0, diag, wt, acc, false)
			}
			FoldUpper(acc, n)
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ {
					if d := math.Abs(acc[i*n+j] - inv.At(i, j)); d > 1e-10*math.Abs(inv.At(i, i)) {
						t.Fatalf("column %d (AddInverse after Factor: %v): inverse[%d][%d] = %v, want %v", o, late, i, j, acc[i*n+j], inv.At(i, j))
					}
				}
			}
		}
		r := make([]float64, n)
		for i := range r {
			r[i] = rng.NormFloat64()
		}
		var want mat.VecDense
		want.MulVec(&inv, mat.NewVecDense(n, slices.Clone(r)))
		pc.Solve(o, 0, r)
		for i, v := range r {
			if d := math.Abs(v - want.AtVec(i)); d > 1e-10*math.Abs(inv.At(i, i)) {
				t.Fatalf("column %d: Solve gives %v at %d, want %v", o, v, i, want.AtVec(i))
			}
		}
	}
}

// treeColumns returns m random pair lists on n rows: a random tree (both
// directions, ratio 2), then chords(o) random draws of a chord (ratio 3).
func treeColumns(rng *rand.Rand, n, m int, chords func(o int) int) [][]Pair {
	pairs := make([][]Pair, m)
	for o := range pairs {
		for i := 1; i < n; i++ {
			h := rng.IntN(i)
			pairs[o] = append(pairs[o], Pair{I: i, H: h, W: 2}, Pair{I: h, H: i, W: 2})
		}
		for range chords(o) {
			if i, h := rng.IntN(n), rng.IntN(n); i != h {
				pairs[o] = append(pairs[o], Pair{I: i, H: h, W: 3})
			}
		}
	}
	return pairs
}

// seqPar runs f on 0..count-1 in order.
func seqPar(count int, f func(int)) {
	for o := range count {
		f(o)
	}
}

// TestNewLimit: with a limit, New stops once the bytes of the columns
// analysed and the scratch pass it: ErrOverLimit, a count above the limit
// and at most the full need less the band reserve (New without a limit),
// exceeding the limit by at most one column's bytes when the columns go
// one at a time; a limit of that need itself passes.
func TestNewLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(99, 100))
	const n, m = 30, 12
	pairs := treeColumns(rng, n, m, func(int) int { return 2 * n })
	ctx := context.Background()
	base := func(ps [][]Pair) float64 {
		pc, need, err := New(ctx, n, ps, 1, nil, 0, seqPar)
		if err != nil {
			t.Fatal(err)
		}
		return need - pc.BandReserve
	}
	full := base(pairs)
	if _, _, err := New(ctx, n, pairs, 1, nil, full, seqPar); err != nil {
		t.Fatalf("limit = need %g: %v", full, err)
	}
	// The largest column's bytes: the need less that without it.
	var most float64
	for o := range pairs {
		most = max(most, full-base(slices.Concat(pairs[:o], pairs[o+1:])))
	}
	if !(most > 0) {
		t.Fatalf("column bytes %g", most)
	}
	for _, limit := range []float64{full / 2, full - 1, 1} {
		pc, need, err := New(ctx, n, pairs, 1, nil, limit, seqPar)
		if !errors.Is(err, ErrOverLimit) || pc != nil {
			t.Fatalf("limit %g: err %v, factors %v", limit, err, pc != nil)
		}
		if !(need > limit && need <= full) {
			t.Errorf("limit %g: counted %g, want in (limit, %g]", limit, need, full)
		}
		if limit > 1 && need > limit+most {
			t.Errorf("limit %g: counted %g, more than one column (%g) past it", limit, need, most)
		}
	}
}

// TestBandLimit: the QR fallback's bands and scratch are counted against
// SetBandLimit. BandReserve is the bands of the ceil(m/16) widest columns
// and one worker's scratch for the widest, by hand; with every column
// forced to QR, an unlimited run uses every band and the final scratch
// (by hand), a limit of exactly that passes, and a limit a byte short
// leaves a column unfactored (BandShort) without passing the limit.
func TestBandLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(101, 102))
	const n, m = 28, 20
	pairs := treeColumns(rng, n, m, func(o int) int { return o })
	run := func(limit float64) *Factors {
		pc, _, err := New(context.Background(), n, pairs, 1, nil, 0, seqPar)
		if err != nil {
			t.Fatal(err)
		}
		pc.Alloc(1)
		if limit > 0 {
			pc.SetBandLimit(limit)
		}
		diag := make([]float64, n)
		for i := range diag {
			diag[i] = 1
		}
		for o := range pairs {
			wt := make([]float64, len(pairs[o]))
			for k := range wt {
				wt[k] = 1
			}
			pc.Factor(o, 0, diag, wt, nil, true)
		}
		return pc
	}
	pc := run(0)
	var bands []float64
	var sum float64
	bw := 0
	for o := range pc.Cols {
		b := 8 * float64(n) * float64(pc.Cols[o].bw+1)
		bands, sum, bw = append(bands, b), sum+b, max(bw, pc.Cols[o].bw)
	}
	scratch := 8 * (2*float64(n)*float64(bw+1) + float64(n+bw+1))
	slices.Sort(bands)
	if want := bands[m-1] + bands[m-2] + scratch; pc.BandReserve != want { // ceil(20/16) = 2 bands
		t.Errorf("reserve %g, want %g", pc.BandReserve, want)
	}
	if pc.BandShort() || pc.BandUsed() != sum+scratch {
		t.Fatalf("unlimited: short %v, used %g, want %g", pc.BandShort(), pc.BandUsed(), sum+scratch)
	}
	if pc := run(sum + scratch); pc.BandShort() {
		t.Errorf("a limit of the bytes used: short")
	}
	pc = run(sum + scratch - 1)
	if !pc.BandShort() || pc.BandUsed() > sum+scratch-1 {
		t.Errorf("a byte short: short %v, used %g", pc.BandShort(), pc.BandUsed())
	}
}

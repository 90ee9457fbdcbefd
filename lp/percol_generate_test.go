package lp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestScanViolations: the column-parallel scan of scanViolations, on 1 to
// 3 workers, gives what a plain scan by pairs gives (the loop written out
// below): the count of strict violations, the most violated pair per
// column and row as I and as H, and in a tight round every significant
// (pair, column), in the same order within each column (none when the
// round does not take every violation). A random X on
// 30 random points (every ordered pair listed), 70 of 90 columns active,
// a fifth of the (pair, column) memberships set (each column's list in
// random order, two columns with equal lists); and a cancelled context
// returns its error.
func TestScanViolations(t *testing.T) {
	const n, m = 30, 90
	p, _ := randomPlanar(n, 7, 1)
	p.M, p.C = m, make([]float64, n*m)
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, n*m)
	for k := range x {
		x[k] = rng.Float64() * rng.Float64()
	}
	in := make([]bool, len(p.Pairs)*m) // in[k*m+c]: pair k is in column c
	cols := make([][]int, m)
	for c := range m {
		for _, k := range rng.Perm(len(p.Pairs)) {
			if rng.IntN(5) == 0 {
				cols[c] = append(cols[c], k)
			}
		}
	}
	cols[1] = slices.Clone(cols[0])
	for c, ks := range cols {
		for _, k := range ks {
			in[k*m+c] = true
		}
	}
	member, err := newColMembers(len(p.Pairs), cols)
	if err != nil {
		t.Fatal(err)
	}
	act := rng.Perm(m)[:70]
	slices.Sort(act)
	for _, tight := range []bool{false, true} {
		const thresh = 1e-3
		// The plain scan by pairs.
		wantI, wantH := fresh(n*m), fresh(n*m)
		var wantExtra [][2]int
		wantViol := 0
		for k, q := range p.Pairs {
			wn := q.W
			if !tight {
				wn *= 1 - nearSlack
			}
			for _, c := range act {
				xi, xh := x[q.I*m+c], x[q.H*m+c]
				a := xi - wn*xh
				if a <= 0 || in[k*m+c] {
					continue
				}
				if xi > q.W*xh {
					wantViol++
				}
				tw := a / (a + (q.W-1)/m)
				if tw < thresh {
					continue
				}
				if tight {
					wantExtra = append(wantExtra, [2]int{k, c})
				}
				if b := &wantI[c*n+q.I]; tw > b.t {
					*b = violCand{k, tw}
				}
				if b := &wantH[c*n+q.H]; tw > b.t {
					*b = violCand{k, tw}
				}
			}
		}
		if wantViol == 0 || (tight && len(wantExtra) == 0) {
			t.Fatalf("tight %v: %d violations, %d extra: the case tests nothing", tight, wantViol, len(wantExtra))
		}
		for workers := 1; workers <= 3; workers++ {
			byI, byH := fresh(n*m), fresh(n*m)
			viol, extra, err := scanViolations(context.Background(), p, x, act, member, tight, tight, thresh, byI, byH, nil, workers)
			if err != nil {
				t.Fatal(err)
			}
			if viol != wantViol || !slices.Equal(byI, wantI) || !slices.Equal(byH, wantH) {
				t.Errorf("tight %v, %d workers: %d violations (want %d), candidates equal: %v %v", tight, workers, viol, wantViol, slices.Equal(byI, wantI), slices.Equal(byH, wantH))
			}
			if !slices.Equal(byColumn(extra, m), byColumn(wantExtra, m)) || len(extra) != len(wantExtra) {
				t.Errorf("tight %v, %d workers: %d extra (want %d), or in another order within a column", tight, workers, len(extra), len(wantExtra))
			}
		}
		// A tight round that does not take every violation (takeEvery):
		// the same candidates, nothing in extra.
		if tight {
			byI, byH := fresh(n*m), fresh(n*m)
			viol, extra, err := scanViolations(context.Background(), p, x, act, member, true, false, thresh, byI, byH, nil, 2)
			if err != nil {
				t.Fatal(err)
			}
			if viol != wantViol || !slices.Equal(byI, wantI) || !slices.Equal(byH, wantH) || len(extra) != 0 {
				t.Errorf("tight, not every: %d violations (want %d), candidates equal %v %v, %d extra (want 0)", viol, wantViol, slices.Equal(byI, wantI), slices.Equal(byH, wantH), len(extra))
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := scanViolations(ctx, p, x, act, member, true, true, 1e-3, fresh(n*m), fresh(n*m), nil, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v", err)
	}
}

// fresh returns k candidates with no pair.
func fresh(k int) []violCand {
	v := make([]violCand, k)
	for i := range v {
		v[i] = violCand{-1, 0}
	}
	return v
}

// byColumn lists the pairs of extra column by column, each column's in
// the order extra has them.
func byColumn(extra [][2]int, m int) []int {
	cols := make([][]int, m)
	for _, e := range extra {
		cols[e[1]] = append(cols[e[1]], e[0])
	}
	var out []int
	for c, ks := range cols {
		out = append(out, -1-c)
		out = append(out, ks...)
	}
	return out
}

// BenchmarkScanViolations/workers=W: the separation's scan of a loose
// round at 1,000 random points in a 10 km square (eps 1, every ordered
// pair) over 500 active columns of a random X, on W goroutines.
func BenchmarkScanViolations(b *testing.B) {
	const n = 1000
	rng := rand.New(rand.NewPCG(85, 86))
	xs, ys := planePoints(rng, n, 10)
	pairs := make([]Pair, 0, n*(n-1))
	for i := range n {
		for h := range n {
			if i != h {
				pairs = append(pairs, Pair{I: i, H: h, W: math.Exp(math.Hypot(xs[i]-xs[h], ys[i]-ys[h]))})
			}
		}
	}
	p := &Problem{N: n, M: n, C: make([]float64, n*n), Pairs: pairs}
	x := make([]float64, n*n)
	for k := range x {
		x[k] = rng.ExpFloat64() / n
	}
	act := make([]int, 0, n/2)
	for c := 0; c < n; c += 2 {
		act = append(act, c)
	}
	member, err := newColMembers(len(pairs), make([][]int, n))
	if err != nil {
		b.Fatal(err)
	}
	byI, byH := fresh(n*n), fresh(n*n)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := scanViolations(context.Background(), p, x, act, member, false, false, 1e-8, byI, byH, nil, w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestTakeEvery: a round adds every significant violation only when tight
// and solved below looseTol (1e-3; docs/MATH.md §11.7, Separation): the
// tight rounds at Tol 1e-6 (solved to 1e-4 and below) do, those at Tol
// 1e-2 (solved to Tol/2 and Tol/4) and loose ones do not.
func TestTakeEvery(t *testing.T) {
	for _, c := range []struct {
		tight bool
		tol   float64
		want  bool
	}{
		{true, 1e-4, true}, {true, 5e-7, true}, {true, 9.9e-4, true},
		{true, 1e-3, false}, {true, 5e-3, false}, {true, 2.5e-3, false},
		{false, 1e-6, false}, {false, 1e-2, false},
	} {
		if got := takeEvery(c.tight, c.tol); got != c.want {
			t.Errorf("takeEvery(%v, %v) = %v, want %v", c.tight, c.tol, got, c.want)
		}
	}
}

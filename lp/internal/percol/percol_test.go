package percol

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"
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

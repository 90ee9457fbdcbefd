package backend_test

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/optdp/optdp/backend"
)

// indefinite is an n×n symmetric matrix with entries 1/(1+|i-j|) off the
// diagonal and (-1)^i·2n on it: diagonally dominant, hence nonsingular,
// with n/2 negative eigenvalues, so Cholesky fails and the LU runs.
func indefinite(n int) *mat.SymDense {
	s := mat.NewSymDense(n, nil)
	raw := s.RawSymmetric()
	for i := range n {
		for j := i; j < n; j++ {
			v := 1 / float64(1+j-i)
			if i == j {
				v = 2 * float64(n) * float64(1-2*(i%2))
			}
			raw.Data[i*raw.Stride+j] = v
		}
	}
	return s
}

// TestSymFactorLU: the panel LU of SymFactor (LUStop) on random indefinite
// symmetric matrices of orders across the panel width, against gonum's
// mat.LU (an independent factorisation): the same reciprocal condition
// estimate (dgecon from ||A||_1, as mat.LU.Cond) to 1e-6 relative and
// solutions, by SolveTo and SolveVecTo, whose residual
// ||AX - B||/(||A|| ||X||) is at rounding level.
func TestSymFactorLU(t *testing.T) {
	rnd := newRand(7)
	for _, n := range []int{1, 2, 63, 64, 65, 130, 257} {
		a := randSym(rnd, n, 0) // zero diagonal shift: indefinite
		b := randDense(rnd, n, 3)
		var f backend.SymFactor
		// A context that can be cancelled: the LU in both builds (the
		// netlib build's Bunch–Kaufman runs only under one that cannot).
		ctx, cancel := context.WithCancel(context.Background())
		info, err := f.FactorizeContext(ctx, a)
		cancel()
		if n > 1 && info.Method != backend.LU {
			t.Fatalf("n=%d: method %q, want %q", n, info.Method, backend.LU)
		}
		var ref mat.LU
		ref.Factorize(a)
		if err != nil {
			if !errors.Is(err, backend.ErrSingular) || 1/ref.Cond() >= backend.MinRCond {
				t.Fatalf("n=%d: %v (gonum rcond %.3g)", n, err, 1/ref.Cond())
			}
			continue
		}
		if want := 1 / ref.Cond(); math.Abs(info.RCond-want) > 1e-6*want {
			t.Errorf("n=%d: rcond %.17g, gonum's %.17g", n, info.RCond, want)
		}
		var x mat.Dense
		if err := f.SolveTo(&x, b); err != nil {
			t.Fatal(err)
		}
		if r := relResidual(a, &x, b); r > 1e-12 {
			t.Errorf("n=%d: relative residual %.3g", n, r)
		}
		var v mat.VecDense
		if err := f.SolveVecTo(&v, b.ColView(1)); err != nil {
			t.Fatal(err)
		}
		// The vector solve may take other kernels than the matrix solve
		// (OpenBLAS: dtrsv against dtrsm), so it is held to the same
		// residual, not to the same bits.
		if r := relResidual(a, &v, b.ColView(1)); r > 1e-12 {
			t.Errorf("n=%d: SolveVecTo's relative residual %.3g", n, r)
		}
	}
}

// TestSymFactorLUSingular: an exactly singular indefinite matrix (two equal
// rows) is refused with ErrSingular, never solved into NaNs.
func TestSymFactorLUSingular(t *testing.T) {
	a := mat.NewSymDense(3, []float64{0, 1, 1, 1, 0, 0, 1, 0, 0})
	var f backend.SymFactor
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := f.FactorizeContext(ctx, a); !errors.Is(err, backend.ErrSingular) {
		t.Fatalf("err = %v, want ErrSingular", err)
	}
}

// TestLUStop: stop set before the start gives up at once; set 10 ms into
// an order-2500 factorisation (2n³/3 ≈ 10¹⁰ flops: seconds in pure Go),
// LUStop gives up; FactorizeContext returns the context's error for an
// indefinite matrix cancelled 10 ms in. The latency is logged, not
// asserted.
func TestLUStop(t *testing.T) {
	var stop atomic.Bool
	stop.Store(true)
	if _, stopped := backend.LUStop(2, []float64{0, 1, 1, 0}, 2, make([]int, 2), &stop); !stopped {
		t.Fatal("stop set before the start, and not stopped")
	}
	if testing.Short() {
		t.Skip("an order-2500 factorisation")
	}
	const n = 2500
	a := indefinite(n)
	ctx, cancel := context.WithCancel(context.Background())
	timer := time.AfterFunc(10*time.Millisecond, cancel)
	defer timer.Stop()
	start := time.Now()
	var f backend.SymFactor
	_, err := f.FactorizeContext(ctx, a)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled 10 ms in: err = %v (after %v), want context.Canceled", err, time.Since(start))
	}
	t.Logf("returned %v after the start", time.Since(start))
}

package solve

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// TestToeplitzMulVec compares the FFT product with the dense product on
// lattices of several shapes (odd, even, prime sizes, 1-D to 3-D).
func TestToeplitzMulVec(t *testing.T) {
	cases := []struct {
		dims []int
		k    func([]int) float64
	}{
		{[]int{1}, lineKernel(0.3)},
		{[]int{2}, lineKernel(0.3)},
		{[]int{37}, lineKernel(0.3)},
		{[]int{50}, sumKernel(0.2, 5)},
		{[]int{12, 9}, euclidKernel(0.5)},
		{[]int{7, 13}, manhattanKernel(0.1)},
		{[]int{10, 10}, chebyshevKernel(1.3)},
		{[]int{1, 17}, euclidKernel(0.5)},
		{[]int{5, 4, 3}, func(o []int) float64 { return math.Exp(-0.4 * math.Sqrt(float64(o[0]*o[0]+o[1]*o[1]+o[2]*o[2]))) }},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.dims), func(t *testing.T) {
			tp := mustToeplitz(t, tc.dims, tc.k)
			a := denseFromKernel(tc.dims, tc.k)
			n := tp.Len()
			x := make([]float64, n)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			got := make([]float64, n)
			tp.MulVec(got, x)
			var want mat.VecDense
			want.MulVec(a, mat.NewVecDense(n, x))
			if d := relDiff(got, want.RawVector().Data); d > 1e-12 {
				t.Errorf("FFT product differs from dense by %.3g (relative)", d)
			}
			// Second call reuses the workspaces and must give the same.
			again := make([]float64, n)
			tp.MulVec(again, x)
			if d := relDiff(again, got); d != 0 {
				t.Errorf("second product differs by %g", d)
			}
			for i := range n {
				for j := range n {
					if tp.At(i, j) != a.At(i, j) {
						t.Fatalf("At(%d,%d) = %v, want %v", i, j, tp.At(i, j), a.At(i, j))
					}
				}
			}
			// RoundingBound must cover the observed error.
			var diff float64
			for i := range got {
				e := got[i] - want.AtVec(i)
				diff += e * e
			}
			if rb := tp.RoundingBound(x); math.Sqrt(diff) > rb {
				t.Errorf("observed error %.3g exceeds RoundingBound %.3g", math.Sqrt(diff), rb)
			}
		})
	}
}

func TestToeplitzErrors(t *testing.T) {
	if _, err := NewToeplitz(nil, lineKernel(1)); !errors.Is(err, ErrShape) {
		t.Errorf("no dims: err = %v, want ErrShape", err)
	}
	if _, err := NewToeplitz([]int{3, 0}, lineKernel(1)); !errors.Is(err, ErrShape) {
		t.Errorf("zero dim: err = %v, want ErrShape", err)
	}
	if _, err := NewToeplitz([]int{4}, func([]int) float64 { return math.NaN() }); !errors.Is(err, ErrBadKernel) {
		t.Errorf("NaN kernel: err = %v, want ErrBadKernel", err)
	}
	called := false
	_, err := NewToeplitz([]int{1 << 20, 1 << 20}, func([]int) float64 { called = true; return 1 })
	if !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("2^40 points: err = %v, want run.ErrTooLarge", err)
	}
	if called {
		t.Error("kernel was evaluated before the memory check")
	}
}

func TestNextFast(t *testing.T) {
	for _, c := range [][2]int{{1, 1}, {7, 8}, {1999, 2000}, {2001, 2025}, {97, 100}, {121, 125}} {
		if got := nextFast(c[0]); got != c[1] {
			t.Errorf("nextFast(%d) = %d, want %d", c[0], got, c[1])
		}
	}
}

// TestToeplitzMulVecLarge covers the multi-worker FFT path (spectra above
// parallelFFTSize) against a direct product with a short kernel (zero
// beyond offset 3), in 1-D and 2-D.
func TestToeplitzMulVecLarge(t *testing.T) {
	short := func(o []int) float64 {
		s := 0
		for _, v := range o {
			if v > 3 {
				return 0
			}
			s += v
		}
		return 1 / float64(1+s)
	}
	rng := rand.New(rand.NewPCG(13, 14))
	for _, dims := range [][]int{{40000}, {150, 151}} {
		tp := mustToeplitz(t, dims, short)
		if len(tp.emb.plan.spec) < parallelFFTSize {
			t.Fatalf("%v: spectrum %d below the parallel threshold", dims, len(tp.emb.plan.spec))
		}
		n := tp.Len()
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		got := make([]float64, n)
		tp.MulVec(got, x)
		want := make([]float64, n)
		w := dims[0]
		h := n / w
		for i := range n {
			xi, yi := i%w, i/w
			for dy := -3; dy <= 3; dy++ {
				for dx := -3; dx <= 3; dx++ {
					xj, yj := xi+dx, yi+dy
					if xj < 0 || xj >= w || yj < 0 || yj >= h {
						continue
					}
					off := []int{abs(dx), abs(dy)}[:len(dims)]
					if len(dims) == 1 && dy != 0 {
						continue
					}
					want[i] += short(off) * x[yj*w+xj]
				}
			}
		}
		if d := relDiff(got, want); d > 1e-12 {
			t.Errorf("%v: FFT product differs from direct by %.3g", dims, d)
		}
	}
}

package solve

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestLineOnesExact verifies Phi z = 1 in exact rational arithmetic for
// a = 1/3: the closed form z = (1/(1+a), (1-a)/(1+a), ..., 1/(1+a)) is
// (3/4, 1/2, ..., 1/2, 3/4).
func TestLineOnesExact(t *testing.T) {
	a := big.NewRat(1, 3)
	for _, n := range []int{1, 2, 3, 7} {
		z := make([]*big.Rat, n)
		for i := range z {
			z[i] = big.NewRat(1, 2)
		}
		if n == 1 {
			z[0] = big.NewRat(1, 1)
		} else {
			z[0], z[n-1] = big.NewRat(3, 4), big.NewRat(3, 4)
		}
		for i := range n {
			s := new(big.Rat)
			for j := range n {
				p := big.NewRat(1, 1)
				for range abs(i - j) {
					p.Mul(p, a)
				}
				s.Add(s, p.Mul(p, z[j]))
			}
			if s.Cmp(big.NewRat(1, 1)) != 0 {
				t.Fatalf("n=%d: (Phi z)[%d] = %v, want 1", n, i, s)
			}
		}
		got, err := LineOnes(n, 1.0/3)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			w, _ := z[i].Float64()
			if math.Abs(got[i]-w) > 1e-15 {
				t.Errorf("n=%d: LineOnes[%d] = %v, want %v", n, i, got[i], w)
			}
		}
	}
}

// TestClosedFormsDense compares the closed forms with dense solves for
// several sizes and privacy levels, with ones and random right-hand sides.
func TestClosedFormsDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 5, 40} {
		for _, eps := range []float64{0.01, 0.5, 2} {
			a := math.Exp(-eps)
			b := make([]float64, n)
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			line := denseFromKernel([]int{n}, lineKernel(eps))
			ring := denseFromKernel([]int{n}, func(o []int) float64 { return math.Exp(-eps * float64(min(o[0], n-o[0]))) })
			clique := denseFromKernel([]int{n}, func(o []int) float64 {
				if o[0] == 0 {
					return 1
				}
				return a
			})
			check := func(name string, got []float64, err error, want []float64) {
				t.Helper()
				if err != nil {
					t.Fatalf("%s n=%d eps=%g: %v", name, n, eps, err)
				}
				if d := relDiff(got, want); d > 1e-8 {
					t.Errorf("%s n=%d eps=%g: differs from dense by %.3g", name, n, eps, d)
				}
			}
			z, err := LineSolve(a, b)
			check("LineSolve", z, err, denseSolve(t, line, b))
			z, err = LineOnes(n, a)
			check("LineOnes", z, err, denseSolve(t, line, ones(n)))
			z, err = CliqueSolve(a, b)
			check("CliqueSolve", z, err, denseSolve(t, clique, b))
			z, err = CliqueOnes(n, a)
			check("CliqueOnes", z, err, denseSolve(t, clique, ones(n)))
			z, err = RingSolve(a, b)
			check("RingSolve", z, err, denseSolve(t, ring, b))
			z, err = RingOnes(n, a)
			check("RingOnes", z, err, denseSolve(t, ring, ones(n)))
		}
	}
}

func TestClosedFormErrors(t *testing.T) {
	for _, a := range []float64{0, 1, -0.5, math.NaN(), math.Inf(1)} {
		if _, err := LineOnes(3, a); !errors.Is(err, ErrBadKernel) {
			t.Errorf("LineOnes a=%v: err = %v", a, err)
		}
		if _, err := CliqueSolve(a, ones(3)); !errors.Is(err, ErrBadKernel) {
			t.Errorf("CliqueSolve a=%v: err = %v", a, err)
		}
	}
	if _, err := RingOnes(0, 0.5); !errors.Is(err, ErrShape) {
		t.Errorf("RingOnes n=0: err = %v", err)
	}
	if _, err := LineSolve(0.5, nil); !errors.Is(err, ErrShape) {
		t.Errorf("LineSolve empty: err = %v", err)
	}
}

func ExampleLineOnes() {
	z, _ := LineOnes(5, math.Exp(-math.Log(3))) // eps = ln 3, a = 1/3
	fmt.Printf("%.4f\n", z)
	// Output: [0.7500 0.5000 0.5000 0.5000 0.7500]
}

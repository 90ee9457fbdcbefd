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

func symFromKernel(n int, k func(int) float64) *mat.SymDense {
	a := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			a.SetSym(i, j, k(j-i))
		}
	}
	return a
}

func cliqueMatrix(v int, a float64) *mat.SymDense {
	return symFromKernel(v, func(d int) float64 {
		if d == 0 {
			return 1
		}
		return a
	})
}

// denseKron forms the Kronecker product with gonum's mat.Dense.Kronecker.
func denseKron(fs ...*mat.SymDense) *mat.SymDense {
	var p mat.Dense
	p.CloneFrom(fs[0])
	for _, f := range fs[1:] {
		var q mat.Dense
		q.Kronecker(&p, f)
		p = q
	}
	n, _ := p.Dims()
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			s.SetSym(i, j, p.At(i, j))
		}
	}
	return s
}

// TestKronManhattan checks that line ⊗ line is the Manhattan grid's Phi (by
// comparing with the kernel built from coordinates), and that Kron's product
// and solve agree with the dense ones.
func TestKronManhattan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []float64{0.05, 0.7} {
		w, h := 7, 5
		lw := symFromKernel(w, func(d int) float64 { return math.Exp(-c * float64(d)) })
		lh := symFromKernel(h, func(d int) float64 { return math.Exp(-c * float64(d)) })
		k, err := NewKron(lh, lw)
		if err != nil {
			t.Fatal(err)
		}
		a := denseFromKernel([]int{w, h}, manhattanKernel(c))
		if !mat.EqualApprox(a, denseKron(lh, lw), 1e-15) {
			t.Fatal("L_H ⊗ L_W is not the Manhattan grid's Phi")
		}
		x := make([]float64, k.Len())
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		got := make([]float64, k.Len())
		k.MulVec(got, x)
		var want mat.VecDense
		want.MulVec(a, mat.NewVecDense(len(x), x))
		if d := relDiff(got, want.RawVector().Data); d > 1e-12 {
			t.Errorf("c=%g: MulVec differs from dense by %.3g", c, d)
		}
		res, err := k.Solve(x)
		if err != nil {
			t.Fatal(err)
		}
		if d := relDiff(res.Z, denseSolve(t, a, x)); d > 1e-8 {
			t.Errorf("c=%g: Solve differs from dense by %.3g", c, d)
		}
		if res.Residual > 1e-10 {
			t.Errorf("c=%g: residual %.3g", c, res.Residual)
		}
	}
}

// TestKronOnesHamming checks KronOnes on a Hamming space {0,1,2}^3 (clique
// factors, z = 1/(1+2a)^3 constant by the ball-size formula) and on three
// unequal factors including an indefinite one, against dense solves.
func TestKronOnesHamming(t *testing.T) {
	a := math.Exp(-0.4)
	f := cliqueMatrix(3, a)
	zs, err := KronOnes(f, f, f)
	if err != nil {
		t.Fatal(err)
	}
	want := math.Pow(1+2*a, -3)
	m, idx := MinProduct(zs)
	if math.Abs(m-want) > 1e-15 || len(idx) != 3 {
		t.Errorf("Hamming min z = %v at %v, want %v", m, idx, want)
	}
	// Unequal factors: a line, a sum-query Toeplitz (indefinite at c=0.05)
	// and a clique.
	f1 := symFromKernel(4, func(d int) float64 { return math.Exp(-0.3 * float64(d)) })
	f2 := symFromKernel(11, func(d int) float64 { return math.Exp(-0.05 * float64((d+4)/5)) })
	f3 := cliqueMatrix(3, 0.2)
	zs, err = KronOnes(f1, f2, f3)
	if err != nil {
		t.Fatal(err)
	}
	dense := denseSolve(t, denseKron(f1, f2, f3), ones(4*11*3))
	prod := make([]float64, 0, len(dense))
	for _, x := range zs[0] {
		for _, y := range zs[1] {
			for _, z := range zs[2] {
				prod = append(prod, x*y*z)
			}
		}
	}
	if d := relDiff(prod, dense); d > 1e-8 {
		t.Errorf("⊗ z_f differs from the dense solution by %.3g", d)
	}
	m, idx = MinProduct(zs)
	lo := math.Inf(1)
	for _, v := range dense {
		lo = min(lo, v)
	}
	if math.Abs(m-lo) > 1e-8*math.Abs(lo) || lo >= 0 {
		t.Errorf("MinProduct = %v, dense min = %v (want a negative min: the sum factor is indefinite)", m, lo)
	}
	if got := zs[0][idx[0]] * zs[1][idx[1]] * zs[2][idx[2]]; got != m {
		t.Errorf("index %v gives %v, not the minimum %v", idx, got, m)
	}
}

// TestMinProductBrute compares MinProduct with enumeration on random
// factors with mixed signs.
func TestMinProductBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 200 {
		d := 1 + rng.IntN(4)
		vals := make([][]float64, d)
		for f := range vals {
			vals[f] = make([]float64, 1+rng.IntN(4))
			for i := range vals[f] {
				vals[f][i] = math.Round(rng.NormFloat64()*4) / 4 // exact products
			}
		}
		brute := math.Inf(1)
		var rec func(f int, p float64)
		rec = func(f int, p float64) {
			if f == d {
				brute = min(brute, p)
				return
			}
			for _, v := range vals[f] {
				rec(f+1, p*v)
			}
		}
		rec(0, 1)
		got, idx := MinProduct(vals)
		p := 1.0
		for f, i := range idx {
			p *= vals[f][i]
		}
		if got != brute || p != got {
			t.Fatalf("trial %d: MinProduct(%v) = %v (index gives %v), want %v", trial, vals, got, p, brute)
		}
	}
}

func TestKronErrors(t *testing.T) {
	if _, err := NewKron(); !errors.Is(err, ErrShape) {
		t.Errorf("no factors: err = %v", err)
	}
	f := cliqueMatrix(4, 0.5)
	fs := make([]*mat.SymDense, 20)
	for i := range fs {
		fs[i] = f
	}
	k, err := NewKron(fs...) // 4^20 = 1.1e12 points
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Solve(nil); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("4^20 solve: err = %v, want run.ErrTooLarge", err)
	}
	sing := cliqueMatrix(2, 1) // [[1,1],[1,1]]
	if _, err := KronOnes(f, sing); err == nil {
		t.Error("singular factor: no error")
	}
	k2, _ := NewKron(f, f)
	if _, err := k2.Solve(ones(3)); !errors.Is(err, ErrShape) {
		t.Errorf("wrong length: err = %v", err)
	}
}

// ExampleKronOnes solves Phi z = 1 for the Hamming space {0..3}^20
// (4^20 ≈ 1.1e12 databases) at eps = 1 from twenty 4×4 clique factors.
func ExampleKronOnes() {
	a := math.Exp(-1.0)
	clique := mat.NewSymDense(4, nil)
	for i := range 4 {
		for j := i; j < 4; j++ {
			clique.SetSym(i, j, map[bool]float64{true: 1, false: a}[i == j])
		}
	}
	factors := make([]*mat.SymDense, 20)
	for i := range factors {
		factors[i] = clique
	}
	zs, _ := KronOnes(factors...)
	minZ, _ := MinProduct(zs)
	fmt.Printf("min z = %.6g, closed form (1+3a)^-20 = %.6g\n", minZ, math.Pow(1+3*a, -20))
	// Output: min z = 3.47199e-07, closed form (1+3a)^-20 = 3.47199e-07
}

package backend_test

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/optdp/optdp/backend"
)

// checkPenrose checks the four Moore–Penrose conditions for p = pinv(a):
// A P A = A, P A P = P, (A P)ᵀ = A P, (P A)ᵀ = P A.
func checkPenrose(t *testing.T, name string, a, p mat.Matrix) {
	t.Helper()
	ap, pa := naiveMul(a, p), naiveMul(p, a)
	scale := maxAbs(a) * maxAbs(p)
	for _, c := range []struct {
		what string
		got  float64
	}{
		{"|APA - A|/|A|", maxDiff(t, naiveMul(ap, a), a) / maxAbs(a)},
		{"|PAP - P|/|P|", maxDiff(t, naiveMul(pa, p), p) / maxAbs(p)},
		{"|AP - (AP)ᵀ|", maxDiff(t, ap, ap.T()) / scale},
		{"|PA - (PA)ᵀ|", maxDiff(t, pa, pa.T()) / scale},
	} {
		if !(c.got <= 1e-12) {
			t.Errorf("%s: %s = %.3g", name, c.what, c.got)
		}
	}
}

func TestPInv(t *testing.T) {
	rnd := newRand(8)
	for _, d := range [][3]int{{40, 25, 25}, {25, 40, 25}, {40, 25, 5}, {30, 30, 29}} {
		m, n, r := d[0], d[1], d[2]
		a := naiveMul(randDense(rnd, m, r), randDense(rnd, r, n)) // rank r
		p, rank, err := backend.PInv(a, 0)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%d×%d rank %d", m, n, r)
		if rank != r {
			t.Errorf("%s: rank %d", name, rank)
		}
		if pr, pc := p.Dims(); pr != n || pc != m {
			t.Fatalf("%s: pinv is %d×%d, want %d×%d", name, pr, pc, n, m)
		}
		checkPenrose(t, name, a, p)
	}
	// pinv(x yᵀ) = y xᵀ / (|x|²|y|²).
	x := mat.NewDense(3, 1, []float64{1, 2, 2})
	y := mat.NewDense(1, 4, []float64{0, 3, 0, 4})
	p, rank, err := backend.PInv(naiveMul(x, y), 0)
	if err != nil || rank != 1 {
		t.Fatalf("rank-one pinv: rank %d, %v", rank, err)
	}
	want := naiveMul(y.T(), x.T())
	want.Scale(1.0/225, want)
	if d := maxDiff(t, p, want); d > 1e-15 {
		t.Errorf("rank-one pinv off by %.3g: %v", d, mat.Formatted(p))
	}
	// The zero matrix has rank 0 and pseudo-inverse 0.
	if p, rank, err := backend.PInv(mat.NewDense(2, 3, nil), 0); err != nil || rank != 0 || maxAbs(p) != 0 {
		t.Errorf("pinv(0) = %v rank %d, %v", p, rank, err)
	}
	// A large rtol cuts singular values: diag(4, 1, 1e-3) with rtol 1e-2
	// has rank 2 and pseudo-inverse diag(1/4, 1, 0).
	p, rank, err = backend.PInv(mat.NewDense(3, 3, []float64{4, 0, 0, 0, 1, 0, 0, 0, 1e-3}), 1e-2)
	if err != nil || rank != 2 || maxDiff(t, p, mat.NewDense(3, 3, []float64{0.25, 0, 0, 0, 1, 0, 0, 0, 0})) > 1e-15 {
		t.Errorf("pinv(diag(4,1,1e-3), rtol 1e-2) = %v rank %d, %v", mat.Formatted(p), rank, err)
	}
}

func TestMul(t *testing.T) {
	rnd := newRand(9)
	a, b := randDense(rnd, 37, 23), randDense(rnd, 23, 41)
	c, err := backend.Mul(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(t, c, naiveMul(a, b)); d > 23*4*eps {
		t.Errorf("Mul differs from the triple loop by %.3g", d)
	}
	// A transposed view as an operand.
	c, err = backend.Mul(b.T(), a.T())
	if err != nil || maxDiff(t, c, naiveMul(b.T(), a.T())) > 23*4*eps {
		t.Errorf("Mul of transposes: %v", err)
	}
	// [[1 2] [3 4]]² = [[7 10] [15 22]].
	sq := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	if c, err := backend.Mul(sq, sq); err != nil || !mat.Equal(c, mat.NewDense(2, 2, []float64{7, 10, 15, 22})) {
		t.Errorf("[[1 2] [3 4]]² = %v, %v", c, err)
	}
	if math.IsNaN(c.At(0, 0)) {
		t.Error("NaN product")
	}
}

package solve

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/backend"
	"gonum.org/v1/gonum/mat"
)

// The second-difference matrix tridiag(-1, 2, -1) with b = A·(1, 2, ..., n)
// = (0, ..., 0, n+1) has the exact solution x_i = i+1.
func TestSolveBandedSecondDifference(t *testing.T) {
	const n = 50
	b := make([]float64, n)
	b[n-1] = n + 1
	entry := func(i, j int) float64 {
		switch j - i {
		case 0:
			return 2
		case 1:
			return -1
		}
		return 0
	}
	r, err := SolveBanded(n, 1, entry, b, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range r.Z {
		if math.Abs(v-float64(i+1)) > 1e-11*float64(n) {
			t.Fatalf("z[%d] = %v, want %d", i, v, i+1)
		}
	}
	if r.Solver != "banded-cholesky" || r.UnitNonneg || r.Norm != 4 || r.OffDiag != 2 {
		t.Errorf("solver %q unitNonneg %v norm %v offdiag %v, want banded-cholesky false 4 2", r.Solver, r.UnitNonneg, r.Norm, r.OffDiag)
	}
	// The condition number of tridiag(-1,2,-1) grows like n²: rcond must be
	// between 1/(4n²) and 1/n (the estimate is within a small factor).
	if r.RCond > 1.0/n || r.RCond < 1/(4.0*n*n) {
		t.Errorf("rcond %v outside [1/(4n²), 1/n]", r.RCond)
	}
}

// A random diagonally dominant band matrix: the banded solution matches a
// dense LU solve of the same matrix.
func TestSolveBandedMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ n, bw int }{{1, 0}, {7, 6}, {40, 3}, {120, 10}} {
		dense := mat.NewSymDense(c.n, nil)
		for i := 0; i < c.n; i++ {
			dense.SetSym(i, i, 1)
			for j := i + 1; j <= min(i+c.bw, c.n-1); j++ {
				dense.SetSym(i, j, rng.Float64()/float64(2*c.bw+1))
			}
		}
		b := make([]float64, c.n)
		for i := range b {
			b[i] = rng.Float64()*2 - 1
		}
		r, err := SolveBanded(c.n, c.bw, dense.At, b, 0)
		if err != nil {
			t.Fatal(err)
		}
		var want mat.VecDense
		if err := want.SolveVec(dense, mat.NewVecDense(c.n, b)); err != nil {
			t.Fatal(err)
		}
		for i := range b {
			if math.Abs(r.Z[i]-want.AtVec(i)) > 1e-13 {
				t.Fatalf("n=%d bw=%d: z[%d] = %v, dense %v", c.n, c.bw, i, r.Z[i], want.AtVec(i))
			}
		}
		if r.Residual > 1e-14 || !r.UnitNonneg || r.OffDiag >= 1 {
			t.Errorf("n=%d bw=%d: residual %v unitNonneg %v offdiag %v", c.n, c.bw, r.Residual, r.UnitNonneg, r.OffDiag)
		}
	}
}

func TestSolveBandedErrors(t *testing.T) {
	one := func(i, j int) float64 {
		if i == j {
			return 1
		}
		return 0
	}
	ones := []float64{1, 1, 1}
	if _, err := SolveBanded(3, 3, one, ones, 0); !errors.Is(err, backend.ErrShape) {
		t.Errorf("bw = n: %v, want ErrShape", err)
	}
	if _, err := SolveBanded(0, 0, one, nil, 0); !errors.Is(err, backend.ErrShape) {
		t.Errorf("n = 0: %v, want ErrShape", err)
	}
	if _, err := SolveBanded(3, 1, one, ones[:2], 0); !errors.Is(err, backend.ErrShape) {
		t.Errorf("short b: %v, want ErrShape", err)
	}
	if _, err := SolveBanded(3, 1, one, []float64{1, math.NaN(), 1}, 0); !errors.Is(err, backend.ErrNotFinite) {
		t.Errorf("NaN in b: %v, want ErrNotFinite", err)
	}
	nanEntry := func(i, j int) float64 { return math.Inf(1) }
	if _, err := SolveBanded(3, 1, nanEntry, ones, 0); !errors.Is(err, backend.ErrNotFinite) {
		t.Errorf("Inf entry: %v, want ErrNotFinite", err)
	}
	// 2·n·(bw+1)·8 = 2·3·2·8 = 96 bytes.
	if _, err := SolveBanded(3, 1, one, ones, 95); !errors.Is(err, ErrBandedTooLarge) {
		t.Errorf("limit 95 bytes: %v, want ErrBandedTooLarge", err)
	}
	if _, err := SolveBanded(3, 1, one, ones, 96); err != nil {
		t.Errorf("limit 96 bytes: %v", err)
	}
	// [[1, 2], [2, 1]] is indefinite (eigenvalues 3, -1).
	indef := func(i, j int) float64 {
		if i == j {
			return 1
		}
		return 2
	}
	if _, err := SolveBanded(2, 1, indef, ones[:2], 0); !errors.Is(err, ErrBandedNotPD) {
		t.Errorf("indefinite: %v, want ErrBandedNotPD", err)
	}
	// [[1, 1], [1, 1]] is singular.
	sing := func(i, j int) float64 { return 1 }
	if _, err := SolveBanded(2, 1, sing, ones[:2], 0); !errors.Is(err, ErrBandedNotPD) {
		t.Errorf("singular: %v, want ErrBandedNotPD", err)
	}
}

// The path metric's Phi at e^-eps = 1/2 truncated to a tridiagonal band:
// A = tridiag(1/2, 1, 1/2) on 3 points, A z = 1.
func ExampleSolveBanded() {
	entry := func(i, j int) float64 {
		if i == j {
			return 1
		}
		return 0.5
	}
	r, err := SolveBanded(3, 1, entry, []float64{1, 1, 1}, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("z = %.4f, solver %s\n", r.Z, r.Solver)
	// Output:
	// z = [1.0000 0.0000 1.0000], solver banded-cholesky
}

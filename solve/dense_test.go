package solve

import (
	"context"
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// sumPhi is Phi of the sum query with n answers and band v:
// exp(-eps·ceil(|i-j|/v)).
func sumPhi(n, v int, eps float64) *mat.SymDense {
	p := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			d := (j - i + v - 1) / v
			p.SetSym(i, j, math.Exp(-eps*float64(d)))
		}
	}
	return p
}

// exactSolve solves A x = b exactly for the float64 entries of A and b
// (converted to rationals) and returns x rounded to float64.
func exactSolve(a mat.Symmetric, b []float64) []float64 {
	n := len(b)
	m := make([][]*big.Rat, n)
	for i := range m {
		m[i] = make([]*big.Rat, n+1)
		for j := 0; j < n; j++ {
			m[i][j] = new(big.Rat).SetFloat64(a.At(i, j))
		}
		m[i][n] = new(big.Rat).SetFloat64(b[i])
	}
	for c := 0; c < n; c++ {
		p := c
		for m[p][c].Sign() == 0 {
			p++
		}
		m[c], m[p] = m[p], m[c]
		for r := 0; r < n; r++ {
			if r == c || m[r][c].Sign() == 0 {
				continue
			}
			f := new(big.Rat).Quo(m[r][c], m[c][c])
			for j := c; j <= n; j++ {
				m[r][j].Sub(m[r][j], new(big.Rat).Mul(f, m[c][j]))
			}
		}
	}
	x := make([]float64, n)
	for i := range x {
		x[i], _ = new(big.Rat).Quo(m[i][n], m[i][i]).Float64()
	}
	return x
}

func allOnes(n int) []float64 {
	o := make([]float64, n)
	for i := range o {
		o[i] = 1
	}
	return o
}

// The error bound must contain the true error (against exact rational
// arithmetic on the same float64 entries), for well- and ill-conditioned
// systems, and the verdict must match the exact sign.
func TestDenseErrorBoundContainsExact(t *testing.T) {
	for _, c := range []struct {
		n, v int
		eps  float64
	}{{5, 2, 0.3}, {5, 2, 0.9}, {7, 2, 0.2}, {13, 3, 0.05}, {13, 3, 1.5}, {25, 4, 0.01}} {
		phi := sumPhi(c.n, c.v, c.eps)
		var s DenseSystem
		if err := s.Factorize(phi); err != nil {
			t.Fatal(err)
		}
		r, err := s.SolveNonneg(context.Background(), allOnes(c.n))
		if err != nil {
			t.Fatal(err)
		}
		ex := exactSolve(phi, allOnes(c.n))
		exMin := math.Inf(1)
		for k := range ex {
			exMin = min(exMin, ex[k])
			if e := math.Abs(r.X[k] - ex[k]); e > r.Err {
				t.Errorf("%+v: |x[%d] - exact| = %g > bound %g", c, k, e, r.Err)
			}
		}
		want := run.Yes
		if exMin < 0 {
			want = run.No
		}
		if r.Verdict != want || !r.Unique || r.Certificate != "error-bound" {
			t.Errorf("%+v: verdict %v (%s), exact min %v, rcond %g", c, r.Verdict, r.Certificate, exMin, r.RCond)
		}
	}
}

// A right-hand side whose exact solution has a zero component is
// borderline: the sign of that component is within rounding.
func TestDenseBorderline(t *testing.T) {
	phi := sumPhi(9, 2, 0.7)
	x := []float64{1, 0.5, 0, 0.25, 1, 2, 0.5, 0.5, 1}
	b := make([]float64, 9)
	bv := mat.NewVecDense(9, b)
	bv.MulVec(phi, mat.NewVecDense(9, x))
	var s DenseSystem
	s.Factorize(phi)
	r, err := s.SolveNonneg(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != run.Borderline || math.Abs(r.Min) > r.Err || r.Err > 1e-12 {
		t.Errorf("verdict %v min %g err %g", r.Verdict, r.Min, r.Err)
	}
}

// When the off-diagonal row sums are below 1/2, x > 0 is certain whatever
// the solve says (here exp underflowed to subnormals and zeros).
func TestDenseDiagonalDominance(t *testing.T) {
	n := 6
	phi := sumPhi(n, 1, 740) // e^-740 ≈ 4e-322 (subnormal), e^-1480 = 0
	var s DenseSystem
	s.Factorize(phi)
	r, _ := s.SolveNonneg(context.Background(), allOnes(n))
	if r.Verdict != run.Yes || r.Min != 1 {
		t.Errorf("verdict %v min %v", r.Verdict, r.Min)
	}
	if !s.diagDominant(allOnes(n)) {
		t.Error("certificate not found")
	}
	// It does not apply when off-diagonals are large.
	s.Factorize(sumPhi(n, 1, 0.1))
	if s.diagDominant(allOnes(n)) {
		t.Error("certificate claimed for a non-dominant matrix")
	}
}

// bipartitePhi is Phi of K_{p,q} with e^-eps = a: a across the parts, a²
// within a part.
func bipartitePhi(p, q int, a float64) *mat.SymDense {
	n := p + q
	phi := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			switch {
			case i == j:
				phi.SetSym(i, j, 1)
			case (i < p) == (j < p):
				phi.SetSym(i, j, a*a)
			default:
				phi.SetSym(i, j, a)
			}
		}
	}
	return phi
}

// Singular Phi: K_{4,4} at a = 1/3 is feasible (z = 3/8), K_{2,10} at
// a = 1/3 is inconsistent; the system notices the singularity and decides
// by Feasible.
func TestDenseSingular(t *testing.T) {
	a := math.Exp(-math.Log(3))
	var s DenseSystem
	if err := s.Factorize(bipartitePhi(4, 4, a)); err != nil {
		t.Fatal(err)
	}
	r, err := s.SolveNonneg(context.Background(), allOnes(8))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Singular() || r.Unique || r.Verdict != run.Yes || r.Method != "nnls" || !math.IsInf(r.Err, 1) {
		t.Errorf("K44: singular %v %+v", s.Singular(), r)
	}
	var sum float64
	for _, v := range r.X {
		sum += v
	}
	if math.Abs(sum-3) > 1e-12 { // Σ z = 8·3/8 for every solution
		t.Errorf("K44: Σ z = %v, want 3", sum)
	}
	s.Factorize(bipartitePhi(2, 10, a))
	r, _ = s.SolveNonneg(context.Background(), allOnes(12))
	if r.Verdict != run.No || r.Certificate != "farkas" || r.Unique {
		t.Errorf("K2,10: %+v", r)
	}
}

func TestDenseErrors(t *testing.T) {
	var s DenseSystem
	if _, err := s.SolveNonneg(context.Background(), []float64{1}); err == nil {
		t.Error("solve before factorize accepted")
	}
	phi := sumPhi(3, 1, 1)
	phi.SetSym(0, 2, math.NaN())
	if err := s.Factorize(phi); !errors.Is(err, backend.ErrNotFinite) {
		t.Errorf("NaN: %v", err)
	}
	s.Factorize(sumPhi(3, 1, 1))
	if _, err := s.SolveNonneg(context.Background(), []float64{1, 1}); !errors.Is(err, backend.ErrShape) {
		t.Errorf("short b: %v", err)
	}
	if _, err := s.SolveNonneg(context.Background(), []float64{1, math.Inf(1), 1}); err == nil {
		t.Error("Inf in b accepted")
	}
}

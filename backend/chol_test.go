package backend

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// randomSPD returns QΛQᵀ for a random orthogonal Q (QR of a Gaussian
// matrix) and eigenvalues Λ spread geometrically over [1/cond, 1].
func randomSPD(rng *rand.Rand, n int, cond float64) *mat.SymDense {
	g := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	for j := range n {
		lam := 1.0
		if n > 1 {
			lam = math.Pow(cond, -float64(j)/float64(n-1))
		}
		col := math.Sqrt(lam)
		for i := range n {
			q.Set(i, j, q.At(i, j)*col)
		}
	}
	s := mat.NewSymDense(n, nil)
	s.SymOuterK(1, &q)
	return s
}

// TestCholesky: the panel factorisation against gonum's
// mat.Cholesky.Factorize (LAPACK's Dpotrf): the same bits in the pure-Go
// build, whose Dpotrf uses the same panels (Ilaenv's 64 for DPOTRF), and
// with another BLAS a factor within rounding of it; in both UᵀU = S to
// rounding (backward error ‖UᵀU − S‖ <= c·n·u·‖S‖, Higham, Accuracy and
// Stability, Thm 10.3), for orders around the panel width and condition
// numbers up to 1e12. The storage of u is reused across orders.
func TestCholesky(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pure := strings.HasPrefix(Name(), "pure")
	var u mat.TriDense
	for _, n := range []int{1, 2, 63, 64, 65, 130, 3*CholPanel + 5} {
		for _, cond := range []float64{10, 1e6, 1e12} {
			s := randomSPD(rng, n, cond)
			orig := mat.NewSymDense(n, nil)
			orig.CopySym(s)
			if !CholeskyStop(&u, s, nil) {
				t.Fatalf("n=%d cond=%g: positive definite matrix refused", n, cond)
			}
			if !mat.Equal(s, orig) {
				t.Fatalf("n=%d: S modified", n)
			}
			var c mat.Cholesky
			if !c.Factorize(s) {
				t.Fatalf("n=%d cond=%g: gonum refused it", n, cond)
			}
			want := c.RawU()
			var back mat.Dense
			back.Mul(u.T(), &u)
			maxS, maxU, res, diff := 0.0, 0.0, 0.0, 0.0
			for i := range n {
				for j := range n {
					maxS = max(maxS, math.Abs(s.At(i, j)))
					res = max(res, math.Abs(back.At(i, j)-s.At(i, j)))
					if j >= i {
						maxU = max(maxU, math.Abs(want.At(i, j)))
						d := math.Abs(u.At(i, j) - want.At(i, j))
						diff = max(diff, d)
						if pure && d != 0 {
							t.Fatalf("n=%d cond=%g: U[%d][%d] = %v, gonum's Dpotrf %v (want the same bits)", n, cond, i, j, u.At(i, j), want.At(i, j))
						}
					}
				}
			}
			eps := math.Ldexp(1, -52)
			if res > 4*float64(n)*eps*maxS {
				t.Errorf("n=%d cond=%g: max|UᵀU − S| = %g, over 4·n·u·max|S| = %g", n, cond, res, 4*float64(n)*eps*maxS)
			}
			// Forward error of a Cholesky factor: about cond·u relative
			// (Higham, Thm 10.8; the computed factors of two BLAS differ by
			// rounding in different orders).
			if diff > 10*cond*float64(n)*eps*maxU {
				t.Errorf("n=%d cond=%g: max|U − U_gonum| = %g", n, cond, diff)
			}
		}
	}
}

// TestCholeskyIndefinite: a symmetric matrix with one negative
// eigenvalue is refused, whether the failing pivot is in the first panel
// or a later one (a diagonal entry -1 at row k of an otherwise
// diagonally dominant matrix: the leading k×k block is positive definite,
// the (k+1)×(k+1) one is not).
func TestCholeskyIndefinite(t *testing.T) {
	const n = 200
	var u mat.TriDense
	for _, k := range []int{0, 5, CholPanel, 150, n - 1} {
		s := mat.NewSymDense(n, nil)
		for i := range n {
			s.SetSym(i, i, 4)
			if i+1 < n {
				s.SetSym(i, i+1, 1)
			}
		}
		s.SetSym(k, k, -1)
		if CholeskyStop(&u, s, nil) {
			t.Errorf("negative pivot at %d: factored", k)
		}
	}
}

// TestCholeskyStop: with stop set the factorisation gives up (false), at
// once when set before, and when set 10 ms into the factorisation of an
// order-3000 matrix, whose n³/3 = 9·10⁹ flops take over a second
// uncancelled in pure Go and over 100 ms with OpenBLAS (bench:
// BenchmarkCholesky). The latency is not asserted
// (machines differ); see bench/README.md.
func TestCholeskyStop(t *testing.T) {
	var u mat.TriDense
	var stop atomic.Bool
	stop.Store(true)
	s := mat.NewSymDense(3, []float64{2, 1, 0, 1, 2, 1, 0, 1, 2})
	if CholeskyStop(&u, s, &stop) {
		t.Fatal("stopped before the start, and factored")
	}
	if testing.Short() {
		t.Skip("an order-3000 factorisation")
	}
	const n = 3000
	s = diagDominant(n)
	stop.Store(false)
	timer := time.AfterFunc(10*time.Millisecond, func() { stop.Store(true) })
	defer timer.Stop()
	start := time.Now()
	if CholeskyStop(&u, s, &stop) {
		t.Fatalf("stop set 10 ms in, and the order-%d factorisation finished (in %v)", n, time.Since(start))
	}
	t.Logf("gave up %v after the start", time.Since(start))
}

// diagDominant is an n×n symmetric matrix with entries 1/(1+|i-j|) off
// the diagonal and 2n on it: positive definite by diagonal dominance.
func diagDominant(n int) *mat.SymDense {
	s := mat.NewSymDense(n, nil)
	raw := s.RawSymmetric()
	for i := range n {
		for j := i; j < n; j++ {
			v := 1 / float64(1+j-i)
			if i == j {
				v = 2 * float64(n)
			}
			raw.Data[i*raw.Stride+j] = v
		}
	}
	return s
}

// BenchmarkCholesky: the order-3000 factorisation by Cholesky (panels,
// stop checked between them) and by gonum's mat.Cholesky.Factorize.
//
//	go test -run XXX -bench Cholesky ./backend/
func BenchmarkCholesky(b *testing.B) {
	const n = 3000
	s := diagDominant(n)
	b.Run("panels", func(b *testing.B) {
		var u mat.TriDense
		var stop atomic.Bool
		for b.Loop() {
			if !CholeskyStop(&u, s, &stop) {
				b.Fatal("refused")
			}
		}
	})
	b.Run("gonum", func(b *testing.B) {
		var c mat.Cholesky
		for b.Loop() {
			if !c.Factorize(s) {
				b.Fatal("refused")
			}
		}
	})
}

// TestSymFactorCholesky: SymFactor's Cholesky path (CholeskyStop, U kept
// for the solves) against gonum's mat.Cholesky on random positive definite
// matrices of condition 10 to 1e10: the same condition estimate (dpocon
// from U and ||A||_1, as mat.Cholesky.Factorize), solutions and inverse
// within rounding, and A·x = b to backward stability; with a cancelled context FactorizeContext
// returns context.Canceled and f does not solve.
func TestSymFactorCholesky(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 5, CholPanel + 3, 150} {
		for _, cond := range []float64{10, 1e10} {
			a := randomSPD(rng, n, cond)
			var f SymFactor
			info, err := f.Factorize(a)
			if err != nil || info.Method != Cholesky {
				t.Fatalf("n=%d cond=%g: %v %v", n, cond, info, err)
			}
			var c mat.Cholesky
			if !c.Factorize(a) {
				t.Fatal("gonum refused")
			}
			// The same estimate from factors equal to rounding (relative
			// cond·u apart with another LAPACK's panels).
			if want := 1 / c.Cond(); math.Abs(info.RCond-want) > max(1e-12, 1e-14*cond)*want {
				t.Errorf("n=%d cond=%g: rcond %v, gonum %v", n, cond, info.RCond, want)
			}
			b := mat.NewDense(n, 2, nil)
			for i := range n {
				b.Set(i, 0, rng.NormFloat64())
				b.Set(i, 1, float64(i%3))
			}
			var x, xg mat.Dense
			if err := f.SolveTo(&x, b); err != nil {
				t.Fatal(err)
			}
			if err := c.SolveTo(&xg, b); err != nil {
				t.Fatal(err)
			}
			var back mat.Dense
			back.Mul(a, &x)
			tol := 1e-13 * cond * float64(n)
			// Backward error: ||A·x - b|| <= c·n·u·||A||·||x|| (Higham, Thm 10.4).
			resTol := 1e-13 * float64(n) * mat.Norm(a, math.Inf(1)) * mat.Norm(&x, math.Inf(1))
			if !mat.EqualApprox(&x, &xg, tol*mat.Norm(&xg, math.Inf(1))) || !mat.EqualApprox(&back, b, resTol) {
				t.Errorf("n=%d cond=%g: solve differs from gonum's or A·x != b", n, cond)
			}
			var v mat.VecDense
			if err := f.SolveVecTo(&v, b.ColView(0)); err != nil || !mat.EqualApprox(&v, x.ColView(0), 1e-15*mat.Norm(&xg, math.Inf(1))) {
				t.Errorf("n=%d: SolveVecTo %v differs from SolveTo", n, err)
			}
			var inv, invg mat.SymDense
			if err := f.InverseTo(&inv); err != nil {
				t.Fatal(err)
			}
			if err := c.InverseTo(&invg); err != nil {
				t.Fatal(err)
			}
			if !mat.EqualApprox(&inv, &invg, tol*mat.Norm(&invg, math.Inf(1))) {
				t.Errorf("n=%d cond=%g: inverse differs from gonum's", n, cond)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var f SymFactor
	if _, err := f.FactorizeContext(ctx, randomSPD(rng, 10, 10)); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v, want context.Canceled", err)
	}
	var x mat.Dense
	if err := f.SolveTo(&x, mat.NewDense(10, 1, nil)); err == nil {
		t.Error("a cancelled factorisation solves")
	}
}

package ldl

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestBandQR factors H = diag + G^T diag(wt) G by QRFactor for random
// weights spanning many orders of magnitude, and checks the banded solve and
// Takahashi's inverse against gonum's dense Cholesky inverse of H formed
// explicitly.
func TestBandQR(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ n, v int }{{1, 1}, {2, 1}, {6, 1}, {9, 3}, {12, 11}, {30, 5}} {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			pairs := bandPairs(c.n, c.v, 0.3+rng.Float64())
			b := min(c.v, c.n-1)
			diag := make([]float64, c.n)
			wt := make([]float64, len(pairs))
			h := mat.NewSymDense(c.n, nil)
			for i := range diag {
				diag[i] = math.Pow(10, 4*rng.Float64()-2)
				h.SetSym(i, i, diag[i])
			}
			for k, q := range pairs {
				wt[k] = math.Pow(10, 4*rng.Float64()-2)
				h.SetSym(q.I, q.I, h.At(q.I, q.I)+wt[k])
				h.SetSym(q.H, q.H, h.At(q.H, q.H)+wt[k]*q.W*q.W)
				h.SetSym(q.I, q.H, h.At(q.I, q.H)-wt[k]*q.W)
			}
			order := make([]int, len(pairs))
			for k := range order {
				order[k] = k
			}
			slices.SortStableFunc(order, func(a, c int) int {
				return min(pairs[a].I, pairs[a].H) - min(pairs[c].I, pairs[c].H)
			})
			m := &Band{N: c.n, B: b, A: make([]float64, c.n*(b+1))}
			m.QRFactor(diag, pairs, wt, order, make([]float64, c.n*(b+1)), make([]float64, c.n+b+1))

			var ch mat.Cholesky
			if !ch.Factorize(h) {
				t.Fatalf("n=%d v=%d: H not positive definite", c.n, c.v)
			}
			var inv mat.SymDense
			if err := ch.InverseTo(&inv); err != nil {
				t.Fatal(err)
			}
			r := make([]float64, c.n)
			for i := range r {
				r[i] = rng.Float64()
			}
			want := mat.NewVecDense(c.n, nil)
			want.MulVec(&inv, mat.NewVecDense(c.n, slices.Clone(r)))
			m.Solve(r)
			for i := range r {
				if math.Abs(r[i]-want.AtVec(i)) > 1e-9*math.Abs(want.AtVec(i)) {
					t.Errorf("n=%d v=%d: solve[%d] = %v, want %v", c.n, c.v, i, r[i], want.AtVec(i))
				}
			}
			// AddInverse adds onto what is there: start from 1s.
			s := make([]float64, c.n*c.n)
			for i := range s {
				s[i] = 1
			}
			m.AddInverse(s, make([]float64, (b+1)*c.n))
			for i := 0; i < c.n; i++ {
				for j := i; j < c.n; j++ {
					if got, want := s[i*c.n+j], 1+inv.At(i, j); math.Abs(got-want) > 1e-9*math.Abs(want) {
						t.Errorf("n=%d v=%d: inverse[%d][%d] = %v, want %v", c.n, c.v, i, j, got, want)
					}
				}
			}
		})
	}
}

// TestBandQRStiff is the case that defeats an LDL^T of the assembled
// matrix: two answers tied by a constraint of weight 1e40 and diagonal 1.
// H = [[1+w, -wW], [-wW, 1+wW^2]] has determinant (1+w)(1+wW^2) - w^2W^2
// = 1 + w(1+W^2) exactly, so its Schur pivot is (1+w(1+W^2))/(1+w), about
// 1+W^2, while the assembled elimination cancels w^2 W^2 against itself.
func TestBandQRStiff(t *testing.T) {
	const w, W = 1e40, 3.0
	pairs := []Pair{{I: 0, H: 1, W: W}}
	m := &Band{N: 2, B: 1, A: make([]float64, 4)}
	m.QRFactor([]float64{1, 1}, pairs, []float64{w}, []int{0}, make([]float64, 4), make([]float64, 3))
	want := 1 + W*W // (1 + w(1+W^2))/(1+w) to within 1e-40
	if got := m.A[2]; math.Abs(got-want) > 1e-14*want {
		t.Errorf("second pivot %v, want %v", got, want)
	}
}

// TestBandCholesky: the LDL^T of the assembled matrix (CholFactor) against
// gonum's dense Cholesky inverse, for weights within a few orders of
// magnitude (where it is accurate), and its breakdown report on the stiff
// case of TestBandQRStiff.
func TestBandCholesky(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct{ n, v int }{{1, 1}, {5, 1}, {9, 3}, {20, 19}} {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			pairs := bandPairs(c.n, c.v, 0.3+rng.Float64())
			b := min(c.v, c.n-1)
			diag := make([]float64, c.n)
			wt := make([]float64, len(pairs))
			h := mat.NewSymDense(c.n, nil)
			for i := range diag {
				diag[i] = math.Pow(10, 2*rng.Float64()-1)
				h.SetSym(i, i, diag[i])
			}
			for k, q := range pairs {
				wt[k] = math.Pow(10, 2*rng.Float64()-1)
				h.SetSym(q.I, q.I, h.At(q.I, q.I)+wt[k])
				h.SetSym(q.H, q.H, h.At(q.H, q.H)+wt[k]*q.W*q.W)
				h.SetSym(q.I, q.H, h.At(q.I, q.H)-wt[k]*q.W)
			}
			m := &Band{N: c.n, B: b, A: make([]float64, c.n*(b+1))}
			if r := m.CholFactor(diag, pairs, wt); !(r > 1e-3) {
				t.Errorf("n=%d: pivot ratio %v for a well-conditioned matrix", c.n, r)
			}
			var ch mat.Cholesky
			if !ch.Factorize(h) {
				t.Fatal("not positive definite")
			}
			var inv mat.SymDense
			if err := ch.InverseTo(&inv); err != nil {
				t.Fatal(err)
			}
			s := make([]float64, c.n*c.n)
			m.AddInverse(s, make([]float64, (b+1)*c.n))
			for i := 0; i < c.n; i++ {
				for j := i; j < c.n; j++ {
					if got, want := s[i*c.n+j], inv.At(i, j); math.Abs(got-want) > 1e-10*math.Abs(inv.At(i, i)) {
						t.Errorf("n=%d: inverse[%d][%d] = %v, want %v", c.n, i, j, got, want)
					}
				}
			}
		})
	}
	// The stiff 2×2 case: the pivot (1+w(1+W²))/(1+w) ≈ 10 comes out of
	// the difference of two numbers near 9e40, and the ratio to its
	// diagonal 9e40 flags the loss.
	m := &Band{N: 2, B: 1, A: make([]float64, 4)}
	if r := m.CholFactor([]float64{1, 1}, []Pair{{I: 0, H: 1, W: 3}}, []float64{1e40}); r >= MinPivotRatio {
		t.Errorf("stiff case: pivot ratio %v not flagged (threshold %v)", r, MinPivotRatio)
	}
}

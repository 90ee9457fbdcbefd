package backend_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Helpers shared by the backend tests: seeded random inputs and independent
// (naive, loop-based) recomputations of norms and products, so that no check
// relies on the kernel it checks.

const eps = 0x1p-52

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x0d1ff)) }

// randDense returns an r×c matrix with entries uniform in [-1, 1).
func randDense(rnd *rand.Rand, r, c int) *mat.Dense {
	d := make([]float64, r*c)
	for i := range d {
		d[i] = 2*rnd.Float64() - 1
	}
	return mat.NewDense(r, c, d)
}

// randSym returns a symmetric n×n matrix with entries uniform in [-1, 1) plus
// diag on the diagonal.
func randSym(rnd *rand.Rand, n int, diag float64) *mat.SymDense {
	a := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := 2*rnd.Float64() - 1
			if i == j {
				v += diag
			}
			a.SetSym(i, j, v)
		}
	}
	return a
}

// randSPD returns B Bᵀ + I for a random n×n B: symmetric positive definite
// with smallest eigenvalue at least 1.
func randSPD(rnd *rand.Rand, n int) *mat.SymDense {
	b := randDense(rnd, n, n)
	a := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s := 0.0
			for k := 0; k < n; k++ {
				s += b.At(i, k) * b.At(j, k)
			}
			if i == j {
				s++
			}
			a.SetSym(i, j, s)
		}
	}
	return a
}

// tridiag returns the n×n second-difference matrix tridiag(-1, 2, -1). Its
// eigenvalues are 2 - 2cos(kπ/(n+1)), k = 1..n, with eigenvectors
// v_k(j) = sqrt(2/(n+1)) sin(jkπ/(n+1)), and its inverse is
// T⁻¹(i,j) = min(i,j)(n+1-max(i,j))/(n+1) (1-based indices).
func tridiag(n int) *mat.SymDense {
	a := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		a.SetSym(i, i, 2)
		if i+1 < n {
			a.SetSym(i, i+1, -1)
		}
	}
	return a
}

// naiveMul is the triple-loop product a·b.
func naiveMul(a, b mat.Matrix) *mat.Dense {
	r, k := a.Dims()
	_, c := b.Dims()
	out := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			s := 0.0
			for l := 0; l < k; l++ {
				s += a.At(i, l) * b.At(l, j)
			}
			out.Set(i, j, s)
		}
	}
	return out
}

// maxAbs is the largest |a(i,j)|.
func maxAbs(a mat.Matrix) float64 {
	r, c := a.Dims()
	m := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m = max(m, math.Abs(a.At(i, j)))
		}
	}
	return m
}

// maxDiff is the largest |a(i,j) - b(i,j)|; a and b must have equal dims.
func maxDiff(t *testing.T, a, b mat.Matrix) float64 {
	t.Helper()
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ar != br || ac != bc {
		t.Fatalf("dims %d×%d and %d×%d differ", ar, ac, br, bc)
	}
	m := 0.0
	for i := 0; i < ar; i++ {
		for j := 0; j < ac; j++ {
			d := math.Abs(a.At(i, j) - b.At(i, j))
			if math.IsNaN(d) {
				return math.Inf(1)
			}
			m = max(m, d)
		}
	}
	return m
}

// relResidual is max|A X - B| / (max|A| · max|X| · n): the backward error
// of a computed solution, of order eps for a stable solver.
func relResidual(a, x, b mat.Matrix) float64 {
	n, _ := a.Dims()
	ax := naiveMul(a, x)
	r, c := b.Dims()
	m := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m = max(m, math.Abs(ax.At(i, j)-b.At(i, j)))
		}
	}
	return m / (maxAbs(a) * maxAbs(x) * float64(n))
}

// orthoErr is max|QᵀQ - I| for the columns of q.
func orthoErr(q mat.Matrix) float64 {
	g := naiveMul(q.T(), q)
	n, _ := g.Dims()
	for i := 0; i < n; i++ {
		g.Set(i, i, g.At(i, i)-1)
	}
	return maxAbs(g)
}

// norm1 is the maximum absolute column sum.
func norm1(a mat.Matrix) float64 {
	r, c := a.Dims()
	m := 0.0
	for j := 0; j < c; j++ {
		s := 0.0
		for i := 0; i < r; i++ {
			s += math.Abs(a.At(i, j))
		}
		m = max(m, s)
	}
	return m
}

// hasNaN reports whether any entry of a (possibly nil) is NaN or Inf.
func hasNaN(a *mat.Dense) bool {
	if a == nil {
		return false
	}
	r, c := a.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := a.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return true
			}
		}
	}
	return false
}

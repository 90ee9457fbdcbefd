package sdp

import (
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/optdp/optdp/backend"
	"gonum.org/v1/gonum/mat"
)

// allRangeGram is W^T W for the workload of all n(n+1)/2 range queries:
// G_ij = (min(i,j)+1)(n-max(i,j)), the number of ranges covering i and j.
func allRangeGram(n int) *mat.SymDense {
	g := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			g.SetSym(i, j, float64((i+1)*(n-j)))
		}
	}
	return g
}

// prefixGram is W^T W for the n prefix queries [0, k]: G_ij = n - max(i,j).
func prefixGram(n int) *mat.SymDense {
	g := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			g.SetSym(i, j, float64(n-j))
		}
	}
	return g
}

// gramOf returns W^T W.
func gramOf(w *mat.Dense) *mat.SymDense {
	_, n := w.Dims()
	g := mat.NewSymDense(n, nil)
	g.SymOuterK(1, w.T())
	return g
}

// allRangeW is the explicit workload of all ranges [i, j], i <= j.
func allRangeW(n int) *mat.Dense {
	w := mat.NewDense(n*(n+1)/2, n, nil)
	r := 0
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			for k := i; k <= j; k++ {
				w.Set(r, k, 1)
			}
			r++
		}
	}
	return w
}

// identity returns I_n.
func identity(n int) *mat.Dense {
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		a.Set(i, i, 1)
	}
	return a
}

// hierarchical returns the b-ary tree strategy: one row per node, the
// node's interval split into b nearly equal children down to single cells.
func hierarchical(n, b int) *mat.Dense {
	var rows [][2]int
	var rec func(lo, hi int)
	rec = func(lo, hi int) {
		rows = append(rows, [2]int{lo, hi})
		if hi-lo <= 1 {
			return
		}
		k := min(b, hi-lo)
		for c := 0; c < k; c++ {
			rec(lo+c*(hi-lo)/k, lo+(c+1)*(hi-lo)/k)
		}
	}
	rec(0, n)
	a := mat.NewDense(len(rows), n, nil)
	for r, iv := range rows {
		for k := iv[0]; k < iv[1]; k++ {
			a.Set(r, k, 1)
		}
	}
	return a
}

// kronDense returns the explicit Kronecker product a ⊗ b.
func kronDense(a, b mat.Matrix) *mat.Dense {
	var k mat.Dense
	k.Kronecker(a, b)
	return &k
}

// errorViaPInv is an independent evaluation of the L1 error factor from
// the explicit workload: D1(A)^2 ||W A^+||_F^2.
func errorViaPInv(t testingT, w, a *mat.Dense) float64 {
	pinv, _, err := backend.PInv(a, 0)
	if err != nil {
		t.Fatal(err)
	}
	var wa mat.Dense
	wa.Mul(w, pinv)
	r, c := a.Dims()
	d1 := 0.0
	for j := 0; j < c; j++ {
		s := 0.0
		for i := 0; i < r; i++ {
			s += math.Abs(a.At(i, j))
		}
		d1 = math.Max(d1, s)
	}
	f := mat.Norm(&wa, 2)
	return d1 * d1 * f * f
}

type testingT interface {
	Fatal(args ...any)
}

// randomW returns an m x n matrix with entries uniform in [-1, 1).
func randomW(m, n int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 7))
	w := mat.NewDense(m, n, nil)
	for k := range w.RawMatrix().Data {
		w.RawMatrix().Data[k] = 2*rng.Float64() - 1
	}
	return w
}

// marginalTerms returns the Kronecker terms of all k-way marginals of d
// binary attributes: factor I_2 for attributes in the marginal, the 2 x 2
// all-ones matrix (W_f = [1 1], W_f^T W_f = J) otherwise.
func marginalTerms(d, k int) []KronTerm {
	id := mat.NewSymDense(2, []float64{1, 0, 0, 1})
	ones := mat.NewSymDense(2, []float64{1, 1, 1, 1})
	var terms []KronTerm
	for mask := 0; mask < 1<<d; mask++ {
		if bits.OnesCount(uint(mask)) != k {
			continue
		}
		fs := make([]*mat.SymDense, d)
		for f := 0; f < d; f++ {
			if mask>>f&1 == 1 {
				fs[f] = id
			} else {
				fs[f] = ones
			}
		}
		terms = append(terms, KronTerm{Weight: 1, Factors: fs})
	}
	return terms
}

// denseGram sums the Kronecker terms into one explicit Gram matrix.
func denseGram(terms []KronTerm) *mat.SymDense {
	var total *mat.Dense
	for _, t := range terms {
		var k mat.Matrix = t.Factors[0]
		for _, f := range t.Factors[1:] {
			k = kronDense(k, f)
		}
		kd := mat.DenseCopyOf(k)
		kd.Scale(t.Weight, kd)
		if total == nil {
			total = kd
		} else {
			total.Add(total, kd)
		}
	}
	n, _ := total.Dims()
	g := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			g.SetSym(i, j, total.At(i, j))
		}
	}
	return g
}

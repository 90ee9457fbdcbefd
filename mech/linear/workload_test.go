package linear

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// denseGram returns W^T W from the dense W, an independent recomputation.
func denseGram(t *testing.T, w Workload) *mat.SymDense {
	t.Helper()
	d, err := w.Dense()
	if err != nil {
		t.Fatal(err)
	}
	_, n := d.Dims()
	g := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			g.SetSym(i, j, mat.Dot(d.ColView(i), d.ColView(j)))
		}
	}
	return g
}

// mwf returns a helper that unwraps a workload constructor's result,
// failing the test on an error.
func mwf(t *testing.T) func(Workload, error) Workload {
	return func(w Workload, err error) Workload {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
}

func symEqual(t *testing.T, name string, got, want *mat.SymDense, tol float64) {
	t.Helper()
	n := want.SymmetricDim()
	if got.SymmetricDim() != n {
		t.Fatalf("%s: order %d, want %d", name, got.SymmetricDim(), n)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if math.Abs(got.At(i, j)-want.At(i, j)) > tol {
				t.Fatalf("%s: G[%d][%d] = %v, want %v", name, i, j, got.At(i, j), want.At(i, j))
			}
		}
	}
}

// TestRangeGrams checks the Gram closed forms (AllRange: (min+1)(n-max),
// Prefix: n-max) and the counted Grams (width, random ranges) against W^T W
// recomputed from the dense W, and the traces against their closed forms:
// AllRange n(n+1)(n+2)/6, Prefix n(n+1)/2.
func TestRangeGrams(t *testing.T) {
	mw := mwf(t)
	for _, n := range []int{1, 2, 7, 16} {
		all := mw(AllRange(n))
		pre := mw(Prefix(n))
		ws := []Workload{all, pre, mw(Identity(n)), mw(Total(n)),
			mw(WidthRange(n, (n+1)/2)), mw(RandomRange(n, 3*n, 7))}
		for _, w := range ws {
			g, err := w.Gram().Dense()
			if err != nil {
				t.Fatal(err)
			}
			symEqual(t, w.String(), g, denseGram(t, w), 0)
		}
		if m, _ := all.Dims(); m != n*(n+1)/2 {
			t.Errorf("allrange(%d) has %d queries, want %d", n, m, n*(n+1)/2)
		}
		if got, want := all.Gram().Trace(), float64(n*(n+1)*(n+2)/6); got != want {
			t.Errorf("tr(W^T W) for allrange(%d) = %v, want n(n+1)(n+2)/6 = %v", n, got, want)
		}
		if got, want := pre.Gram().Trace(), float64(n*(n+1)/2); got != want {
			t.Errorf("tr(W^T W) for prefix(%d) = %v, want n(n+1)/2 = %v", n, got, want)
		}
	}
	// The closed form at n = 256 (no dense W needed): 2,829,056.
	if got := mw(AllRange(256)).Gram().Trace(); got != 2829056 {
		t.Errorf("tr(W^T W) for allrange(256) = %v, want 2829056", got)
	}
}

func binom(n, k int) int {
	r := 1
	for i := 0; i < k; i++ {
		r = r * (n - i) / (i + 1)
	}
	return r
}

// TestMarginals: tr(W^T W) = C(d,k)·N (every count is in exactly one cell of
// each of the C(d,k) marginal tables), the structured Gram equals the dense
// W^T W, and the number of queries is Σ_{|S|=k} Π_{i∈S} d_i.
func TestMarginals(t *testing.T) {
	mw := mwf(t)
	dims := []int{2, 3, 4}
	N := 24
	for k := 0; k <= 3; k++ {
		w := mw(Marginals(dims, k))
		if got, want := w.Gram().Trace(), float64(binom(3, k)*N); got != want {
			t.Errorf("k=%d: tr(W^T W) = %v, want C(3,%d)·24 = %v", k, got, k, want)
		}
		g, err := w.Gram().Dense()
		if err != nil {
			t.Fatal(err)
		}
		symEqual(t, w.String(), g, denseGram(t, w), 0)
	}
	m, _ := mw(Marginals(dims, 2)).Dims()
	if m != 2*3+2*4+3*4 {
		t.Errorf("2-way marginals of 2x3x4: %d queries, want 26", m)
	}
	// 3-way marginals of 2x2x2: C(3,3)·8 = 8 = identity.
	if got := mw(Marginals([]int{2, 2, 2}, 1)).Gram().Trace(); got != 24 {
		t.Errorf("1-way marginals of 2x2x2: trace %v, want C(3,1)·8 = 24", got)
	}
}

// TestMulVec checks every workload's MulVec against the dense product.
func TestMulVec(t *testing.T) {
	mw := mwf(t)
	rng := rand.New(rand.NewPCG(1, 2))
	a := mw(AllRange(5))
	p := mw(Prefix(4))
	ws := []Workload{
		a, p, mw(WidthRange(6, 2)), mw(RandomRange(9, 11, 3)),
		mw(Kron(a, p)), mw(Range2D(3)), mw(Marginals([]int{2, 3, 2}, 2)),
		mw(Union(p, mw(Total(4)))),
		mw(FromMatrix(mat.NewDense(2, 3, []float64{1, -2, 0.5, 0, 3, 1}))),
	}
	for _, w := range ws {
		m, n := w.Dims()
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		got, err := w.MulVec(x)
		if err != nil {
			t.Fatal(err)
		}
		d, err := w.Dense()
		if err != nil {
			t.Fatal(err)
		}
		want := mat.NewVecDense(m, nil)
		want.MulVec(d, mat.NewVecDense(n, x))
		if len(got) != m {
			t.Fatalf("%v: MulVec length %d, want %d", w, len(got), m)
		}
		for i := range got {
			if math.Abs(got[i]-want.AtVec(i)) > 1e-12 {
				t.Fatalf("%v: (Wx)[%d] = %v, want %v", w, i, got[i], want.AtVec(i))
			}
		}
		if _, err := w.MulVec(x[1:]); err == nil {
			t.Errorf("%v: MulVec accepted a vector of the wrong length", w)
		}
	}
}

// TestKronGram: the Gram of a Kronecker workload is the product of the
// factors' Grams (checked densely on 2-D ranges over 3×3 and a union).
func TestKronGram(t *testing.T) {
	mw := mwf(t)
	w := mw(Range2D(3))
	g, err := w.Gram().Dense()
	if err != nil {
		t.Fatal(err)
	}
	symEqual(t, w.String(), g, denseGram(t, w), 1e-12)
	u := mw(Kron(mw(Union(mw(Prefix(3)), mw(Identity(3)))), mw(Total(2))))
	if len(u.Gram().Terms) != 2 {
		t.Errorf("kron(union of 2, total) has %d Gram terms, want 2", len(u.Gram().Terms))
	}
	g, err = u.Gram().Dense()
	if err != nil {
		t.Fatal(err)
	}
	symEqual(t, u.String(), g, denseGram(t, u), 1e-12)
	// 2-D ranges over 256×256: the trace is the product of the factors'
	// (2829056²) and the dense Gram is refused before allocating.
	big := mw(Range2D(256))
	if got := big.Gram().Trace(); got != 2829056.0*2829056.0 {
		t.Errorf("tr for range2d(256) = %v, want 2829056²", got)
	}
	if _, err := big.Gram().Dense(); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("dense Gram of range2d(256): err = %v, want run.ErrTooLarge", err)
	}
	if _, err := big.Dense(); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("dense range2d(256): err = %v, want run.ErrTooLarge", err)
	}
}

func TestWorkloadErrors(t *testing.T) {
	cases := []struct {
		name string
		err  error
	}{
		{"identity n=0", func() error { _, e := Identity(0); return e }()},
		{"allrange n=-1", func() error { _, e := AllRange(-1); return e }()},
		{"prefix n=0", func() error { _, e := Prefix(0); return e }()},
		{"width k=0", func() error { _, e := WidthRange(4, 0); return e }()},
		{"width k>n", func() error { _, e := WidthRange(4, 5); return e }()},
		{"random m=0", func() error { _, e := RandomRange(4, 0, 1); return e }()},
		{"ranges bad", func() error { _, e := Ranges(4, []Interval{{2, 1}}); return e }()},
		{"ranges out", func() error { _, e := Ranges(4, []Interval{{0, 4}}); return e }()},
		{"marginals k", func() error { _, e := Marginals([]int{2, 2}, 3); return e }()},
		{"marginals dim", func() error { _, e := Marginals([]int{2, 0}, 1); return e }()},
		{"union mismatch", func() error {
			a, _ := Prefix(3)
			b, _ := Prefix(4)
			_, e := Union(a, b)
			return e
		}()},
		{"matrix NaN", func() error { _, e := FromMatrix(mat.NewDense(1, 2, []float64{1, math.NaN()})); return e }()},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestReadMatrix(t *testing.T) {
	a, err := ReadMatrix(strings.NewReader("# a workload\n1, 0, 1\n\n0 1 -2.5\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(2, 3, []float64{1, 0, 1, 0, 1, -2.5})
	if !mat.Equal(a, want) {
		t.Errorf("ReadMatrix = %v, want %v", mat.Formatted(a), mat.Formatted(want))
	}
	for _, bad := range []string{"", "# only\n", "1,2\n3\n", "1,x\n", "1,NaN\n", "1,Inf\n"} {
		if _, err := ReadMatrix(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadMatrix(%q): no error", bad)
		}
	}
}

func TestShape(t *testing.T) {
	mw := mwf(t)
	a := mw(AllRange(3))
	for _, c := range []struct {
		w    Workload
		want []int
	}{
		{a, []int{3}},
		{mw(Kron(a, mw(Marginals([]int{2, 4}, 1)))), []int{3, 2, 4}},
		{mw(Union(a, a)), []int{3}},
	} {
		got := Shape(c.w)
		if len(got) != len(c.want) {
			t.Fatalf("Shape(%v) = %v, want %v", c.w, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("Shape(%v) = %v, want %v", c.w, got, c.want)
			}
		}
	}
}

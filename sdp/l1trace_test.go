package sdp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/backend"
	"gonum.org/v1/gonum/mat"
)

// haar returns the unnormalised Haar wavelet strategy on n = 2^k cells:
// the total, then for every dyadic interval of length >= 2 the row +1 on
// its left half and -1 on its right half (n mutually orthogonal rows).
func haar(n int) *mat.Dense {
	a := mat.NewDense(n, n, nil)
	for j := 0; j < n; j++ {
		a.Set(0, j, 1)
	}
	r := 1
	for l := n; l >= 2; l /= 2 {
		for lo := 0; lo < n; lo += l {
			for j := lo; j < lo+l; j++ {
				if j < lo+l/2 {
					a.Set(r, j, 1)
				} else {
					a.Set(r, j, -1)
				}
			}
			r++
		}
	}
	return a
}

// randomLaminar returns a weighted tree strategy: every single cell with a
// random weight, then random nested intervals (a random b-ary split) with
// random weights, in a shuffled row order.
func randomLaminar(n int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 3))
	var rows [][3]float64
	var rec func(lo, hi int)
	rec = func(lo, hi int) {
		rows = append(rows, [3]float64{float64(lo), float64(hi), 0.5 + rng.Float64()})
		if hi-lo <= 1 {
			return
		}
		cut := lo + 1 + rng.IntN(hi-lo-1)
		rec(lo, cut)
		rec(cut, hi)
	}
	rec(0, n)
	rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	a := mat.NewDense(len(rows), n, nil)
	for r, iv := range rows {
		for k := int(iv[0]); k < int(iv[1]); k++ {
			a.Set(r, k, iv[2]*(1+0.1*float64(k%3)))
		}
	}
	return a
}

// Every structured path equals the independent evaluation D1² ‖W A⁺‖_F²
// from the explicit workload (errorViaPInv), on all ranges (semiseparable
// operator) and on a random Gram matrix (dense operator); each path is
// also called directly so that a fallback cannot hide a wrong path.
func TestTraceStructuredPaths(t *testing.T) {
	n := 32
	rw := randomW(40, n, 5)
	type wl struct {
		name string
		w    *mat.Dense
	}
	for _, x := range []wl{{"all ranges", allRangeW(n)}, {"random", rw}} {
		g := gramOf(x.w)
		op := newGramOp(g, false)
		if _, semi := op.(*gramSemisep); semi != (x.name == "all ranges") {
			t.Fatalf("%s: operator %T", x.name, op)
		}
		cases := []struct {
			name string
			a    *mat.Dense
			path func(a *mat.Dense, nnz []int) (float64, bool)
		}{
			{"identity", identity(n), nil},
			{"p-identity", pIdentityStrategy(randomTheta(3, n, 4, 0)), nil},
			{"hierarchical 2", hierarchical(n, 2), func(a *mat.Dense, nnz []int) (float64, bool) { return traceLaminar(op, a, nnz) }},
			{"hierarchical 5", hierarchical(n, 5), func(a *mat.Dense, nnz []int) (float64, bool) { return traceLaminar(op, a, nnz) }},
			{"random laminar", randomLaminar(n, 8), func(a *mat.Dense, nnz []int) (float64, bool) { return traceLaminar(op, a, nnz) }},
			{"haar", haar(n), func(a *mat.Dense, nnz []int) (float64, bool) { return traceOrthogonal(op, a, nnz) }},
		}
		for _, c := range cases {
			want := errorViaPInv(t, x.w, c.a)
			got, err := l1Error(op, g, c.a)
			if err != nil || math.Abs(got-want) > 1e-10*want {
				t.Errorf("%s, %s: l1Error %v (%v), independent %v", x.name, c.name, got, err, want)
			}
			if _, ok := traceStructured(op, c.a); !ok {
				t.Errorf("%s, %s: no structured path", x.name, c.name)
			}
			nnz, others := rowCounts(c.a)
			d1, _ := maxColNorm1(c.a, n)
			var tr float64
			var ok bool
			if c.path != nil {
				tr, ok = c.path(c.a, nnz)
			} else {
				tr, ok = traceWoodbury(op, c.a, nnz, others)
			}
			if !ok || math.Abs(d1*d1*tr-want) > 1e-10*want {
				t.Errorf("%s, %s: path gives %v (%v), independent %v", x.name, c.name, d1*d1*tr, ok, want)
			}
		}
	}
}

// rowCounts returns the nonzeros per row and the rows with more than one.
func rowCounts(a *mat.Dense) (nnz, others []int) {
	r, _ := a.Dims()
	nnz = make([]int, r)
	for i := 0; i < r; i++ {
		for _, v := range a.RawRowView(i) {
			if v != 0 {
				nnz[i]++
			}
		}
		if nnz[i] > 1 {
			others = append(others, i)
		}
	}
	return nnz, others
}

// Strategies outside the structures are refused by the paths (and then
// evaluated densely by L1Error): overlapping intervals are not laminar, a
// dense random strategy has no structure, a tree without its leaves is
// singular, non-orthogonal square rows are not orthogonal.
func TestTraceStructuredRefuses(t *testing.T) {
	n := 16
	w := allRangeW(n)
	g := gramOf(w)
	op := newGramOp(g, false)
	overlap := mat.NewDense(n+2, n, nil)
	for i := 0; i < n; i++ {
		overlap.Set(i, i, 1)
	}
	for j := 0; j < 8; j++ {
		overlap.Set(n, j, 1)
		overlap.Set(n+1, j+4, 1)
	}
	nnz, _ := rowCounts(overlap)
	if _, ok := traceLaminar(op, overlap, nnz); ok {
		t.Error("overlapping intervals taken as laminar")
	}
	// Still exact through the Woodbury path / dense fallback.
	if e, err := L1Error(g, overlap); err != nil || math.Abs(e-errorViaPInv(t, w, overlap)) > 1e-10*e {
		t.Errorf("overlapping intervals: %v (%v)", e, err)
	}
	dense := randomW(20, n, 6)
	if _, ok := traceStructured(op, dense); ok {
		t.Error("random dense strategy took a structured path")
	}
	h := hierarchical(n, 2)
	noLeaves := mat.NewDense(n-1, n, nil)
	r := 0
	for i := 0; i < h.RawMatrix().Rows; i++ {
		if c := countNZ(h.RawRowView(i)); c > 1 {
			noLeaves.SetRow(r, h.RawRowView(i))
			r++
		}
	}
	nnz, _ = rowCounts(noLeaves)
	if _, ok := traceLaminar(op, noLeaves, nnz); ok {
		t.Error("singular tree accepted")
	}
	if e, err := L1Error(g, noLeaves); err != nil || !math.IsInf(e, 1) {
		t.Errorf("singular tree: %v (%v), want +Inf (all ranges not supported)", e, err)
	}
	skew := haar(n)
	skew.Set(1, 0, 2)
	nnz, _ = rowCounts(skew)
	if _, ok := traceOrthogonal(op, skew, nnz); ok {
		t.Error("non-orthogonal rows accepted")
	}
	if e, err := L1Error(g, skew); err != nil || math.Abs(e-errorViaPInv(t, w, skew)) > 1e-10*e {
		t.Errorf("skewed Haar: %v (%v)", e, err)
	}
}

func countNZ(x []float64) int {
	c := 0
	for _, v := range x {
		if v != 0 {
			c++
		}
	}
	return c
}

// On prefixes (n = 128, semiseparable path) the optimiser is never worse
// than the best baseline, and its reported objective equals the
// independent evaluation D1² ‖W A⁺‖_F² from the explicit workload.
func TestOptimizeL1PrefixSemisep(t *testing.T) {
	n := 128
	w := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			w.Set(i, j, 1)
		}
	}
	base := []*mat.Dense{identity(n), hierarchical(n, 2), hierarchical(n, 4), haar(n)}
	r, err := OptimizeL1(context.Background(), prefixGram(n), &L1Options{Seed: 3, Baselines: base})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range base {
		ind := errorViaPInv(t, w, b)
		if math.Abs(r.BaselineObjectives[i]-ind) > 1e-10*ind {
			t.Errorf("baseline %d: %v, independent %v", i, r.BaselineObjectives[i], ind)
		}
		if r.Objective > ind {
			t.Errorf("objective %v worse than baseline %d (%v)", r.Objective, i, ind)
		}
	}
	if ind := errorViaPInv(t, w, r.A); math.Abs(ind-r.Objective) > 1e-9*ind {
		t.Errorf("objective %v, independent %v", r.Objective, ind)
	}
}

// L2Error on the standard strategies (structured paths) equals the
// independent D2² ‖W A⁺‖_F² from the explicit workload.
func TestL2ErrorStructured(t *testing.T) {
	n := 32
	w := allRangeW(n)
	g := gramOf(w)
	for _, a := range []*mat.Dense{identity(n), hierarchical(n, 2), hierarchical(n, 4), haar(n), pIdentityStrategy(randomTheta(3, n, 1, 1))} {
		pinv, _, err := backend.PInv(a, 0)
		if err != nil {
			t.Fatal(err)
		}
		var wa mat.Dense
		wa.Mul(w, pinv)
		r, c := a.Dims()
		d2 := 0.0
		for j := 0; j < c; j++ {
			s := 0.0
			for i := 0; i < r; i++ {
				s += a.At(i, j) * a.At(i, j)
			}
			d2 = math.Max(d2, s)
		}
		f := mat.Norm(&wa, 2)
		want := d2 * f * f
		got, err := L2Error(g, a)
		if err != nil || math.Abs(got-want) > 1e-10*want {
			t.Errorf("%d×%d strategy: L2Error %v (%v), independent %v", r, c, got, err, want)
		}
	}
}

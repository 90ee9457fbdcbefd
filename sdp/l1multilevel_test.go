package sdp

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// coarsen equals Pᵀ G P formed densely (P adds cells 2J and 2J+1), for
// all ranges and prefixes, n even and odd, and twice in a row (a
// coarsened matrix has its own diagonal).
func TestCoarsenDense(t *testing.T) {
	for _, n := range []int{2, 9, 16, 33} {
		for _, g := range []*mat.SymDense{allRangeGram(n), prefixGram(n)} {
			s := newSemisep(g)
			if s == nil {
				t.Fatal("not detected")
			}
			dense := mat.DenseCopyOf(g)
			for level := 0; level < 2 && len(s.u) > 1; level++ {
				m := len(s.u)
				mc := (m + 1) / 2
				pm := mat.NewDense(m, mc, nil)
				for i := 0; i < m; i++ {
					pm.Set(i, i/2, 1)
				}
				var gp, pgp mat.Dense
				gp.Mul(dense, pm)
				pgp.Mul(pm.T(), &gp)
				s = coarsen(s)
				for i := 0; i < mc; i++ {
					for j := 0; j < mc; j++ {
						if got, want := s.at(i, j), pgp.At(i, j); math.Abs(got-want) > 1e-12*math.Abs(want) {
							t.Fatalf("n = %d level %d: (PᵀGP)[%d][%d] = %v, dense %v", n, level, i, j, got, want)
						}
					}
				}
				checkMulRows(t, mat.NewSymDense(mc, symData(&pgp)), s, 2, uint64(n))
				dense = &pgp
			}
		}
	}
}

func symData(a *mat.Dense) []float64 {
	r, _ := a.Dims()
	d := make([]float64, r*r)
	for i := 0; i < r; i++ {
		for j := 0; j < r; j++ {
			d[i*r+j] = a.At(i, j)
		}
	}
	return d
}

// prolong repeats each coarse row on both halves of each coarse cell and
// adds the rows shifted by one fine cell; zeros stay zeros.
func TestProlong(t *testing.T) {
	tc := mat.NewDense(2, 3, []float64{1, 0, 2, 0, 3, 0})
	got := prolong(tc, 3, 5)
	want := mat.NewDense(3, 5, []float64{
		1, 1, 0, 0, 2,
		0, 0, 3, 3, 0,
		1, 0, 0, 2, 2,
	})
	if !mat.Equal(got, want) {
		t.Errorf("prolong:\n%v\nwant\n%v", mat.Formatted(got), mat.Formatted(want))
	}
}

// The coarse-to-fine start is a valid start (p × n, entries >= 0,
// deterministic for a seed), and L-BFGS from it on all ranges n = 64 is
// not worse than the identity.
func TestCoarseStart(t *testing.T) {
	n, p := 64, 4
	g := allRangeGram(n)
	s := newSemisep(g)
	o := &L1Options{Seed: 5, MaxIter: 100, Restarts: 1}
	it1, it2 := 0, 0
	a, err := coarseStart(context.Background(), s, p, o, 0, &it1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := coarseStart(context.Background(), s, p, o, 0, &it2)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := a.Dims(); r != p || c != n || !mat.Equal(a, b) || it1 != it2 || it1 == 0 {
		t.Fatalf("start %d×%d, deterministic %v, iterations %d %d", r, c, mat.Equal(a, b), it1, it2)
	}
	for _, v := range a.RawMatrix().Data {
		if !(v >= 0) {
			t.Fatalf("negative entry %v", v)
		}
	}
	w := newPIdentityOp(s, p)
	_, f, _, err := minimizeTheta(context.Background(), w.evalFast, a, 200, nil)
	if err != nil {
		t.Fatal(err)
	}
	if id := mat.Trace(g); !(f < id) {
		t.Errorf("objective %v not below the identity's %v", f, id)
	}
}

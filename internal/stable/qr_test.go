package stable

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	_ "github.com/optdp/optdp/backend" // the build's BLAS (OpenBLAS with -tags netlib)
	"github.com/optdp/optdp/internal/mmref"
	"gonum.org/v1/gonum/mat"
)

// TestTraceClosedForm: the hierarchical strategy on 2 cells
// [1 1; 1 0; 0 1] has AᵀA = [2 1; 1 2] and (AᵀA)⁻¹ = [2 -1; -1 2]/3, so
// G = 11ᵀ gives 2/3 and G = I gives 4/3; Apply solves AᵀA x = b; the
// total 1ᵀ (p < n) and a rank-deficient A are refused.
func TestTraceClosedForm(t *testing.T) {
	a := mat.NewDense(3, 2, []float64{1, 1, 1, 0, 0, 1})
	_, r, ok := QR(a)
	if !ok {
		t.Fatal("QR refused a full-rank matrix")
	}
	if v := Trace(r, mat.NewSymDense(2, []float64{1, 1, 1, 1})); math.Abs(v-2.0/3) > 1e-15 {
		t.Errorf("tr(11ᵀ (AᵀA)⁻¹) = %v, want 2/3", v)
	}
	if v := Trace(r, mat.NewSymDense(2, []float64{1, 0, 0, 1})); math.Abs(v-4.0/3) > 1e-15 {
		t.Errorf("tr((AᵀA)⁻¹) = %v, want 4/3", v)
	}
	x := Apply(r, mat.NewDense(2, 1, []float64{3, 3}))
	if math.Abs(x.At(0, 0)-1) > 1e-15 || math.Abs(x.At(1, 0)-1) > 1e-15 {
		t.Errorf("(AᵀA)⁻¹ (3, 3) = %v, want (1, 1)", mat.Formatted(x.T()))
	}
	if _, _, ok := QR(mat.NewDense(1, 2, []float64{1, 1})); ok {
		t.Error("QR accepted a 1×2 matrix")
	}
	if _, _, ok := QR(mat.NewDense(3, 2, []float64{1, 1, 1, 1, 2, 2})); ok {
		t.Error("QR accepted a rank-1 matrix")
	}
}

// TestTraceCensusAgeFactor: the census age factor of the OpenBLAS build's
// optimum (testdata/census_age_factor.csv, 122×115, cond(A) = 1.1e5; a
// p-Identity [diag(d); Θ] with d from 0.52 down to 5e-5): Trace of 11ᵀ,
// the workload term that totals age, against the 256-bit value to 1e-12.
// OpenBLAS's dtrsm with the 115 right-hand sides at once gave entries of
// R⁻ᵀ 11ᵀ off by up to 6.6e-6 relative and the trace off by 9.9e-9;
// gonum's substitution (and OpenBLAS with one right-hand side) 4e-16.
func TestTraceCensusAgeFactor(t *testing.T) {
	raw, err := os.ReadFile("testdata/census_age_factor.csv")
	if err != nil {
		t.Fatal(err)
	}
	a := mat.NewDense(122, 115, nil)
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, ",")
		i, _ := strconv.Atoi(f[0])
		j, _ := strconv.Atoi(f[1])
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		a.Set(i, j, v)
	}
	_, r, ok := QR(a)
	if !ok {
		t.Fatal("QR refused the age factor")
	}
	ones := mat.NewSymDense(115, nil)
	for i := 0; i < 115; i++ {
		for j := i; j < 115; j++ {
			ones.SetSym(i, j, 1)
		}
	}
	want, ok := mmref.TraceInvGram(ones, a)
	if !ok {
		t.Fatal("256-bit reference: singular")
	}
	if got := Trace(r, ones); math.Abs(got-want) > 1e-12*want {
		t.Errorf("Trace %.15g, 256-bit %.15g (relative %.3g)", got, want, (got-want)/want)
	}
	x := Apply(r, mat.NewDense(115, 1, raw115(1)))
	s := 0.0
	for i := 0; i < 115; i++ {
		s += x.At(i, 0)
	}
	if math.Abs(s-want) > 1e-12*want {
		t.Errorf("1ᵀ Apply(1) = %.15g, 256-bit %.15g", s, want)
	}
}

func raw115(v float64) []float64 {
	d := make([]float64, 115)
	for i := range d {
		d[i] = v
	}
	return d
}

// TestTraceGradedMultiRHS: Trace of 11ᵀ and of a random PSD G for graded
// p-Identity matrices like the census age factor, [diag(d); Θ] with d
// log-uniform in [5e-5, 0.5] and 7 random rows Θ (cond(A) about 1e4–1e5),
// against the 256-bit value (internal/mmref) to 1e-10 relative. The
// triangular solves take all n right-hand sides at once; OpenBLAS's
// blocked dtrsm lost 1e-8 relative on the census age factor, where a
// substitution loses about u·cond(A).
func TestTraceGradedMultiRHS(t *testing.T) {
	rng := rand.New(rand.NewPCG(115, 122))
	const n, extra = 115, 7
	for trial := 0; trial < 2; trial++ {
		a := mat.NewDense(n+extra, n, nil)
		for i := 0; i < n; i++ {
			a.Set(i, i, 0.5*math.Pow(1e-4, rng.Float64()))
		}
		for i := n; i < n+extra; i++ {
			for j := 0; j < n; j++ {
				if rng.IntN(4) == 0 {
					a.Set(i, j, math.Pow(1e-4, rng.Float64()))
				}
			}
		}
		_, r, ok := QR(a)
		if !ok {
			t.Fatal("QR refused a full-rank matrix")
		}
		ones := mat.NewSymDense(n, nil)
		root := mat.NewDense(20, n, nil)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				ones.SetSym(i, j, 1)
			}
		}
		for k := range root.RawMatrix().Data {
			root.RawMatrix().Data[k] = rng.NormFloat64()
		}
		var g mat.SymDense
		g.SymOuterK(1, root.T())
		for _, c := range []struct {
			name string
			g    mat.Symmetric
		}{{"11ᵀ", ones}, {"random", &g}} {
			want, ok := mmref.TraceInvGram(c.g, a)
			if !ok {
				t.Fatal("256-bit reference: singular")
			}
			if got := Trace(r, c.g); math.Abs(got-want) > 1e-10*want {
				t.Errorf("trial %d, G = %s: Trace %.15g, 256-bit %.15g (relative %.3g)", trial, c.name, got, want, (got-want)/want)
			}
		}
	}
}

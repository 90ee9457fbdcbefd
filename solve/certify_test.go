package solve

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/run"
	"github.com/optdp/optdp/spectrum"
)

func denseEig(t *testing.T, a *mat.SymDense) (lo, hi, minAbs float64) {
	t.Helper()
	ev, err := backend.EigenValuesSym(a)
	if err != nil {
		t.Fatal(err)
	}
	minAbs = math.Inf(1)
	for _, v := range ev {
		minAbs = min(minAbs, math.Abs(v))
	}
	return ev[0], ev[len(ev)-1], minAbs
}

// TestSymbolBounds checks lo <= lambda_min and lambda_max <= hi against the
// dense eigenvalues for every test lattice, and that the bound proves
// positive definiteness where it should (Euclidean, Manhattan, line at all
// rates here; the interval is then within 20% of the true one at c >= 1).
func TestSymbolBounds(t *testing.T) {
	cases := append(toeplitzCases(), toeplitzCase{"euclid3d", []int{5, 4, 3}, func(o []int) float64 {
		return math.Exp(-0.7 * math.Sqrt(float64(o[0]*o[0]+o[1]*o[1]+o[2]*o[2])))
	}})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tp := mustToeplitz(t, tc.dims, tc.k)
			lo, hi, _ := denseEig(t, denseFromKernel(tc.dims, tc.k))
			sb := tp.SymbolBounds()
			t.Logf("%s: bounds [%.4g, %.4g], true [%.4g, %.4g]", tc.name, sb.Lo, sb.Hi, lo, hi)
			if sb.Lo > lo || sb.Hi < hi {
				t.Errorf("%s: bounds [%.6g, %.6g] do not enclose the spectrum [%.6g, %.6g]", tc.name, sb.Lo, sb.Hi, lo, hi)
			}
		})
	}
}

// TestKronLambdaMin compares the product of factor bounds with the dense
// product's smallest |eigenvalue| (equal up to the rounding allowance).
func TestKronLambdaMin(t *testing.T) {
	f1 := symFromKernel(6, func(d int) float64 { return math.Exp(-0.3 * float64(d)) })
	f2 := symFromKernel(11, func(d int) float64 { return math.Exp(-0.05 * float64((d+4)/5)) }) // indefinite
	got, err := KronLambdaMin(f1, f2)
	if err != nil {
		t.Fatal(err)
	}
	_, _, minAbs := denseEig(t, denseKron(f1, f2))
	if got > minAbs || got < minAbs*(1-1e-8) {
		t.Errorf("KronLambdaMin = %.12g, dense min |lambda| = %.12g", got, minAbs)
	}
}

// TestCertify checks that the certified bound covers the true error of a
// deliberately inaccurate solution (PCG stopped at 1e-4) and of an accurate
// one, against the dense solution, and that Sign follows.
func TestCertify(t *testing.T) {
	lineBound := func(c float64) float64 { v, _ := spectrum.LineLambdaMin(math.Exp(-c)); return v }
	euclidBound := func(c float64) float64 { v, _ := spectrum.EuclidLambdaMin(c); return v }
	chebBound := func(c float64) float64 { v, _ := spectrum.ChebyshevLambdaMin(c); return v }
	for _, tc := range []struct {
		toeplitzCase
		hint float64
	}{
		{toeplitzCase{"euclid/c=0.3", []int{12, 9}, euclidKernel(0.3)}, euclidBound(0.3)},
		{toeplitzCase{"euclid/c=0.05", []int{12, 9}, euclidKernel(0.05)}, euclidBound(0.05)},
		{toeplitzCase{"manhattan/c=0.05", []int{12, 9}, manhattanKernel(0.05)}, math.Pow(lineBound(0.05), 2)},
		{toeplitzCase{"chebyshev/c=0.3", []int{12, 9}, chebyshevKernel(0.3)}, chebBound(0.3)},
		{toeplitzCase{"line/c=1", []int{60}, lineKernel(1)}, 0}, // symbol bound alone
		{toeplitzCase{"euclid/c=1", []int{12, 9}, euclidKernel(1)}, 0},
	} {
		for _, tol := range []float64{1e-4, 1e-12} {
			tp := mustToeplitz(t, tc.dims, tc.k)
			b := ones(tp.Len())
			want := denseSolve(t, denseFromKernel(tc.dims, tc.k), b)
			res, err := SolveToeplitz(context.Background(), tp, b, &Options{Tol: tol})
			if err != nil {
				t.Fatal(err)
			}
			c, err := CertifyToeplitz(tp, b, res.Z, tc.hint)
			if err != nil {
				t.Fatal(err)
			}
			var actual float64
			for i := range want {
				actual = max(actual, math.Abs(res.Z[i]-want[i]))
			}
			t.Logf("%s tol=%g: bound %.3g, actual error %.3g, lambda >= %.3g", tc.name, tol, c.ErrBound, actual, c.LambdaMin)
			if !c.Certified || c.ErrBound < actual {
				t.Errorf("%s tol=%g: certified %v, bound %.3g < actual error %.3g", tc.name, tol, c.Certified, c.ErrBound, actual)
			}
			mz := slices.Min(res.Z)
			wantSign := 1
			if slices.Min(want) < 0 {
				wantSign = -1
			}
			if s := c.Sign(mz); s != 0 && s != wantSign {
				t.Errorf("%s: Sign = %d but dense min z = %.6g", tc.name, s, slices.Min(want))
			}
			if v := c.Verdict(mz); (v == run.Yes) != (c.Sign(mz) == 1) || (v == run.No) != (c.Sign(mz) == -1) {
				t.Errorf("%s: Verdict %v disagrees with Sign %d", tc.name, v, c.Sign(mz))
			}
			if tol == 1e-12 && c.Sign(mz) != wantSign {
				t.Errorf("%s: accurate solve not certified: Sign = %d, bound %.3g, min z %.3g", tc.name, c.Sign(mz), c.ErrBound, mz)
			}
		}
	}
}

// TestCertifyIndefinite: an indefinite sum-query matrix has no symbol
// bound, so the certificate is not Certified and Sign is 0; the dense
// adapter with the true smallest |eigenvalue| does certify.
func TestCertifyIndefinite(t *testing.T) {
	dims, k := []int{61}, sumKernel(0.05, 5)
	tp := mustToeplitz(t, dims, k)
	b := ones(tp.Len())
	res, err := SolveToeplitz(context.Background(), tp, b, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := CertifyToeplitz(tp, b, res.Z, 0)
	if err != nil {
		t.Fatal(err)
	}
	if c.Certified || c.Sign(slices.Min(res.Z)) != 0 || !math.IsInf(c.ErrBound, 1) || !(c.Estimate > 0) {
		t.Errorf("indefinite: certificate %+v", c)
	}
	a := denseFromKernel(dims, k)
	_, _, minAbs := denseEig(t, a)
	cd, err := Certify(Dense{a}, b, res.Z, minAbs*0.99, "dense-eigen")
	if err != nil {
		t.Fatal(err)
	}
	want := denseSolve(t, a, b)
	var actual float64
	for i := range want {
		actual = max(actual, math.Abs(res.Z[i]-want[i]))
	}
	if !cd.Certified || cd.ErrBound < actual || cd.Sign(slices.Min(res.Z)) != -1 {
		t.Errorf("dense certificate %+v, actual error %.3g, min z %.3g", cd, actual, slices.Min(res.Z))
	}
}

func ExampleCertifyToeplitz() {
	// A 40×30 grid with step 1 km at eps = 0.5/km.
	tp, _ := NewToeplitz([]int{40, 30}, func(off []int) float64 {
		return math.Exp(-0.5 * math.Hypot(float64(off[0]), float64(off[1])))
	})
	b := make([]float64, tp.Len())
	for i := range b {
		b[i] = 1
	}
	res, _ := SolveToeplitz(context.Background(), tp, b, &Options{})
	lam, _ := spectrum.EuclidLambdaMin(0.5)
	cert, _ := CertifyToeplitz(tp, b, res.Z, lam)
	// Sign -1: min z* < 0 is proven, the mechanism does not exist at this eps.
	fmt.Println(res.Solver, res.Converged, cert.Certified, cert.ErrBound < 1e-9, cert.Sign(slices.Min(res.Z)))
	// Output: toeplitz-pcg-strang true true true -1
}

package stream

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestDenseMaxTwoSteps: for n = 2 the optimum is 4/3 in closed form (X =
// [[1, c], [c, 1]]: v_1 = 1/(1-c²), v_2 = 2/(1+c), equal at c = ½; a
// smaller diagonal entry raises both variances).
func TestDenseMaxTwoSteps(t *testing.T) {
	r, err := OptimizeDenseMax(context.Background(), 2, &DenseOptions{RelGap: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Errors.Max-4.0/3) > 1e-8 || r.Dual > 4.0/3*(1+1e-12) || math.Abs(r.X.At(0, 1)-0.5) > 1e-4 {
		t.Errorf("max %v dual %v X %v, want 4/3 at c = 1/2", r.Errors.Max, r.Dual, mat.Formatted(r.X))
	}
}

// TestDenseMaxCertificate: the dual bound recomputed from the returned
// weights μ and multipliers y by an eigendecomposition (d = (tr (Y^{1/2}
// G_μ Y^{1/2})^{1/2})²/Σy, G_μ = Aᵀ diag(μ) A formed from A); it lies
// below the optimum, which lies inside the sandwich of PrefixBounds and
// below the max-loss Toeplitz optimum with n coefficients (a subset of
// the dense strategies) and the square root.
func TestDenseMaxCertificate(t *testing.T) {
	ctx := context.Background()
	n := 40
	r, err := OptimizeDenseMax(ctx, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.RelGap > 1e-6 || r.Dual > r.Primal || r.Primal != r.Errors.Max || math.Abs(r.Sens.Sens2-1) > 1e-12 {
		t.Fatalf("gap %v dual %v primal %v max %v", r.RelGap, r.Dual, r.Primal, r.Errors.Max)
	}
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			a.Set(i, j, 1)
		}
	}
	var dm mat.Dense
	dm.Mul(mat.NewDiagDense(n, r.Weights), a)
	var gm mat.Dense
	gm.Mul(a.T(), &dm)
	y := make([]float64, n)
	sumY := 0.0
	for _, m := range r.Multipliers {
		y[m.Pattern[0]] = math.Sqrt(m.Lambda)
		sumY += m.Lambda
	}
	ys := mat.NewDiagDense(n, y)
	var tmp, mm mat.Dense
	tmp.Mul(ys, &gm)
	mm.Mul(&tmp, ys)
	sym := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			sym.SetSym(i, j, (mm.At(i, j)+mm.At(j, i))/2)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(sym, false) {
		t.Fatal("eigen")
	}
	tr := 0.0
	for _, l := range es.Values(nil) {
		tr += math.Sqrt(math.Max(l, 0))
	}
	d := tr * tr / sumY
	if math.Abs(d-r.Dual) > 1e-9*r.Dual {
		t.Errorf("dual recomputed %v, reported %v", d, r.Dual)
	}
	b := Bounds(n)
	if r.Errors.Max < b.MaxLower || r.Errors.Max > b.SqrtMax {
		t.Errorf("max %v outside [%v, %v]", r.Errors.Max, b.MaxLower, b.SqrtMax)
	}
	tp, err := OptimizeToeplitz(ctx, n, n, SingleParticipation(), &ToeplitzOptions{Loss: MaxVariance})
	if err != nil {
		t.Fatal(err)
	}
	if r.Errors.Max > tp.Errors.Max*(1+1e-9) {
		t.Errorf("dense max %v above the Toeplitz %v", r.Errors.Max, tp.Errors.Max)
	}
	t.Logf("n=%d: dense max %.8g (dual %.8g, %d iterations), Toeplitz %.8g, sqrt %.8g, lower %.8g", n, r.Errors.Max, r.Dual, r.Iterations, tp.Errors.Max, b.SqrtMax, b.MaxLower)
}

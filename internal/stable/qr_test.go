package stable

import (
	"math"
	"testing"

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

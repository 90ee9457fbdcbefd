package bigref

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestTraceInvGramClosedForms: the identity strategy gives tr(G); the
// hierarchical strategy on 2 cells [1 1; 1 0; 0 1] has AᵀA = [2 1; 1 2],
// (AᵀA)⁻¹ = [2 -1; -1 2]/3, so G = 11ᵀ gives 2/3; a singular AᵀA is
// refused.
func TestTraceInvGramClosedForms(t *testing.T) {
	g := mat.NewSymDense(2, []float64{1, 1, 1, 1})
	if v, ok := TraceInvGram(g, mat.NewDense(2, 2, []float64{1, 0, 0, 1})); !ok || v != 2 {
		t.Errorf("identity: %v %v, want 2", v, ok)
	}
	if v, ok := TraceInvGram(g, mat.NewDense(3, 2, []float64{1, 1, 1, 0, 0, 1})); !ok || math.Abs(v-2.0/3) > 1e-16 {
		t.Errorf("hierarchical: %v %v, want 2/3", v, ok)
	}
	if _, ok := TraceInvGram(g, mat.NewDense(1, 2, []float64{1, 1})); ok {
		t.Error("the total's singular AᵀA was not refused")
	}
}

package mmref

import (
	"math"
	"math/rand/v2"
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

// TestFrobPinvAgrees: on an ill-conditioned matrix (σ down to 1e-7) the
// SVD reference and the 256-bit one agree to 1e-9.
func TestFrobPinvAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a := IllConditioned(rng, 7, 5, 1e-7)
	w := mat.NewDense(4, 5, nil)
	for k := range w.RawMatrix().Data {
		w.RawMatrix().Data[k] = rng.NormFloat64()
	}
	var g mat.SymDense
	g.SymOuterK(1, w.T())
	exact, ok := TraceInvGram(&g, a)
	if got := FrobPinv(w, a); !ok || math.Abs(got-exact) > 1e-9*exact {
		t.Errorf("FrobPinv %.15g, 256-bit %.15g", got, exact)
	}
}

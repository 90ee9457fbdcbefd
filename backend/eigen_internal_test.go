package backend

import (
	"errors"
	"sync/atomic"
	"testing"
)

// TestEigenStagesStop: each stage of the cancellable eigensolver gives up
// when its stop flag is set: the tridiagonalisation before its first panel
// (order 300, above the unblocked crossover), the QL method before its
// first sweep, the back-transformation before its first block.
func TestEigenStagesStop(t *testing.T) {
	const n = 300
	a := make([]float64, n*n)
	for i := range n {
		for j := range n {
			a[i*n+j] = 1 / float64(1+i+j) // the Hilbert matrix: full, symmetric
		}
	}
	var stop atomic.Bool
	stop.Store(true)
	d, e, tau := make([]float64, n), make([]float64, n), make([]float64, n-1)
	if tridiagonalize(a, n, d, e, tau, &stop) {
		t.Error("tridiagonalize ran with stop set")
	}
	stop.Store(false)
	if !tridiagonalize(a, n, d, e, tau, &stop) {
		t.Fatal("tridiagonalize stopped without stop set")
	}
	stop.Store(true)
	w := make([]float64, n*n)
	for i := range n {
		w[i*n+i] = 1
	}
	if err := tql(append([]float64(nil), d...), append([]float64(nil), e...), w, n, &stop); !errors.Is(err, errStopped) {
		t.Errorf("tql with stop set: %v, want errStopped", err)
	}
	if backTransform(a, n, tau, w, &stop) {
		t.Error("backTransform ran with stop set")
	}
}

package backend

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"
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
	if tridiagonalize(a, n, n, d, e, tau, &stop) {
		t.Error("tridiagonalize ran with stop set")
	}
	stop.Store(false)
	if !tridiagonalize(a, n, n, d, e, tau, &stop) {
		t.Fatal("tridiagonalize stopped without stop set")
	}
	stop.Store(true)
	w := make([]float64, n*n)
	for i := range n {
		w[i*n+i] = 1
	}
	if err := tql(append([]float64(nil), d...), append([]float64(nil), e...), w, n, n, &stop); !errors.Is(err, errStopped) {
		t.Errorf("tql with stop set: %v, want errStopped", err)
	}
	if backTransform(a, n, n, tau, w, &stop) {
		t.Error("backTransform ran with stop set")
	}
}

// TestEigenSmallBlocks runs the eigensolver with the work bounds between
// reads of the stop flag shrunk, so that an order-300 matrix takes the
// paths of large orders: panels of 8 columns, the back-transformation by
// blocks of 64 rows, rotations applied every 4 of them. The answer is
// checked by its residual and orthogonality (naive loops) and against the
// values with the default bounds.
func TestEigenSmallBlocks(t *testing.T) {
	const n = 300
	a := mat.NewSymDense(n, nil)
	rnd := rand.New(rand.NewPCG(300, 1))
	for i := range n {
		for j := i; j < n; j++ {
			a.SetSym(i, j, 2*rnd.Float64()-1)
		}
	}
	ref, err := EigenValuesSymContext(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	pw, rb := panelWork, rotBatch
	defer func() { panelWork, rotBatch = pw, rb }()
	panelWork, rotBatch = 1<<14, 4*n
	if p := tridiagPanel(n); p != 8 {
		t.Fatalf("panel width %d, want 8", p)
	}
	vals, vecs, err := EigenSymContext(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	for i := range vals {
		if math.Abs(vals[i]-ref[i]) > 1e-13*n {
			t.Errorf("eigenvalue %d = %v, %v with the default bounds", i, vals[i], ref[i])
		}
	}
	res, orth := 0.0, 0.0
	for j := range n {
		for i := range n {
			s, o := 0.0, 0.0
			for k := range n {
				s += a.At(i, k) * vecs.At(k, j)
				o += vecs.At(k, i) * vecs.At(k, j)
			}
			if i == j {
				o--
			}
			res = max(res, math.Abs(s-vals[j]*vecs.At(i, j)))
			orth = max(orth, math.Abs(o))
		}
	}
	if res > 1e-13*n || orth > 1e-13*n/10 {
		t.Errorf("|A V - V Λ| = %.3g, |VᵀV - I| = %.3g", res, orth)
	}
}

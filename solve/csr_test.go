package solve

import (
	"errors"
	"iter"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// sumEdges yields the sum query's answer graph on 0..n-1: i ~ j iff
// 0 < |i-j| <= v.
func sumEdges(n, v int) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := range n {
			for j := i + 1; j < n && j <= i+v; j++ {
				if !yield(i, j) {
					return
				}
			}
		}
	}
}

// TestAdjacencySum checks the sum query's graph: bandwidth v, BFS distances
// ceil(|i-j|/v) (docs/MATH.md §2.1), and the product against dense.
func TestAdjacencySum(t *testing.T) {
	n, v := 23, 4
	a, err := NewAdjacency(n, sumEdges(n, v))
	if err != nil {
		t.Fatal(err)
	}
	if a.Bandwidth() != v {
		t.Errorf("bandwidth %d, want %d", a.Bandwidth(), v)
	}
	wantNNZ := 2 * (v*n - v*(v+1)/2)
	if a.NNZ() != wantNNZ {
		t.Errorf("NNZ %d, want %d", a.NNZ(), wantNNZ)
	}
	dist := make([]int, n)
	for src := range n {
		if err := a.Distances(src, dist, nil); err != nil {
			t.Fatal(err)
		}
		for j, d := range dist {
			if want := (abs(src-j) + v - 1) / v; d != want {
				t.Fatalf("d(%d,%d) = %d, want %d", src, j, d, want)
			}
		}
	}
	dense := mat.NewDense(n, n, nil)
	for i, j := range sumEdges(n, v) {
		dense.Set(i, j, 1)
		dense.Set(j, i, 1)
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(i*i%7) - 3
	}
	got := make([]float64, n)
	a.MulVec(got, x)
	var want mat.VecDense
	want.MulVec(dense, mat.NewVecDense(n, x))
	for i := range got {
		if got[i] != want.AtVec(i) {
			t.Fatalf("(A x)[%d] = %v, want %v", i, got[i], want.AtVec(i))
		}
	}
	cols, _ := a.Row(0)
	if len(cols) != v || cols[0] != 1 || cols[v-1] != v {
		t.Errorf("row 0 = %v", cols)
	}
}

func TestAdjacencyErrors(t *testing.T) {
	loop := func(yield func(int, int) bool) { yield(1, 1) }
	if _, err := NewAdjacency(3, loop); !errors.Is(err, ErrShape) {
		t.Errorf("self-loop: err = %v", err)
	}
	out := func(yield func(int, int) bool) { yield(0, 3) }
	if _, err := NewAdjacency(3, out); !errors.Is(err, ErrShape) {
		t.Errorf("endpoint out of range: err = %v", err)
	}
	// Two components: distances -1 across.
	two := func(yield func(int, int) bool) { _ = yield(0, 1) && yield(1, 0) && yield(2, 3) }
	a, err := NewAdjacency(4, two)
	if err != nil {
		t.Fatal(err)
	}
	if a.NNZ() != 4 {
		t.Errorf("duplicate edge not merged: NNZ %d", a.NNZ())
	}
	d := make([]int, 4)
	if err := a.Distances(0, d, nil); err != nil || d[1] != 1 || d[2] != -1 || d[3] != -1 {
		t.Errorf("distances %v, err %v", d, err)
	}
	if err := a.Distances(9, d, nil); !errors.Is(err, ErrShape) {
		t.Errorf("bad source: err = %v", err)
	}
}

package mech

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestTableauTextbook: max x1 + x2 subject to x1 + 2 x2 <= 4,
// 3 x1 + x2 <= 6 has its optimum 14/5 at (8/5, 6/5) (the two constraints'
// intersection, by hand).
func TestTableauTextbook(t *testing.T) {
	a := mat.NewDense(2, 4, []float64{1, 2, 1, 0, 3, 1, 0, 1})
	tb, err := newTableau(a, []float64{4, 6}, []float64{-1, -1, 0, 0}, []int{2, 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.solve(context.Background()); err != nil {
		t.Fatal(err)
	}
	x := tb.x()
	if !near(x[0], 1.6, 1e-12) || !near(x[1], 1.2, 1e-12) {
		t.Errorf("x = %v, want (1.6, 1.2)", x[:2])
	}
}

// TestTableauBeale: Beale's example, on which the most-negative-cost rule
// cycles forever without an anti-cycling rule; its optimum is -5/4 at
// x4 = 1, x6 = 1 (Beale 1955; Chvátal, Linear Programming, ch. 3).
func TestTableauBeale(t *testing.T) {
	// Variables x1..x7 (x1, x2, x3 the slacks) in columns 0..6.
	a := mat.NewDense(3, 7, []float64{
		1, 0, 0, 0.25, -8, -1, 9,
		0, 1, 0, 0.5, -12, -0.5, 3,
		0, 0, 1, 0, 0, 1, 0,
	})
	c := []float64{0, 0, 0, -0.75, 20, -0.5, 6}
	tb, err := newTableau(a, []float64{0, 0, 1}, c, []int{0, 1, 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.solve(context.Background()); err != nil {
		t.Fatal(err)
	}
	x := tb.x()
	obj := 0.0
	for j, v := range x {
		obj += c[j] * v
	}
	if !near(obj, -1.25, 1e-12) || !near(x[3], 1, 1e-12) || !near(x[5], 1, 1e-12) {
		t.Errorf("Beale: objective %v at %v, want -5/4 at x4 = x6 = 1", obj, x)
	}
}

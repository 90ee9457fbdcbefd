//go:build netlib && cgo

package backend_netlib

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randSparseSPD returns a random sparse symmetric positive-definite n×n
// matrix (dense, for the reference) with about deg off-diagonal entries per
// row, diagonally dominant, and its lower-triangle pattern and values.
func randSparseSPD(rnd *rand.Rand, n, deg int) (*mat.SymDense, []int, []int, []float64) {
	a := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for range deg / 2 {
			j := rnd.IntN(n)
			if j != i {
				a.SetSym(i, j, rnd.Float64()*2-1)
			}
		}
	}
	for i := 0; i < n; i++ {
		s := 0.0
		for j := 0; j < n; j++ {
			if j != i {
				s += math.Abs(a.At(i, j))
			}
		}
		a.SetSym(i, i, s+0.1+rnd.Float64())
	}
	colPtr := []int{0}
	var rowIdx []int
	var vals []float64
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			if v := a.At(i, j); v != 0 || i == j {
				rowIdx = append(rowIdx, i)
				vals = append(vals, v)
			}
		}
		colPtr = append(colPtr, len(rowIdx))
	}
	return a, colPtr, rowIdx, vals
}

// TestCholmodSolveMatchesDense solves A x = b with CHOLMOD in every
// ordering, simplicial and supernodal, and compares with gonum's dense
// Cholesky of the same matrix.
func TestCholmodSolveMatchesDense(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 7))
	for _, n := range []int{1, 7, 60, 300} {
		a, colPtr, rowIdx, vals := randSparseSPD(rnd, n, 6)
		var ch mat.Cholesky
		if !ch.Factorize(a) {
			t.Fatalf("n=%d: reference Cholesky failed", n)
		}
		b := make([]float64, n)
		for i := range b {
			b[i] = rnd.Float64()*2 - 1
		}
		var want mat.VecDense
		if err := ch.SolveVecTo(&want, mat.NewVecDense(n, append([]float64(nil), b...))); err != nil {
			t.Fatal(err)
		}
		for _, ord := range []CholmodOrdering{CholmodDefault, CholmodAMD, CholmodMETIS, CholmodNESDIS, CholmodNatural} {
			for _, super := range []bool{false, true} {
				f, err := NewCholmod(n, colPtr, rowIdx, ord, super)
				if err != nil {
					t.Fatalf("n=%d %v: %v", n, ord, err)
				}
				if !isPerm(f.Perm()) {
					t.Errorf("n=%d %v: invalid permutation", n, ord)
				}
				if ord == CholmodNatural {
					for k, v := range f.Perm() {
						if k != v {
							t.Fatalf("natural order moved row %d to %d", v, k)
						}
					}
				}
				if err := f.Factor(vals); err != nil {
					t.Fatalf("n=%d %v super=%v: %v", n, ord, super, err)
				}
				x := append([]float64(nil), b...)
				if err := f.Solve(x); err != nil {
					t.Fatal(err)
				}
				for i := range x {
					if math.Abs(x[i]-want.AtVec(i)) > 1e-10*(1+math.Abs(want.AtVec(i))) {
						t.Fatalf("n=%d %v super=%v: x[%d] = %g, dense Cholesky %g", n, ord, super, i, x[i], want.AtVec(i))
					}
				}
				f.Close()
				f.Close() // idempotent
			}
		}
	}
}

// TestCholmodLDLReconstructs exports the factor on the full lower pattern
// and checks L D Lᵀ = P A Pᵀ entrywise (the definition of the
// factorisation, independent of CHOLMOD's own solve), for both kinds.
func TestCholmodLDLReconstructs(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 5))
	n := 80
	a, colPtr, rowIdx, vals := randSparseSPD(rnd, n, 5)
	fullPtr := []int{0}
	var fullIdx []int
	for j := 0; j < n; j++ {
		for i := j + 1; i < n; i++ {
			fullIdx = append(fullIdx, i)
		}
		fullPtr = append(fullPtr, len(fullIdx))
	}
	for _, super := range []bool{false, true} {
		f, err := NewCholmod(n, colPtr, rowIdx, CholmodMETIS, super)
		if err != nil {
			t.Fatal(err)
		}
		if f.Supernodal() != super {
			t.Errorf("Supernodal() = %v, want %v", f.Supernodal(), super)
		}
		if err := f.Factor(vals); err != nil {
			t.Fatal(err)
		}
		d, l, work := make([]float64, n), make([]float64, len(fullIdx)), make([]float64, n)
		if err := f.LDL(d, fullPtr, fullIdx, l, work); err != nil {
			t.Fatal(err)
		}
		for _, v := range work {
			if v != 0 {
				t.Fatal("LDL left scratch nonzero")
			}
		}
		lm := mat.NewDense(n, n, nil)
		for j := 0; j < n; j++ {
			lm.Set(j, j, 1)
			for q := fullPtr[j]; q < fullPtr[j+1]; q++ {
				lm.Set(fullIdx[q], j, l[q])
			}
		}
		var ld, rec mat.Dense
		ld.Mul(lm, mat.NewDiagDense(n, d))
		rec.Mul(&ld, lm.T())
		perm := f.Perm()
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				want := a.At(perm[i], perm[j])
				if math.Abs(rec.At(i, j)-want) > 1e-10*(1+math.Abs(want)) {
					t.Fatalf("super=%v: (L D Lᵀ)[%d][%d] = %g, (P A Pᵀ) = %g", super, i, j, rec.At(i, j), want)
				}
			}
		}
		// A pattern that misses entries of L is refused.
		emptyPtr := make([]int, n+1)
		if err := f.LDL(d, emptyPtr, nil, nil, work); err == nil {
			t.Error("LDL accepted a pattern without L's entries")
		}
		f.Close()
	}
}

// TestCholmodBadInput: malformed patterns, wrong lengths, an indefinite
// matrix and use after Close give errors, never a crash.
func TestCholmodBadInput(t *testing.T) {
	if _, err := NewCholmod(0, []int{0}, nil, CholmodAMD, false); err == nil {
		t.Error("n = 0 accepted")
	}
	if _, err := NewCholmod(2, []int{0, 1, 2}, []int{1, 1}, CholmodAMD, false); err == nil {
		t.Error("missing diagonal accepted")
	}
	if _, err := NewCholmod(2, []int{0, 2, 3}, []int{0, 0, 1}, CholmodAMD, false); err == nil {
		t.Error("repeated row accepted")
	}
	if _, err := NewCholmod(2, []int{0, 2, 3}, []int{0, 2, 1}, CholmodAMD, false); err == nil {
		t.Error("row out of range accepted")
	}
	if _, err := NewCholmod(1, []int{0, 1}, []int{0}, CholmodOrdering(99), false); err == nil {
		t.Error("unknown ordering accepted")
	}
	// [[1 2] [2 1]] is indefinite.
	f, err := NewCholmod(2, []int{0, 2, 3}, []int{0, 1, 1}, CholmodNatural, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Factor([]float64{1, 2}); err == nil {
		t.Error("wrong number of values accepted")
	}
	if err := f.Factor([]float64{1, 2, 1}); !errors.Is(err, ErrNotPosDef) {
		t.Errorf("indefinite matrix: err = %v, want ErrNotPosDef", err)
	}
	if err := f.Solve([]float64{1, 1}); err == nil {
		t.Error("Solve after a failed factorisation accepted")
	}
	if err := f.Factor([]float64{2, 1, 2}); err != nil {
		t.Fatal(err)
	}
	if err := f.Solve([]float64{1}); err == nil {
		t.Error("short right-hand side accepted")
	}
	// [[2 1] [1 2]] x = [3 3] has x = [1 1].
	x := []float64{3, 3}
	if err := f.Solve(x); err != nil || math.Abs(x[0]-1) > 1e-15 || math.Abs(x[1]-1) > 1e-15 {
		t.Errorf("Solve = %v, %v; want [1 1]", x, err)
	}
	f.Close()
	if err := f.Factor([]float64{2, 1, 2}); err == nil {
		t.Error("Factor after Close accepted")
	}
}

// TestCholmodOrderGrid: on a k×k 4-neighbour grid every ordering is a
// permutation, and METIS's nested dissection has fewer nonzeros in L than
// the natural order's full envelope.
func TestCholmodOrderGrid(t *testing.T) {
	k := 20
	n := k * k
	colPtr := []int{0}
	var rowIdx []int
	for j := 0; j < n; j++ {
		rowIdx = append(rowIdx, j)
		if j%k+1 < k {
			rowIdx = append(rowIdx, j+1)
		}
		if j+k < n {
			rowIdx = append(rowIdx, j+k)
		}
		colPtr = append(colPtr, len(rowIdx))
	}
	_, natural, err := CholmodOrder(n, colPtr, rowIdx, CholmodNatural)
	if err != nil {
		t.Fatal(err)
	}
	// The natural order of a grid fills its envelope: row i >= k has the k
	// entries from i-k to i-1 left of the diagonal, the rows 1..k-1 of the
	// first grid line one each.
	wantNatural := n + (k - 1) + (n-k)*k
	if natural != wantNatural {
		t.Errorf("natural nnz(L) = %d, want the envelope %d", natural, wantNatural)
	}
	perm, metis, err := CholmodOrder(n, colPtr, rowIdx, CholmodMETIS)
	if err != nil {
		t.Fatal(err)
	}
	if len(perm) != n || metis >= natural {
		t.Errorf("METIS nnz(L) = %d, natural %d", metis, natural)
	}
}

package solve

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// bruteNNLS minimises ||A x - b|| over x >= 0 by trying every support S:
// the unconstrained least-squares solution on S, kept when non-negative.
// The optimum is among them (it is the LS solution on its own support).
func bruteNNLS(a *mat.Dense, b []float64) float64 {
	m, n := a.Dims()
	best := math.Inf(1)
	for mask := 0; mask < 1<<n; mask++ {
		var cols []int
		for j := 0; j < n; j++ {
			if mask>>j&1 == 1 {
				cols = append(cols, j)
			}
		}
		x := make([]float64, n)
		if len(cols) > 0 {
			as := mat.NewDense(m, len(cols), nil)
			for k, j := range cols {
				for i := 0; i < m; i++ {
					as.Set(i, k, a.At(i, j))
				}
			}
			var xs mat.VecDense
			if err := xs.SolveVec(as, mat.NewVecDense(m, b)); err != nil {
				continue
			}
			ok := true
			for k, j := range cols {
				if xs.AtVec(k) < 0 {
					ok = false
				}
				x[j] = xs.AtVec(k)
			}
			if !ok {
				continue
			}
		}
		var r float64
		for i := 0; i < m; i++ {
			s := b[i]
			for j := 0; j < n; j++ {
				s -= a.At(i, j) * x[j]
			}
			r += s * s
		}
		best = min(best, math.Sqrt(r))
	}
	return best
}

func TestNNLSAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 40; trial++ {
		m, n := 4+rng.IntN(4), 2+rng.IntN(5)
		a := mat.NewDense(m, n, nil)
		b := make([]float64, m)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				a.Set(i, j, rng.NormFloat64())
			}
			b[i] = rng.NormFloat64()
		}
		r, err := NNLS(context.Background(), a, b)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range r.X {
			if x < 0 {
				t.Fatalf("trial %d: negative x %v", trial, r.X)
			}
		}
		var got float64
		for _, v := range r.Residual {
			got += v * v
		}
		got = math.Sqrt(got)
		if want := bruteNNLS(a, b); math.Abs(got-want) > 1e-10*(1+want) {
			t.Errorf("trial %d (%d×%d): residual %v, brute force %v", trial, m, n, got, want)
		}
	}
}

func TestFeasible(t *testing.T) {
	ctx := context.Background()
	// Identity: x = b when b >= 0; b with a negative entry is infeasible.
	id := mat.NewDense(3, 3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1})
	if r, _ := Feasible(ctx, id, []float64{1, 2, 0}); r.Verdict != run.Yes || r.X[1] != 2 {
		t.Errorf("identity feasible: %+v", r)
	}
	if r, _ := Feasible(ctx, id, []float64{1, -2, 1}); r.Verdict != run.No || r.Certificate != "farkas" {
		t.Errorf("identity infeasible: %+v", r)
	}
	// Without a unit diagonal there is no bound on ||x||_1: no proof of
	// infeasibility, so the answer is borderline rather than a guess.
	neg := mat.NewDense(2, 2, []float64{1, -1, -1, 1})
	if r, _ := Feasible(ctx, neg, []float64{1, 1}); r.Verdict != run.Borderline {
		t.Errorf("indefinite singular: %+v", r)
	}
	if _, err := Feasible(ctx, mat.NewDense(2, 3, nil), []float64{1, 1}); err == nil {
		t.Error("non-square accepted")
	}
	if _, err := NNLS(ctx, id, []float64{1}); err == nil {
		t.Error("short b accepted")
	}
	if _, err := NNLS(ctx, mat.NewDense(1, MaxNNLS+1, nil), []float64{1}); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("huge nnls: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := NNLS(cctx, id, []float64{1, 1, 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestLSQPassiveWide: more passive columns than rows (which the active
// set reached under the netlib backend's rounding) goes to the
// pseudo-inverse, not to a QR of a wide matrix (which panics): the
// least-squares solution of the passive columns, here exact (rank 2).
func TestLSQPassiveWide(t *testing.T) {
	a := mat.NewDense(2, 4, []float64{
		1, 2, 0, 1,
		0, 1, 3, 1,
	})
	b := mat.NewVecDense(2, []float64{3, 5})
	z, err := lsqPassive(a, b, []bool{true, true, true, false})
	if err != nil {
		t.Fatal(err)
	}
	if z[3] != 0 {
		t.Fatalf("an active column got %v", z[3])
	}
	for i := range 2 {
		var v float64
		for j := range 4 {
			v += a.At(i, j) * z[j]
		}
		if math.Abs(v-b.AtVec(i)) > 1e-12 {
			t.Fatalf("(A z)[%d] = %v, want %v (z %v)", i, v, b.AtVec(i), z)
		}
	}
}

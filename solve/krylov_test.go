package solve

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/run"

	"gonum.org/v1/gonum/mat"
)

// randomSym returns Q diag(ev) Q^T for a random orthogonal Q.
func randomSym(rng *rand.Rand, ev []float64) *mat.SymDense {
	n := len(ev)
	g := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	var qd mat.Dense
	qd.Mul(&q, mat.NewDiagDense(n, ev))
	var a mat.Dense
	a.Mul(&qd, q.T())
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	return s
}

// TestKrylovDense runs PCG on an SPD matrix and MINRES on SPD and
// indefinite matrices with known spectra, against dense solves.
func TestKrylovDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	n := 40
	spd := make([]float64, n)
	indef := make([]float64, n)
	for i := range n {
		spd[i] = 0.1 + float64(i)
		indef[i] = spd[i]
		if i%3 == 0 {
			indef[i] = -indef[i]
		}
	}
	b := make([]float64, n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	for _, tc := range []struct {
		name  string
		ev    []float64
		solve func(context.Context, Operator, Operator, []float64, *Options) (Result, error)
	}{
		{"pcg/spd", spd, PCG},
		{"minres/spd", spd, MINRES},
		{"minres/indefinite", indef, MINRES},
	} {
		a := randomSym(rng, tc.ev)
		want := denseSolve(t, a, b)
		calls := 0
		res, err := tc.solve(context.Background(), Dense{a}, nil, b, &Options{Settings: run.Settings{Progress: func(run.Progress) { calls++ }}})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if d := relDiff(res.Z, want); d > 1e-8 || res.Residual > DefaultTol || !res.Converged {
			t.Errorf("%s: diff %.3g, residual %.3g, converged %v", tc.name, d, res.Residual, res.Converged)
		}
		if calls != res.Iterations || res.Iterations == 0 || res.Iterations > 3*n {
			t.Errorf("%s: %d progress calls, %d iterations", tc.name, calls, res.Iterations)
		}
	}
	// PCG on the indefinite matrix must report breakdown, not a wrong z.
	a := randomSym(rng, indef)
	res, err := PCG(context.Background(), Dense{a}, nil, b, &Options{})
	if err == nil {
		if d := relDiff(res.Z, denseSolve(t, a, b)); d > 1e-8 {
			t.Errorf("pcg on indefinite: no error but z off by %.3g", d)
		}
	} else if !errors.Is(err, ErrBreakdown) && !errors.Is(err, run.ErrNotConverged) {
		t.Errorf("pcg on indefinite: err = %v", err)
	}
}

func TestKrylovStops(t *testing.T) {
	tp := mustToeplitz(t, []int{30, 20}, euclidKernel(0.05))
	b := ones(tp.Len())
	for name, solve := range map[string]func(context.Context, Operator, Operator, []float64, *Options) (Result, error){"pcg": PCG, "minres": MINRES} {
		res, err := solve(context.Background(), tp, nil, b, &Options{MaxIter: 3})
		if !errors.Is(err, run.ErrNotConverged) || res.Iterations != 3 || res.Converged || len(res.Z) != tp.Len() {
			t.Errorf("%s MaxIter=3: err %v, %d iterations, converged %v", name, err, res.Iterations, res.Converged)
		}
		if want := trueResidual(tp, b, res.Z, make([]float64, tp.Len())); res.Residual != want {
			t.Errorf("%s: Residual %.6g is not the true residual %.6g", name, res.Residual, want)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := solve(ctx, tp, nil, b, &Options{}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s cancelled: err = %v", name, err)
		}
		res, err = solve(context.Background(), tp, nil, make([]float64, tp.Len()), &Options{})
		if err != nil || !res.Converged || norm2(res.Z) != 0 {
			t.Errorf("%s b=0: z norm %v, err %v", name, norm2(res.Z), err)
		}
		if _, err := solve(context.Background(), tp, nil, b[:5], &Options{}); !errors.Is(err, ErrShape) {
			t.Errorf("%s short b: err = %v", name, err)
		}
		bad := ones(tp.Len())
		bad[3] = math.NaN()
		if _, err := solve(context.Background(), tp, nil, bad, &Options{}); !errors.Is(err, ErrNotFinite) {
			t.Errorf("%s NaN b: no error", name)
		}
	}
}

// TestSolveToeplitzMethods forces each method and preconditioner on an SPD
// and an indefinite system and checks the solver names and answers.
func TestSolveToeplitzMethods(t *testing.T) {
	spd := toeplitzCase{"euclid", []int{12, 9}, euclidKernel(0.3)}
	indef := toeplitzCase{"sum", []int{61}, sumKernel(0.05, 5)}
	for _, tc := range []struct {
		c      toeplitzCase
		opt    Options
		solver Solver
		fail   error
	}{
		{spd, Options{}, "toeplitz-pcg-tchan", nil}, // Strang is indefinite here
		{spd, Options{Precond: PrecondTChan}, "toeplitz-pcg-tchan", nil},
		{spd, Options{Precond: PrecondNone}, "toeplitz-pcg-none", nil},
		{spd, Options{Method: MethodMINRES}, "toeplitz-minres-abs-strang", nil},
		{indef, Options{}, "toeplitz-minres-abs-tchan", nil},
		{indef, Options{Method: MethodMINRES, Precond: PrecondNone}, "toeplitz-minres-none", nil},
		{indef, Options{Method: MethodPCG, Precond: PrecondNone}, "toeplitz-pcg-none", ErrBreakdown},
	} {
		name := fmt.Sprintf("%s/%+v", tc.c.name, tc.opt)
		tp := mustToeplitz(t, tc.c.dims, tc.c.k)
		b := ones(tp.Len())
		res, err := SolveToeplitz(context.Background(), tp, b, &tc.opt)
		if res.Solver != tc.solver {
			t.Errorf("%s: solver %q, want %q", name, res.Solver, tc.solver)
		}
		if tc.fail != nil {
			if !errors.Is(err, tc.fail) {
				t.Errorf("%s: err = %v, want %v", name, err, tc.fail)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d := relDiff(res.Z, denseSolve(t, denseFromKernel(tc.c.dims, tc.c.k), b)); d > 1e-8 {
			t.Errorf("%s: z differs from dense by %.3g", name, d)
		}
	}
}

func ExampleSolveToeplitz() {
	// Sum query with u = 4 values in 0..3 (answers 0..12, d = ceil(|i-j|/3))
	// at eps = 1: a 13×13 symmetric Toeplitz system Phi z = 1.
	v := 3
	tp, _ := NewToeplitz([]int{13}, func(off []int) float64 {
		return math.Exp(-1.0 * float64((off[0]+v-1)/v))
	})
	b := make([]float64, tp.Len())
	for i := range b {
		b[i] = 1
	}
	res, err := SolveToeplitz(context.Background(), tp, b, &Options{})
	fmt.Println(res.Solver, res.Converged, res.Residual < 1e-12, err)
	fmt.Printf("z[0] = %.6f, z[6] = %.6f\n", res.Z[0], res.Z[6])
	// Output:
	// toeplitz-pcg-strang true true <nil>
	// z[0] = 0.544941, z[6] = 0.211846
}

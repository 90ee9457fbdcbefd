package backend_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// checkEigen checks a computed eigendecomposition of a independently of the
// solver: ascending values, ‖VᵀV - I‖_max <= 1e-13·max(1, n/10), and the
// residual ‖A V - V Λ‖_max / ‖A‖_max <= 1e-13·n (naive products).
func checkEigen(t *testing.T, name string, a mat.Symmetric, vals []float64, vecs *mat.Dense) {
	t.Helper()
	n := a.SymmetricDim()
	if len(vals) != n {
		t.Fatalf("%s: %d eigenvalues, want %d", name, len(vals), n)
	}
	if r, c := vecs.Dims(); r != n || c != n {
		t.Fatalf("%s: vectors %d×%d, want %d×%d", name, r, c, n, n)
	}
	if !slices.IsSorted(vals) {
		t.Errorf("%s: eigenvalues not ascending", name)
	}
	if e := orthoErr(vecs); e > 1e-13*max(1, float64(n)/10) {
		t.Errorf("%s: VᵀV - I = %.3g", name, e)
	}
	av := naiveMul(a, vecs)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			av.Set(i, j, av.At(i, j)-vals[j]*vecs.At(i, j))
		}
	}
	if am := maxAbs(a); am > 0 {
		if r := maxAbs(av) / am; r > 1e-13*float64(n) {
			t.Errorf("%s: |A V - V Λ| / |A| = %.3g", name, r)
		}
	} else if maxAbs(av) != 0 {
		t.Errorf("%s: A = 0 but A V - V Λ != 0", name)
	}
}

// eigenBoth runs EigenSymContext and EigenValuesSymContext on a, checks the
// decomposition and that both give the same values; it returns them.
func eigenBoth(t *testing.T, name string, a mat.Symmetric) []float64 {
	t.Helper()
	ctx := context.Background()
	vals, vecs, err := backend.EigenSymContext(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	checkEigen(t, name, a, vals, vecs)
	only, err := backend.EigenValuesSymContext(ctx, a)
	if err != nil {
		t.Fatalf("%s: values only: %v", name, err)
	}
	scale := max(maxAbs(a), math.SmallestNonzeroFloat64)
	for i := range only {
		if d := math.Abs(only[i] - vals[i]); d > 1e-13*float64(len(vals))*scale {
			t.Errorf("%s: value %d: %v without vectors, %v with", name, i, only[i], vals[i])
		}
	}
	return vals
}

// orthoSim returns U diag(d) Uᵀ for a random orthogonal U (the Q of a
// random matrix's QR factorisation): a symmetric matrix with eigenvalues d.
func orthoSim(seed uint64, d []float64) *mat.SymDense {
	n := len(d)
	var qr mat.QR
	qr.Factorize(randDense(newRand(seed), n, n))
	var u mat.Dense
	qr.QTo(&u)
	a := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s := 0.0
			for k := 0; k < n; k++ {
				s += u.At(i, k) * d[k] * u.At(j, k)
			}
			a.SetSym(i, j, s)
		}
	}
	return a
}

// wantValues checks vals against the known spectrum d (any order): within
// 1e-14·n·max|d| (Weyl's bound for the rounding of U diag(d) Uᵀ and of a
// backward-stable solver).
func wantValues(t *testing.T, name string, vals, d []float64) {
	t.Helper()
	want := slices.Clone(d)
	slices.Sort(want)
	dmax := 0.0
	for _, v := range d {
		dmax = max(dmax, math.Abs(v))
	}
	for i := range want {
		if e := math.Abs(vals[i] - want[i]); e > 1e-14*float64(len(d))*dmax {
			t.Errorf("%s: eigenvalue %d = %.17g, want %.17g (error %.3g)", name, i, vals[i], want[i], e)
		}
	}
}

// TestEigenSymContextRandom: random symmetric matrices of orders on both
// sides of the blocked tridiagonalisation's crossover (128) and of a panel
// (32), and 512 (work matrices with a padded row stride), checked by residual and orthogonality and against gonum's
// mat.EigenSym (LAPACK's dsteqr: a different QL/QR code) or, in the netlib
// build, LAPACK's dsyevd (divide and conquer).
func TestEigenSymContextRandom(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 33, 128, 129, 161, 300, 512} {
		a := randSym(newRand(uint64(100+n)), n, 0)
		vals := eigenBoth(t, fmt.Sprintf("n=%d", n), a)
		ref, err := backend.EigenValuesSym(a)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ref {
			if d := math.Abs(ref[i] - vals[i]); d > 1e-13*float64(n)*maxAbs(a) {
				t.Errorf("n=%d: eigenvalue %d = %v, EigenValuesSym %v", n, i, vals[i], ref[i])
			}
		}
	}
}

// TestEigenSymContextKnownSpectra: matrices U diag(d) Uᵀ with prescribed
// spectra (the reference values are d): condition 1e12 (logarithmically
// spaced), clustered values 1 + k·1e-10, repeated values (multiplicity 40
// and 30), and the second-difference matrix (already tridiagonal; values
// 2 - 2cos(kπ/(n+1)) in closed form).
func TestEigenSymContextKnownSpectra(t *testing.T) {
	const n = 150
	ill := make([]float64, n)
	for i := range ill {
		ill[i] = math.Pow(10, -12*float64(i)/float64(n-1))
		if i%2 == 1 {
			ill[i] = -ill[i]
		}
	}
	cluster := make([]float64, n)
	for i := range cluster {
		cluster[i] = 1 + float64(i)*1e-10
	}
	cluster[n-1] = -3
	repeated := make([]float64, n)
	for i := range repeated {
		switch {
		case i < 40:
			repeated[i] = 2
		case i < 70:
			repeated[i] = -0.5
		default:
			repeated[i] = float64(i) / n
		}
	}
	for _, c := range []struct {
		name string
		d    []float64
	}{{"cond 1e12", ill}, {"clustered", cluster}, {"repeated", repeated}} {
		vals := eigenBoth(t, c.name, orthoSim(7, c.d))
		wantValues(t, c.name, vals, c.d)
	}
	second := make([]float64, n)
	for k := range second {
		second[k] = 2 - 2*math.Cos(float64(k+1)*math.Pi/float64(n+1))
	}
	wantValues(t, "second difference", eigenBoth(t, "second difference", tridiag(n)), second)
}

// TestEigenSymContextStructured: a diagonal matrix (its values are its
// diagonal exactly: no reflector and no rotation changes them), the zero
// matrix, 1×1 and 0×0, a graded matrix D B D (D = diag(10^(-8i/n))), and
// matrices scaled by 2^±600 (scaled inside by a power of two: the values
// are 2^±600 times those of the unscaled matrix).
func TestEigenSymContextStructured(t *testing.T) {
	ctx := context.Background()
	const n = 140
	rnd := newRand(11)
	diag := mat.NewSymDense(n, nil)
	want := make([]float64, n)
	for i := range want {
		want[i] = math.Round((2*rnd.Float64()-1)*1e3) / 8
		diag.SetSym(i, i, want[i])
	}
	want[3], want[9] = 0, 0
	diag.SetSym(3, 3, 0)
	diag.SetSym(9, 9, 0)
	vals := eigenBoth(t, "diagonal", diag)
	slices.Sort(want)
	if !slices.Equal(vals, want) {
		t.Errorf("diagonal: eigenvalues %v, want the sorted diagonal %v", vals, want)
	}
	if vals := eigenBoth(t, "zero", mat.NewSymDense(n, nil)); slices.ContainsFunc(vals, func(v float64) bool { return v != 0 }) {
		t.Errorf("zero matrix: eigenvalues %v", vals)
	}
	one, vecs, err := backend.EigenSymContext(ctx, mat.NewSymDense(1, []float64{-3.5}))
	if err != nil || !slices.Equal(one, []float64{-3.5}) || vecs.At(0, 0) != 1 {
		t.Errorf("1×1: %v %v %v, want [-3.5] [[1]]", one, vecs, err)
	}
	// A Symmetric that is not a SymDense (read by At).
	if dv, _, err := backend.EigenSymContext(ctx, mat.NewDiagDense(3, []float64{3, -1, 2})); err != nil || !slices.Equal(dv, []float64{-1, 2, 3}) {
		t.Errorf("DiagDense(3, -1, 2): %v %v, want [-1 2 3]", dv, err)
	}
	zero, vecs, err := backend.EigenSymContext(ctx, &mat.SymDense{})
	if err != nil || len(zero) != 0 || !vecs.IsEmpty() {
		t.Errorf("0×0: %v %v %v, want no values and an empty matrix", zero, vecs, err)
	}
	if zero, err := backend.EigenValuesSymContext(ctx, &mat.SymDense{}); err != nil || len(zero) != 0 {
		t.Errorf("0×0 values: %v %v", zero, err)
	}

	graded := randSym(newRand(12), n, 0)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			graded.SetSym(i, j, graded.At(i, j)*math.Pow(10, -8*float64(i+j)/n))
		}
	}
	vals = eigenBoth(t, "graded", graded)
	ref, err := backend.EigenValuesSym(graded)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ref {
		if d := math.Abs(ref[i] - vals[i]); d > 1e-13*n*maxAbs(graded) {
			t.Errorf("graded: eigenvalue %d = %v, EigenValuesSym %v", i, vals[i], ref[i])
		}
	}

	base := randSym(newRand(13), 60, 0)
	ref = eigenBoth(t, "unscaled", base)
	for _, e := range []int{600, -600} {
		s := mat.NewSymDense(60, nil)
		s.ScaleSym(math.Ldexp(1, e), base)
		name := fmt.Sprintf("scaled by 2^%d", e)
		vals := eigenBoth(t, name, s)
		for i := range vals {
			if d := math.Abs(math.Ldexp(vals[i], -e) - ref[i]); d > 1e-13*60*maxAbs(base) {
				t.Errorf("%s: eigenvalue %d = %v·2^%d, unscaled %v", name, i, math.Ldexp(vals[i], -e), e, ref[i])
			}
		}
	}
}

func TestEigenSymContextErrors(t *testing.T) {
	ctx := context.Background()
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		a := randSym(newRand(1), 5, 0)
		a.SetSym(1, 3, bad)
		if _, _, err := backend.EigenSymContext(ctx, a); !errors.Is(err, backend.ErrNotFinite) || !errors.Is(err, run.ErrBadInput) {
			t.Errorf("entry %v: %v, want ErrNotFinite (bad input)", bad, err)
		}
		if _, err := backend.EigenValuesSymContext(ctx, a); !errors.Is(err, backend.ErrNotFinite) {
			t.Errorf("values, entry %v: %v, want ErrNotFinite", bad, err)
		}
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	a := randSym(newRand(2), 50, 0)
	if _, _, err := backend.EigenSymContext(done, a); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before the start: %v, want context.Canceled", err)
	}
	if _, err := backend.EigenValuesSymContext(done, a); !errors.Is(err, context.Canceled) {
		t.Errorf("values, cancelled before the start: %v, want context.Canceled", err)
	}
}

// TestEigenSymContextCancel cancels order-1600 decompositions at several
// delays (inside the tridiagonalisation, the QL sweeps or the
// back-transformation, depending on the machine) and asserts that each
// returns context.Canceled, or, when it finished before the cancellation,
// a correct answer; at least one cancellation must land. A run that does
// not return within two minutes of its cancellation is reported as a hang.
func TestEigenSymContextCancel(t *testing.T) {
	if testing.Short() {
		t.Skip("order-1600 eigendecompositions")
	}
	const n = 1600
	a := randSym(newRand(1600), n, 0)
	landed := 0
	for _, delay := range []time.Duration{5 * time.Millisecond, 50 * time.Millisecond, 300 * time.Millisecond, 1500 * time.Millisecond} {
		for _, vectors := range []bool{true, false} {
			if !vectors && delay > 50*time.Millisecond {
				continue
			}
			ctx, cancel := context.WithCancel(context.Background())
			type answer struct {
				vals []float64
				vecs *mat.Dense
				err  error
			}
			ch := make(chan answer, 1)
			go func() {
				var r answer
				if vectors {
					r.vals, r.vecs, r.err = backend.EigenSymContext(ctx, a)
				} else {
					r.vals, r.err = backend.EigenValuesSymContext(ctx, a)
				}
				ch <- r
			}()
			time.Sleep(delay)
			cancel()
			var r answer
			select {
			case r = <-ch:
			case <-time.After(2 * time.Minute):
				t.Fatalf("delay %v, vectors %v: no answer two minutes after the cancellation", delay, vectors)
			}
			switch {
			case errors.Is(r.err, context.Canceled):
				landed++
			case r.err != nil:
				t.Errorf("delay %v, vectors %v: %v, want context.Canceled", delay, vectors, r.err)
			case len(r.vals) != n || vectors && r.vecs == nil:
				t.Errorf("delay %v, vectors %v: finished with %d values", delay, vectors, len(r.vals))
			default:
				t.Logf("delay %v, vectors %v: finished before the cancellation", delay, vectors)
			}
		}
	}
	if landed == 0 {
		t.Error("no cancellation landed")
	}
}

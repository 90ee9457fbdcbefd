package stream

import (
	"fmt"
	"math"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// Errors are the errors of a factorisation A = B C of the prefix sums of an
// n-step stream, for Gaussian noise of standard deviation sens(C) (noise
// multiplier 1; multiply by σ²/sens² for another noise scale).
type Errors struct {
	// Total is the total squared error sens²·‖B‖²_F = sens²·Σ_i Var(ŝ_i);
	// for the least-squares B = A C⁺ it is sens²·tr(A X⁻¹ Aᵀ).
	Total float64 `json:"total"`
	// RMSE is sqrt(Total/n).
	RMSE float64 `json:"rmse"`
	// Max is the largest variance sens²·max_i ‖B_i‖² (the max error of the
	// papers, as a variance).
	Max float64 `json:"max"`
}

// newErrors returns the Errors for sens² and the variances' sum and max
// (before scaling by sens²).
func newErrors(n int, sens2, sum, max float64) Errors {
	t := sens2 * sum
	return Errors{Total: t, RMSE: math.Sqrt(t / float64(n)), Max: sens2 * max}
}

// PrefixVariances returns v_i = (A X⁻¹ Aᵀ)_ii, i = 0..n-1, the variances of
// the least-squares prefix-sum estimates of a strategy with Gram X (noise
// multiplier 1, sensitivity 1), by the Cholesky factor of X and the
// two-dimensional prefix sums v_i = Σ_{a,b<=i} (X⁻¹)_ab. O(n³).
func PrefixVariances(x *mat.SymDense) ([]float64, error) {
	n := x.SymmetricDim()
	var ch mat.Cholesky
	if !ch.Factorize(x) {
		return nil, fmt.Errorf("stream: the Gram matrix is not positive definite: %w", backend.ErrSingular)
	}
	var xi mat.SymDense
	if err := ch.InverseTo(&xi); err != nil {
		return nil, fmt.Errorf("stream: inverting the Gram matrix: %w", err)
	}
	v := make([]float64, n)
	s := 0.0
	for i := 0; i < n; i++ {
		cross := 0.0
		for a := 0; a < i; a++ {
			cross += xi.At(a, i)
		}
		s += 2*cross + xi.At(i, i)
		v[i] = s
	}
	return v, nil
}

// sumMax returns Σ v and max v.
func sumMax(v []float64) (sum, mx float64) {
	mx = math.Inf(-1)
	for _, e := range v {
		sum += e
		mx = math.Max(mx, e)
	}
	return sum, mx
}

// GramErrors returns the Errors of the least-squares estimate of the
// prefix sums from a strategy with Gram x under the sensitivity sens2.
func GramErrors(x *mat.SymDense, sens2 float64) (Errors, error) {
	v, err := PrefixVariances(x)
	if err != nil {
		return Errors{}, err
	}
	s, m := sumMax(v)
	return newErrors(len(v), sens2, s, m), nil
}

// Factor returns the lower-triangular C with CᵀC = x (x positive
// definite): with J the reversal permutation and J x J = L Lᵀ (Cholesky, L
// lower), C = J Lᵀ J. Its lower-triangular shape makes y = C x + z
// computable online (y_t needs x_1..x_t) and the noise recurrence of
// Release causal. ErrBadInput wraps a Gram that is not positive definite.
func Factor(x mat.Symmetric) (*mat.TriDense, error) {
	n := x.SymmetricDim()
	r := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			r.SetSym(n-1-i, n-1-j, x.At(i, j))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(r) {
		return nil, fmt.Errorf("stream: %w: the Gram matrix is not positive definite", run.ErrBadInput)
	}
	var l mat.TriDense
	ch.LTo(&l)
	c := mat.NewTriDense(n, mat.Lower, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			// C_ij = (Lᵀ)_{n-1-i, n-1-j} = L_{n-1-j, n-1-i}.
			c.SetTri(i, j, l.At(n-1-j, n-1-i))
		}
	}
	return c, nil
}

// NoiseRecurrence returns the correlated noise of the prefix-sum estimates
// online: for the lower-triangular C (n×n, nonzero diagonal) and the
// per-step noise z, w solves C w = z by forward substitution,
//
//	w_t = (z_t - Σ_{s<t} C_ts w_s) / C_tt,
//
// and the noise of the estimate at step t is Σ_{s<=t} w_s = (A C⁻¹ z)_t:
// step t uses z_1..z_t only. It returns the prefix noises.
func NoiseRecurrence(c mat.Matrix, z []float64) []float64 {
	n := len(z)
	w := make([]float64, n)
	out := make([]float64, n)
	acc := 0.0
	for t := 0; t < n; t++ {
		v := z[t]
		for s := 0; s < t; s++ {
			if cts := c.At(t, s); cts != 0 {
				v -= cts * w[s]
			}
		}
		w[t] = v / c.At(t, t)
		acc += w[t]
		out[t] = acc
	}
	return out
}

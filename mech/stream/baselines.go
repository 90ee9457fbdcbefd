package stream

import (
	"context"
	"fmt"
	"math"
	"math/bits"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// Report is one strategy's line in a comparison: its name, exact
// sensitivity under the schema and errors.
type Report struct {
	Name string `json:"name"`
	// Sens2 is the exact squared sensitivity (scalar contributions);
	// Vector2 the vector bound and VectorExact whether it is exact
	// (Sensitivity).
	Sens2       float64 `json:"sens2"`
	Vector2     float64 `json:"vector2"`
	VectorExact bool    `json:"vector_exact"`
	Errors
	// Note says how the errors were computed, or why a baseline is absent.
	Note string `json:"note,omitempty"`
}

func report(name string, sv *Sensitivity, e Errors, note string) Report {
	return Report{Name: name, Sens2: sv.Sens2, Vector2: sv.Vector2, VectorExact: sv.VectorExact, Errors: e, Note: note}
}

// treeGram is the Gram of the binary tree strategy on n leaves padded to
// N = 2^L: one row per dyadic interval [m·2^l, (m+1)·2^l) of [0, N),
// levels l = 0..L, restricted to the columns [0, n). X_ij is the number of
// intervals holding both i and j: L + 1 - bitlen(i xor j).
type treeGram struct{ n, levels int }

func newTreeGram(n int) treeGram {
	return treeGram{n, bits.Len(uint(n-1)) + 1}
}
func (g treeGram) Dims() (int, int)  { return g.n, g.n }
func (g treeGram) T() mat.Matrix     { return g }
func (g treeGram) SymmetricDim() int { return g.n }
func (g treeGram) At(i, j int) float64 {
	return float64(g.levels - bits.Len(uint(i^j)))
}

// identityGram is X = I.
type identityGram struct{ n int }

func (g identityGram) Dims() (int, int)  { return g.n, g.n }
func (g identityGram) T() mat.Matrix     { return g }
func (g identityGram) SymmetricDim() int { return g.n }
func (g identityGram) At(i, j int) float64 {
	if i == j {
		return 1
	}
	return 0
}

// BaselineOptions bounds the baselines that need dense n×n work.
type BaselineOptions struct {
	// DenseLimit is the largest n for Honaker's least-squares tree (an
	// n×n Cholesky factorisation) and for sensitivities that need the
	// branch and bound on a dense Gram; 0 means 4096.
	DenseLimit int
}

// Baselines returns the reports of the standard factorisations for the
// prefix sums of n steps under schema s, each with its exact sensitivity:
//
//   - identity: C = I, B = A; ‖B‖²_F = n(n+1)/2, max variance n.
//   - binary tree: C the dyadic intervals (levels 0..L, N = 2^L >= n),
//     B the standard online estimator (the prefix [0, t] is the sum of the
//     popcount(t+1) nodes of the binary expansion of t+1): variances
//     popcount(t+1).
//   - Honaker: the same tree with the least-squares estimate
//     B = A (CᵀC)⁻¹ Cᵀ (Honaker 2015's efficient estimator; offline),
//     variances (A X⁻¹ Aᵀ)_ii (n <= DenseLimit).
//   - square root: C = B = A^{1/2}, Toeplitz with r_t = binom(2t,t)/4^t.
func Baselines(ctx context.Context, n int, s Schema, opt *BaselineOptions) ([]Report, error) {
	if err := s.Check(n); err != nil {
		return nil, err
	}
	limit := 4096
	if opt != nil && opt.DenseLimit > 0 {
		limit = opt.DenseLimit
	}
	var out []Report
	// Identity.
	sv, err := lazySensitivity(ctx, identityGram{n}, s, limit)
	if err != nil {
		return nil, err
	}
	out = append(out, report("identity", sv, newErrors(n, sv.Sens2, float64(n)*float64(n+1)/2, float64(n)), "C = I"))
	// Binary tree and Honaker.
	trees, err := treeBaselines(ctx, n, s, limit)
	if err != nil {
		return nil, err
	}
	out = append(out, trees...)
	// Square root: Toeplitz with non-negative non-increasing coefficients,
	// so its sensitivity under every schema is MonotoneSensitivity's O(n·k)
	// closed form.
	sq := &Toeplitz{N: n, Coef: SqrtCoef(n)}
	sv, err = ToeplitzSensitivity(ctx, sq, s)
	if err != nil {
		return nil, err
	}
	return append(out, report("sqrt", sv, SqrtErrors(n, sv.Sens2), "C = A^{1/2}")), nil
}

// treeBaselines returns the binary tree's and Honaker's reports, or the
// reason each was skipped.
func treeBaselines(ctx context.Context, n int, s Schema, limit int) ([]Report, error) {
	tg := newTreeGram(n)
	if s.Kind == MinSep && s.K > 1 && n > limit {
		skip := fmt.Sprintf("skipped: the minsep sensitivity of a dense Gram for n > %d", limit)
		return []Report{skipped("binary tree", skip), skipped("honaker", skip)}, nil
	}
	var out []Report
	sv, err := lazySensitivity(ctx, tg, s, limit)
	if err != nil {
		return nil, err
	}
	sum, mx := 0.0, 0.0
	for t := 1; t <= n; t++ {
		pc := float64(bits.OnesCount(uint(t)))
		sum += pc
		mx = math.Max(mx, pc)
	}
	out = append(out, report("binary tree", sv, newErrors(n, sv.Sens2, sum, mx), fmt.Sprintf("%d levels, online estimator", tg.levels)))
	if n <= limit {
		x := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				x.SetSym(i, j, tg.At(i, j))
			}
		}
		e, err := GramErrors(x, sv.Sens2)
		if err != nil {
			return nil, err
		}
		out = append(out, report("honaker", sv, e, "least-squares tree estimate"))
	} else {
		out = append(out, skipped("honaker", fmt.Sprintf("skipped: n > %d", limit)))
	}
	return out, nil
}

// lazySensitivity is GramSensitivity for a lazily evaluated Gram, with the
// dense MinSep search refused above limit.
func lazySensitivity(ctx context.Context, x mat.Symmetric, s Schema, limit int) (*Sensitivity, error) {
	n := x.SymmetricDim()
	if s.Kind == MinSep && s.K > 1 {
		if _, ok := x.(identityGram); ok {
			d := make([]float64, n)
			for i := range d {
				d[i] = 1
			}
			return bandedSensitivity(d, s), nil
		}
		if n > limit {
			return nil, fmt.Errorf("stream: the minsep sensitivity of a dense Gram for n = %d > %d: %w", n, limit, run.ErrTooLarge)
		}
	}
	return GramSensitivity(ctx, x, s)
}

// skipped is the report of a baseline not computed, with the reason.
func skipped(name, why string) Report {
	nan := math.NaN()
	return Report{Name: name, Sens2: nan, Vector2: nan, Errors: Errors{Total: nan, RMSE: nan, Max: nan}, Note: why}
}

package stream

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// The strategy families of Optimize.
const (
	FamilyDense    = "dense"
	FamilyToeplitz = "toeplitz"
	FamilyBLT      = "blt"
)

// ParseLoss reads "total" (TotalSquared) or "max" (MaxVariance); "" is
// TotalSquared.
func ParseLoss(s string) (Loss, error) {
	switch s {
	case "", "total":
		return TotalSquared, nil
	case "max":
		return MaxVariance, nil
	}
	return 0, fmt.Errorf("stream: %w: loss %q, want total or max", run.ErrBadInput, s)
}

// UnmarshalText reads a Loss from its name (ParseLoss), so that options
// decoded from JSON name the loss as the command line does.
func (l *Loss) UnmarshalText(b []byte) error {
	v, err := ParseLoss(string(b))
	if err == nil {
		*l = v
	}
	return err
}

// Options configures Optimize; nil means the defaults.
type Options struct {
	// Settings: Budget and Progress, passed to the family's optimiser.
	run.Settings
	// Family is FamilyDense (the certified optimum, OptimizeDense) or
	// FamilyToeplitz (banded Toeplitz, OptimizeToeplitz) or FamilyBLT
	// (buffered linear Toeplitz, OptimizeBLT); "" means dense
	// for n <= 2048, a schema OptimizeDense accepts and the total loss,
	// Toeplitz otherwise. The dense family with loss max is
	// OptimizeDenseMax (single participation).
	Family string `json:"family"`
	// Bands is the number of Toeplitz coefficients; 0 means min(n, 64)
	// and, under a multi-participation schema, at most its separation b.
	Bands int `json:"bands"`
	// Buffers is the number of BLT buffers; 0 means 4.
	Buffers int `json:"buffers"`
	// Loss is the loss minimised ("total" or "max" in JSON).
	Loss Loss `json:"loss"`
	// RelGap and MaxIter are DenseOptions.RelGap and MaxIter (dense) or
	// ToeplitzOptions.MaxIter (Toeplitz); 0 means the family's default.
	RelGap  float64 `json:"rel_gap"`
	MaxIter int     `json:"max_iter"`
}

// Result is the answer of Optimize: the strategy, its exact sensitivity
// and errors, and for the dense family its certificate.
type Result struct {
	// Family is the family optimised ("dense", "toeplitz"); N the steps;
	// Participation the schema's spec; Loss "total" or "max".
	Family        string `json:"family"`
	N             int    `json:"n"`
	Participation string `json:"participation"`
	Loss          string `json:"loss"`
	// Sens2, Vector2, VectorExact and SensMethod are the strategy's exact
	// Sensitivity (Sens2 = 1 up to rounding: the strategy is scaled).
	Sens2       float64 `json:"sens2"`
	Vector2     float64 `json:"vector2"`
	VectorExact bool    `json:"vector_exact"`
	SensMethod  string  `json:"sens_method"`
	// Errors: total squared error, RMSE and max variance for noise
	// multiplier 1.
	Errors
	// Primal, Dual and RelGap are the dense certificate (DenseResult: of
	// the total, or of the max variance for loss max); NaN for the other
	// families, which carry none.
	Primal float64 `json:"primal"`
	Dual   float64 `json:"dual"`
	RelGap float64 `json:"rel_gap"`
	// Iterations counts the optimiser's iterations.
	Iterations int `json:"iterations"`
	// Coef are the Toeplitz coefficients c_0, c_1, ... (C_ij = Coef[i-j];
	// all n of them for a BLT); empty for the dense family, whose C is a
	// full matrix.
	Coef []float64 `json:"coef"`
	// BLTScale, BLTAlpha and BLTLambda are the BLT's parameters (BLT),
	// and BLTP, BLTQ its recurrence polynomials (BLT.Recurrence): C w = z
	// is w_t = (Σ_s Q_s z_{t-s})/Scale - Σ_{s>=1} P_s w_{t-s}. Zero and
	// empty for the other families.
	BLTScale  float64   `json:"blt_scale"`
	BLTAlpha  []float64 `json:"blt_alpha"`
	BLTLambda []float64 `json:"blt_lambda"`
	BLTP      []float64 `json:"blt_p"`
	BLTQ      []float64 `json:"blt_q"`
	// C is the lower-triangular strategy: a *mat.TriDense (dense) or a
	// *Toeplitz; Dense the full dense answer (nil otherwise), BLT the
	// BLT (nil otherwise).
	C     mat.Matrix   `json:"-"`
	Dense *DenseResult `json:"-"`
	BLT   *BLT         `json:"-"`
}

// DefaultBands is Optimize's number of Toeplitz coefficients when
// Options.Bands is 0: min(n, 64), and at most b under a schema with
// several participations b apart.
func DefaultBands(n int, s Schema) int {
	nb := min(n, 64)
	if s.Kind != Single && s.K > 1 {
		nb = min(nb, s.B)
	}
	return nb
}

// Optimize optimises a strategy for the prefix sums of n steps under
// schema s in the family opt.Family: OptimizeDense (certified),
// OptimizeToeplitz (banded, any n) or OptimizeBLT (buffered, any n). It is the one entry point of the
// command line and the C ABI. Errors are those of the family's optimiser,
// and ErrBadInput for an unknown family or a dense max-variance request.
func Optimize(ctx context.Context, n int, s Schema, opt *Options) (*Result, error) {
	if err := s.Check(n); err != nil {
		return nil, err
	}
	if opt == nil {
		opt = &Options{}
	}
	if opt.Bands < 0 || opt.Buffers < 0 || opt.MaxIter < 0 || opt.RelGap < 0 || math.IsNaN(opt.RelGap) {
		return nil, fmt.Errorf("stream: %w: bands = %d, buffers = %d, max_iter = %d, rel_gap = %v: want >= 0", run.ErrBadInput, opt.Bands, opt.Buffers, opt.MaxIter, opt.RelGap)
	}
	fam := opt.Family
	if fam == "" {
		fam = FamilyToeplitz
		if n <= 2048 && (s.Kind != MinSep || s.K == 1) && opt.Loss == TotalSquared && (s.Kind != Epochs || n <= s.K*s.B) {
			fam = FamilyDense
		}
	}
	res := &Result{Family: fam, N: n, Participation: s.String(), Loss: opt.Loss.String(), Primal: math.NaN(), Dual: math.NaN(), RelGap: math.NaN(),
		BLTAlpha: []float64{}, BLTLambda: []float64{}, BLTP: []float64{}, BLTQ: []float64{}}
	switch fam {
	case FamilyDense:
		dopt := &DenseOptions{Settings: opt.Settings, RelGap: opt.RelGap, MaxIter: opt.MaxIter}
		var r *DenseResult
		var err error
		switch {
		case opt.Loss == TotalSquared:
			r, err = OptimizeDense(ctx, n, s, dopt)
		case s.Kind == Single || (s.Kind == MinSep && s.K == 1):
			r, err = OptimizeDenseMax(ctx, n, dopt)
		default:
			return nil, fmt.Errorf("stream: %w: the dense max-variance optimum is implemented for single participation; use the Toeplitz or BLT family under %v", run.ErrBadInput, s)
		}
		if err != nil {
			return nil, err
		}
		res.setSens(r.Sens)
		res.Errors, res.Primal, res.Dual, res.RelGap, res.Iterations = r.Errors, r.Primal, r.Dual, r.RelGap, r.Iterations
		res.C, res.Dense, res.Coef = r.C, r, []float64{}
	case FamilyToeplitz:
		nb := opt.Bands
		if nb == 0 {
			nb = DefaultBands(n, s)
		}
		r, err := OptimizeToeplitz(ctx, n, nb, s, &ToeplitzOptions{Settings: opt.Settings, Loss: opt.Loss, MaxIter: opt.MaxIter})
		if err != nil {
			return nil, err
		}
		res.setSens(r.Sens)
		res.Errors, res.Iterations, res.Coef, res.C = r.Errors, r.Iterations, r.C.Coef, r.C
	case FamilyBLT:
		nb := opt.Buffers
		if nb == 0 {
			nb = 4
		}
		r, err := OptimizeBLT(ctx, n, nb, s, &BLTOptions{Settings: opt.Settings, Loss: opt.Loss, MaxIter: opt.MaxIter})
		if err != nil {
			return nil, err
		}
		res.setSens(r.Sens)
		res.Errors, res.Iterations, res.Coef, res.C, res.BLT = r.Errors, r.Iterations, r.C.Coef, r.C, r.BLT
		res.BLTScale, res.BLTAlpha, res.BLTLambda = r.BLT.Scale, r.BLT.Alpha, r.BLT.Lambda
		res.BLTP, res.BLTQ = r.BLT.Recurrence()
	default:
		return nil, fmt.Errorf("stream: %w: family %q, want %s, %s or %s", run.ErrBadInput, fam, FamilyDense, FamilyToeplitz, FamilyBLT)
	}
	return res, nil
}

func (r *Result) setSens(sv *Sensitivity) {
	r.Sens2, r.Vector2, r.VectorExact, r.SensMethod = sv.Sens2, sv.Vector2, sv.VectorExact, sv.Method
}

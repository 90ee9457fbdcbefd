package tight

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"github.com/optdp/optdp/solve"
	"gonum.org/v1/gonum/mat"
)

// Notes on the papers' case studies (see TestThresholdPaperCaseStudies and
// TestRegularProductPaperExample for the evidence; nothing here was tuned to
// match them):
//   - sum query u=150, v=5 (751 answers): the papers report eps* = 0.8 (eps
//     step 0.01); we find eps* = 0.968134. At eps = 0.8 min z = -0.0701
//     (error bound 5e-11), by Cholesky and by an independent Gaussian
//     elimination, so the mechanism does not exist there.
//   - 2-count query u=30 (31×31 answers, Chebyshev): the papers report 0.9;
//     we find eps* = 1.136081; at 0.9 min z = -0.0938 (both ways).
//   - database example (u=5, values with probabilities 0.3/0.27/0.23/0.2):
//     the papers call the product prior regular for 0.48 <= eps <= 1; the
//     per-individual solution y1_j = (p_j - a/(1+3a))/(1-a), a = e^-eps,
//     is >= 0 iff eps >= ln 2 ≈ 0.693, confirmed by a dense solve over all
//     1024 databases. The leakage bound they quote at eps = 0.5 (1.2 bits)
//     is what the bound formula gives there, but the prior is not regular at
//     0.5 so the bound is not established.

// ThresholdOptions tunes Threshold. Zero fields take the defaults.
type ThresholdOptions struct {
	// Lo and Hi bound the search (defaults 0.01 and 10; 0 < Lo < Hi).
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	// Tol is the width of the final bracket in eps (default 1e-6).
	Tol float64 `json:"tol"`
	// Steps is the number of intervals of the coarse, geometrically
	// spaced scan of [Lo, Hi] (default 16, at most MaxThresholdSteps).
	Steps int `json:"steps"`
	// Settings: Budget limits the memory of the dense matrices (checked
	// before they are allocated); Progress receives a report after each
	// evaluation of the search (Stage "threshold", Iter, Frac, Value =
	// the eps evaluated, Gap = the bracket's width relative to Tol).
	run.Settings
	// Structured allows the Toeplitz path on lattices above 10^5 points
	// (thresholdStructuredN), where the search's 30-40 solves take seconds
	// each; smaller large lattices use it without asking.
	Structured bool `json:"structured"`
}

// thresholdStructuredN is the largest lattice Threshold solves by the
// Toeplitz path without ThresholdOptions.Structured.
const thresholdStructuredN = 100000

// Threshold statuses.
const (
	// ThresholdBracketed: the mechanism does not exist at Lo and exists at
	// Hi of the returned bracket, whose width is at most Tol.
	ThresholdBracketed = "bracketed"
	// ThresholdAlways: the mechanism exists for every eps > 0 by a theorem
	// (lines, ball-symmetric spaces); EpsStar is 0 and nothing was solved.
	ThresholdAlways = "exists-for-all-eps"
	// ThresholdAtLo: it exists everywhere in the scan, from the requested
	// Lo on; EpsStar <= Lo (lower Lo to learn more).
	ThresholdAtLo = "exists-at-lo"
)

// ThresholdResult is the smallest eps at which the tight-constraints
// mechanism exists (docs/MATH.md §4).
type ThresholdResult struct {
	// EpsStar is the threshold: the upper end of the final bracket (the
	// mechanism exists there), 0 for ThresholdAlways, Lo for ThresholdAtLo.
	EpsStar float64 `json:"eps_star"`
	// Lo and Hi are the final bracket (equal to EpsStar when not bracketed).
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	// Status is ThresholdBracketed, ThresholdAlways or ThresholdAtLo.
	Status string `json:"status"`
	// Bracketed reports Status == ThresholdBracketed.
	Bracketed bool `json:"bracketed"`
	// Reason explains ThresholdAlways.
	Reason string `json:"reason,omitempty"`
	// Evaluations counts the solves (dense, or Toeplitz for large lattices).
	Evaluations int `json:"evaluations"`
	// Crossings lists every sign change of min z found by the scan, each
	// narrowed to Tol. More than one means existence is not monotone in
	// eps over [Lo, Hi] (EpsStar is then the first upward crossing).
	Crossings []solve.Crossing `json:"crossings"`
	// ScanEps and ScanMinZ are the coarse scan (min z at each point).
	ScanEps  []float64 `json:"scan_eps"`
	ScanMinZ []float64 `json:"scan_min_z"`
	// MinZ and Verdict are min z and the existence verdict at EpsStar.
	MinZ    float64 `json:"min_z"`
	Verdict Verdict `json:"exists"`
	// Solver is how each evaluation solved Phi z = 1: "dense" or
	// "toeplitz" (empty when nothing was solved).
	Solver Solver `json:"solver,omitempty"`
}

// Threshold finds the smallest eps at which the tight-constraints mechanism
// of m exists, i.e. at which min z(eps) crosses from < 0 to >= 0: a coarse
// geometric scan of [Lo, Hi] brackets every crossing (several are reported,
// not assumed away), then bisection narrows each to Tol. Lattice metrics
// (Line, Sum, KCount, Grid) with n > 2000, or too large for dense, are
// solved by the certified Toeplitz solver at each step (above 10^5 points
// only with Structured set) (no n×n storage; a
// step whose sign is not certified counts by its computed min z, as a
// borderline dense one does). Otherwise the distances,
// the Phi buffer and the factorisation storage are reused across steps.
// For lines and ball-symmetric metrics it returns ThresholdAlways without
// solving. It is an error when the mechanism exists nowhere in the scan
// (raise Hi), for bad options, or when Phi does not fit in memory.
func Threshold(ctx context.Context, m metric.Metric, opts *ThresholdOptions) (*ThresholdResult, error) {
	var o ThresholdOptions
	if opts != nil {
		o = *opts
	}
	if o.Lo == 0 {
		o.Lo = 0.01
	}
	if o.Hi == 0 {
		o.Hi = 10
	}
	if o.Tol == 0 {
		o.Tol = 1e-6
	}
	if o.Steps == 0 {
		o.Steps = 16
	}
	if err := metric.CheckEps(o.Lo); err != nil {
		return nil, fmt.Errorf("threshold: lo: %w", err)
	}
	if err := metric.CheckEps(o.Hi); err != nil {
		return nil, fmt.Errorf("threshold: hi: %w", err)
	}
	switch {
	case !(o.Hi > o.Lo):
		return nil, run.BadInputf("threshold: hi must be > lo = %v, got %v", o.Lo, o.Hi)
	case !(o.Tol > 0):
		return nil, run.BadInputf("threshold: tol must be > 0, got %v", o.Tol)
	case o.Steps < 1 || o.Steps > MaxThresholdSteps:
		return nil, run.BadInputf("threshold: steps must be in 1..%d (MaxThresholdSteps), got %d", MaxThresholdSteps, o.Steps)
	}
	if err := o.Budget.Validate(); err != nil {
		return nil, fmt.Errorf("threshold: %w", err)
	}
	if ok, why := alwaysTight(m); ok {
		return &ThresholdResult{Status: ThresholdAlways, Reason: why, Verdict: Yes, Crossings: []solve.Crossing{}}, nil
	}
	n := m.Len()
	var w *thresholdWork
	solver := SolverDense
	lat, isLat := symmetricLattice(m)
	bigLat := isLat && (n > autoToeplitzN || o.Budget.CheckDense("", n, 3, denseAdvice) != nil)
	if bigLat && n > thresholdStructuredN && !o.Structured {
		return nil, fmt.Errorf("tight: threshold of %s: n = %d: the structured (Toeplitz) search runs 30-40 certified solves of several seconds each at this size; set ThresholdOptions.Structured (CLI: --structured) to run it: %w", m, n, run.ErrTooLarge)
	}
	if bigLat {
		// Large lattices: each evaluation is a certified Toeplitz solve
		// (latticeSolve, as in Solve's "toeplitz" solver).
		w = &thresholdWork{lat: lat}
		solver = SolverToeplitz
	} else {
		if err := o.Budget.CheckDense("threshold of "+m.String(), n, 3, denseAdvice); err != nil {
			return nil, err
		}
		dc, err := metric.NewDistCacheContext(ctx, m)
		if err != nil {
			return nil, fmt.Errorf("tight: threshold of %s: %w", m, err)
		}
		w = &thresholdWork{dc: dc, phi: mat.NewSymDense(n, nil), ones: make([]float64, n)}
		for i := range w.ones {
			w.ones[i] = 1
		}
	}
	res := &ThresholdResult{Crossings: []solve.Crossing{}, Solver: solver}
	evals := 0
	eval := func(ctx context.Context, eps float64) (float64, error) {
		v, err := w.eval(ctx, eps)
		evals++
		p := run.NewProgress(run.StageThreshold)
		p.Iter, p.Value = evals, eps
		p.Message = fmt.Sprintf("%s solve %d at eps %.6g: min z %.4g", solver, evals, eps, v)
		o.Report(p)
		return v, err
	}
	sc, err := solve.Scan(ctx, eval, o.Lo, o.Hi, o.Steps)
	if err != nil {
		return nil, fmt.Errorf("threshold %s: %w", m, err)
	}
	res.ScanEps, res.ScanMinZ = sc.Eps, sc.Vals
	for _, c := range sc.Crossings {
		nc, _, err := solve.Bisect(ctx, eval, c, o.Tol)
		if err != nil {
			return nil, fmt.Errorf("threshold %s: %w", m, err)
		}
		res.Crossings = append(res.Crossings, nc)
	}
	var first *solve.Crossing
	for k := range res.Crossings {
		if res.Crossings[k].Up {
			first = &res.Crossings[k]
			break
		}
	}
	switch {
	case sc.Vals[0] >= 0 && first == nil:
		res.Status, res.EpsStar, res.Lo, res.Hi = ThresholdAtLo, o.Lo, o.Lo, o.Lo
	case first != nil:
		res.Status, res.Bracketed = ThresholdBracketed, true
		res.EpsStar, res.Lo, res.Hi = first.Hi, first.Lo, first.Hi
	default:
		return nil, fmt.Errorf("tight: threshold %s: the tight-constraints mechanism does not exist anywhere in the scan of [%v, %v] (min z = %v at eps = %v); raise hi",
			m, o.Lo, o.Hi, sc.Vals[len(sc.Vals)-1], o.Hi)
	}
	if _, err := w.eval(ctx, res.EpsStar); err != nil {
		return nil, fmt.Errorf("threshold %s: %w", m, err)
	}
	res.MinZ, res.Verdict = w.last.Min, w.last.Verdict
	res.Evaluations = w.evals
	return res, nil
}

// thresholdWork holds the buffers reused by every evaluation.
type thresholdWork struct {
	dc    *metric.DistCache
	phi   *mat.SymDense
	sys   solve.DenseSystem
	ones  []float64
	evals int
	last  solve.NonnegResult
	lat   metric.Lattice // set: evaluate by latticeEval instead of densely
}

// eval is min z(eps) as a sign function: >= 0 iff the mechanism exists.
// A verdict settled by a certificate overrides the sign of the computed
// minimum; a borderline one keeps it.
func (w *thresholdWork) eval(ctx context.Context, eps float64) (float64, error) {
	w.evals++
	var s solve.NonnegResult
	var err error
	if w.lat != nil {
		s, err = latticeEval(ctx, w.lat, eps)
	} else {
		if err := w.dc.PhiToContext(ctx, w.phi, eps); err != nil {
			return 0, err
		}
		if err := w.sys.FactorizeContext(ctx, w.phi); err != nil {
			return 0, err
		}
		s, err = w.sys.SolveNonneg(ctx, w.ones)
	}
	if err != nil {
		return 0, err
	}
	w.last = s
	switch s.Verdict {
	case Yes:
		return max(s.Min, 0), nil
	case No:
		return min(s.Min, -math.SmallestNonzeroFloat64), nil
	}
	return s.Min, nil
}

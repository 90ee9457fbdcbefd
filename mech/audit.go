package mech

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// The DP audit (docs/MATH.md §9): the smallest eps for which a noise matrix
// is eps·d-private, and an exact verdict at a given eps.

// AuditReport is the outcome of a DP audit of a noise matrix against a metric.
type AuditReport struct {
	// Eps is the measured level: the maximum over the pairs (i,h) checked
	// and outputs o of ln(X[i][o]/X[h][o]) / d(i,h), to within a few ulps
	// (moved by at most an ulp so that Eps <= eps exactly when Private).
	// +Inf when some X[i][o] > 0 = X[h][o] for a pair at finite distance;
	// 0 for a constant mechanism.
	Eps float64 `json:"eps"`
	// Private is the exact verdict: X[i][o] <= e^{eps·d(i,h)}·X[h][o] holds
	// in real arithmetic for every pair checked and every output o.
	Private bool `json:"private"`
	// Worst is the (i, h, o) attaining Eps (-1s when nothing constrains it).
	Worst [3]int `json:"worst"`
	// Pairs is the number of answer pairs checked (edges for a graph metric).
	Pairs int `json:"pairs"`
	// Violation is the violated constraint of largest level, nil when
	// Private.
	Violation *Violation `json:"violation"`
}

// Violation is one violated privacy constraint of an audit:
// X[I][O] > e^{eps·d(I,H)}·X[H][O].
type Violation struct {
	// I, H are the answers and O the output: X[I][O] is the larger entry.
	I int `json:"i"`
	H int `json:"h"`
	O int `json:"o"`
	// LogRatio is ln(X[I][O]/X[H][O]) to within a few ulps, computed in
	// the log domain so that it is right for quotients that overflow and
	// for subnormal entries; +Inf when X[H][O] = 0 < X[I][O].
	LogRatio float64 `json:"log_ratio"`
	// Dist is d(I,H) (1 for an edge of a Graph metric); the constraint's
	// level is LogRatio/Dist > eps.
	Dist float64 `json:"dist"`
}

// Audit measures the privacy level of the noise matrix x (rows: true
// answers, columns: outputs) against the metric m, and decides exactly
// whether x is eps·d-private: Private is true if and only if
// X[i][o] <= e^{eps·d(i,h)}·X[h][o] holds in real arithmetic, for the
// float64 values of the entries, eps and d, for every constrained pair and
// every output o. There is no tolerance: a ratio above e^{eps d} by one part
// in 10^300 is a violation, and Violation names the largest.
//
// For a Graph metric only edges are checked, which suffices (the log-ratio
// along a path adds up); otherwise every pair is, at O(n² m) cost. Zeros
// are exact: 0/0 constrains nothing, a positive entry over 0 is a violation
// at level +Inf; pairs at distance +Inf (different components) constrain
// nothing. x must be a mechanism: entries finite and >= 0 and every row
// summing to 1 within RowSumTol (see there); the metric's distances >= 0
// and not NaN, and distinct answers at distance > 0; otherwise Audit
// returns an error wrapping run.ErrBadInput that names the row or entry.
//
// Each pair is decided in the log domain with float64 first, where the
// decision is conclusive by a proven margin: the largest quotient q of a
// column is within 2^-53 relative of the true one (IEEE division), math.Log
// of a normal argument is within an ulp, and a pair passes when
// ln q + 2^-46·(1+|ln q|) is below a lower bound of eps·d (and fails when
// ln q - 2^-46·(1+|ln q|) is above an upper bound). Quotients that overflow
// are compared through ln a - ln b with a = f·2^e split by math.Frexp, so
// subnormal entries have correct logarithms (math.Log is wrong on them on
// amd64: golang/go#56600). A column within the margin is decided in
// math/big: a <= e^t·b with t = eps·d formed exactly and e^t enclosed by
// directed rounding (docs/MATH.md §9.5), the precision doubling until the
// enclosure separates the two sides; since e^t is irrational for rational
// t > 0 the sides are never equal, and a column still undecided at 16384
// bits is counted as a violation. The cost is one logarithm per pair over
// the float comparisons; a mechanism whose ratios sit within 2^-46 of
// e^{eps d} (built exactly at eps rather than with a margin) costs a
// big-number comparison per such column.
func Audit(x *mat.Dense, m metric.Metric, eps float64) (AuditReport, error) {
	return AuditContext(context.Background(), x, m, eps)
}

// RowSumTol returns the tolerance τ = cols·2^-50 within which the row sums
// of a float64 mechanism with cols columns must be 1: |ŝ_i - 1| <= τ, ŝ_i the
// sum Σ_o X[i][o] accumulated left to right in float64.
//
// τ is never exceeded by the float64 form of a genuine mechanism. Let
// K be row-stochastic (Σ_o K[i][o] = 1 exactly) and each stored entry
// X[i][o] = K[i][o](1+δ_o) + η_o, within k units in the last place of the
// exact value (|δ_o| <= k·u, u = 2^-53; |η_o| <= 2^-1074 for subnormals). Then
// |Σ_o X[i][o] - 1| <= k·u + cols·2^-1074, and the recursive sum of cols
// terms >= 0 adds at most γ_{cols-1} = (cols-1)u/(1-(cols-1)u) relative
// (Higham, Accuracy and Stability, §4.2), so
//
//	|ŝ_i - 1| <= (k + cols - 1)·u·(1 + O(cols·u)) + cols·2^-1074 <= 8·cols·u = τ
//
// for every k <= 7·cols (seven ulps per entry at least). The mechanisms built
// here are well inside it: a row normalised in float64, X[i][o] =
// fl(a_o / fl(Σ a)), has k <= cols + 1, so |ŝ_i - 1| <= 2·cols·u; mixing with
// the uniform row adds at most 3 ulps per entry. A matrix outside τ is not a
// rounding of any mechanism.
func RowSumTol(cols int) float64 {
	return float64(cols) * 0x1p-50
}

// checkMechanismRows returns an error wrapping run.ErrBadInput unless x is a
// float64 mechanism: every entry finite and >= 0 and (when rowSums) every
// row summing to 1 within RowSumTol. It reads ctx between rows and returns
// its error, wrapped, once it is cancelled.
func checkMechanismRows(ctx context.Context, x *mat.Dense, rowSums bool) error {
	r, c := x.Dims()
	tol := RowSumTol(c)
	for i := 0; i < r; i++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("audit: interrupted at row %d of %d: %w", i, r, err)
		}
		s := 0.0
		for o, v := range x.RawRowView(i)[:c] {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return run.BadInputf("audit: X[%d][%d] = %v: entries must be finite and >= 0", i, o, v)
			}
			s += v
		}
		if rowSums && !(math.Abs(s-1) <= tol) {
			return run.BadInputf("audit: row %d sums to %.17g, not 1 (tolerance %.3g = %d columns · 2^-50): not a mechanism (divide each row by its sum)", i, s, tol, c)
		}
	}
	return nil
}

// AuditContext is Audit stopped by ctx: it polls ctx between rows (every
// 1,024 edges of a Graph) and returns its error once it is done.
func AuditContext(ctx context.Context, x *mat.Dense, m metric.Metric, eps float64) (AuditReport, error) {
	return auditMatrix(ctx, x, m, eps, true)
}

// auditMatrix is AuditContext; with rowSums false it skips the row-sum
// check and decides the ratios of any finite matrix >= 0 (the tests of
// the exact decision use it on matrices that are not mechanisms).
func auditMatrix(ctx context.Context, x *mat.Dense, m metric.Metric, eps float64, rowSums bool) (AuditReport, error) {
	if err := metric.CheckEps(eps); err != nil {
		return AuditReport{}, fmt.Errorf("audit: %w", err)
	}
	if m == nil {
		return AuditReport{}, run.BadInputf("audit: nil metric")
	}
	if x == nil || x.IsEmpty() {
		return AuditReport{}, run.BadInputf("audit: empty noise matrix")
	}
	r, _ := x.Dims()
	if r != m.Len() {
		return AuditReport{}, run.BadInputf("audit: matrix has %d rows, metric %s has %d answers", r, m, m.Len())
	}
	if err := checkMechanismRows(ctx, x, rowSums); err != nil {
		return AuditReport{}, err
	}
	a := newExactAuditor(x, nil, eps)
	a.ctx = ctx
	if err := a.run(m); err != nil {
		return AuditReport{}, err
	}
	return a.report(), nil
}

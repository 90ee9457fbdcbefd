package optimal

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// Attempt is one method tried by MethodAuto.
type Attempt struct {
	// Method is the method tried, Reason why it was tried.
	Method Method `json:"method"`
	Reason string `json:"reason"`
	// Certified says it returned a certified result, Gap that result's
	// relative gap (0 without one); Iterations its interior-point
	// iterations, TimeS its wall-clock time.
	Certified  bool    `json:"certified"`
	Gap        float64 `json:"gap"`
	Iterations int     `json:"iterations"`
	TimeS      float64 `json:"time_s"`
	// EstimateS is the range of wall-clock seconds estimated before it
	// started (timeRange; nil where no benchmark calibrates one).
	EstimateS []float64 `json:"estimate_s,omitempty"`
	// Error is its error, empty when it answered.
	Error string `json:"error,omitempty"`
}

// Thresholds of MethodAuto's choice (random planar points, Euclidean
// distance, two-hot-spot prior, distance loss, eps 1, 2 shared cores: the
// exact LP 0.3 s / 5 s at 40 / 80 points, 78 s at 120; constraint
// generation from a spanner's pairs with warm rounds and the raise-and-trim
// repair, certified to 1e-6: 0.12 s / 0.38 s / 3.6 s at 40 / 80 / 200
// points, 16 s / 4.7 min at 400 / 1,000; bench/README.md).
const (
	// autoDenseDegree: more pairs per row than this (after the implied
	// offsets of a lattice are dropped) is a dense metric, for which
	// constraint generation beats the exact LP; a sparse constraint graph
	// (a Graph metric, a Manhattan grid, a line) is solved exactly.
	autoDenseDegree = 16
	// autoGenerateMax is the most points of a dense metric given to
	// constraint generation at any tolerance; autoGenerateLooseMax the
	// most at a tolerance of autoLooseTol or looser, which its rounds
	// reach once few pairs are violated, and then only when its estimated
	// workspace (generateBytes) fits the budget (2,500 points to 1e-2:
	// 5 rounds, 12-14 min, in an 8 GiB budget). Beyond, the spanner's LP
	// and bound (the 1.2-spanner at 2,500 points: a gap of 0.10).
	autoGenerateMax      = 1200
	autoGenerateLooseMax = 2500
	autoLooseTol         = 1e-3
)

// Constraint generation's workspace on a dense metric of n points
// (generateBytes), fitted to the memory its largest round counts (the
// per-column LP's factors, iterate and multipliers, and what generation
// holds beside them: the pair lists, the candidates, the log-ratio table
// and the columns' stored analyses) on random planar points with the
// distance loss at a tolerance of 1e-2. The outputs it solves number
// 0.55-0.9 times the prior's effective number of locations eff
// (effectiveLocations), and at least about n/5: of 1,000 points, 169 for
// one hot spot of 189 effective locations, 200 for two of 329, 621-643
// for a wide one of 877 (2.4 GiB counted), 706-756 for the uniform prior
// (2.85 GiB); of 2,500 points, 469-520 for two hot spots of 841 (5.6
// GiB); of 1,600 with the uniform prior, 1,146-1,207 (over 8 GiB in
// round 5). Each costs about 2,400 + 1,200·eff/n bytes per point (a
// spread prior takes more rounds, and its columns more pairs); the rest
// grows as n². A prior that is zero at many locations can bring back
// more outputs than it has effective locations (visit counts at 503 of
// 1,000 points, 31 effective locations: 702 outputs in round 3);
// generation's rounds check their own memory, and MethodAuto goes on to
// the spanner when one does not fit.
const (
	genBytesPerOutputRow       = 2400
	genBytesPerOutputRowSpread = 1200
	genBytesPerSquare          = 100
	genMinOutputsFrac          = 0.2
)

// generateBytes estimates the peak workspace of constraint generation on
// a dense metric of n points whose prior has eff effective locations:
//
//	100·n² + (2400 + 1200·eff/n)·max(eff, n/5)·n
//
// (genBytesPerSquare, genBytesPerOutputRow, genBytesPerOutputRowSpread,
// genMinOutputsFrac). It is an estimate for MethodAuto's choice, not a
// check: each round checks its own memory.
func generateBytes(n int, eff float64) float64 {
	fn := float64(n)
	perRow := genBytesPerOutputRow + genBytesPerOutputRowSpread*eff/fn
	return genBytesPerSquare*fn*fn + perRow*max(eff, genMinOutputsFrac*fn)*fn
}

// effectiveLocations is 2^H(prior), H the prior's Shannon entropy in bits
// (mech.ShannonEntropy): n for the uniform prior on n locations, k for
// the uniform prior on k of them, and in between for a prior that
// concentrates on some. A prior mech.ShannonEntropy refuses (Solve has
// validated it before) counts as uniform.
func effectiveLocations(prior []float64) float64 {
	h, err := mech.ShannonEntropy(prior)
	if err != nil {
		return float64(len(prior))
	}
	return math.Exp2(h)
}

// autoWiderDeltas returns the stretches MethodAuto tries, in order, after
// the spanner at the default stretch 1.2 does not fit the budget. Random
// planar points, 2,500 of them, under the default 4 GiB: the 1.2-spanner's
// LP (15,046 pairs) needs 5.4 GiB; the 1.5-spanner's (9,352) and the
// 2-spanner's (7,120) start.
func autoWiderDeltas() []float64 { return []float64{1.5, 2} }

// solveAuto is MethodAuto: it chooses the first method from p's structure
// and the prior's eff effective locations (chooseMethod), then, while a
// method stops without reaching Tol (run.ErrNotConverged) or does not fit
// the budget (run.ErrTooLarge), tries the next of exact → generate →
// spanner, and, while the spanner's LP is refused before any certified
// answer and o.Delta is 0, the spanner at each of autoWiderDeltas. A
// cancelled ctx or bad input ends it at once. The answer is the best certified result of the attempts (the
// smallest gap); the error is nil when some attempt reached its own
// target (the spanner's: its LP to Tol, the gap to the optimum being its
// bound) or the spanner's LP stopped for memory, or at the iteration
// limit when the caller set neither Tol nor MaxIter, with a certified
// answer, and the last attempt's error otherwise.
//
// refused says why the first spanner attempts (the default stretch, then
// the wider ones) do not fit the budget, as the early check found
// (earlyRefusal): they are recorded as attempts with that error and not
// searched again.
func solveAuto(ctx context.Context, m metric.Metric, p *lp.Problem, lo *lp.Options, o Options, userTol bool, eff float64, refused []string) (*lp.Result, Result, error) {
	first, why := chooseMethod(m, p, lo, eff)
	chain := []Method{MethodExact, MethodGenerate, MethodSpanner}
	for chain[0] != first {
		chain = chain[1:]
	}
	var best *lp.Result
	var bestInfo Result
	var attempts []Attempt
	var lastErr error
	answered := false
	reason := why
	// The spanner at the default stretch, then, while its LP does not fit
	// the budget, at the wider stretches of autoWiderDeltas (fewer pairs),
	// unless the caller chose the stretch.
	wider := autoWiderDeltas()
	if chain[len(chain)-1] == MethodSpanner && o.Delta == 0 {
		for range wider {
			chain = append(chain, MethodSpanner)
		}
	}
	widened, spanners := 0, 0
	for k, method := range chain {
		mo := *lo
		so := o
		if k > 0 {
			reason = fmt.Sprintf("%s did not answer (%v)", chain[k-1], shortErr(lastErr))
			if chain[k-1] == MethodSpanner {
				if !errors.Is(lastErr, run.ErrTooLarge) {
					break // a wider stretch only helps a spanner LP too large
				}
				so.Delta = wider[widened]
				widened++
				reason = fmt.Sprintf("the spanner did not fit (%v): the %.3g-spanner keeps fewer pairs", shortErr(lastErr), so.Delta)
			}
		}
		if method == MethodSpanner && !userTol {
			mo.Tol = SpannerTol
		}
		if method == MethodSpanner && o.Delta == 0 {
			if spanners++; spanners <= len(refused) {
				why := refused[spanners-1] + " (found before the solve, from the shortest pairs)"
				attempts = append(attempts, Attempt{Method: method, Reason: reason, Error: why})
				lastErr = fmt.Errorf("optimal: %s: %w", why, run.ErrTooLarge)
				continue
			}
		}
		start := time.Now()
		r, info, err := solveWith(ctx, method, m, p, &mo, so)
		a := Attempt{Method: method, Reason: reason, TimeS: time.Since(start).Seconds()}
		if tlo, thi, ok := estimateFor(method, m, p, mo.Tol, mo.Workers); ok {
			a.EstimateS = []float64{tlo, thi}
		}
		if r != nil {
			a.Certified, a.Gap, a.Iterations = true, r.Gap, r.Iterations
		}
		if err != nil {
			a.Error = err.Error()
		}
		attempts = append(attempts, a)
		if r != nil && (best == nil || r.Gap < best.Gap) {
			best, bestInfo = r, info
			bestInfo.MethodReason = reason
		}
		if err == nil {
			answered = true
			break
		}
		if method == MethodSpanner && r != nil && (errors.Is(err, run.ErrTooLarge) || (errors.Is(err, run.ErrNotConverged) && o.MaxIter == 0 && !userTol)) {
			// The spanner's LP stopped short of its own tolerance, for
			// memory or (at the defaults of Tol and MaxIter) at the
			// iteration limit, with a certified answer: its gap to the
			// optimum is the spanner's bound, which a wider spanner's
			// would only loosen, and no method is left to try. A
			// tolerance or limit the caller set is reported as not
			// converged.
			if best == r {
				why := "for memory"
				if !errors.Is(err, run.ErrTooLarge) {
					why = "at the iteration limit"
				}
				bestInfo.MethodReason += fmt.Sprintf("; its LP stopped %s (%s) with a certified answer", why, shortErr(err))
			}
			answered = true
			break
		}
		lastErr = err
		if !errors.Is(err, run.ErrNotConverged) && !errors.Is(err, run.ErrTooLarge) {
			break // cancelled, bad input: no other method will do better
		}
	}
	bestInfo.Attempts = attempts
	if best != nil && bestInfo.Method != attempts[len(attempts)-1].Method {
		bestInfo.MethodReason += fmt.Sprintf("; its certificate (gap %.3g) is better than %s's", best.Gap, attempts[len(attempts)-1].Method)
	}
	if answered {
		return best, bestInfo, nil
	}
	return best, bestInfo, lastErr
}

// chooseMethod is MethodAuto's first choice for p (the pairs as
// privacyPairs lists them), whose prior has eff effective locations
// (effectiveLocations), and the reason: the exact LP for a sparse
// constraint graph (at most autoDenseDegree pairs per row) whose workspace
// fits the budget; for a dense metric, constraint generation on at most
// autoGenerateMax points, or on at most autoGenerateLooseMax at a
// tolerance of autoLooseTol or looser when its estimated workspace
// (generateBytes) fits the budget; the spanner otherwise. It does no
// O(n³) work: the estimates are lp.Problem.WorkspaceBytes and
// generateBytes.
func chooseMethod(m metric.Metric, p *lp.Problem, lo *lp.Options, eff float64) (Method, string) {
	n := p.N
	deg := float64(len(p.Pairs)) / float64(max(1, n))
	kind := "dense"
	if _, ok := m.(metric.Graph); ok {
		kind = "graph"
	} else if g, ok := m.(metric.PathGraph); ok {
		if _, ok := g.PathEdges(); ok {
			kind = "road"
		}
	} else if _, ok := m.(metric.Lattice); ok {
		kind = "lattice"
	}
	if deg <= autoDenseDegree {
		need := p.WorkspaceBytes(max(1, lo.Workers))
		if lo.Budget.Check("", need, "") == nil {
			return MethodExact, fmt.Sprintf("%s metric with %.3g pairs per row (sparse, <= %d): the exact LP (workspace about %s)", kind, deg, autoDenseDegree, run.FormatBytes(need))
		}
		return MethodSpanner, fmt.Sprintf("%s metric with %.3g pairs per row: the exact LP needs about %s, over the budget: the spanner and its bound", kind, deg, run.FormatBytes(need))
	}
	method, why := denseChoice(n, lo.Tol, eff, lo.Budget)
	return method, fmt.Sprintf("%s metric with %.3g pairs per row (> %d) on %d points %s", kind, deg, autoDenseDegree, n, why)
}

// denseChoice is chooseMethod's choice for a dense metric of n points (more
// than autoDenseDegree pairs per row) whose prior has eff effective
// locations, at the given tolerance and budget, and the reason's end.
func denseChoice(n int, tol, eff float64, budget run.Budget) (Method, string) {
	switch {
	case n <= autoGenerateMax:
		return MethodGenerate, fmt.Sprintf("(<= %d): constraint generation", autoGenerateMax)
	case n > autoGenerateLooseMax:
		return MethodSpanner, fmt.Sprintf("(> %d): the spanner and its bound", autoGenerateLooseMax)
	case tol < autoLooseTol:
		return MethodSpanner, fmt.Sprintf("(> %d) to a gap of %.3g (< %.3g): the spanner and its bound", autoGenerateMax, tol, autoLooseTol)
	}
	need := generateBytes(n, eff)
	if !budget.Fits(need) {
		return MethodSpanner, fmt.Sprintf("(> %d), a prior of %.0f effective locations: constraint generation needs about %s, over the budget of %s: the spanner and its bound",
			autoGenerateMax, eff, run.FormatBytes(need), run.FormatBytes(float64(budget.Bytes())))
	}
	return MethodGenerate, fmt.Sprintf("(<= %d) to a gap of %.3g (>= %.3g), a prior of %.0f effective locations: constraint generation (about %s)",
		autoGenerateLooseMax, tol, autoLooseTol, eff, run.FormatBytes(need))
}

// autoStartsWithSpanner reports whether chooseMethod picks the spanner for
// a metric of n points with deg pairs per row, a prior of eff effective
// locations and the given tolerance and budget on the grounds of size (a
// dense metric beyond constraint generation's limits: denseChoice).
func autoStartsWithSpanner(n int, deg, tol, eff float64, budget run.Budget) bool {
	if deg <= autoDenseDegree {
		return false
	}
	method, _ := denseChoice(n, tol, eff, budget)
	return method == MethodSpanner
}

// shortErr is err's message cut to 160 bytes, for a reason.
func shortErr(err error) string {
	s := fmt.Sprint(err)
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

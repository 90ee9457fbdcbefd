package mech

import (
	"fmt"
	"iter"
	"math"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// Baseline mechanisms (docs/MATH.md §8): the standard mechanisms that the optimal
// ones are compared with. Each returns a row-stochastic noise matrix whose
// rows are true answers and columns reported answers.

// TruncatedGeometric is the truncated geometric mechanism on the answers
// 0..n-1 for a query of sensitivity sens (1 for a counting query, v for the
// sum of values in 0..v), with alpha = e^{-eps/sens} and N = n-1:
//
//	X[i][k] = alpha^|i-k| (1-alpha)/(1+alpha)  for 0 < k < N,
//	X[i][0] = alpha^i/(1+alpha),  X[i][N] = alpha^(N-i)/(1+alpha).
//
// It is the two-sided geometric mechanism with outputs clamped to 0..N, so it
// is eps-DP for the metric ceil(|i-j|/sens) (exactly eps on a line when
// sens = 1) and universally optimal for a counting query.
//
// It is built at alpha = e^{-BuildLevel(eps/sens)}, a strict margin below
// eps/sens, and the result is audited exactly (mech.Audit) before it is
// returned, and an error is returned if the audit fails: against the band graph i ~ j iff
// |i-j| <= sens at eps when that costs at most about 2^27 ratio comparisons
// (n²·min(sens, n-1)), otherwise against the line at eps/sens, which implies
// the former (a pair at |i-j| <= sens is at most sens line steps apart).
func TruncatedGeometric(n int, eps float64, sens int) (*mat.Dense, error) {
	if err := metric.CheckEps(eps); err != nil {
		return nil, fmt.Errorf("truncated geometric: %w", err)
	}
	if sens < 1 {
		return nil, fmt.Errorf("mech: truncated geometric: sensitivity must be >= 1, got %d: %w", sens, run.ErrBadInput)
	}
	if err := ValidateDenseSize(n, n, "truncated geometric"); err != nil {
		return nil, err
	}
	data := geometricData(n, BuildLevel(eps/float64(sens)))
	if err := validateNoUnderflow(data, "truncated geometric"); err != nil {
		return nil, err
	}
	x := mat.NewDense(n, n, data)
	if float64(n)*float64(n)*float64(min(sens, n-1)) <= auditBudget {
		// Every edge of the band graph |i-j| <= sens.
		if err := auditResult("truncated geometric", x, bandMetric{n: n, w: sens}, eps); err != nil {
			return nil, err
		}
		return x, nil
	}
	// The line at eps/sens: then |i-j| <= sens costs at most eps.
	line := bandMetric{n: n, w: 1}
	if err := auditResult("truncated geometric", x, line, eps/float64(sens)); err != nil {
		return nil, err
	}
	return x, nil
}

// geometricData is the row-major n x n truncated geometric matrix for
// alpha = e^{-a}; powers of alpha are formed as exp(-a k) and 1-alpha as
// -expm1(-a), so that small a loses no accuracy.
func geometricData(n int, a float64) []float64 {
	data := make([]float64, n*n)
	if n == 1 {
		data[0] = 1
		return data
	}
	alpha := math.Exp(-a)
	edge := 1 / (1 + alpha)
	mid := -math.Expm1(-a) / (1 + alpha)
	for i := 0; i < n; i++ {
		row := data[i*n : (i+1)*n]
		for k := range row {
			d := i - k
			if d < 0 {
				d = -d
			}
			p := math.Exp(-a * float64(d))
			if k == 0 || k == n-1 {
				row[k] = p * edge
			} else {
				row[k] = p * mid
			}
		}
	}
	return data
}

// GeometricPerCount is the baseline for k counting queries over u records:
// the truncated geometric mechanism with budget eps/k applied to each count
// independently, on the answers {0..u}^k indexed row-major (the first count
// most significant). It is eps-DP for the Chebyshev metric of the k-count
// query (each count changes by at most 1, costing eps/k each).
//
// It is built at BuildLevel(eps/k) per count, a strict margin below eps/k,
// and the result is audited exactly (mech.Audit) before it is returned, and
// an error is returned if the audit fails: against KCount(u, k) at eps when its
// (3^k-1)/2·n edges times n outputs stay below about 2^27, otherwise at
// eps/k against the graph whose neighbours differ by 1 in a single count,
// which implies the former (Chebyshev neighbours are at most k such steps
// apart).
func GeometricPerCount(u, k int, eps float64) (*mat.Dense, error) {
	if err := metric.CheckEps(eps); err != nil {
		return nil, fmt.Errorf("geometric per count: %w", err)
	}
	if u < 1 || k < 1 {
		return nil, fmt.Errorf("mech: geometric per count: need u >= 1 and k >= 1, got u=%d, k=%d: %w", u, k, run.ErrBadInput)
	}
	side := u + 1
	n := 1
	for c := 0; c < k; c++ {
		if n > MaxDenseEntries/side {
			return nil, fmt.Errorf("mech: geometric per count: %d^%d answers: the matrix would exceed %d entries: %w", side, k, MaxDenseEntries, run.ErrTooLarge)
		}
		n *= side
	}
	if err := ValidateDenseSize(n, n, "geometric per count"); err != nil {
		return nil, err
	}
	g := geometricData(side, BuildLevel(eps/float64(k)))
	x := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		for o := range row {
			p := 1.0
			for a, b, c := i, o, 0; c < k; a, b, c = a/side, b/side, c+1 {
				p *= g[(a%side)*side+b%side]
			}
			row[o] = p
		}
	}
	if err := validateNoUnderflow(x.RawMatrix().Data, "geometric per count"); err != nil {
		return nil, err
	}
	if float64(n)*float64(n)*(math.Pow(3, float64(k))-1)/2 <= auditBudget {
		m, err := metric.KCount(u, k)
		if err != nil {
			return nil, fmt.Errorf("geometric per count: %w", err)
		}
		if err := auditResult("geometric per count", x, m, eps); err != nil {
			return nil, err
		}
		return x, nil
	}
	steps := unitStepMetric{side: side, k: k, n: n}
	if err := auditResult("geometric per count", x, steps, eps/float64(k)); err != nil {
		return nil, err
	}
	return x, nil
}

// RandomizedResponse is randomized response on n answers (eps-DP on the
// clique K_n): X[i][i] = e^eps/(e^eps+n-1) and X[i][k] = 1/(e^eps+n-1)
// otherwise. It is the tight-constraints mechanism of the clique, built at
// BuildLevel(eps), a strict margin below eps.
//
// The result is audited against Clique(n) at eps before it is returned (for
// n above about 645 exactly through its two-value structure, see auditRR),
// and an error is returned if the audit fails.
func RandomizedResponse(n int, eps float64) (*mat.Dense, error) {
	if err := metric.CheckEps(eps); err != nil {
		return nil, fmt.Errorf("randomized response: %w", err)
	}
	if err := ValidateDenseSize(n, n, "randomized response"); err != nil {
		return nil, err
	}
	// Divided through by e^eps, so that a large eps cannot overflow.
	e := math.Exp(-BuildLevel(eps))
	den := 1 + float64(n-1)*e
	x := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		for k := range row {
			row[k] = e / den
		}
		row[i] = 1 / den
	}
	if err := validateNoUnderflow(x.RawMatrix().Data, "randomized response"); err != nil {
		return nil, err
	}
	if err := auditRR(x, eps); err != nil {
		return nil, err
	}
	return x, nil
}

// auditRR audits randomized response against Clique(n) at eps: with
// mech.Audit when its n²(n-1)/2 comparisons fit auditBudget, otherwise
// exactly by structure: it checks that every diagonal entry equals
// a = X[0][0] and every other entry equals b = X[0][1]; then each column of
// any pair of rows holds a and b or b and b, so the audit's measured level is
// ln(a/b), attained at (0, 1, 0), which is computed as mech.Audit would.
func auditRR(x *mat.Dense, eps float64) error {
	const name = "randomized response"
	n, _ := x.Dims()
	m, err := metric.Clique(n)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if float64(n)*float64(n)*float64(n-1)/2 <= auditBudget {
		return auditResult(name, x, m, eps)
	}
	return auditRRStructure(x, m, eps)
}

// auditRRStructure is auditRR's exact structural audit of an n x n matrix,
// n >= 2, against the clique m.
func auditRRStructure(x *mat.Dense, m *metric.CliqueMetric, eps float64) error {
	const name = "randomized response"
	n, _ := x.Dims()
	a, b := x.At(0, 0), x.At(0, 1)
	for i := 0; i < n; i++ {
		for k, v := range x.RawRowView(i) {
			if (k == i && v != a) || (k != i && v != b) {
				return fmt.Errorf("%s: X[%d][%d] = %v breaks the two-value structure (%v on the diagonal, %v off it)", name, i, k, v, a, b)
			}
		}
	}
	rep, err := auditPairs(x, []auditPair{{0, 1, 1}}, eps)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	rep.Pairs = n * (n - 1) / 2
	return auditVerdict(name, rep, m, eps)
}

// Exponential is the exponential-style mechanism on the metric m:
// X[i][k] = e^{-eps d(i,k)/2} / sum_j e^{-eps d(i,j)/2}. It is eps·d-private
// for every metric (each row's normaliser changes by at most the factor
// e^{eps d/2} too); pairs at distance +Inf get probability 0. Distances must
// be >= 0 and not NaN. It is built at BuildLevel(eps), a strict margin
// below eps.
//
// The result is audited exactly against m at eps before it is returned, and an error
// is returned if the audit fails. For a true metric privacy holds by
// construction (the triangle inequality) and the audit guards the
// arithmetic; a distance that breaks the triangle inequality is refused
// when its audit sees the violation. It is the full mech.Audit when that costs at most
// about 2^27 ratio comparisons (edges or pairs times n outputs), otherwise
// the sampled audit of 32 evenly spread rows, each against its index
// neighbours i±1 and an even spread of partners, at their distance d(i, h).
func Exponential(m metric.Metric, eps float64) (*mat.Dense, error) {
	if err := metric.CheckEps(eps); err != nil {
		return nil, fmt.Errorf("exponential: %w", err)
	}
	if m == nil {
		return nil, fmt.Errorf("mech: exponential: nil metric: %w", run.ErrBadInput)
	}
	n := m.Len()
	if err := ValidateDenseSize(n, n, "exponential"); err != nil {
		return nil, err
	}
	lev := BuildLevel(eps)
	x := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		s := 0.0
		for k := range row {
			d := m.Dist(i, k)
			if math.IsNaN(d) || d < 0 {
				return nil, fmt.Errorf("mech: exponential: metric %s has d(%d,%d) = %v: %w", m, i, k, d, run.ErrBadInput)
			}
			row[k] = math.Exp(-lev * d / 2)
			if row[k] < 0x1p-1022 && !math.IsInf(d, 1) {
				return nil, fmt.Errorf("mech: exponential: e^{-eps d/2} underflows float64 at d(%d,%d) = %v; use a smaller eps: %w", i, k, d, run.ErrBadInput)
			}
			s += row[k]
		}
		for k := range row {
			row[k] /= s
		}
	}
	if err := auditWithBudget("exponential", x, m, eps); err != nil {
		return nil, err
	}
	return x, nil
}

// auditWithBudget audits x against m at eps with mech.Audit when that costs
// at most auditBudget comparisons (counting a graph's edges only as far as
// needed), and otherwise with auditSampled; an error when it fails.
func auditWithBudget(name string, x *mat.Dense, m metric.Metric, eps float64) error {
	n := m.Len()
	full := float64(n)*float64(n)*float64(n-1)/2 <= auditBudget
	if g, ok := m.(metric.Graph); ok && !full {
		edges, limit := 0, auditBudget/n
		for range g.Edges() {
			if edges++; edges > limit {
				break
			}
		}
		full = edges <= limit
	}
	if full {
		return auditResult(name, x, m, eps)
	}
	rep, err := auditSampled(x, m, eps)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return auditVerdict(name, rep, m, eps)
}

// PlanarGeometric is the per-row normalised discrete Laplace mechanism on a
// w x h grid of points step km apart (point i at column i%w, row i/w) that
// is eps·d-private for the Euclidean distance d in km (eps per km):
//
//	X[i][k] = e^{-c d(i,k)} / sum_j e^{-c d(i,j)},  c = BuildLevel(eps)/2.
//
// The exponent is half the level because the row normalisers of points near
// the border differ from those inside: with exponent c the mechanism is only
// guaranteed 2c·d-private (the audit of a 3 x 3 grid at exponent c measures
// a level strictly between c and 2c), so c = eps/2 (less the strict margin
// of BuildLevel) is what makes it eps·d-private. It is then Exponential on
// the grid metric at eps (the argument is the privacy level, not the
// exponent: an exponent of eps would yield only 2·eps;
// TestPlanarGeometricTakesItsLevel). It is meant for comparisons.
//
// The result is audited exactly against Grid(w, h, step, Euclid) at eps
// before it is returned (the full mech.Audit up to 900 points, above that
// the sampled pairs described at PlanarLaplace), and an error is returned
// if that audit fails.
func PlanarGeometric(w, h int, step, eps float64) (*mat.Dense, error) {
	if err := checkGrid(w, h, step, eps); err != nil {
		return nil, fmt.Errorf("planar geometric: %w", err)
	}
	n := w * h
	if err := ValidateDenseSize(n, n, "planar geometric"); err != nil {
		return nil, err
	}
	c := BuildLevel(eps) / 2 * step
	if c*math.Hypot(float64(w-1), float64(h-1)) > 700 {
		return nil, fmt.Errorf("mech: planar geometric: eps/2·diagonal = %.4g > 700: the far entries underflow float64; use a smaller eps or grid: %w", c*math.Hypot(float64(w-1), float64(h-1)), run.ErrBadInput)
	}
	x := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		s := 0.0
		for k := range row {
			row[k] = math.Exp(-c * math.Hypot(float64(i%w-k%w), float64(i/w-k/w)))
			s += row[k]
		}
		for k := range row {
			row[k] /= s
		}
	}
	if err := auditGrid("planar geometric", x, w, h, step, eps); err != nil {
		return nil, err
	}
	return x, nil
}

// checkGrid validates a grid of w x h points with spacing step km and a
// privacy level eps per km.
func checkGrid(w, h int, step, eps float64) error {
	if w < 1 || h < 1 {
		return fmt.Errorf("mech: grid size %d x %d must be at least 1 x 1: %w", w, h, run.ErrBadInput)
	}
	if w > MaxDenseEntries/h {
		return fmt.Errorf("mech: grid %d x %d has too many points: %w", w, h, run.ErrTooLarge)
	}
	if math.IsNaN(step) || math.IsInf(step, 0) || step <= 0 {
		return fmt.Errorf("mech: grid step must be a finite number of km > 0, got %v: %w", step, run.ErrBadInput)
	}
	return metric.CheckEps(eps)
}

// auditBudget bounds the work (ratio comparisons, pairs × outputs) of the
// full audit a baseline constructor runs on its result; above it the
// constructor checks a cheaper condition that still implies privacy, or a
// documented sample of pairs (see each constructor).
const auditBudget = 1 << 27

// auditResult audits the constructed matrix x against m at eps with
// mech.Audit and turns a failed verdict into an error naming the measured
// level and the worst (i, h, o).
func auditResult(name string, x *mat.Dense, m metric.Metric, eps float64) error {
	rep, err := Audit(x, m, eps)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return auditVerdict(name, rep, m, eps)
}

// auditVerdict is nil when rep is private and otherwise an error naming the
// measured level and the worst (i, h, o).
func auditVerdict(name string, rep AuditReport, m metric.Metric, eps float64) error {
	if rep.Private {
		return nil
	}
	return fmt.Errorf("%s: the DP audit against %s fails: measured eps = %v > %v, worst at answers (%d, %d), output %d",
		name, m, rep.Eps, eps, rep.Worst[0], rep.Worst[1], rep.Worst[2])
}

// auditPair is a pair of answers and their distance for auditPairs.
type auditPair struct {
	i, h int
	d    float64
}

// auditPairs is mech.Audit restricted to the given pairs (i, h) at their
// distances d: the same exact per-pair decision, zeros handled the same way.
// Pairs at distance +Inf constrain nothing. The entries of x must already be
// finite and >= 0 (the constructors build them so).
func auditPairs(x *mat.Dense, pairs []auditPair, eps float64) (AuditReport, error) {
	if err := metric.CheckEps(eps); err != nil {
		return AuditReport{}, fmt.Errorf("audit: %w", err)
	}
	r, _ := x.Dims()
	a := newExactAuditor(x, nil, eps)
	for _, p := range pairs {
		if p.i < 0 || p.h < 0 || p.i >= r || p.h >= r || p.i == p.h {
			return AuditReport{}, fmt.Errorf("mech: audit: invalid pair (%d,%d) for answers 0..%d: %w", p.i, p.h, r-1, run.ErrBadInput)
		}
		if math.IsNaN(p.d) || p.d <= 0 {
			return AuditReport{}, fmt.Errorf("mech: audit: d(%d,%d) = %v: distinct answers need a distance > 0: %w", p.i, p.h, p.d, run.ErrBadInput)
		}
		if math.IsInf(p.d, 1) {
			continue
		}
		a.pair(p.i, p.h, p.d)
	}
	return a.report(), nil
}

// spreadIndices is up to k indices spread evenly over 0..n-1, both ends
// included, without repeats.
func spreadIndices(n, k int) []int {
	if k >= n {
		k = n
	}
	if k == 1 {
		return []int{0}
	}
	idx := make([]int, 0, k)
	for j := 0; j < k; j++ {
		v := int(math.Round(float64(j) * float64(n-1) / float64(k-1)))
		if len(idx) == 0 || idx[len(idx)-1] != v {
			idx = append(idx, v)
		}
	}
	return idx
}

// auditSampled is the audit a constructor runs when the full audit of an
// n-answer matrix would exceed auditBudget: the 32 rows spreadIndices(n, 32)
// are each checked against their index neighbours i±1 and against an even
// spread of partners h over 0..n-1 (all of them when a quarter of
// auditBudget allows), at
// the distance m.Dist(i, h), for every output.
func auditSampled(x *mat.Dense, m metric.Metric, eps float64) (AuditReport, error) {
	n := m.Len()
	rows := spreadIndices(n, 32)
	per := max(2, auditBudget/4/(len(rows)*n))
	var pairs []auditPair
	for _, i := range rows {
		partners := append(spreadIndices(n, per), i-1, i+1)
		for _, h := range partners {
			if h < 0 || h >= n || h == i {
				continue
			}
			pairs = append(pairs, auditPair{i, h, m.Dist(i, h)})
		}
	}
	return auditPairs(x, pairs, eps)
}

// bandMetric is the band graph on the answers 0..n-1 of a query of
// sensitivity w: i ~ j iff 0 < |i-j| <= w, so d(i,j) = ceil(|i-j|/w).
type bandMetric struct{ n, w int }

var _ metric.Graph = bandMetric{}

func (b bandMetric) Len() int              { return b.n }
func (b bandMetric) Dist(i, j int) float64 { return float64((abs(i-j) + b.w - 1) / b.w) }
func (b bandMetric) String() string        { return fmt.Sprintf("band:n=%d,sens=%d", b.n, b.w) }
func (b bandMetric) Edges() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i < b.n; i++ {
			for j := i + 1; j <= i+b.w && j < b.n; j++ {
				if !yield(i, j) {
					return
				}
			}
		}
	}
}

// unitStepMetric is the answers {0..side-1}^k (row-major) with the L1
// distance of the digit vectors: neighbours differ by 1 in one coordinate.
type unitStepMetric struct{ side, k, n int }

var _ metric.Graph = unitStepMetric{}

func (s unitStepMetric) Len() int { return s.n }
func (s unitStepMetric) Dist(i, j int) float64 {
	d := 0
	for c := 0; c < s.k; c++ {
		d += abs(i%s.side - j%s.side)
		i, j = i/s.side, j/s.side
	}
	return float64(d)
}
func (s unitStepMetric) String() string {
	return fmt.Sprintf("unit-step:side=%d,k=%d", s.side, s.k)
}
func (s unitStepMetric) Edges() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i < s.n; i++ {
			for c, p := 0, 1; c < s.k; c, p = c+1, p*s.side {
				if (i/p)%s.side+1 < s.side && !yield(i, i+p) {
					return
				}
			}
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

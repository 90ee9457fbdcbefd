package tight

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"github.com/optdp/optdp/solve"
	"gonum.org/v1/gonum/mat"
)

// RegularResult says whether a prior is regular for a metric at eps
// (docs/MATH.md §5.1, §5.5): pi = y Phi for some y >= 0.
type RegularResult struct {
	// N is the number of answers and Eps the privacy level.
	N   int     `json:"n"`
	Eps float64 `json:"eps"`
	// Regular: Yes, No, or Borderline when |MinY| <= YErr.
	Regular Verdict `json:"regular"`
	// Y solves y Phi = pi (one solution when not Unique).
	Y []float64 `json:"-"`
	// MinY is min_i y_i and YErr bounds the error of each y_i (+Inf when
	// Phi is singular).
	MinY float64 `json:"min_y"`
	YErr float64 `json:"y_err"`
	// Unique reports that Phi is nonsingular.
	Unique bool `json:"unique"`
	// SumY is Σ y_i. When the prior is regular it is the utility bound
	// (UtilityBound): no eps-private mechanism has a higher utility for it.
	SumY         float64 `json:"sum_y"`
	UtilityBound float64 `json:"utility_bound"`
	// LeakageBoundBits is log2(Σ y / max pi): for a regular prior, no
	// eps-private mechanism leaks more min-entropy (docs/MATH.md §5.5). SumY,
	// UtilityBound and LeakageBoundBits are bounds only when Regular is
	// Yes; they are reported regardless.
	LeakageBoundBits float64 `json:"leakage_bound_bits"`
	// Solver and Certificate are as in Result.
	Solver      Solver  `json:"solver"`
	RCond       float64 `json:"rcond"`
	Certificate string  `json:"certificate,omitempty"`
}

// Regular decides whether prior is regular for m at eps: it solves
// Phi y = pi (Phi is symmetric, so y Phi = pi is the same system) densely and
// decides y >= 0 with an error bound (Borderline when rounding could flip the
// sign) or, for a singular Phi, with the feasibility test (see Solve). The
// prior must have m.Len() entries, all finite and >= 0, summing to 1 within
// SumTol; eps must be finite and > 0. opts may be nil (only Budget is
// used). For Hamming metrics with a product prior use RegularProduct, which
// never forms v^u-sized objects.
func Regular(ctx context.Context, m metric.Metric, eps float64, prior []float64, opts *Options) (*RegularResult, error) {
	if err := metric.CheckEps(eps); err != nil {
		return nil, fmt.Errorf("regular: %w", err)
	}
	n := m.Len()
	if err := mech.ValidatePrior(prior, n); err != nil {
		return nil, fmt.Errorf("regular %s: %w", m, err)
	}
	if err := opts.check(); err != nil {
		return nil, fmt.Errorf("regular: %w", err)
	}
	o := opts.orDefault()
	if err := o.Budget.CheckDense("regular prior of "+m.String(), n, 2, denseAdvice); err != nil {
		return nil, err
	}
	phi := mat.NewSymDense(n, nil)
	if err := metric.PhiToContext(ctx, phi, m, eps); err != nil {
		return nil, err
	}
	var sys solve.DenseSystem
	if err := sys.FactorizeContext(ctx, phi); err != nil {
		return nil, fmt.Errorf("regular %s: %w", m, err)
	}
	s, err := sys.SolveNonneg(ctx, prior)
	if err != nil {
		return nil, fmt.Errorf("regular %s: %w", m, err)
	}
	r := &RegularResult{
		N: n, Eps: eps, Regular: s.Verdict, Y: s.X, MinY: s.Min, YErr: s.Err,
		Unique: s.Unique, Solver: denseSolver(s.Method), RCond: s.RCond,
		Certificate: s.Certificate,
	}
	for _, v := range s.X {
		r.SumY += v
	}
	r.UtilityBound = r.SumY
	r.LeakageBoundBits = math.Log2(r.SumY / slices.Max(prior))
	return r, nil
}

// Corner returns the i-th corner prior c^i = Phi[i] / Σ_k Phi[i][k]
// (docs/MATH.md §5.4): the regular region is the convex hull of the corners.
func Corner(m metric.Metric, eps float64, i int) ([]float64, error) {
	if err := metric.CheckEps(eps); err != nil {
		return nil, fmt.Errorf("corner: %w", err)
	}
	n := m.Len()
	if i < 0 || i >= n {
		return nil, fmt.Errorf("tight: corner: answer %d outside 0..%d", i, n-1)
	}
	if n > MaxVectorN {
		return nil, fmt.Errorf("tight: corner: %s has %d answers, above the vector limit %d: %w", m, n, MaxVectorN, run.ErrTooLarge)
	}
	c := make([]float64, n)
	var s float64
	for k := range c {
		c[k] = math.Exp(-eps * m.Dist(i, k))
		s += c[k]
	}
	for k := range c {
		c[k] /= s
	}
	return c, nil
}

// ratioSlack is RatioBound's relative slack.
const ratioSlack = 1e-9

// RatioBound checks the necessary condition of regularity
// pi_i <= e^{eps·d(i,j)} pi_j for all pairs (only edges for a Graph, which
// implies all pairs by the triangle inequality along shortest paths), with
// relative slack ratioSlack = 1e-9 (a prior is data, not a released
// mechanism: the slack absorbs the rounding of priors read from files). It
// returns ok and, if not, a violating pair.
func RatioBound(m metric.Metric, eps float64, prior []float64) (ok bool, i, j int, err error) {
	if err := metric.CheckEps(eps); err != nil {
		return false, -1, -1, fmt.Errorf("ratio bound: %w", err)
	}
	if err := mech.ValidatePrior(prior, m.Len()); err != nil {
		return false, -1, -1, fmt.Errorf("ratio bound %s: %w", m, err)
	}
	bad := func(a, b int, d float64) bool {
		if math.IsInf(d, 1) {
			return false
		}
		hi, lo := max(prior[a], prior[b]), min(prior[a], prior[b])
		if hi == lo {
			return false
		}
		if lo == 0 {
			return true
		}
		return math.Log(hi)-math.Log(lo) > eps*d*(1+ratioSlack)
	}
	if g, isGraph := m.(metric.Graph); isGraph {
		for a, b := range g.Edges() {
			if bad(a, b, 1) {
				if prior[a] < prior[b] {
					a, b = b, a
				}
				return false, a, b, nil
			}
		}
		return true, -1, -1, nil
	}
	n := m.Len()
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			if bad(a, b, m.Dist(a, b)) {
				if prior[a] < prior[b] {
					a, b = b, a
				}
				return false, a, b, nil
			}
		}
	}
	return true, -1, -1, nil
}

// PriorBounds returns the bounds every regular prior satisfies
// (docs/MATH.md §5.3): lo_i = 1/Σ_j e^{eps·d(i,j)} <= pi_i <= hi_i =
// 1/Σ_j e^{-eps·d(i,j)}. Sums are taken in the log domain (no overflow:
// lo_i is then tiny but not 0 unless it underflows, which only weakens the
// necessary condition).
func PriorBounds(m metric.Metric, eps float64) (lo, hi []float64, err error) {
	if err := metric.CheckEps(eps); err != nil {
		return nil, nil, fmt.Errorf("prior bounds: %w", err)
	}
	n := m.Len()
	if n > MaxVectorN {
		return nil, nil, fmt.Errorf("tight: prior bounds: %s has %d answers, above the vector limit %d: %w", m, n, MaxVectorN, run.ErrTooLarge)
	}
	lo, hi = make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		// log Σ_j e^{eps d}: every term >= 1 (j = i), so shift by the max.
		var dmax float64
		var shi float64
		for j := 0; j < n; j++ {
			d := m.Dist(i, j)
			if !math.IsInf(d, 1) {
				dmax = max(dmax, d)
			}
			shi += math.Exp(-eps * d)
		}
		var slo float64
		for j := 0; j < n; j++ {
			d := m.Dist(i, j)
			if !math.IsInf(d, 1) {
				slo += math.Exp(eps * (d - dmax))
			}
		}
		lo[i] = math.Exp(-eps*dmax - math.Log(slo))
		hi[i] = 1 / shi
	}
	return lo, hi, nil
}

// ProductRegularResult is the regularity of a product prior on the Hamming
// space Val^u (docs/MATH.md §5.6): each of u individuals independently takes value
// j with probability p_j, so pi = p ⊗ ... ⊗ p and, since Phi is the
// Kronecker product of u clique matrices, y = y1 ⊗ ... ⊗ y1 with
// y1 = p Phi_clique^{-1}. Quantities that grow or shrink like v^u are
// reported in log2 as well as (possibly under- or overflowed) floats.
type ProductRegularResult struct {
	U   int     `json:"u"`
	V   int     `json:"v"`
	Eps float64 `json:"eps"`
	// Regular: Yes iff every y1_j >= 0 (then all products are >= 0); No
	// when some y1_j < 0 (one negative factor times u-1 positive ones is a
	// negative entry of y; a positive y1_k always exists since
	// Σ y1 = 1/(1+(v-1)e^-eps) > 0); Borderline when a factor's sign is
	// within its error bound.
	Regular Verdict `json:"regular"`
	// Y1 is the per-individual solution, Y1Err a bound on the error of each
	// of its entries, MinY1 its minimum.
	Y1    []float64 `json:"y1"`
	Y1Err float64   `json:"y1_err"`
	MinY1 float64   `json:"min_y1"`
	// MinY is min over all v^u entries of y (an exact sign analysis of the
	// products: the most negative product has an odd number of negative
	// factors), and Log2AbsMinY = log2|MinY| (finite even when MinY
	// underflows; -Inf when MinY = 0).
	MinY        float64 `json:"min_y"`
	Log2AbsMinY float64 `json:"log2_abs_min_y"`
	// SumY = (Σ y1)^u is the utility bound (UtilityBound) and
	// Log2SumY = u·log2 Σ y1.
	SumY         float64 `json:"sum_y"`
	Log2SumY     float64 `json:"log2_sum_y"`
	UtilityBound float64 `json:"utility_bound"`
	// LeakageBoundBits = u·log2(Σ y1 / max p) = log2(Σ y / max pi).
	LeakageBoundBits float64 `json:"leakage_bound_bits"`
}

// RegularProduct decides the regularity of the product prior p^{⊗u} on the
// Hamming space of v^u databases (u >= 1 individuals, v = len(p) >= 2
// values) at eps, with one v×v solve: it works for v^u in the billions and
// beyond (nothing of size v^u is formed; u may be any positive int). p must
// be a distribution (finite, >= 0, summing to 1 within SumTol).
func RegularProduct(u int, eps float64, p []float64) (*ProductRegularResult, error) {
	if err := metric.CheckEps(eps); err != nil {
		return nil, fmt.Errorf("regular product: %w", err)
	}
	v := len(p)
	if u < 1 || v < 2 {
		return nil, fmt.Errorf("tight: regular product: need u >= 1 individuals and at least 2 values, got u=%d and %d values: %w", u, v, run.ErrBadInput)
	}
	if err := mech.ValidatePrior(p, v); err != nil {
		return nil, fmt.Errorf("regular product: per-individual distribution: %w", err)
	}
	cl, err := metric.Clique(v)
	if err != nil {
		return nil, err
	}
	r1, err := Regular(context.Background(), cl, eps, p, nil)
	if err != nil {
		return nil, fmt.Errorf("regular product: per-individual solve: %w", err)
	}
	r := &ProductRegularResult{U: u, V: v, Eps: eps, Y1: r1.Y, Y1Err: r1.YErr, MinY1: r1.MinY}
	uf := float64(u)
	// Signs of the factors, settled by the error bound.
	var neg, unsure bool
	pos, negMag := 0.0, 0.0 // largest positive factor, largest |negative| factor
	var sum1 float64
	for _, y := range r1.Y {
		sum1 += y
		switch {
		case y < -r1.YErr:
			neg = true
		case y <= r1.YErr:
			unsure = true
		}
		if y > 0 {
			pos = max(pos, y)
		} else {
			negMag = max(negMag, -y)
		}
	}
	switch {
	case neg && pos > r1.YErr:
		r.Regular = No
	case neg || unsure:
		r.Regular = Borderline
	default:
		r.Regular = Yes
	}
	// min over all products of u factors.
	if negMag > 0 && pos > 0 {
		j := 1 // number of negative factors, odd
		if negMag > pos {
			j = u
			if j%2 == 0 {
				j--
			}
		}
		l := float64(j)*math.Log2(negMag) + float64(u-j)*math.Log2(pos)
		r.Log2AbsMinY, r.MinY = l, -math.Exp2(l)
	} else {
		m := r1.MinY
		if m < 0 {
			// Every factor is negative: impossible since Σ y1 > 0, but
			// keep the sign algebra exact: odd u gives a negative product.
			l := uf * math.Log2(-m)
			r.Log2AbsMinY = l
			r.MinY = math.Exp2(l)
			if u%2 == 1 {
				r.MinY = -r.MinY
			}
		} else {
			r.Log2AbsMinY = uf * math.Log2(m)
			r.MinY = math.Exp2(r.Log2AbsMinY)
		}
	}
	r.Log2SumY = uf * math.Log2(sum1)
	r.SumY = math.Exp2(r.Log2SumY)
	r.UtilityBound = r.SumY
	r.LeakageBoundBits = uf * (math.Log2(sum1) - math.Log2(slices.Max(p)))
	return r, nil
}

// ProductPrior returns the full product prior p^{⊗u} on v^u databases in
// the Hamming metric's order (individual 0 slowest), refusing above
// MaxVectorN entries.
func ProductPrior(u int, p []float64) ([]float64, error) {
	v := len(p)
	n, ok := 1, u >= 1 && v >= 1
	for range u {
		if !ok || n > MaxVectorN/v {
			ok = false
			break
		}
		n *= v
	}
	if !ok || n > MaxVectorN {
		return nil, fmt.Errorf("tight: product prior: %d^%d entries exceed the vector limit %d: %w", v, u, MaxVectorN, run.ErrTooLarge)
	}
	pi := []float64{1}
	for range u {
		next := make([]float64, 0, len(pi)*v)
		for _, a := range pi {
			for _, b := range p {
				next = append(next, a*b)
			}
		}
		pi = next
	}
	return pi, nil
}

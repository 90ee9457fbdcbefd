package linear

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/optdp/optdp/run"
	"github.com/optdp/optdp/sdp"
	"gonum.org/v1/gonum/mat"
)

// Query types of an attribute in a marginal plan (MarginalPlanOptions.AttrQueries):
// the queries a marginal containing the attribute asks along it.
const (
	// QueryIdentity asks every value: the marginal's cells.
	QueryIdentity = "identity"
	// QueryPrefix asks the n prefixes [0, k], k = 0..n-1 (a CDF; the last
	// is the attribute's total).
	QueryPrefix = "prefix"
	// QueryAllRange asks the n(n+1)/2 ranges [l, r], in order of l then r
	// (as AllRange).
	QueryAllRange = "allrange"
)

// Limits of the attribute sizes of prefix and allrange attributes (their
// basis and lower bound take O(n³) time once per size).
const (
	maxPrefixAttr   = 512
	maxAllRangeAttr = 512
)

// attrBasis is the residual basis of one attribute of n values and its
// query tables (docs/MATH.md §15.11, "Prefix and range attributes"). The
// basis of 1^⊥ is a binary tree's: node r splits [lo, hi) at mid into
// a = mid-lo and b = hi-mid values, with the integer row
// h_r = b·1_[lo,mid) - a·1_[mid,hi), ||h_r||² = ab(a+b); the rows are
// orthogonal and span 1^⊥. The caterpillar tree (lo = 0, hi = mid+1) is
// the Helmert basis. The attribute's measurement is sqrt(ζ_r) h_r/||h_r||
// for every r, with column norms² δ_j = Σ_{r ∋ j} ζ_r h_r(j)²/||h_r||² and
// d = max_j δ_j (rounded up).
type attrBasis struct {
	kind        string
	n           int
	lo, mid, hi []int
	norm2       []float64
	zeta        []float64
	d           float64
	// The attribute's queries [ql, qr]; alpha[q] = d·v_q with
	// v_q = Σ_r <w_q, h_r>²/(||h_r||² ζ_r) the variance factor of the
	// residual part, beta[q] = (len_q/n)² that of the total part; trace
	// and wbar2 their sums; hull the queries on the upper-right convex
	// hull of the points (alpha, beta).
	ql, qr       []int
	alpha, beta  []float64
	trace, wbar2 float64
	hull         []int
	// lbA[k], lbC[k]: candidate relaxations a P_⊥ + c P_1 ⪯ W^T W, scaled
	// to m²a/n and c/n (m = n-1).
	lbA, lbC []float64
	// gap is the certified relative gap of ζ within the tree's family,
	// pi the dual distribution on the values that certifies it.
	gap float64
	pi  []float64
	// opt is a lower bound on the attribute's own L2 loss
	// min tr(W^T W X^+) over diag(X) <= 1 (n for identity; sdp.OptimizeL2's
	// certified dual otherwise), and sdpD the dual distribution it gives.
	opt  float64
	sdpD []float64
}

// queries returns the number of queries of the attribute.
func (b *attrBasis) queries() int { return len(b.ql) }

// identityBasis is the Helmert basis with ζ ≡ 1 (d = (n-1)/n), whose
// queries are the n values.
func identityBasis(n int) *attrBasis {
	b := caterpillar(n)
	b.kind = QueryIdentity
	b.zeta = make([]float64, n-1)
	for r := range b.zeta {
		b.zeta[r] = 1
	}
	nf := float64(n)
	b.d = (nf - 1) / nf
	a := b.d * b.d
	for j := 0; j < n; j++ {
		b.ql = append(b.ql, j)
		b.qr = append(b.qr, j)
		b.alpha = append(b.alpha, a)
		b.beta = append(b.beta, 1/(nf*nf))
	}
	b.trace, b.wbar2 = (nf-1)*(nf-1)/nf, 1/nf
	b.hull = []int{0}
	b.opt = nf
	b.lbA, b.lbC = []float64{(nf - 1) * (nf - 1) / nf}, []float64{1 / nf}
	return b
}

// caterpillar returns the Helmert tree of n values (nodes [0, k+1) split
// at k, k = 1..n-1).
func caterpillar(n int) *attrBasis {
	b := &attrBasis{n: n}
	for k := 1; k < n; k++ {
		b.lo, b.mid, b.hi = append(b.lo, 0), append(b.mid, k), append(b.hi, k+1)
		b.norm2 = append(b.norm2, float64(k)*float64(k+1))
	}
	return b
}

// balanced returns the balanced binary tree of n values (each node split
// at its middle, the left half the larger).
func balanced(n int) *attrBasis {
	b := &attrBasis{n: n}
	var split func(lo, hi int)
	split = func(lo, hi int) {
		if hi-lo < 2 {
			return
		}
		mid := lo + (hi-lo+1)/2
		a, c := float64(mid-lo), float64(hi-mid)
		b.lo, b.mid, b.hi = append(b.lo, lo), append(b.mid, mid), append(b.hi, hi)
		b.norm2 = append(b.norm2, a*c*(a+c))
		split(lo, mid)
		split(mid, hi)
	}
	split(0, n)
	return b
}

// newAttrBasis returns the basis of an attribute of n values queried by
// kind: identityBasis for QueryIdentity; for QueryPrefix and QueryAllRange
// the better (smaller d·Σ_q v_q) of the caterpillar and balanced trees,
// each with its optimal ζ.
func newAttrBasis(ctx context.Context, kind string, n int) (*attrBasis, error) {
	switch kind {
	case QueryIdentity, "":
		return identityBasis(n), nil
	case QueryPrefix, QueryAllRange:
	default:
		return nil, fmt.Errorf("linear: marginal plan: %w: query type %q, want %q, %q or %q", run.ErrBadInput, kind, QueryIdentity, QueryPrefix, QueryAllRange)
	}
	limit := maxPrefixAttr
	if kind == QueryAllRange {
		limit = maxAllRangeAttr
	}
	if n < 2 || n > limit {
		return nil, fmt.Errorf("linear: marginal plan: %w: a %s attribute needs 2..%d values, not %d", run.ErrBadInput, kind, limit, n)
	}
	var best *attrBasis
	for _, b := range []*attrBasis{caterpillar(n), balanced(n)} {
		b.kind = kind
		b.optimiseZeta()
		b.tables()
		if best == nil || b.trace < best.trace {
			best = b
		}
	}
	g := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			g.SetSym(i, j, best.gram(i, j))
		}
	}
	res, err := sdp.OptimizeL2(ctx, g, &sdp.L2Options{RelGap: 1e-6})
	if err != nil && res == nil {
		return nil, fmt.Errorf("linear: marginal plan: the %s attribute's L2 bound: %w", kind, err)
	}
	best.opt = math.Max(res.Dual, 0)
	ysum := 0.0
	for _, y := range res.Y {
		ysum += math.Max(y, 0)
	}
	if ysum > 0 {
		best.sdpD = make([]float64, n)
		for j, y := range res.Y {
			best.sdpD[j] = math.Max(y, 0) / ysum
		}
	}
	if err := best.lowerPairs(ctx); err != nil {
		return nil, err
	}
	return best, nil
}

// rowDot returns <w, h_r> for the interval w = [l, r] (inclusive).
func (b *attrBasis) rowDot(k, l, r int) float64 {
	over := func(x, y int) float64 { return float64(max(0, min(r+1, y)-max(l, x))) }
	a, c := float64(b.mid[k]-b.lo[k]), float64(b.hi[k]-b.mid[k])
	return c*over(b.lo[k], b.mid[k]) - a*over(b.mid[k], b.hi[k])
}

// rowGram returns g_r = ||W h_r||²/||h_r||² for the attribute's workload W
// (prefixes or all ranges), exactly in integers: with S_i = Σ_{j<i} h_r(j),
// <[0,k], h_r> = S_{k+1} and <[l,r], h_r> = S_{r+1} - S_l, so the prefix
// sum is Σ_i S_i² and the range sum Σ_{i<j} (S_j - S_i)² =
// (n+1) Σ S_i² - (Σ S_i)² (S vanishes outside the node).
func (b *attrBasis) rowGram(k int) float64 {
	lo, mid, hi := b.lo[k], b.mid[k], b.hi[k]
	a, c := int64(mid-lo), int64(hi-mid)
	var s1, s2 int64
	for i := lo + 1; i < hi; i++ {
		var s int64
		if i <= mid {
			s = c * int64(i-lo)
		} else {
			s = c*a - a*int64(i-mid)
		}
		s1 += s
		s2 += s * s
	}
	if b.kind == QueryPrefix {
		return float64(s2) / b.norm2[k]
	}
	return float64(int64(b.n+1)*s2-s1*s1) / b.norm2[k]
}

// weights returns the squared entries of row k's orthonormal vector on
// [lo, mid) and [mid, hi): b/(a(a+b)) and a/(b(a+b)).
func (b *attrBasis) weights(k int) (left, right float64) {
	a, c := float64(b.mid[k]-b.lo[k]), float64(b.hi[k]-b.mid[k])
	return c / (a * (a + c)), a / (c * (a + c))
}

// columnNorms returns δ_j = Σ_{r ∋ j} ζ_r h_r(j)²/||h_r||², by direct
// sums of positive terms (relative error below (depth+2)·2^-52).
func (b *attrBasis) columnNorms(zeta []float64) []float64 {
	delta := make([]float64, b.n)
	for k := range b.lo {
		l, r := b.weights(k)
		for j := b.lo[k]; j < b.mid[k]; j++ {
			delta[j] += zeta[k] * l
		}
		for j := b.mid[k]; j < b.hi[k]; j++ {
			delta[j] += zeta[k] * r
		}
	}
	return delta
}

// optimiseZeta chooses ζ minimising (Σ_r g_r/ζ_r)·max_j δ_j(ζ), the
// attribute's factor d·Σ_q v_q of the sum loss: a convex problem whose
// Lagrangian dual is max over distributions π on the values of
// (Σ_r sqrt(g_r c_r(π)))², c_r = Σ_j π_j h_r(j)²/||h_r||², with inner
// minimiser ζ_r ∝ sqrt(g_r/c_r). π is updated multiplicatively,
// π_j ∝ π_j (δ_j/Σ π δ)^s, s halved until the dual does not decrease; it
// stops at a relative gap of 1e-7 (or 3000 iterations) and keeps the best
// primal ζ, scaled so that d ≈ 1.
func (b *attrBasis) optimiseZeta() {
	nr, n := len(b.lo), b.n
	g := make([]float64, nr)
	for k := range g {
		g[k] = b.rowGram(k)
	}
	wl, wr := make([]float64, nr), make([]float64, nr)
	for k := range wl {
		wl[k], wr[k] = b.weights(k)
	}
	zeta := make([]float64, nr)
	cum := make([]float64, n+1)
	dual := func(pi []float64) float64 {
		for j, v := range pi {
			cum[j+1] = cum[j] + v
		}
		phi := 0.0
		for k := range zeta {
			c := (cum[b.mid[k]]-cum[b.lo[k]])*wl[k] + (cum[b.hi[k]]-cum[b.mid[k]])*wr[k]
			c = math.Max(c, 1e-300)
			phi += math.Sqrt(g[k] * c)
			zeta[k] = math.Sqrt(g[k] / c)
		}
		return phi * phi
	}
	diff := make([]float64, n+1)
	delta := make([]float64, n)
	primal := func() float64 { // (Σ g/ζ)·max δ, δ by a difference array
		for j := range diff {
			diff[j] = 0
		}
		obj := 0.0
		for k, z := range zeta {
			obj += g[k] / z
			diff[b.lo[k]] += z * wl[k]
			diff[b.mid[k]] += z * (wr[k] - wl[k])
			diff[b.hi[k]] -= z * wr[k]
		}
		run, top := 0.0, 0.0
		for j := range delta {
			run += diff[j]
			delta[j] = run
			top = math.Max(top, run)
		}
		return obj * top
	}
	pi := make([]float64, n)
	logPi := make([]float64, n)
	for j := range pi {
		pi[j] = 1 / float64(n)
		logPi[j] = -math.Log(float64(n))
	}
	bestDual := dual(pi)
	bestPrimal := primal()
	bestZeta := append([]float64(nil), zeta...)
	trial, next := make([]float64, n), make([]float64, n)
	step := 1.0
	for iter := 0; iter < 3000 && (bestPrimal-bestDual)/bestPrimal > 1e-7; iter++ {
		cur := 0.0
		for j := range pi {
			cur += pi[j] * math.Max(delta[j], 1e-300)
		}
		accepted := false
		for tries := 0; tries < 40; tries++ {
			expStep(trial, next, logPi, step, func(j int) float64 { return math.Max(delta[j], 1e-300) / cur })
			if d := dual(next); d >= bestDual*(1-1e-12) {
				bestDual = math.Max(bestDual, d)
				copy(logPi, trial)
				copy(pi, next)
				accepted = true
				step = math.Min(step*1.25, 64)
				break
			}
			step /= 2
		}
		if !accepted {
			break
		}
		if v := primal(); v < bestPrimal {
			bestPrimal = v
			copy(bestZeta, zeta)
		}
	}
	b.gap = math.Max(bestPrimal-bestDual, 0) / bestPrimal
	b.pi = pi
	// Scale ζ so that max δ ≈ 1; d is the exact-sum maximum, rounded up
	// by a relative 1e-12 (far above the sums' rounding), so that every
	// column's true norm² is at most d.
	delta = b.columnNorms(bestZeta)
	top := 0.0
	for _, v := range delta {
		top = math.Max(top, v)
	}
	for k := range bestZeta {
		bestZeta[k] /= top
	}
	b.zeta = bestZeta
	top = 0
	for _, v := range b.columnNorms(bestZeta) {
		top = math.Max(top, v)
	}
	b.d = top * (1 + 1e-12)
}

// tables fills the query tables (ql, qr, alpha, beta, trace, wbar2, hull)
// of a prefix or allrange attribute.
func (b *attrBasis) tables() {
	n := b.n
	add := func(l, r int) {
		v := 0.0
		for k := range b.lo {
			if r < b.lo[k] || l >= b.hi[k] {
				continue
			}
			x := b.rowDot(k, l, r)
			v += x * x / (b.norm2[k] * b.zeta[k])
		}
		ln := float64(r-l+1) / float64(n)
		b.ql, b.qr = append(b.ql, l), append(b.qr, r)
		b.alpha, b.beta = append(b.alpha, b.d*v), append(b.beta, ln*ln)
		b.trace += b.d * v
		b.wbar2 += ln * ln
	}
	if b.kind == QueryPrefix {
		for r := 0; r < n; r++ {
			add(0, r)
		}
	} else {
		for l := 0; l < n; l++ {
			for r := l; r < n; r++ {
				add(l, r)
			}
		}
	}
	b.hull = upperRightHull(b.alpha, b.beta)
}

// upperRightHull returns the indices of the points (x_i, y_i) that
// maximise λx + (1-λ)y for some λ in [0, 1]: the vertices of the upper
// convex hull from the highest point to the rightmost. A nonnegative
// combination of the coordinates is maximised over all points at one of
// them.
func upperRightHull(x, y []float64) []int {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool {
		if x[idx[a]] != x[idx[b]] {
			return x[idx[a]] < x[idx[b]]
		}
		return y[idx[a]] < y[idx[b]]
	})
	var h []int
	for _, i := range idx {
		for len(h) >= 2 {
			o, a := h[len(h)-2], h[len(h)-1]
			// Pop a when it is not strictly above the segment o→i.
			if (x[a]-x[o])*(y[i]-y[o])-(y[a]-y[o])*(x[i]-x[o]) >= 0 {
				h = h[:len(h)-1]
				continue
			}
			break
		}
		h = append(h, i)
	}
	top := 0
	for k, i := range h {
		if y[i] >= y[h[top]] {
			top = k
		}
	}
	return append([]int(nil), h[top:]...)
}

// lowerPairs fills lbA and lbC with the candidate factors of the
// relaxed lower bound (docs/MATH.md §15.11): for a distribution D on the
// values (uniform, the dual π of optimiseZeta, and their mean), with
// Ĝ = D^{1/2} G D^{1/2} (G = W^T W) and the unit vector e = D^{1/2} 1, Ĝ
// has in an orthonormal basis (e, Q) the blocks g11 = e^T Ĝ e,
// g1 = Q^T Ĝ e and G̃ = Q^T Ĝ Q; for 0 <= c <= c0 = g11 - g1^T G̃^{-1} g1,
// Ĝ ⪰ M(c) + c e e^T with M(c) = G̃ - g1 g1^T/(g11 - c) ⪰ 0 supported on
// e^⊥. The pair stored is (κ², c), κ = tr M(c)^{1/2}, for c on a grid of
// [0, c0]; c is shrunk by a relative 1e-9 and M's eigenvalues by 1e-9 of
// the largest, margins for the solvers' rounding (M decreases in c).
func (b *attrBasis) lowerPairs(ctx context.Context) error {
	n := b.n
	uniform := make([]float64, n)
	mean := make([]float64, n)
	for j := range uniform {
		uniform[j] = 1 / float64(n)
		mean[j] = (uniform[j] + b.pi[j]) / 2
	}
	ds := [][]float64{uniform, b.pi, mean}
	if b.sdpD != nil {
		ds = append(ds, b.sdpD)
	}
	for _, d := range ds {
		if err := ctx.Err(); err != nil {
			return err
		}
		b.relaxPairs(d, b.gram)
	}
	if len(b.lbA) == 0 {
		b.lbA, b.lbC = []float64{0}, []float64{0}
	}
	return nil
}

// gram returns (W^T W)_ij of the attribute's prefix or allrange queries
// (the closed forms of Prefix and AllRange).
func (b *attrBasis) gram(i, j int) float64 {
	if b.kind == QueryPrefix {
		return float64(b.n - max(i, j))
	}
	return float64((min(i, j) + 1) * (b.n - max(i, j)))
}

// relaxPairs appends the pairs of lowerPairs for the distribution d.
func (b *attrBasis) relaxPairs(d []float64, gram func(i, j int) float64) {
	n := b.n
	e := make([]float64, n)
	for j, v := range d {
		e[j] = math.Sqrt(v)
	}
	// The Householder reflection H = I - 2 v v^T/||v||², v = e - e_0·sign,
	// maps e to ∓e_0; its other columns span e^⊥.
	v := append([]float64(nil), e...)
	sg := 1.0
	if e[0] < 0 {
		sg = -1
	}
	norm := math.Sqrt(floats(e))
	v[0] += sg * norm
	vv := floats(v)
	h := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			x := -2 * v[i] * v[j] / vv
			if i == j {
				x++
			}
			h.Set(i, j, x)
		}
	}
	g := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			g.Set(i, j, e[i]*gram(i, j)*e[j])
		}
	}
	var hg, hgh mat.Dense
	hg.Mul(h, g)
	hgh.Mul(&hg, h)
	g11 := hgh.At(0, 0)
	g1 := mat.NewVecDense(n-1, nil)
	gt := mat.NewSymDense(n-1, nil)
	for i := 1; i < n; i++ {
		g1.SetVec(i-1, (hgh.At(i, 0)+hgh.At(0, i))/2)
		for j := i; j < n; j++ {
			gt.SetSym(i-1, j-1, (hgh.At(i, j)+hgh.At(j, i))/2)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(gt) {
		return
	}
	var x mat.VecDense
	if err := ch.SolveVecTo(&x, g1); err != nil {
		return
	}
	c0 := g11 - mat.Dot(g1, &x)
	m := mat.NewSymDense(n-1, nil)
	for _, s := range []float64{0, 0.5, 0.9, 0.99, 1} {
		c := math.Max(s*c0*(1-1e-9)-1e-9*g11, 0)
		for i := 0; i < n-1; i++ {
			for j := i; j < n-1; j++ {
				m.SetSym(i, j, gt.At(i, j)-g1.AtVec(i)*g1.AtVec(j)/(g11-c))
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(m, false) {
			continue
		}
		ev := eig.Values(nil)
		margin := 1e-9 * ev[len(ev)-1]
		kappa := 0.0
		for _, x := range ev {
			kappa += math.Sqrt(math.Max(x-margin, 0))
		}
		b.lbA = append(b.lbA, kappa*kappa)
		b.lbC = append(b.lbC, c)
	}
}

// floats returns Σ x_i².
func floats(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return s
}

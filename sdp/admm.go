package sdp

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/backend"
	"gonum.org/v1/gonum/mat"
)

// projectPSD replaces the symmetric matrix z by its projection onto the
// positive semidefinite cone (negative eigenvalues set to zero) and
// returns the eigenvalues and eigenvectors of the input.
func projectPSD(z *mat.SymDense) ([]float64, *mat.Dense, error) {
	vals, vecs, err := backend.EigenSym(z)
	if err != nil {
		return nil, nil, fmt.Errorf("sdp: PSD projection: %w", err)
	}
	n := len(vals)
	scaled := mat.NewDense(n, n, nil)
	for j, v := range vals {
		if v <= 0 {
			continue
		}
		s := math.Sqrt(v)
		for i := 0; i < n; i++ {
			scaled.Set(i, j, vecs.At(i, j)*s)
		}
	}
	z.SymOuterK(1, scaled)
	return vals, vecs, nil
}

// sqrtPSD returns the symmetric square root of a positive semidefinite
// matrix (negative rounding eigenvalues clipped).
func sqrtPSD(g *mat.SymDense) (*mat.SymDense, error) {
	vals, vecs, err := backend.EigenSym(g)
	if err != nil {
		return nil, fmt.Errorf("sdp: square root: %w", err)
	}
	n := len(vals)
	scaled := mat.NewDense(n, n, nil)
	for j, v := range vals {
		if v <= 0 {
			continue
		}
		s := math.Sqrt(math.Sqrt(v))
		for i := 0; i < n; i++ {
			scaled.Set(i, j, vecs.At(i, j)*s)
		}
	}
	r := mat.NewSymDense(n, nil)
	r.SymOuterK(1, scaled)
	return r, nil
}

// ADMMOptions configures SolveL2ADMM and ConvexIteration. The zero value
// is usable.
type ADMMOptions struct {
	// MaxIter bounds the ADMM iterations (per convex-iteration round);
	// 0 means 20000.
	MaxIter int
	// Tol is the relative primal and dual residual at which ADMM stops;
	// 0 means 1e-7.
	Tol float64
	// Rho is the initial penalty; 0 means 1. It is adapted by residual
	// balancing.
	Rho float64
	// P is the number of strategy rows in ConvexIteration; 0 means n.
	P int
	// Rounds bounds the convex-iteration rounds; 0 means 30.
	Rounds int
	// Progress, if non-nil, is called every 100 ADMM iterations and after
	// every convex-iteration round.
	Progress func(Progress)
}

func (o ADMMOptions) withDefaults(n int) (ADMMOptions, error) {
	if o.MaxIter < 0 || o.Tol < 0 || o.Rho < 0 || o.P < 0 || o.Rounds < 0 || math.IsNaN(o.Tol) || math.IsNaN(o.Rho) {
		return o, fmt.Errorf("%w: negative or NaN ADMM options %+v", ErrBadInput, o)
	}
	if o.MaxIter == 0 {
		o.MaxIter = 20000
	}
	if o.Tol == 0 {
		o.Tol = 1e-7
	}
	if o.Rho == 0 {
		o.Rho = 1
	}
	if o.P == 0 {
		o.P = n
	}
	if o.Rounds == 0 {
		o.Rounds = 30
	}
	return o, nil
}

// admmL1 holds the state of the two-block ADMM used by SolveL2ADMM (A
// absent, p = 0) and ConvexIteration. The SDP, in the scaled variables
// V = G^{1/2}/s, is
//
//	minimise   tr(U) + w <Z2, Dir>
//	subject to Z1 = [[U, V], [V^T, Y]] >= 0,
//	           Z2 = [[I_p, A], [A^T, Y]] >= 0,   (only when p > 0)
//	           diag(Y) <= 1,  ||A e_j||_1 <= 1.
//
// Z1 >= 0 makes tr(U) >= tr(V Y^{-1} V); Z2 >= 0 with rank p makes
// Y = A^T A. ADMM keeps PSD copies W1, W2 of Z1, Z2 with scaled duals L1,
// L2; the x-step (U, Y, A) is closed form plus projections onto the
// constraint boxes and L1 balls, the W-step two eigendecompositions.
type admmL1 struct {
	n, p       int
	v          *mat.SymDense
	w1, w2     *mat.SymDense // PSD copies
	l1, l2     *mat.SymDense // scaled duals
	z1, z2     *mat.SymDense // structured matrices
	dir        *mat.SymDense // direction matrix (p+n), nil = 0
	weight     float64
	rho        float64
	u, y, a    *mat.Dense
	vals2      []float64
	vecs2      *mat.Dense
	iterations int
}

func newADMM(v *mat.SymDense, p int, rho float64) *admmL1 {
	n := v.SymmetricDim()
	s := &admmL1{n: n, p: p, v: v, rho: rho,
		w1: mat.NewSymDense(2*n, nil), l1: mat.NewSymDense(2*n, nil), z1: mat.NewSymDense(2*n, nil),
		u: mat.NewDense(n, n, nil), y: mat.NewDense(n, n, nil)}
	if p > 0 {
		s.w2 = mat.NewSymDense(p+n, nil)
		s.l2 = mat.NewSymDense(p+n, nil)
		s.z2 = mat.NewSymDense(p+n, nil)
		s.a = mat.NewDense(p, n, nil)
	}
	return s
}

// step runs one ADMM iteration and returns the primal and dual residual
// norms and the norm of the PSD copies.
func (s *admmL1) step() (float64, float64, float64, error) {
	n, p, rho, w := s.n, s.p, s.rho, s.weight
	// x-step.
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			u := s.w1.At(i, j) - s.l1.At(i, j)
			if i == j {
				u -= 1 / rho
			}
			s.u.Set(i, j, u)
			y := s.w1.At(n+i, n+j) - s.l1.At(n+i, n+j)
			if p > 0 {
				y = (y + s.w2.At(p+i, p+j) - s.l2.At(p+i, p+j)) / 2
				if s.dir != nil {
					y -= w * s.dir.At(p+i, p+j) / (2 * rho)
				}
			}
			if i == j && y > 1 {
				y = 1
			}
			s.y.Set(i, j, y)
		}
	}
	if p > 0 {
		for j := 0; j < n; j++ {
			col := make([]float64, p)
			for i := 0; i < p; i++ {
				a := s.w2.At(i, p+j) - s.l2.At(i, p+j)
				if s.dir != nil {
					a -= w * s.dir.At(i, p+j) / rho
				}
				col[i] = a
			}
			projectL1Ball(col)
			for i := 0; i < p; i++ {
				s.a.Set(i, j, col[i])
			}
		}
	}
	// Structured matrices and W-step.
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.z1.SetSym(i, j, s.u.At(i, j))
			s.z1.SetSym(n+i, n+j, s.y.At(i, j))
		}
		for j := 0; j < n; j++ {
			s.z1.SetSym(i, n+j, s.v.At(i, j))
		}
	}
	r, d, nw := 0.0, 0.0, 0.0
	var err error
	r1, d1, n1, err := s.wstep(s.z1, s.w1, s.l1, nil)
	if err != nil {
		return 0, 0, 0, err
	}
	r, d, nw = r1, d1, n1
	if p > 0 {
		for i := 0; i < p; i++ {
			for j := i; j < p; j++ {
				v := 0.0
				if i == j {
					v = 1
				}
				s.z2.SetSym(i, j, v)
			}
			for j := 0; j < n; j++ {
				s.z2.SetSym(i, p+j, s.a.At(i, j))
			}
		}
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				s.z2.SetSym(p+i, p+j, s.y.At(i, j))
			}
		}
		r2, d2, n2, err := s.wstep(s.z2, s.w2, s.l2, &s.vals2)
		if err != nil {
			return 0, 0, 0, err
		}
		r, d, nw = math.Hypot(r, r2), math.Hypot(d, d2), math.Hypot(nw, n2)
	}
	s.iterations++
	return r, d, nw, nil
}

// wstep sets w = Π_PSD(z + l), l += z - w, and returns ||z - w||,
// rho ||w - w_old||, ||w||.
func (s *admmL1) wstep(z, w, l *mat.SymDense, vals *[]float64) (float64, float64, float64, error) {
	m := z.SymmetricDim()
	old := mat.NewSymDense(m, nil)
	old.CopySym(w)
	w.AddSym(z, l)
	ev, vecs, err := projectPSD(w)
	if err != nil {
		return 0, 0, 0, err
	}
	if vals != nil {
		*vals = ev
		s.vecs2 = vecs
	}
	r, d, nw := 0.0, 0.0, 0.0
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			zw := z.At(i, j) - w.At(i, j)
			r += zw * zw
			dw := w.At(i, j) - old.At(i, j)
			d += dw * dw
			nw += w.At(i, j) * w.At(i, j)
			if j >= i {
				l.SetSym(i, j, l.At(i, j)+zw)
			}
		}
	}
	return math.Sqrt(r), s.rho * math.Sqrt(d), math.Sqrt(nw), nil
}

// run iterates until the relative residuals are below tol.
func (s *admmL1) run(ctx context.Context, o ADMMOptions, stage string) error {
	for k := 0; k < o.MaxIter; k++ {
		if k%50 == 0 {
			if err := ctxErr(ctx, stage); err != nil {
				return err
			}
		}
		r, d, nw, err := s.step()
		if err != nil {
			return err
		}
		if o.Progress != nil && s.iterations%100 == 0 {
			o.Progress(Progress{Stage: "admm", Iteration: s.iterations, Objective: s.objective(), Certificate: math.NaN()})
		}
		scale := 1 + nw
		if r <= o.Tol*scale && d <= o.Tol*scale {
			return nil
		}
		// Residual balancing.
		if r > 10*d {
			s.rho *= 2
			s.l1.ScaleSym(0.5, s.l1)
			if s.p > 0 {
				s.l2.ScaleSym(0.5, s.l2)
			}
		} else if d > 10*r {
			s.rho /= 2
			s.l1.ScaleSym(2, s.l1)
			if s.p > 0 {
				s.l2.ScaleSym(2, s.l2)
			}
		}
	}
	return nil
}

// objective returns tr(U) of the current iterate.
func (s *admmL1) objective() float64 {
	t := 0.0
	for i := 0; i < s.n; i++ {
		t += s.w1.At(i, i)
	}
	return t
}

// projectL1Ball projects x onto {||x||_1 <= 1} in place (Duchi et al.).
func projectL1Ball(x []float64) {
	s := 0.0
	for _, v := range x {
		s += math.Abs(v)
	}
	if s <= 1 {
		return
	}
	u := make([]float64, len(x))
	for i, v := range x {
		u[i] = math.Abs(v)
	}
	// Sort descending (insertion sort: columns are short).
	for i := 1; i < len(u); i++ {
		for j := i; j > 0 && u[j] > u[j-1]; j-- {
			u[j], u[j-1] = u[j-1], u[j]
		}
	}
	cum, theta := 0.0, 0.0
	for i, v := range u {
		cum += v
		if t := (cum - 1) / float64(i+1); v > t {
			theta = t
		}
	}
	for i, v := range x {
		a := math.Max(math.Abs(v)-theta, 0)
		x[i] = math.Copysign(a, v)
	}
}

// gramScale returns V = G^{1/2}/s with s^2 = tr(G)/n, so that the ADMM
// iterates are of order one, and s^2.
func gramScale(g *mat.SymDense) (*mat.SymDense, float64, error) {
	n := g.SymmetricDim()
	tr := 0.0
	for i := 0; i < n; i++ {
		tr += g.At(i, i)
	}
	s2 := tr / float64(n)
	v, err := sqrtPSD(g)
	if err != nil {
		return nil, 0, err
	}
	v.ScaleSym(1/math.Sqrt(s2), v)
	return v, s2, nil
}

// ADMMResult is the answer of SolveL2ADMM.
type ADMMResult struct {
	// X is the L2 solution, rescaled so that diag(X) <= 1 exactly.
	X *mat.SymDense
	// Objective is tr(G X^{-1}) evaluated exactly at X.
	Objective float64
	// Iterations counts ADMM iterations.
	Iterations int
}

// SolveL2ADMM solves the L2 problem min tr(G X^{-1}), diag(X) <= 1, as the
// generic SDP min tr(U) s.t. [[U, G^{1/2}], [G^{1/2}, X]] >= 0,
// diag(X) <= 1 by ADMM with PSD projections. It is a slow, independent
// check of OptimizeL2 for small n (and the relaxation ConvexIteration
// starts from); its answer is feasible (diag(X) <= 1) and its objective
// an upper bound on the optimum.
func SolveL2ADMM(ctx context.Context, g *mat.SymDense, opt ADMMOptions) (*ADMMResult, error) {
	n, err := checkGram(g)
	if err != nil {
		return nil, err
	}
	o, err := opt.withDefaults(n)
	if err != nil {
		return nil, err
	}
	v, _, err := gramScale(g)
	if err != nil {
		return nil, err
	}
	s := newADMM(v, 0, o.Rho)
	if err := s.run(ctx, o, "L2 ADMM"); err != nil {
		return nil, err
	}
	x := feasibleY(s.w1, n, n)
	// For singular G the optimum may be singular: mix in delta*I (keeps
	// diag(X) <= 1) until X is well enough conditioned (cond <= 1e8) for
	// tr(G X^{-1}) to be evaluated accurately.
	var f float64
	var err2 error
	for delta := 0.0; delta < 1; delta = math.Max(10*delta, 1e-10) {
		xd := mat.NewSymDense(n, nil)
		xd.ScaleSym(1-delta, x)
		for i := 0; i < n; i++ {
			xd.SetSym(i, i, xd.At(i, i)+delta)
		}
		var ch mat.Cholesky
		if !ch.Factorize(xd) || ch.Cond() > 1e8 {
			continue
		}
		if f, err2 = L2Objective(g, xd); err2 == nil {
			x = xd
			break
		}
	}
	if err2 != nil {
		return nil, fmt.Errorf("sdp: ADMM solution: %w", err2)
	}
	return &ADMMResult{X: x, Objective: f, Iterations: s.iterations}, nil
}

// feasibleY extracts the n x n block of w starting at (off, off) and
// rescales it to diag <= 1: X_ij / sqrt(max(1,X_ii) max(1,X_jj)).
func feasibleY(w *mat.SymDense, off, n int) *mat.SymDense {
	x := mat.NewSymDense(n, nil)
	sc := make([]float64, n)
	for i := 0; i < n; i++ {
		sc[i] = 1 / math.Sqrt(math.Max(1, w.At(off+i, off+i)))
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			x.SetSym(i, j, w.At(off+i, off+j)*sc[i]*sc[j])
		}
	}
	return x
}

// CIResult is the answer of ConvexIteration.
type CIResult struct {
	// A is the best strategy found (p x n, columns of L1 norm <= 1).
	A *mat.Dense
	// Objective is L1Error(G, A).
	Objective float64
	// Relaxation is the optimum of the convex relaxation without the rank
	// constraint, which is the L2 problem: a lower bound on every
	// strategy's L1 error.
	Relaxation float64
	// Objectives[k] is L1Error of the strategy after round k (+Inf when
	// it does not support the workload).
	Objectives []float64
	// RankGaps[k] = <Z2, Dir> / tr(Z2) after round k: the weight of Z2
	// outside its p largest eigenvalues (0 when rank(Z2) = p).
	RankGaps []float64
	// Iterations counts ADMM iterations over all rounds.
	Iterations int
}

// ConvexIteration solves the rank-constrained SDP for the L1 problem (Li
// et al., Program 5.1, in the form
//
//	minimise tr(U) s.t. [[U, G^{1/2}], [G^{1/2}, Y]] >= 0,
//	  Z2 = [[I_p, A], [A^T, Y]] >= 0, rank(Z2) = p,
//	  diag(Y) <= 1, ||A e_j||_1 <= 1,
//
// whose rank constraint makes Y = A^T A and the objective
// tr(G (A^T A)^{-1}) with D1(A) <= 1) by convex iteration (Dattorro): round
// 0 drops the rank constraint (the L2 relaxation, warm started at the
// identity strategy); round k > 0 adds w_k <Z2, Dir> to the objective,
// where Dir projects onto the eigenvectors of the n smallest eigenvalues of
// the previous Z2, w_1 = (relaxed optimum)/(10 n) in scaled units and
// w_{k+1} = 1.5 w_k, until the rank gap is below 1e-6 or opt.Rounds
// rounds have run. Each convex SDP is solved by ADMM (warm
// started). The best strategy over the rounds (by exact L1Error) is
// returned. Cost O((n+p)^3) per ADMM iteration: meant for n <= ~32, and
// n > 64 is refused.
//
// It is a local heuristic, as in the paper: on all ranges with n = 4, 8, 16
// it ends at 20, 120.5 and 837 against 20, 120 and 816 for the identity
// strategy, so production callers should use OptimizeL1 with baselines.
func ConvexIteration(ctx context.Context, g *mat.SymDense, opt ADMMOptions) (*CIResult, error) {
	n, err := checkGram(g)
	if err != nil {
		return nil, err
	}
	o, err := opt.withDefaults(n)
	if err != nil {
		return nil, err
	}
	if n > 64 || o.P > 256 {
		return nil, fmt.Errorf("%w: convex iteration is for small problems (n = %d, p = %d; limits 64 and 256)", ErrBadInput, n, o.P)
	}
	v, s2, err := gramScale(g)
	if err != nil {
		return nil, err
	}
	p := o.P
	s := newADMM(v, p, o.Rho)
	// Warm start at the identity strategy (A = [I; 0], Y = I): starting
	// from A = 0 the block-diagonal Z2 would give a direction matrix with
	// a zero off-diagonal block, and A would never move.
	for i := 0; i < n; i++ {
		s.w1.SetSym(i, i, 1)
		s.w1.SetSym(n+i, n+i, 1)
		s.w2.SetSym(p+i, p+i, 1)
	}
	for i := 0; i < p; i++ {
		s.w2.SetSym(i, i, 1)
		if i < n {
			s.w2.SetSym(i, p+i, 1)
		}
	}
	res := &CIResult{Objective: math.Inf(1)}
	for round := 0; round <= o.Rounds; round++ {
		if err := s.run(ctx, o, "convex iteration"); err != nil {
			return nil, err
		}
		if round == 0 {
			res.Relaxation = s.objective() * s2
			s.weight = s.objective() / float64(10*n)
		}
		a := mat.DenseCopyOf(s.a)
		f, err := L1Error(g, a)
		if err != nil {
			return nil, err
		}
		// Rank gap and new direction from W2's eigenvectors (ascending).
		gap, tr := 0.0, 0.0
		for k, ev := range s.vals2 {
			if ev > 0 {
				tr += ev
				if k < n {
					gap += ev
				}
			}
		}
		res.Objectives = append(res.Objectives, f)
		res.RankGaps = append(res.RankGaps, gap/tr)
		if f < res.Objective {
			res.Objective, res.A = f, a
		}
		if o.Progress != nil {
			o.Progress(Progress{Stage: "convex-iteration", Iteration: round + 1, Objective: f, Certificate: res.Relaxation})
		}
		if round > 0 && gap <= 1e-6*tr {
			break
		}
		m := p + n
		dir := mat.NewSymDense(m, nil)
		low := mat.NewDense(m, n, nil)
		low.Copy(s.vecs2.Slice(0, m, 0, n))
		dir.SymOuterK(1, low)
		s.dir = dir
		if round > 0 {
			s.weight *= 1.5
		}
	}
	res.Iterations = s.iterations
	if res.A == nil {
		return nil, fmt.Errorf("sdp: convex iteration found no strategy supporting the workload: %w", backend.ErrNotConverged)
	}
	return res, nil
}

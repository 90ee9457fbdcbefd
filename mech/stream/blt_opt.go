package stream

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/run"
)

// StageBLT is the Progress stage of OptimizeBLT.
const StageBLT run.Stage = "stream blt"

// BLTOptions configures OptimizeBLT; nil means the defaults.
type BLTOptions struct {
	// Settings: Budget (checked against BLTBytes(n)) and Progress (Stage
	// "stream blt", once per L-BFGS iteration, Value = the loss).
	run.Settings
	// Loss is the loss minimised (TotalSquared by default).
	Loss Loss
	// MaxIter bounds the L-BFGS iterations of each start; 0 means 1000.
	MaxIter int
	// Starts is the number of starting points (decays spread over
	// different ranges); 0 means 4. The best local optimum is returned.
	Starts int
}

// BLTResult is the answer of OptimizeBLT.
type BLTResult struct {
	// BLT is the optimised strategy, scaled to sensitivity 1 under the
	// schema; C its N Toeplitz coefficients.
	BLT *BLT
	C   *Toeplitz
	// Sens is its exact sensitivity (BLTSensitivity), Errors its errors
	// with B = A C⁻¹ (BLTErrors).
	Sens   *Sensitivity
	Errors Errors
	// Iterations counts L-BFGS iterations over all starts.
	Iterations int
}

// BLTBytes estimates the memory of OptimizeBLT on n steps: eight float64
// vectors of length n.
func BLTBytes(n int) float64 { return 8 * 8 * float64(n) }

// BLTSensitivity returns the exact sensitivity of b under schema s: the
// closed form MonotoneSensitivity when b.Monotone() (its parameters make
// the coefficients non-negative and non-increasing), else
// ToeplitzSensitivity on the expanded coefficients.
func BLTSensitivity(ctx context.Context, b *BLT, s Schema) (*Sensitivity, error) {
	if err := b.Check(); err != nil {
		return nil, err
	}
	if err := s.Check(b.N); err != nil {
		return nil, err
	}
	if b.Monotone() {
		return MonotoneSensitivity(b.Coef(), b.N, s), nil
	}
	return ToeplitzSensitivity(ctx, b.Toeplitz(), s)
}

// bltSeries writes D = Q/P (the coefficients of C⁻¹·Scale) and e =
// cumsum(D)/Scale into d and e, by the order-d recurrence P·D = Q; it
// returns false when they overflow.
func bltSeries(p, q []float64, scale float64, d, e []float64) bool {
	acc := 0.0
	for t := range d {
		v := 0.0
		if t < len(q) {
			v = q[t]
		}
		for s := 1; s < len(p) && s <= t; s++ {
			v -= p[s] * d[t-s]
		}
		d[t] = v
		acc += v
		e[t] = acc / scale
	}
	return !math.IsInf(acc, 0) && !math.IsNaN(acc)
}

// BLTErrors returns the errors of b with B = A C⁻¹ under the squared
// sensitivity sens2 in O(N·d): e = coefficients of 1/((1-x)C(x)),
// ‖B‖²_F = Σ_t (N-t) e_t², max variance Σ_t e_t² (ToeplitzErrors without
// the O(N²) division by N coefficients).
func BLTErrors(b *BLT, sens2 float64) Errors {
	p, q := b.Recurrence()
	d := make([]float64, b.N)
	e := make([]float64, b.N)
	bltSeries(p, q, b.Scale, d, e)
	tot, mx := 0.0, 0.0
	for t, v := range e {
		tot += float64(b.N-t) * v * v
		mx += v * v
	}
	return newErrors(b.N, sens2, tot, mx)
}

// OptimizeBLT finds a BLT strategy with the given number of buffers for
// the prefix sums of n steps under schema s, minimising
//
//	f = sens²(C)·Σ_t w_t e_t²,  e = coefficients of 1/((1-x)C(x)),
//
// w_t = n - t (TotalSquared) or 1 (MaxVariance), over the parameters with
// α_i >= 0, λ_i ∈ (0, 1), Σ α_i < 1 (λ_i = sigmoid(u_i), α_i =
// e^{v_i}/(1 + Σ_j e^{v_j})), where the coefficients are non-negative and
// non-increasing and sens² is the closed form of MonotoneSensitivity:
// ‖Σ_{j∈π₀} C e_j‖². One evaluation of f and its gradient costs O(n·d):
// the loss by the recurrence P·D = Q and an adjoint recurrence ψ = P⁻ᵀ W
// (W_t = Σ_{u>=t} w_u e_u), after which each parameter's derivative is
// O(d); the sensitivity's gradient by ∂sens²/∂c_t = 2 Σ_{j∈π₀} v_{t+j}.
// L-BFGS on log f from opt.Starts starting points; f is not convex, so
// the result is a local optimum without certificate. The reported
// sensitivity and errors are recomputed (BLTSensitivity, BLTErrors).
func OptimizeBLT(ctx context.Context, n, buffers int, s Schema, opt *BLTOptions) (*BLTResult, error) {
	if err := s.Check(n); err != nil {
		return nil, err
	}
	if opt == nil {
		opt = &BLTOptions{}
	}
	if buffers < 1 || buffers > 32 || opt.MaxIter < 0 || opt.Starts < 0 {
		return nil, fmt.Errorf("stream: %w: buffers = %d (want 1..32), max_iter = %d, starts = %d", run.ErrBadInput, buffers, opt.MaxIter, opt.Starts)
	}
	if err := opt.Budget.Check(fmt.Sprintf("stream: BLT optimisation on n = %d", n), BLTBytes(n), ""); err != nil {
		return nil, err
	}
	maxIter, starts := opt.MaxIter, opt.Starts
	if maxIter == 0 {
		maxIter = 1000
	}
	if starts == 0 {
		starts = 4
	}
	ev := newBLTEval(n, buffers, s, opt.Loss)
	var best []float64
	bestF, total := math.Inf(1), 0
	for r := 0; r < starts; r++ {
		x := bltStart(n, buffers, r)
		stall, last := 0, math.Inf(1)
		fx, iters, _, err := minimizeLBFGS(ctx, ev.eval, x, maxIter, func(it int, fx float64, _ []float64) bool {
			p := run.NewProgress(StageBLT)
			p.Iter, p.MaxIter, p.Value = total+it, starts*maxIter, math.Exp(fx)
			opt.Report(p)
			if last-fx > 1e-13*math.Max(1, math.Abs(fx)) {
				last, stall = fx, 0
			} else if stall++; stall >= 10 {
				return true
			}
			return false
		})
		total += iters
		if err != nil && ctx.Err() != nil {
			return nil, err
		}
		if err == nil && fx < bestF {
			bestF, best = fx, x
		}
	}
	if best == nil {
		return nil, fmt.Errorf("stream: BLT optimisation found no finite loss from %d starts: %w", starts, run.ErrNotConverged)
	}
	alpha, lambda := bltParams(best)
	b := &BLT{N: n, Scale: 1, Alpha: alpha, Lambda: lambda}
	sv, err := BLTSensitivity(ctx, b, s)
	if err != nil {
		return nil, err
	}
	b.Scale = 1 / math.Sqrt(sv.Sens2)
	if sv, err = BLTSensitivity(ctx, b, s); err != nil {
		return nil, err
	}
	return &BLTResult{BLT: b, C: b.Toeplitz(), Sens: sv, Errors: BLTErrors(b, sv.Sens2), Iterations: total}, nil
}

// bltStart is the r-th starting point: 1 - λ_i = n^{-γ(i+½)/d} with γ =
// 1, 0.6, 1.4, 0.3, ... and α_i = 1/(2d).
func bltStart(n, d, r int) []float64 {
	gammas := []float64{1, 0.6, 1.4, 0.3, 1.8, 0.8}
	g := gammas[r%len(gammas)] * (1 + 0.1*float64(r/len(gammas)))
	x := make([]float64, 2*d)
	ln := math.Log(float64(max(n, 2)))
	for i := 0; i < d; i++ {
		oneMinus := math.Exp(-g * (float64(i) + 0.5) / float64(d) * ln)
		lam := 1 - oneMinus
		x[i] = math.Log(lam / oneMinus) // sigmoid⁻¹
		// α_i = 1/(2d): e^{v}/(1 + d e^{v}) = 1/(2d) ⇔ e^v = 1/d.
		x[d+i] = -math.Log(float64(d))
	}
	return x
}

// bltParams maps the unconstrained x = (u, v) to (α, λ).
func bltParams(x []float64) (alpha, lambda []float64) {
	d := len(x) / 2
	alpha, lambda = make([]float64, d), make([]float64, d)
	den := 1.0
	mx := 0.0
	for i := 0; i < d; i++ {
		mx = math.Max(mx, x[d+i])
	}
	den = math.Exp(-mx)
	for i := 0; i < d; i++ {
		den += math.Exp(x[d+i] - mx)
	}
	for i := 0; i < d; i++ {
		lambda[i] = 1 / (1 + math.Exp(-x[i]))
		alpha[i] = math.Exp(x[d+i]-mx) / den
	}
	return alpha, lambda
}

// bltEval holds the workspaces of OptimizeBLT's objective.
type bltEval struct {
	n, d              int
	pi0               []int
	w                 []float64
	c, v, g, dd, e, W []float64
	psi               []float64
}

func newBLTEval(n, d int, s Schema, loss Loss) *bltEval {
	ev := &bltEval{n: n, d: d, pi0: earliestPattern(n, s)}
	ev.w = make([]float64, n)
	for t := range ev.w {
		ev.w[t] = 1
		if loss == TotalSquared {
			ev.w[t] = float64(n - t)
		}
	}
	for _, p := range []*[]float64{&ev.c, &ev.v, &ev.g, &ev.dd, &ev.e, &ev.W, &ev.psi} {
		*p = make([]float64, n)
	}
	return ev
}

// eval returns log f at x and writes its gradient into grad (+Inf where
// the loss overflows).
func (ev *bltEval) eval(x, grad []float64) float64 {
	n, d := ev.n, ev.d
	alpha, lambda := bltParams(x)
	b := &BLT{N: n, Scale: 1, Alpha: alpha, Lambda: lambda}
	p, q := b.Recurrence()
	if !bltSeries(p, q, 1, ev.dd, ev.e) {
		return math.Inf(1)
	}
	L := 0.0
	for t, et := range ev.e {
		L += ev.w[t] * et * et
	}
	if !(L > 0) || math.IsInf(L, 0) {
		return math.Inf(1)
	}
	// Sensitivity: c, v = Σ_{j∈π₀} C e_j, S = ‖v‖², g_t = ∂S/∂c_t.
	copy(ev.c, b.Coef())
	S := 0.0
	for l := 0; l < n; l++ {
		sum := 0.0
		for _, j := range ev.pi0 {
			if l >= j {
				sum += ev.c[l-j]
			}
		}
		ev.v[l] = sum
		S += sum * sum
	}
	for t := 0; t < n; t++ {
		sum := 0.0
		for _, j := range ev.pi0 {
			if t+j < n {
				sum += ev.v[t+j]
			}
		}
		ev.g[t] = 2 * sum
	}
	// Adjoint of the loss: W_t = Σ_{u>=t} w_u e_u, ψ = P⁻ᵀ W, and
	// M_s = Σ_t ψ_t D_{t-s}.
	acc := 0.0
	for t := n - 1; t >= 0; t-- {
		acc += ev.w[t] * ev.e[t]
		ev.W[t] = acc
	}
	for t := n - 1; t >= 0; t-- {
		vv := ev.W[t]
		for s := 1; s <= d && t+s < n; s++ {
			vv -= p[s] * ev.psi[t+s]
		}
		ev.psi[t] = vv
	}
	m := make([]float64, d+1)
	for s := 0; s <= d; s++ {
		sum := 0.0
		for t := s; t < n; t++ {
			sum += ev.psi[t] * ev.dd[t-s]
		}
		m[s] = sum
	}
	// dL/dθ = 2 (Σ_s ψ_s dQ_s - Σ_s dP_s M_s) for the polynomials' derivatives.
	dL := func(dq, dp []float64) float64 {
		r := 0.0
		for s := range dq {
			if s < n {
				r += ev.psi[s] * dq[s]
			}
			r -= dp[s] * m[s]
		}
		return 2 * r
	}
	fa := make([]float64, d)
	fl := make([]float64, d)
	dq := make([]float64, d+1)
	dp := make([]float64, d+1)
	for i := 0; i < d; i++ {
		qi := bltQ(lambda, i, -1)
		// ∂/∂α_i: dQ = 0, dP = x Q_{-i}.
		clear(dq)
		clear(dp)
		for s := 0; s < d; s++ {
			dp[s+1] = qi[s]
		}
		dLa := dL(dq, dp)
		// ∂/∂λ_i: dQ = -x Q_{-i}, dP = -x Q_{-i} - Σ_{m≠i} α_m x² Q_{-m-i}.
		clear(dp)
		for s := 0; s < d; s++ {
			dq[s+1] = -qi[s]
			dp[s+1] = -qi[s]
		}
		for mm := 0; mm < d; mm++ {
			if mm == i {
				continue
			}
			qmi := bltQ(lambda, mm, i)
			for s := 0; s+2 <= d; s++ {
				dp[s+2] -= alpha[mm] * qmi[s]
			}
		}
		dLl := dL(dq, dp)
		// Sensitivity: ∂c_t/∂α_i = λ^{t-1}, ∂c_t/∂λ_i = α_i (t-1) λ^{t-2}.
		dSa, dSl, pw, pw1 := 0.0, 0.0, 1.0, 0.0
		for t := 1; t < n; t++ {
			dSa += ev.g[t] * pw
			dSl += ev.g[t] * float64(t-1) * pw1
			pw1 = pw
			pw *= lambda[i]
		}
		dSl *= alpha[i]
		fa[i] = dSa/S + dLa/L
		fl[i] = dSl/S + dLl/L
	}
	sa := 0.0
	for i := 0; i < d; i++ {
		sa += alpha[i] * fa[i]
	}
	for i := 0; i < d; i++ {
		grad[i] = fl[i] * lambda[i] * (1 - lambda[i])
		grad[d+i] = alpha[i] * (fa[i] - sa)
	}
	return math.Log(S) + math.Log(L)
}

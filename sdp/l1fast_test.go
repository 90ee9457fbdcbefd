package sdp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// evalFast (explicit K⁻¹, products over Θ's nonzeros when Θ is sparse)
// returns the objective and gradient of eval (Cholesky solves, dense
// products), for dense and sparse Θ, on a semiseparable and on a dense
// Gram matrix; for sparse Θ the gradient also matches central finite
// differences (entries at zero included: F is smooth in Θ there).
func TestPIdentityEvalFast(t *testing.T) {
	n, p := 41, 6
	grams := []*mat.SymDense{allRangeGram(n), gramOf(randomW(50, n, 4))}
	for gi, g := range grams {
		for _, density := range []float64{1, 0.2, 0.05} {
			theta := randomTheta(p, n, 7, uint64(10*gi)+uint64(100*density))
			rng := rand.New(rand.NewPCG(3, uint64(100*density)))
			for k := range theta.RawMatrix().Data {
				if rng.Float64() > density {
					theta.RawMatrix().Data[k] = 0
				}
			}
			ref := newPIdentity(mat.DenseCopyOf(g), p)
			fast := newPIdentityOp(newGramOp(g, true), p)
			gr, gf := mat.NewDense(p, n, nil), mat.NewDense(p, n, nil)
			fr, ok1 := ref.eval(theta, gr)
			ff, ok2 := fast.evalFast(theta, gf)
			if !ok1 || !ok2 || math.Abs(fr-ff) > 1e-12*fr {
				t.Fatalf("gram %d density %v: F fast %v, reference %v", gi, density, ff, fr)
			}
			var diff mat.Dense
			diff.Sub(gr, gf)
			if d := mat.Norm(&diff, math.Inf(1)); d > 1e-10*mat.Norm(gr, math.Inf(1)) {
				t.Errorf("gram %d density %v: gradients differ by %v", gi, density, d)
			}
			if density > 0.2 {
				continue
			}
			h := 1e-6
			for i := 0; i < p; i++ {
				for j := 0; j < n; j += 4 {
					th := mat.DenseCopyOf(theta)
					th.Set(i, j, theta.At(i, j)+h)
					fp, _ := fast.evalFast(th, nil)
					th.Set(i, j, theta.At(i, j)-h)
					fm, _ := fast.evalFast(th, nil)
					fd := (fp - fm) / (2 * h)
					if math.Abs(fd-gf.At(i, j)) > 1e-5*(1+math.Abs(fd)) {
						t.Errorf("gram %d density %v: dF/dTheta[%d][%d] = %v, finite difference %v", gi, density, i, j, gf.At(i, j), fd)
					}
				}
			}
		}
	}
}

// With an ill-conditioned K = I + ΘΘᵀ (one row of Θ near 1e5, as when a
// factor tends to the total query) evalFast hands over to eval and agrees
// with it exactly; mech/linear's TestOptimizeCensus (the census tables
// below HDMM's 225,572.5) is the end-to-end check of that case.
func TestPIdentityEvalFastIllConditioned(t *testing.T) {
	n, p := 20, 3
	g := allRangeGram(n)
	theta := randomTheta(p, n, 2, 2)
	for j := 0; j < n; j++ {
		theta.Set(0, j, 1e5*theta.At(0, j))
	}
	ref := newPIdentity(mat.DenseCopyOf(g), p)
	fast := newPIdentityOp(newGramOp(g, true), p)
	gr, gf := mat.NewDense(p, n, nil), mat.NewDense(p, n, nil)
	fr, _ := ref.eval(theta, gr)
	ff, _ := fast.evalFast(theta, gf)
	if !(fast.ch.Cond() > evalFastMaxCond) {
		t.Fatalf("cond(K) = %v, want > %v for this test", fast.ch.Cond(), evalFastMaxCond)
	}
	if math.Abs(ff-fr) > 1e-12*math.Abs(fr) {
		t.Errorf("F fast %v, reference %v", ff, fr)
	}
	var diff mat.Dense
	diff.Sub(gr, gf)
	if d := mat.Norm(&diff, math.Inf(1)); d > 1e-10*mat.Norm(gr, math.Inf(1)) {
		t.Errorf("gradients differ by %v", d)
	}
}

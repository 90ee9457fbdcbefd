package sdp

import (
	"strings"

	"context"
	"errors"
	"math"
	"testing"

	"github.com/optdp/optdp/run"

	"gonum.org/v1/gonum/mat"
)

// For G = I the optimum is X = I with objective n: tr(X^{-1}) >= n^2/tr(X)
// >= n by Cauchy-Schwarz on the eigenvalues, with equality at X = I.
func TestL2IdentityGram(t *testing.T) {
	n := 7
	g := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		g.SetSym(i, i, 1)
	}
	r, err := OptimizeL2(context.Background(), g, &L2Options{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Objective-float64(n)) > 1e-12 || math.Abs(r.Dual-float64(n)) > 1e-9 {
		t.Errorf("objective %v dual %v, want %d", r.Objective, r.Dual, n)
	}
	if !mat.EqualApprox(r.X, identity(n), 1e-12) {
		t.Errorf("X = %v, want I", mat.Formatted(r.X))
	}
}

// For n = 2 the problem is one-dimensional: X = [[1, r], [r, 1]] and
// tr(G X^{-1}) = (a + c - 2 b r)/(1 - r²) for G = [[a, b], [b, c]], whose
// minimiser on (-1, 1) solves b r² - (a + c) r + b = 0:
// r* = ((a + c) - sqrt((a + c)² - 4 b²))/(2 b), a closed form independent of
// the Newton method.
func TestL2ClosedForm2x2(t *testing.T) {
	for _, c := range [][3]float64{{2, 1, 2}, {3, 2, 1}, {1, -0.5, 4}, {5, 0, 1}} {
		a, b, cc := c[0], c[1], c[2]
		g := mat.NewSymDense(2, []float64{a, b, b, cc})
		r, err := OptimizeL2(context.Background(), g, nil)
		if err != nil {
			t.Fatal(err)
		}
		rs := 0.0
		if b != 0 {
			rs = ((a + cc) - math.Sqrt((a+cc)*(a+cc)-4*b*b)) / (2 * b)
		}
		want := (a + cc - 2*b*rs) / (1 - rs*rs)
		if math.Abs(r.Objective-want) > 1e-10*want {
			t.Errorf("G = %v: objective %.15g, closed form %.15g", c, r.Objective, want)
		}
		if r.Dual > want*(1+1e-12) {
			t.Errorf("G = %v: dual %.15g above the optimum %.15g", c, r.Dual, want)
		}
	}
}

// A second, crude algorithm: coordinate search over the correlations of a
// 3×3 unit-diagonal X. Every point it visits is feasible, so its best value
// bounds the optimum from above; Newton's answer must not be above it and
// its dual must not be above Newton's answer.
func TestL2CoordinateSearch(t *testing.T) {
	for name, g := range map[string]*mat.SymDense{"allrange3": allRangeGram(3), "prefix3": prefixGram(3), "random4x3": gramOf(randomW(4, 3, 9))} {
		r, err := OptimizeL2(context.Background(), g, nil)
		if err != nil {
			t.Fatal(err)
		}
		x := []float64{0, 0, 0} // X01, X02, X12
		val := func(x []float64) float64 {
			xm := mat.NewSymDense(3, []float64{1, x[0], x[1], x[0], 1, x[2], x[1], x[2], 1})
			v, err := L2Objective(g, xm)
			if err != nil {
				return math.Inf(1)
			}
			return v
		}
		best := val(x)
		for h := 0.25; h > 1e-7; h /= 2 {
			for improved := true; improved; {
				improved = false
				for k := range x {
					for _, s := range []float64{h, -h} {
						x[k] += s
						if v := val(x); v < best {
							best, improved = v, true
						} else {
							x[k] -= s
						}
					}
				}
			}
		}
		if r.Objective > best*(1+r.RelGap+1e-12) {
			t.Errorf("%s: Newton %.15g above a feasible point's %.15g by more than its certified gap %.3g", name, r.Objective, best, r.RelGap)
		}
		if rel := (best - r.Objective) / r.Objective; rel > 1e-6 {
			t.Errorf("%s: coordinate search %.15g far from Newton %.15g", name, best, r.Objective)
		}
		if r.Dual > best*(1+1e-12) {
			t.Errorf("%s: dual %.15g above a feasible objective %.15g", name, r.Dual, best)
		}
	}
}

// KKT conditions at the returned X: diag(X) = 1, X^{-1} G X^{-1} = diag(y)
// with y >= 0 (stationarity of the Lagrangian), A^T A = X.
func TestL2KKT(t *testing.T) {
	for name, g := range map[string]*mat.SymDense{"allrange16": allRangeGram(16), "random12x10": gramOf(randomW(12, 10, 5))} {
		t.Run(name, func(t *testing.T) {
			r, err := OptimizeL2(context.Background(), g, &L2Options{})
			if err != nil {
				t.Fatal(err)
			}
			n := g.SymmetricDim()
			var ch mat.Cholesky
			if !ch.Factorize(r.X) {
				t.Fatal("X not positive definite")
			}
			var xi mat.SymDense
			if err := ch.InverseTo(&xi); err != nil {
				t.Fatal(err)
			}
			var s mat.Dense
			s.Mul(&xi, g)
			s.Mul(&s, &xi)
			scale := mat.Norm(&s, 2)
			for i := 0; i < n; i++ {
				if math.Abs(r.X.At(i, i)-1) > 1e-12 {
					t.Errorf("X[%d][%d] = %v, want 1", i, i, r.X.At(i, i))
				}
				if r.Y[i] < 0 || math.Abs(s.At(i, i)-r.Y[i]) > 1e-9*scale {
					t.Errorf("y[%d] = %v, S_ii = %v", i, r.Y[i], s.At(i, i))
				}
				for j := 0; j < n; j++ {
					if i != j && math.Abs(s.At(i, j)) > 1e-5*scale {
						t.Errorf("stationarity: S[%d][%d] = %v (scale %v)", i, j, s.At(i, j), scale)
					}
				}
			}
			var ata mat.Dense
			ata.Mul(r.A.T(), r.A)
			if !mat.EqualApprox(&ata, r.X, 1e-12) {
				t.Error("A^T A != X")
			}
			if r.RelGap > 1e-9 || r.Gap < 0 {
				t.Errorf("gap %v relative %v", r.Gap, r.RelGap)
			}
			// The strategy's L2 error (recomputed from A) is the objective.
			e, err := L2Error(g, r.A)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(e-r.Objective) > 1e-9*r.Objective {
				t.Errorf("L2Error(A) = %v, objective %v", e, r.Objective)
			}
		})
	}
}

// Weak duality: the dual bound at any y >= 0 is below the objective at any
// feasible X; the SVD bound is the dual at y = 1.
func TestL2DualIsLowerBound(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		n := 3 + int(seed%6)
		g := gramOf(randomW(n+int(seed%3)-1, n, seed))
		// Random feasible X: B^T B + 0.1 I scaled to unit diagonal.
		b := randomW(n, n, seed+100)
		x := mat.NewSymDense(n, nil)
		x.SymOuterK(1, b.T())
		for i := 0; i < n; i++ {
			x.SetSym(i, i, x.At(i, i)+0.1)
		}
		d := make([]float64, n)
		for i := range d {
			d[i] = 1 / math.Sqrt(x.At(i, i))
		}
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				x.SetSym(i, j, x.At(i, j)*d[i]*d[j])
			}
		}
		f, err := L2Objective(g, x)
		if err != nil {
			t.Fatal(err)
		}
		y := make([]float64, n)
		for i := range y {
			y[i] = math.Abs(randomW(1, 1, seed*31+uint64(i)).At(0, 0)) * 10
		}
		y[0] = 0 // a zero multiplier is allowed
		dual, err := L2Dual(g, y)
		if err != nil {
			t.Fatal(err)
		}
		if dual > f*(1+1e-12) {
			t.Errorf("seed %d: dual %v > primal %v", seed, dual, f)
		}
		ones := make([]float64, n)
		for i := range ones {
			ones[i] = 1
		}
		d1, _ := L2Dual(g, ones)
		svd, _ := SVDBound(g)
		if math.Abs(d1-svd) > 1e-12*svd {
			t.Errorf("dual at 1 = %v, SVD bound %v", d1, svd)
		}
		r, err := OptimizeL2(context.Background(), g, &L2Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Dual > f*(1+1e-12) || r.Objective > f*(1+1e-9) || svd > r.Dual*(1+1e-12) {
			t.Errorf("seed %d: svd %v <= dual %v <= optimum %v <= feasible %v violated", seed, svd, r.Dual, r.Objective, f)
		}
	}
}

// Rank-deficient workload (all 1-way marginals of 3 binary attributes,
// rank 4 in dimension 8): the method converges with a valid certificate,
// and the identity (a feasible point) is no better.
func TestL2SingularGram(t *testing.T) {
	g := denseGram(marginalTerms(3, 1))
	r, err := OptimizeL2(context.Background(), g, &L2Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Gap < 0 || r.RelGap > 1e-6 {
		t.Errorf("gap %v relative %v", r.Gap, r.RelGap)
	}
	// tr(G I^{-1}) = tr(G) = 3 marginals · 8 cells.
	if r.Objective > 24 || r.Dual > 24 {
		t.Errorf("objective %v, dual %v: above the identity's 24", r.Objective, r.Dual)
	}
}

// All ranges on n = 256 reach tr(G X^{-1}) about
// 276,929 to 1e-4 relative with a certificate. The SVD bound, RMSE 2.876
// over the 32,896 queries, is 2.876^2 * 32896 = 272,1xx.
func TestL2AllRange256(t *testing.T) {
	if testing.Short() {
		t.Skip("n = 256 takes about a second")
	}
	r, err := OptimizeL2(context.Background(), allRangeGram(256), &L2Options{RelGap: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Objective-276929)/276929 > 1e-4 || r.RelGap > 1e-6 {
		t.Errorf("objective %v relative gap %v, want 276929 certified", r.Objective, r.RelGap)
	}
	if rmse := math.Sqrt(r.SVDBound / 32896); math.Abs(rmse-2.876) > 5e-4 {
		t.Errorf("SVD bound RMSE %v, want 2.876", rmse)
	}
}

func TestL2BadInput(t *testing.T) {
	ctx := context.Background()
	bad := []*mat.SymDense{nil, mat.NewSymDense(2, []float64{-1, 0, 0, 1}), mat.NewSymDense(2, []float64{math.NaN(), 0, 0, 1}), mat.NewSymDense(2, nil)}
	for i, g := range bad {
		if _, err := OptimizeL2(ctx, g, &L2Options{}); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("case %d: err %v, want run.ErrBadInput", i, err)
		}
	}
	if _, err := OptimizeL2(ctx, allRangeGram(3), &L2Options{RelGap: -1}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("negative RelGap: err %v", err)
	}
	if _, err := L2Dual(allRangeGram(3), []float64{1, -1, 1}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("negative multiplier: err %v", err)
	}
	if _, err := L2Dual(allRangeGram(3), []float64{1, 1}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("short multipliers: err %v", err)
	}
}

func TestL2Cancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := OptimizeL2(ctx, allRangeGram(64), &L2Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("OptimizeL2: err %v, want context.Canceled", err)
	}
}

// The memory budget is checked before the Newton workspaces are
// allocated: the dense path at n = 64 needs 14·64²·8 bytes = 448 KiB, the
// structured path (all ranges) 4·64²·8 + 64·8·400 bytes = 328 KiB, both
// over a 100 KiB budget.
func TestL2Budget(t *testing.T) {
	opt := &L2Options{}
	opt.Budget = 100 << 10
	_, err := OptimizeL2(context.Background(), gramOf(randomW(70, 64, 3)), opt)
	if !errors.Is(err, run.ErrTooLarge) || !strings.Contains(err.Error(), "448.0 KiB") {
		t.Fatalf("err %v, want run.ErrTooLarge with the 448.0 KiB estimate", err)
	}
	_, err = OptimizeL2(context.Background(), allRangeGram(64), opt)
	if !errors.Is(err, run.ErrTooLarge) || !strings.Contains(err.Error(), "328.0 KiB") {
		t.Fatalf("err %v, want run.ErrTooLarge with the 328.0 KiB estimate", err)
	}
	var stages []run.Progress
	opt = &L2Options{}
	opt.Progress = func(p run.Progress) { stages = append(stages, p) }
	r, err := OptimizeL2(context.Background(), allRangeGram(8), opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(stages) == 0 || stages[0].Stage != "l2 newton" || !(stages[len(stages)-1].Gap <= 1e-9) || math.Abs(stages[len(stages)-1].Value-r.Objective) > 1e-12*r.Objective {
		t.Errorf("progress %+v, result %v", stages, r.Objective)
	}
}

// Kronecker workload (ranges 4 x prefix 3): the factor-wise answer equals
// the dense solve of the 12 x 12 problem, and the product dual is a valid
// bound for it.
func TestOptimizeL2Kron(t *testing.T) {
	g1, g2 := allRangeGram(4), prefixGram(3)
	r, err := OptimizeL2Kron(context.Background(), []*mat.SymDense{g1, g2}, &L2Options{})
	if err != nil {
		t.Fatal(err)
	}
	gk := kronDense(g1, g2)
	gs := mat.NewSymDense(12, nil)
	for i := 0; i < 12; i++ {
		for j := i; j < 12; j++ {
			gs.SetSym(i, j, gk.At(i, j))
		}
	}
	dense, err := OptimizeL2(context.Background(), gs, &L2Options{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(dense.Objective-r.Objective) > 1e-8*r.Objective || r.Dual > dense.Objective*(1+1e-12) || r.RelGap > 1e-8 {
		t.Errorf("Kronecker %v (dual %v), dense %v", r.Objective, r.Dual, dense.Objective)
	}
}

// OptimizeL2KronSum on G = prefix(3)⊗allrange(4) + 2·I⊗J (12 cells): its
// Kronecker strategy is feasible (objective >= the dense optimum's dual
// bound, from sdp.OptimizeL2 on the 12×12 G), its certificate is a valid
// lower bound (<= the dense optimum), and it beats the identity's tr(G).
func TestOptimizeL2KronSum(t *testing.T) {
	j4 := mat.NewSymDense(4, nil)
	for i := 0; i < 4; i++ {
		for k := i; k < 4; k++ {
			j4.SetSym(i, k, 1)
		}
	}
	id3 := mat.NewSymDense(3, nil)
	for i := 0; i < 3; i++ {
		id3.SetSym(i, i, 1)
	}
	terms := []KronTerm{{Weight: 1, Factors: []*mat.SymDense{prefixGram(3), allRangeGram(4)}}, {Weight: 2, Factors: []*mat.SymDense{id3, j4}}}
	r, err := OptimizeL2KronSum(context.Background(), terms, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := mat.NewSymDense(12, nil)
	for _, term := range terms {
		k := kronDense(term.Factors[0], term.Factors[1])
		for i := 0; i < 12; i++ {
			for j := i; j < 12; j++ {
				g.SetSym(i, j, g.At(i, j)+term.Weight*k.At(i, j))
			}
		}
	}
	dense, err := OptimizeL2(context.Background(), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Objective < dense.Dual*(1-1e-12) || r.Dual > dense.Objective*(1+1e-12) {
		t.Errorf("Kronecker sum: objective %v, dual %v; dense optimum in [%v, %v]", r.Objective, r.Dual, dense.Dual, dense.Objective)
	}
	tr := 0.0
	for i := 0; i < 12; i++ {
		tr += g.At(i, i)
	}
	if !(r.Objective < tr) {
		t.Errorf("objective %v not below the identity's %v", r.Objective, tr)
	}
	// The strategy's A^T A reproduces the objective: Σ_t w_t Π_f tr(G_tf (A_f^T A_f)^{-1}).
	v := 0.0
	for _, term := range terms {
		p := term.Weight
		for f, gf := range term.Factors {
			e, err := L2Error(gf, r.Factors[f].A)
			if err != nil {
				t.Fatal(err)
			}
			p *= e
		}
		v += p
	}
	if math.Abs(v-r.Objective) > 1e-9*r.Objective {
		t.Errorf("recomputed %v, reported %v", v, r.Objective)
	}
}

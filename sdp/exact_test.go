package sdp

import (
	"context"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/internal/mmref"
	"gonum.org/v1/gonum/mat"
)

// exactL1 returns D1(A)² tr(G (AᵀA)⁻¹) in 256-bit arithmetic
// (mmref.TraceInvGram), D1 summed here.
func exactL1(t *testing.T, g mat.Symmetric, a *mat.Dense) float64 {
	t.Helper()
	v, ok := mmref.TraceInvGram(g, a)
	if !ok {
		t.Fatal("256-bit reference: singular AᵀA")
	}
	d1 := mmref.MaxColL1(a)
	return d1 * d1 * v
}

// TestL1ErrorIllConditioned: L1Error and KronError equal the 256-bit value
// to 1e-9 on strategies whose AᵀA is far too ill-conditioned for its
// Cholesky factor: random factors with singular values down to 1e-7, and
// p-Identity strategies [I; Θ]D⁻¹ whose one extra row has entries near 1e5
// (a strategy tending to the total, the census failure; the laminar path,
// which lost every digit of 1ᵀ(AᵀA)⁻¹1 here, must refuse them), on random
// Gram matrices and on 11ᵀ. (At entries near 1e7 the columns of A are
// parallel to 1e-7 and any float64 factorisation of A is off by about
// u·cond(A) = 1e-9: such a factor is replaced by the total, see
// TestOptimizeL1TotalOnly.)
func TestL1ErrorIllConditioned(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 41))
	for trial := 0; trial < 10; trial++ {
		n := 3 + rng.IntN(10)
		var a *mat.Dense
		if trial%2 == 0 {
			a = mmref.IllConditioned(rng, n+2, n, math.Pow(10, -5-2*rng.Float64()))
		} else {
			theta := mat.NewDense(1, n, nil)
			for j := 0; j < n; j++ {
				theta.Set(0, j, 1e5*(1+rng.Float64()))
			}
			a = pIdentityStrategy(theta)
		}
		for _, g := range []*mat.SymDense{gramOf(randomW(n+1, n, uint64(trial))), mat.NewSymDense(n, ones(n*n))} {
			want := exactL1(t, g, a)
			got, err := L1Error(g, a)
			if err != nil || math.Abs(got-want) > 1e-9*want {
				t.Errorf("trial %d (n = %d): L1Error %.15g (%v), 256-bit %.15g", trial, n, got, err, want)
			}
			kr, err := KronError([]KronTerm{{Weight: 1, Factors: []*mat.SymDense{g}}}, []*mat.Dense{a})
			if err != nil || math.Abs(kr-want) > 1e-9*want {
				t.Errorf("trial %d: KronError %.15g (%v), 256-bit %.15g", trial, kr, err, want)
			}
		}
	}
}

func ones(k int) []float64 {
	v := make([]float64, k)
	for i := range v {
		v[i] = 1
	}
	return v
}

// TestOptimizeL1TotalOnly: for G = c 11ᵀ OptimizeL1 returns the total 1ᵀ
// with objective c (the lower bound 1ᵀ(AᵀA)⁺1 >= 1 at D1 = 1 is attained),
// and the identity baseline costs tr(G) = c n.
func TestOptimizeL1TotalOnly(t *testing.T) {
	const n, c = 17, 3.0
	g := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			g.SetSym(i, j, c)
		}
	}
	r, err := OptimizeL1(context.Background(), g, &L1Options{Baselines: []*mat.Dense{identity(n)}})
	if err != nil {
		t.Fatal(err)
	}
	if p, m := r.A.Dims(); p != 1 || m != n || r.Objective != c || r.Baseline != -1 {
		t.Errorf("strategy %d×%d objective %v baseline %d, want the 1×%d total with objective %v", p, m, r.Objective, r.Baseline, n, c)
	}
	if math.Abs(r.BaselineObjectives[0]-c*n) > 1e-12*c*n {
		t.Errorf("identity baseline %v, want %v", r.BaselineObjectives[0], c*n)
	}
}

// TestOptimizeL1MarginalsPinsTotal: an attribute that every term totals
// gets the total 1ᵀ in OptimizeL1Marginals, and the reported objective
// equals the 256-bit value of the returned Kronecker strategy.
func TestOptimizeL1MarginalsPinsTotal(t *testing.T) {
	j := mat.NewSymDense(6, ones(36))
	g0 := allRangeGram(8)
	g1 := prefixGram(8)
	terms := []KronTerm{
		{Weight: 1, Factors: []*mat.SymDense{g0, j}},
		{Weight: 2, Factors: []*mat.SymDense{g1, j}},
	}
	r, err := OptimizeL1Marginals(context.Background(), terms, nil, &L1Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if p, n := r.Factors[1].Dims(); p != 1 || n != 6 {
		t.Fatalf("factor 1 is %d×%d, want the 1×6 total", p, n)
	}
	// D1 = 1 per factor and tr(J (11ᵀ)⁺) = 1: the error is that of
	// factor 0 on G0 + 2 G1.
	var g mat.SymDense
	g.AddSym(g0, scaledSym(2, g1))
	if want := exactL1(t, &g, r.Factors[0]); math.Abs(r.Objective-want) > 1e-9*want {
		t.Errorf("objective %.15g, 256-bit %.15g", r.Objective, want)
	}
}

// marginalsW returns the explicit workload of all k-way marginals on d
// binary attributes: for each set, the Kronecker product of I_2 (kept) and
// [1 1] (summed out).
func marginalsW(d, k int) *mat.Dense {
	var rows []*mat.Dense
	for mask := 0; mask < 1<<d; mask++ {
		if bits.OnesCount(uint(mask)) != k {
			continue
		}
		var m mat.Matrix = mat.NewDense(1, 1, []float64{1})
		for f := 0; f < d; f++ {
			if mask>>f&1 == 1 {
				m = kronDense(m, identity(2))
			} else {
				m = kronDense(m, mat.NewDense(1, 2, []float64{1, 1}))
			}
		}
		rows = append(rows, mat.DenseCopyOf(m))
	}
	return mmref.Stack(rows)
}

// hdmmMarginals is the TSE at eps = 1 of HDMM's OPT_M (best of 25
// restarts) on all 2-way marginals of 8 binary attributes; the identity
// has 2·28·4·64 = 14,336.
const hdmmMarginals = 13582.82

// TestMarginalWeightsBeatHDMM: on all 2-way marginals of 8 binary
// attributes the weighted marginals found with one restart have TSE
// (2/eps²)·Objective at or below HDMM's OPT_M (its time is
// BenchmarkSDPL1Marginals8Weights'), the objective
// equals ||W A⁺||_F² D1² of the explicit strategy (gonum's SVD of the
// 256-cell problem) to 1e-9, and three restarts are no worse.
func TestMarginalWeightsBeatHDMM(t *testing.T) {
	dims := []int{2, 2, 2, 2, 2, 2, 2, 2}
	r, err := OptimizeL1MarginalWeights(context.Background(), dims, twoWay(8), &L1Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if 2*r.Objective > hdmmMarginals {
		t.Errorf("TSE %.2f, want <= %v (HDMM OPT_M)", 2*r.Objective, hdmmMarginals)
	}
	if math.Abs(2*r.Identity-14336) > 1e-9*14336 {
		t.Errorf("identity TSE %v, want 14336", 2*r.Identity)
	}
	a, err := MarginalStrategy(dims, r.Weights)
	if err != nil {
		t.Fatal(err)
	}
	d1 := 0.0
	for _, w := range r.Weights {
		d1 += w
	}
	want := d1 * d1 * mmref.FrobPinv(marginalsW(8, 2), a)
	if math.Abs(r.Objective-want) > 1e-9*want {
		t.Errorf("spectral objective %.15g, explicit %.15g", r.Objective, want)
	}
	r3, err := OptimizeL1MarginalWeights(context.Background(), dims, twoWay(8), &L1Options{Seed: 1, Restarts: 3})
	if err != nil || r3.Objective > r.Objective {
		t.Errorf("3 restarts: %v (%v), 1 restart %v", r3.Objective, err, r.Objective)
	}
	t.Logf("2-way marginals of 8 binary attributes: TSE %.2f (HDMM OPT_M %.2f, identity 14336)", 2*r.Objective, hdmmMarginals)
}

// TestPartitionStart: the unions of k of t parts of 8 binary attributes
// (t = 3, k = 2: marginals on the complements of the parts, 5, 5 and 6
// attributes) cover every pair, and each attribute lies in t-1 of them.
func TestPartitionStart(t *testing.T) {
	need := []uint{}
	for _, m := range twoWay(8) {
		need = append(need, m.Attrs)
	}
	th := partitionStart(need, []int{2, 2, 2, 2, 2, 2, 2, 2}, 3, 2, rand.New(rand.NewPCG(1, 2)))
	var sets []uint
	for m, w := range th {
		if w > 0 {
			sets = append(sets, uint(m))
		}
	}
	if len(sets) != 3 {
		t.Fatalf("%d marginals, want 3", len(sets))
	}
	for f := 0; f < 8; f++ {
		in := 0
		for _, s := range sets {
			in += int(s >> f & 1)
		}
		if in != 2 {
			t.Errorf("attribute %d in %d marginals, want 2", f, in)
		}
	}
	for _, m := range need {
		ok := false
		for _, s := range sets {
			ok = ok || m&s == m
		}
		if !ok {
			t.Errorf("pair %b not covered", m)
		}
	}
}

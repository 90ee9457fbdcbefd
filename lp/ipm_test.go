package lp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestLineGeometric checks the LP optimum on a line against the truncated
// geometric mechanism, which is optimal for every prior after its optimal
// remap: the solver's certified bounds must bracket the geometric utility.
func TestLineGeometric(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		n      int
		eps    float64
		peaked bool
	}{{2, 0.5, false}, {5, 1, false}, {8, 0.3, true}, {12, 2, true}, {30, 0.7, false}, {40, 1.5, true}} {
		prior := randomPrior(rng, c.n, c.peaked)
		res, err := Solve(context.Background(), binaryProblem(prior, bandPairs(c.n, 1, c.eps)), nil)
		if err != nil {
			t.Fatalf("n=%d: %v", c.n, err)
		}
		want := geometricUtility(prior, c.eps, 1)
		t.Logf("n=%d eps=%v: primal %.12f dual %.12f geometric %.12f gap %.2g iters %d mix %.2g", c.n, c.eps, res.Primal, res.Dual, want, res.Gap, res.Iterations, res.Mix)
		if res.Primal > want*(1+1e-12) || res.Dual < want*(1-1e-12) {
			t.Errorf("n=%d eps=%v: bounds [%v, %v] do not bracket the optimum %v", c.n, c.eps, res.Primal, res.Dual, want)
		}
		if math.Abs(res.Primal-want) > 1e-7*want {
			t.Errorf("n=%d eps=%v: primal %v, want %v", c.n, c.eps, res.Primal, want)
		}
	}
}

// TestExactSimplex compares the certified bounds with the exact rational
// optimum on small problems: binary and distance gains, lines and bands,
// ratios 2 and 3/2 (exact in binary), uniform and random priors, and a
// non-square problem (more outputs than answers).
func TestExactSimplex(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	type tc struct {
		name string
		p    *Problem
	}
	var cases []tc
	for _, n := range []int{3, 4} {
		for _, w := range []float64{2, 1.5} {
			eps := math.Log(w)
			cases = append(cases,
				tc{"line binary uniform", binaryProblem(uniformPrior(n), bandPairs(n, 1, eps))},
				tc{"line binary random", binaryProblem(randomPrior(rng, n, false), bandPairs(n, 1, eps))},
				tc{"band2 binary peaked", binaryProblem(randomPrior(rng, n, true), bandPairs(n, 2, eps))})
			prior := randomPrior(rng, n, false)
			c := make([]float64, n*n)
			for i := range n {
				for o := range n {
					c[i*n+o] = -prior[i] * math.Abs(float64(i-o))
				}
			}
			cases = append(cases, tc{"line distance gain", &Problem{N: n, M: n, C: c, Pairs: bandPairs(n, 1, eps)}})
		}
	}
	// 3 answers, 5 outputs, random gain.
	c := make([]float64, 15)
	for k := range c {
		c[k] = rng.Float64()
	}
	cases = append(cases, tc{"3x5 random gain", &Problem{N: 3, M: 5, C: c, Pairs: bandPairs(3, 1, math.Log(2))}})
	for _, c := range cases {
		exact, _ := exactOptimum(c.p).Float64()
		res, err := Solve(context.Background(), c.p, &Options{Tol: 1e-10})
		if err != nil {
			t.Fatalf("%s n=%d: %v", c.name, c.p.N, err)
		}
		scale := max(math.Abs(exact), 1e-300)
		if res.Primal > exact+1e-13*scale || res.Dual < exact-1e-13*scale {
			t.Errorf("%s n=%d: bounds [%.15g, %.15g] exclude the exact optimum %.15g", c.name, c.p.N, res.Primal, res.Dual, exact)
		}
		if math.Abs(res.Primal-exact) > 1e-9*scale {
			t.Errorf("%s n=%d: primal %.15g, exact optimum %.15g", c.name, c.p.N, res.Primal, exact)
		}
		checkFeasible(t, c.p, res.X)
	}
}

// checkFeasible asserts x >= 0, rows summing to 1 and every ratio
// constraint holding exactly in floating point.
func checkFeasible(t *testing.T, p *Problem, x []float64) {
	t.Helper()
	for i := 0; i < p.N; i++ {
		var s float64
		for o := 0; o < p.M; o++ {
			v := x[i*p.M+o]
			if v < 0 {
				t.Fatalf("X[%d][%d] = %v < 0", i, o, v)
			}
			s += v
		}
		if math.Abs(s-1) > 1e-12 {
			t.Fatalf("row %d sums to %v", i, s)
		}
	}
	for _, q := range p.Pairs {
		for o := 0; o < p.M; o++ {
			if a, b := x[q.I*p.M+o], x[q.H*p.M+o]; a > q.W*b {
				t.Fatalf("X[%d][%d] = %v > %v · X[%d][%d] = %v", q.I, o, a, q.W, q.H, o, b)
			}
		}
	}
}

// TestExactSimplexReference checks the rational simplex itself against the
// truncated geometric mechanism's closed-form utility on a line.
func TestExactSimplexReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{2, 3, 4} {
		prior := randomPrior(rng, n, false)
		got, _ := exactOptimum(binaryProblem(prior, bandPairs(n, 1, math.Log(2)))).Float64()
		if want := geometricUtility(prior, math.Log(2), 1); math.Abs(got-want) > 1e-14 {
			t.Errorf("n=%d: simplex %.17g, geometric %.17g", n, got, want)
		}
	}
}

// TestRing: a ring is ball-size symmetric, so for the uniform prior the
// optimum is the tight-constraints utility 1/sum_j e^{-eps d(0,j)}
// (docs/MATH.md §3.5). In its natural numbering the ring has bandwidth n-1; Solve
// renumbers it (reverse Cuthill–McKee) to bandwidth 2.
func TestRing(t *testing.T) {
	for _, n := range []int{3, 8, 13} {
		eps := 0.9
		w := math.Exp(eps)
		var pairs []Pair
		for i := 0; i < n; i++ {
			j := (i + 1) % n
			pairs = append(pairs, Pair{I: i, H: j, W: w}, Pair{I: j, H: i, W: w})
		}
		p := binaryProblem(uniformPrior(n), pairs)
		if bw := permuted(p, mustRCM(p.graph())).bandwidth(); bw > 2 {
			t.Errorf("n=%d: bandwidth %d after RCM, want <= 2", n, bw)
		}
		var ball float64
		for j := 0; j < n; j++ {
			ball += math.Exp(-eps * float64(min(j, n-j)))
		}
		res, err := Solve(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := 1 / ball; math.Abs(res.Primal-want) > 1e-8*want || res.Dual < want*(1-1e-12) {
			t.Errorf("ring n=%d: primal %v dual %v, want %v", n, res.Primal, res.Dual, want)
		}
		checkFeasible(t, p, res.X)
	}
}

// TestRCMPermutation: rcm returns a permutation, also for a graph with
// several components and isolated rows.
func TestRCMPermutation(t *testing.T) {
	p := &Problem{N: 7, M: 1, C: make([]float64, 7), Pairs: []Pair{{I: 0, H: 5, W: 2}, {I: 5, H: 3, W: 2}, {I: 2, H: 6, W: 2}}}
	perm := mustRCM(p.graph())
	seen := make([]bool, p.N)
	for _, v := range perm {
		if v < 0 || v >= p.N || seen[v] {
			t.Fatalf("not a permutation: %v", perm)
		}
		seen[v] = true
	}
	if len(perm) != p.N {
		t.Fatalf("length %d, want %d", len(perm), p.N)
	}
	if bw := permuted(p, perm).bandwidth(); bw != 1 {
		t.Errorf("bandwidth %d after RCM, want 1 (two paths and isolated rows)", bw)
	}
}

package tight

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

var ln2, ln3 = math.Ln2, math.Log(3)

func mustTight(t *testing.T, m metric.Metric, eps float64, opts *Options) *Result {
	t.Helper()
	r, err := Solve(context.Background(), m, eps, opts)
	if err != nil {
		t.Fatalf("Tight(%s, %v): %v", m, eps, err)
	}
	return r
}

// checkMechanism asserts the properties of every returned mechanism: rows sum
// to 1, entries >= 0, X[i][k] = exp(-eps d(i,k)) z_k, and the audit passed.
func checkMechanism(t *testing.T, r *Result, m metric.Metric, eps float64) {
	t.Helper()
	if r.X == nil {
		t.Fatalf("%s: no mechanism (%s)", m, r.Note)
	}
	n := m.Len()
	for i := 0; i < n; i++ {
		var s float64
		for k := 0; k < n; k++ {
			x := r.X.At(i, k)
			if x < 0 {
				t.Fatalf("%s: X[%d][%d] = %v < 0", m, i, k, x)
			}
			// X = (1-γ)·exp(-eps d) z_k/S_i + γ/n, γ = r.Mix (mech.Harden),
			// S_i within 1e-12 of 1 (the row's normalisation).
			want := (1-r.Mix)*math.Exp(-eps*m.Dist(i, k))*r.Z[k] + r.Mix/float64(n)
			if math.Abs(x-want) > 1e-15+1e-12*want || r.Mix > 0x1p-30 {
				t.Fatalf("%s: X[%d][%d] = %v, want (1-γ)exp(-eps d) z_k + γ/n = %v (γ = %g)", m, i, k, x, want, r.Mix)
			}
			s += x
		}
		// A mechanism as represented: within rounding of 1.
		if math.Abs(s-1) > mech.RowSumTol(n) {
			t.Fatalf("%s: row %d sums to %.17g", m, i, s)
		}
	}
	if !r.Audit.Private || r.Audit.Eps > eps*(1+1e-9) {
		t.Fatalf("%s: audit %+v not private at %v", m, r.Audit, eps)
	}
}

// The six-city example (QIF journal paper, Table 1): the query "which city
// has most votes" has a clique K6 as answer graph; at eps = ln 2 the optimal
// mechanism has diagonal 2/7 and off-diagonal 1/7: z = 1/(1 + 5/2) = 2/7.
func TestTightSixCities(t *testing.T) {
	m, _ := metric.Clique(6)
	for _, solver := range []Solver{"auto", "dense", "closed-form"} {
		r := mustTight(t, m, ln2, &Options{Solver: solver})
		if r.Exists != Yes || !r.Unique {
			t.Fatalf("%s: exists %v unique %v", solver, r.Exists, r.Unique)
		}
		if math.Abs(r.Utility-2.0/7) > 1e-12 {
			t.Errorf("%s: utility %.17g, want 2/7", solver, r.Utility)
		}
		checkMechanism(t, r, m, ln2)
		for i := 0; i < 6; i++ {
			for k := 0; k < 6; k++ {
				want := 1.0 / 7
				if i == k {
					want = 2.0 / 7
				}
				if math.Abs(unmixed(r).At(i, k)-want) > 1e-12 {
					t.Fatalf("%s: X[%d][%d] = %v, want %v", solver, i, k, unmixed(r).At(i, k), want)
				}
			}
		}
	}
	if r := mustTight(t, m, ln2, nil); r.Solver != "closed-form-ball-symmetric" {
		t.Errorf("auto picked %q for a clique", r.Solver)
	}
}

// geometric is the truncated geometric mechanism of docs/MATH.md §8.1 on 0..N.
func geometric(N int, eps float64) *mat.Dense {
	a := math.Exp(-eps)
	x := mat.NewDense(N+1, N+1, nil)
	for i := 0; i <= N; i++ {
		for k := 0; k <= N; k++ {
			var v float64
			switch k {
			case 0:
				v = math.Pow(a, float64(i)) / (1 + a)
			case N:
				v = math.Pow(a, float64(N-i)) / (1 + a)
			default:
				v = math.Pow(a, math.Abs(float64(i-k))) * (1 - a) / (1 + a)
			}
			x.Set(i, k, v)
		}
	}
	return x
}

// The 5-voter counting query (QIF journal paper, Table 2, eps = ln 2): on the
// line 0..5 the tight-constraints mechanism is the truncated 1/2-geometric
// mechanism, with utility 4/9 for the uniform prior; closing the line into a
// ring gives the ring's mechanism with utility 8/21.
func TestTightCountingQuery(t *testing.T) {
	line, _ := metric.Line(6)
	for _, eps := range []float64{ln2, 0.1, 3} {
		r := mustTight(t, line, eps, &Options{Solver: "dense"})
		if r.Exists != Yes || !r.Unique {
			t.Fatalf("eps %v: exists %v unique %v", eps, r.Exists, r.Unique)
		}
		checkMechanism(t, r, line, eps)
		g := geometric(5, eps)
		if !mat.EqualApprox(unmixed(r), g, 1e-13) {
			t.Errorf("eps %v: tight-constraints mechanism\n%v\n!= truncated geometric\n%v", eps, mat.Formatted(r.X), mat.Formatted(g))
		}
	}
	r := mustTight(t, line, ln2, nil)
	if r.Solver != "closed-form-line" {
		t.Errorf("auto picked %s for a line", r.Solver)
	}
	checkMechanism(t, r, line, ln2)
	if math.Abs(r.Utility-4.0/9) > 1e-12 {
		t.Errorf("geometric utility %.17g, want 4/9", r.Utility)
	}
	// Table 2(a): the first row is 2/3 1/6 1/12 1/24 1/48 1/48.
	for k, want := range []float64{2.0 / 3, 1.0 / 6, 1.0 / 12, 1.0 / 24, 1.0 / 48, 1.0 / 48} {
		if math.Abs(unmixed(r).At(0, k)-want) > 1e-13 {
			t.Errorf("X[0][%d] = %v, want %v", k, unmixed(r).At(0, k), want)
		}
	}
	ring := metric.CloseLine(line)
	if ring.String() != "ring:n=6" {
		t.Fatalf("closure is %s", ring)
	}
	for _, solver := range []Solver{"closed-form", "dense"} {
		rr := mustTight(t, ring, ln2, &Options{Solver: solver})
		if math.Abs(rr.Utility-8.0/21) > 1e-12 {
			t.Errorf("%s: ring utility %.17g, want 8/21", solver, rr.Utility)
		}
		checkMechanism(t, rr, ring, ln2)
		// Table 2(b), first row: 8 4 2 1 2 4 (/21).
		for k, want := range []float64{8, 4, 2, 1, 2, 4} {
			if math.Abs(unmixed(rr).At(0, k)-want/21) > 1e-13 {
				t.Errorf("%s: ring X[0][%d] = %v, want %v/21", solver, k, unmixed(rr).At(0, k), want)
			}
		}
		// The ring mechanism is private for the line too (privacy kept).
		rep, err := mech.Audit(rr.X, line, ln2)
		if err != nil || !rep.Private {
			t.Errorf("ring mechanism not ln2-private on the line: %+v %v", rep, err)
		}
	}
}

// Closed forms against the dense solve on ball-symmetric metrics.
func TestTightClosedFormMatchesDense(t *testing.T) {
	r7, _ := metric.Ring(7)
	r8, _ := metric.Ring(8)
	c5, _ := metric.Clique(5)
	h, _ := metric.Hamming(3, 3)
	pet := petersen(t)
	for _, m := range []metric.Metric{r7, r8, c5, h, pet} {
		for _, eps := range []float64{0.05, 0.7, 2.5} {
			cf := mustTight(t, m, eps, &Options{Solver: "closed-form"})
			de := mustTight(t, m, eps, &Options{Solver: "dense"})
			if cf.Exists != Yes || de.Exists != Yes {
				t.Fatalf("%s eps %v: exists %v / %v", m, eps, cf.Exists, de.Exists)
			}
			for k := range de.Z {
				if math.Abs(cf.Z[k]-de.Z[k]) > 1e-12 || math.Abs(cf.Z[k]-de.Z[k]) > de.ZErr+cf.ZErr {
					t.Fatalf("%s eps %v: z[%d] closed %v dense %v (errs %g %g)", m, eps, k, cf.Z[k], de.Z[k], cf.ZErr, de.ZErr)
				}
			}
			if !cf.Unique || !de.Unique {
				t.Errorf("%s eps %v: unique %v / %v", m, eps, cf.Unique, de.Unique)
			}
			checkMechanism(t, cf, m, eps)
			checkMechanism(t, de, m, eps)
		}
	}
	// Clique: z = 1/(1+(n-1)e^-eps); Hamming 3^3: z = (1/(1+2e^-eps))^3.
	r := mustTight(t, c5, 0.7, nil)
	if want := 1 / (1 + 4*math.Exp(-0.7)); math.Abs(r.MinZ-want) > 1e-15 {
		t.Errorf("clique z %v want %v", r.MinZ, want)
	}
	r = mustTight(t, h, 0.7, nil)
	if want := math.Pow(1/(1+2*math.Exp(-0.7)), 3); math.Abs(r.MinZ-want) > 1e-15 {
		t.Errorf("hamming z %v want %v", r.MinZ, want)
	}
}

// petersen is the Petersen graph: distance-regular, ball sizes 1, 3, 6.
func petersen(t *testing.T) *metric.GraphMetric {
	t.Helper()
	var e [][2]int
	for i := 0; i < 5; i++ {
		e = append(e, [2]int{i, (i + 1) % 5}, [2]int{i, i + 5}, [2]int{5 + i, 5 + (i+2)%5})
	}
	g, err := metric.NewGraph(10, e)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// completeBipartite is K_{p,q}; K_{4,4} is the Hamming cube 2^3 with its
// antipodal edges added (each vertex gains the one at distance 3).
func completeBipartite(t *testing.T, p, q int) *metric.GraphMetric {
	t.Helper()
	var e [][2]int
	for i := 0; i < p; i++ {
		for j := 0; j < q; j++ {
			e = append(e, [2]int{i, p + j})
		}
	}
	g, err := metric.NewGraph(p+q, e)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// cubeAntipodal builds the cube 2^3 with antipodal edges, as in the paper.
func cubeAntipodal(t *testing.T) *metric.GraphMetric {
	t.Helper()
	var e [][2]int
	for i := 0; i < 8; i++ {
		for b := 0; b < 3; b++ {
			if j := i ^ 1<<b; j > i {
				e = append(e, [2]int{i, j})
			}
		}
		if j := i ^ 7; j > i {
			e = append(e, [2]int{i, j})
		}
	}
	g, err := metric.NewGraph(8, e)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// ratPhi is Phi = a^d in exact rational arithmetic.
func ratPhi(m metric.Metric, a *big.Rat) [][]*big.Rat {
	n := m.Len()
	p := make([][]*big.Rat, n)
	for i := range p {
		p[i] = make([]*big.Rat, n)
		for j := range p[i] {
			d := m.Dist(i, j)
			x := big.NewRat(1, 1)
			if math.IsInf(d, 1) {
				x.SetInt64(0)
			}
			for k := 0; k < int(d) && !math.IsInf(d, 1); k++ {
				x.Mul(x, a)
			}
			p[i][j] = x
		}
	}
	return p
}

// ratSolve reduces [A | b] exactly; it returns the rank of A, whether the
// system is consistent and, when A is nonsingular, the solution.
func ratSolve(a [][]*big.Rat, b []*big.Rat) (rank int, consistent bool, x []*big.Rat) {
	n := len(a)
	m := make([][]*big.Rat, n)
	for i := range a {
		m[i] = make([]*big.Rat, n+1)
		for j := 0; j < n; j++ {
			m[i][j] = new(big.Rat).Set(a[i][j])
		}
		m[i][n] = new(big.Rat).Set(b[i])
	}
	row := 0
	pivCol := make([]int, 0, n)
	for c := 0; c < n && row < n; c++ {
		p := -1
		for r := row; r < n; r++ {
			if m[r][c].Sign() != 0 {
				p = r
				break
			}
		}
		if p < 0 {
			continue
		}
		m[row], m[p] = m[p], m[row]
		for r := 0; r < n; r++ {
			if r == row || m[r][c].Sign() == 0 {
				continue
			}
			f := new(big.Rat).Quo(m[r][c], m[row][c])
			for j := c; j <= n; j++ {
				m[r][j].Sub(m[r][j], new(big.Rat).Mul(f, m[row][j]))
			}
		}
		pivCol = append(pivCol, c)
		row++
	}
	rank = row
	consistent = true
	for r := rank; r < n; r++ {
		if m[r][n].Sign() != 0 {
			consistent = false
		}
	}
	if rank == n {
		x = make([]*big.Rat, n)
		for r, c := range pivCol {
			x[c] = new(big.Rat).Quo(m[r][n], m[r][c])
		}
	}
	return rank, consistent, x
}

func ratOnes(n int) []*big.Rat {
	o := make([]*big.Rat, n)
	for i := range o {
		o[i] = big.NewRat(1, 1)
	}
	return o
}

// The singular example of the tight-constraints paper (appendix B): the cube
// 2^3 with antipodal edges at e^-eps = 1/3. In exact arithmetic Phi has rank
// 7 and z = 3/8·1 solves Phi z = 1 (every row: 1 + 4/3 + 3/9 = 8/3), so the
// mechanism exists and is not unique. The dense solver must detect the
// singularity and decide feasibility by NNLS.
func TestTightSingularCube(t *testing.T) {
	g := cubeAntipodal(t)
	if s := g.BallSizes(); len(s) != 3 || s[0] != 1 || s[1] != 4 || s[2] != 3 {
		t.Fatalf("ball sizes %v, want [1 4 3]", s)
	}
	third := big.NewRat(1, 3)
	rank, consistent, _ := ratSolve(ratPhi(g, third), ratOnes(8))
	if rank != 7 || !consistent {
		t.Fatalf("exact: rank %d consistent %v, want 7 true", rank, consistent)
	}
	r := mustTight(t, g, ln3, &Options{Solver: "dense"})
	if r.Unique {
		t.Errorf("singular Phi reported unique (rcond %g)", r.RCond)
	}
	if r.Exists != Yes || r.Solver != "dense-nnls" || r.Certificate != "nnls-residual" {
		t.Fatalf("exists %v solver %s cert %s, want yes by NNLS", r.Exists, r.Solver, r.Certificate)
	}
	if math.Abs(r.Utility-3.0/8) > 1e-12 {
		t.Errorf("utility %v, want 3/8 (the same for every solution)", r.Utility)
	}
	checkMechanism(t, r, g, ln3)
	// The closed form (auto picks it) gives the constant solution; the
	// dense check of uniqueness finds Phi singular.
	c := mustTight(t, g, ln3, nil)
	if c.Solver != "closed-form-ball-symmetric" || c.Unique || math.Abs(c.MinZ-3.0/8) > 1e-15 {
		t.Errorf("closed form: solver %s unique %v z %v", c.Solver, c.Unique, c.MinZ)
	}
	// Away from 1/3 the same graph has a nonsingular Phi.
	if r := mustTight(t, g, 0.5, &Options{Solver: "dense"}); !r.Unique || r.Exists != Yes {
		t.Errorf("eps 0.5: unique %v exists %v", r.Unique, r.Exists)
	}
}

// An infeasible singular system: K_{2,10} at e^-eps = 1/3. Phi is singular
// ((1+a²)(1+9a²) = 20a² at a = 1/3) and, because the parts differ in size,
// Phi z = 1 has no solution at all (exact check below), so the verdict must
// be "no", proved by the Farkas certificate.
func TestTightSingularInfeasible(t *testing.T) {
	g := completeBipartite(t, 2, 10)
	rank, consistent, _ := ratSolve(ratPhi(g, big.NewRat(1, 3)), ratOnes(12))
	if rank != 11 || consistent {
		t.Fatalf("exact: rank %d consistent %v, want 11 false", rank, consistent)
	}
	r := mustTight(t, g, ln3, nil)
	if r.Unique || r.Exists != No || r.Certificate != "farkas" {
		t.Fatalf("unique %v exists %v cert %q solver %s, want a Farkas-certified no", r.Unique, r.Exists, r.Certificate, r.Solver)
	}
	if r.X != nil {
		t.Error("a mechanism was returned although none exists")
	}
}

// Large eps: every off-diagonal exp(-eps d) underflows, Phi = I and z = 1;
// the verdict is certified, not an accident of underflow. X is not built
// because its entries are not representable.
func TestTightLargeEps(t *testing.T) {
	k, _ := metric.KCount(4, 2)
	for _, eps := range []float64{40, 800, metric.MaxEps} {
		r := mustTight(t, k, eps, nil)
		if r.Exists != Yes || math.Abs(r.MinZ-1) > 1e-15 {
			t.Fatalf("eps %v: exists %v min z %v", eps, r.Exists, r.MinZ)
		}
		if eps > 700 && r.X != nil {
			t.Errorf("eps %v: X built although exp underflows", eps)
		}
	}
	// At eps = 40 the entries e^-40 ≈ 4e-18 are representable: X is built.
	r := mustTight(t, k, 40, nil)
	checkMechanism(t, r, k, 40)
	// Beyond metric.MaxEps eps is bad input.
	if _, err := Solve(context.Background(), k, 1e300, nil); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("eps 1e300: %v, want run.ErrBadInput", err)
	}
}

// Tiny eps: the line's closed form stays exact (z inside = (1-a)/(1+a) ≈
// eps/2 via expm1); a clique's X at eps = 1e-10 sits within float64
// rounding of the bound and is returned mixed with the uniform row so that
// it passes the exact audit (noted, not an error); a grid with 1 m steps at
// eps = metric.MinEps = 1e-12 per km (eps·d = 1e-15) has Phi = all-ones to
// rounding, so its verdict is borderline.
func TestTightTinyEps(t *testing.T) {
	l, _ := metric.Line(6)
	r := mustTight(t, l, 1e-10, nil)
	if r.Solver != "closed-form-line" || r.Exists != Yes || math.Abs(r.MinZ-5e-11)/5e-11 > 1e-9 || !r.Unique {
		t.Errorf("line 1e-10: %s %v z %v", r.Solver, r.Exists, r.MinZ)
	}
	c, _ := metric.Clique(6)
	r = mustTight(t, c, 1e-10, &Options{Solver: "dense"})
	// Exactly tight at 1e-10, its float64 ratios sit within rounding of
	// e^eps: mech.Harden mixes in the uniform row until the exact audit
	// passes (a mechanism this close to uniform loses nothing measurable).
	if r.Exists != Yes || r.X == nil || r.Mix <= 0 || r.Mix > 0x1p-8 || !r.Audit.Private || !strings.Contains(r.Note, "mixed") {
		t.Errorf("clique 1e-10: %v X nil %v mix %v audit %+v note %q", r.Exists, r.X == nil, r.Mix, r.Audit, r.Note)
	}
	fine, _ := metric.Grid(5, 5, 0.001, metric.Euclid)
	r = mustTight(t, fine, metric.MinEps, nil)
	if r.Exists != Borderline || r.X != nil || !strings.Contains(r.Note, "all-ones") {
		t.Errorf("grid step 0.001 at eps 1e-12: %v note %q", r.Exists, r.Note)
	}
	g, _ := metric.Grid(5, 5, 0.3, metric.Euclid)
	// ... while at 1e-4 it is clearly "no" on the default path too; the
	// value of min z is checked against an exact rational solve in
	// TestTinyEpsExactMinZ.
	if r := mustTight(t, g, 1e-4, nil); r.Exists != No || !(r.MinZ < -r.ZErr) {
		t.Errorf("grid 1e-4: %v %v ± %v", r.Exists, r.MinZ, r.ZErr)
	}
}

func TestTightHugeHamming(t *testing.T) {
	h, err := metric.Hamming(20, 4) // 4^20 ≈ 1.1e12 databases
	if err != nil {
		t.Fatal(err)
	}
	eps := 0.5
	r := mustTight(t, h, eps, nil)
	// z = n·y with y from the tight-constraints paper (Theorem 2's proof):
	// y_i = (e^eps / (v (v-1+e^eps)))^u, so z = (e^eps/(v-1+e^eps))^u.
	want := math.Pow(math.Exp(eps)/(3+math.Exp(eps)), 20)
	if r.Exists != Yes || math.Abs(r.MinZ-want) > 1e-14*want || r.Z != nil || r.X != nil || !r.ConstantZ {
		t.Fatalf("exists %v z %v want %v (Z nil %v, X nil %v)", r.Exists, r.MinZ, want, r.Z == nil, r.X == nil)
	}
	_, err = Solve(context.Background(), h, eps, &Options{Solver: "dense"})
	if !errors.Is(err, run.ErrTooLarge) || !strings.Contains(err.Error(), "EiB") {
		t.Errorf("dense on 4^20: %v, want a memory error stating the bytes", err)
	}
}

func TestTightErrors(t *testing.T) {
	l, _ := metric.Line(4)
	for _, eps := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := Solve(context.Background(), l, eps, nil); err == nil || !strings.Contains(err.Error(), "eps") {
			t.Errorf("eps %v: err %v", eps, err)
		}
	}
	if _, err := Solve(context.Background(), l, 1, &Options{Solver: "magic"}); err == nil || !strings.Contains(err.Error(), "unknown solver") {
		t.Errorf("unknown solver: %v", err)
	}
	s, _ := metric.Sum(2, 2)
	if _, err := Solve(context.Background(), s, 1, &Options{Solver: "closed-form"}); err == nil || !strings.Contains(err.Error(), "does not apply") {
		t.Errorf("closed form on a sum query: %v", err)
	}
	big, _ := metric.Sum(99999, 1)
	// Forced dense, n = 1e5 would need 80 GB: refused before allocating.
	// (Auto selection solves it with the Toeplitz solver instead.)
	if _, err := Solve(context.Background(), big, 1, &Options{Solver: "dense", Settings: run.Settings{Budget: 1 << 30}}); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("n = 1e5 with a 1 GiB limit: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Solve(ctx, cubeAntipodal(t), ln3, &Options{Solver: "dense"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

// The JSON fields the CLI relies on.
func TestTightResultJSON(t *testing.T) {
	c, _ := metric.Clique(6)
	r := mustTight(t, c, ln2, nil)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, k := range []string{"n", "eps", "exists", "min_z", "utility", "unique", "solver", "backend"} {
		if _, ok := m[k]; !ok {
			t.Errorf("field %q missing from %s", k, b)
		}
	}
	if m["exists"] != true || m["n"] != 6.0 {
		t.Errorf("exists %v n %v", m["exists"], m["n"])
	}
	r.Exists = Borderline
	b, _ = json.Marshal(r)
	json.Unmarshal(b, &m)
	if m["exists"] != "borderline" {
		t.Errorf("borderline marshals as %v", m["exists"])
	}
}

// BenchmarkTightSum measures one dense tight-constraints solve of the sum
// query u=150, v=5 (n = 751), without building X.
func BenchmarkTightSum(b *testing.B) {
	s, _ := metric.Sum(150, 5)
	for b.Loop() {
		if _, err := Solve(context.Background(), s, 1, &Options{NoMechanism: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkThresholdSum measures the threshold search of the sum query
// u=150, v=5 to 1e-6.
func BenchmarkThresholdSum(b *testing.B) {
	s, _ := metric.Sum(150, 5)
	for b.Loop() {
		if _, err := Threshold(context.Background(), s, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStructureRefusals: the Petersen graph's balls (moved here from the
// metric tests, with the graph) are 1, 3, 6 (it is distance-regular with
// degree 3 and diameter 2); the corner prior of Hamming 4^20 (10^12
// answers) is refused before allocating.
func TestStructureRefusals(t *testing.T) {
	if s := petersen(t).BallSizes(); !slices.Equal(s, []int{1, 3, 6}) {
		t.Errorf("petersen ball sizes %v", s)
	}
	h, err := metric.Hamming(20, 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Corner(h, 1, 0); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("corner of 4^20: %v", err)
	}
}

// unmixed is r.X with mech.Harden's mixing undone, (X - γ/n)/(1-γ),
// γ = r.Mix: the tight-constraints mechanism exp(-eps·d)·z itself.
func unmixed(r *Result) *mat.Dense {
	n, c := r.X.Dims()
	u := mat.NewDense(n, c, nil)
	for i := range n {
		for k := range c {
			u.Set(i, k, (r.X.At(i, k)-r.Mix/float64(c))/(1-r.Mix))
		}
	}
	return u
}

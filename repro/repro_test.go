package repro

import (
	"context"
	"encoding/csv"
	"image/png"
	"math"
	"math/big"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// quickRun runs every experiment once in Quick mode (about two seconds)
// and shares the result between the tests.
var quickRun = struct {
	once sync.Once
	dir  string
	rep  *Report
	err  error
}{}

func quick(t *testing.T) (*Report, string) {
	t.Helper()
	quickRun.once.Do(func() {
		dir, err := os.MkdirTemp("", "optdp-repro-test-")
		if err != nil {
			quickRun.err = err
			return
		}
		quickRun.dir = dir
		quickRun.rep, quickRun.err = Run(context.Background(), Experiments(), &Config{Dir: dir, Quick: true}, nil)
	})
	if quickRun.err != nil {
		t.Fatal(quickRun.err)
	}
	return quickRun.rep, quickRun.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if quickRun.dir != "" {
		os.RemoveAll(quickRun.dir)
	}
	os.Exit(code)
}

// result returns the named experiment's result, failing on an error.
func result(t *testing.T, name string) (*Result, string) {
	t.Helper()
	rep, dir := quick(t)
	for _, r := range rep.Results {
		if r.Name == name {
			if r.Err != "" {
				t.Fatalf("%s failed: %s", name, r.Err)
			}
			return r, dir
		}
	}
	t.Fatalf("no result for %s", name)
	return nil, ""
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol) {
		t.Errorf("%s = %.12g, want %.12g (tol %g)", what, got, want, tol)
	}
}

// readCSV parses a CSV file and checks every row has the header's width.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(rows) < 2 {
		t.Fatalf("%s: %d rows", path, len(rows))
	}
	return rows
}

// solveOnes solves phi z = 1 by gonum's dense LU (independently of the
// solvers under test).
func solveOnes(t *testing.T, phi *mat.Dense) *mat.VecDense {
	t.Helper()
	n, _ := phi.Dims()
	ones := mat.NewVecDense(n, nil)
	for i := 0; i < n; i++ {
		ones.SetVec(i, 1)
	}
	var z mat.VecDense
	if err := z.SolveVec(phi, ones); err != nil {
		t.Fatal(err)
	}
	return &z
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return v
}

// TestCities: K6 at eps = ln 2. The tight mechanism is e^eps/(e^eps+5) = 2/7
// on the diagonal and 1/7 elsewhere; the adapted geometric's utilities are
// recomputed here from the closed form of the truncated geometric with
// alpha = 2^(-1/5) (0.2243 uniform, 0.2415 skewed in the paper).
func TestCities(t *testing.T) {
	r, dir := result(t, "cities")
	near(t, "U(M2) uniform", r.Values["U_M2_uniform"], 2.0/7, 1e-12)
	near(t, "U(M2) skewed", r.Values["U_M2_skewed"], 2.0/7, 1e-12)
	a := math.Pow(2, -0.2)
	geo := func(i, k int) float64 {
		switch k {
		case 0:
			return math.Pow(a, float64(i)) / (1 + a)
		case 5:
			return math.Pow(a, float64(5-i)) / (1 + a)
		}
		return math.Pow(a, math.Abs(float64(i-k))) * (1 - a) / (1 + a)
	}
	util := func(p []float64) float64 {
		var u float64
		for k := 0; k < 6; k++ {
			best := 0.0
			for i := 0; i < 6; i++ {
				best = math.Max(best, p[i]*geo(i, k))
			}
			u += best
		}
		return u
	}
	uu := util([]float64{1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6})
	us := util([]float64{0.1, 0.2, 0.2, 0.2, 0.2, 0.1})
	near(t, "U(M1) uniform", r.Values["U_M1_uniform"], uu, 1e-12)
	near(t, "U(M1) skewed", r.Values["U_M1_skewed"], us, 1e-12)
	near(t, "U(M1) uniform vs paper", uu, 0.2243, 5e-5)
	near(t, "U(M1) skewed vs paper", us, 0.2415, 5e-5)
	rows := readCSV(t, filepath.Join(dir, "cities_M2_tight.csv"))
	for i, row := range rows[1:] {
		for k, s := range row[1:] {
			want := 1.0 / 7
			if i == k {
				want = 2.0 / 7
			}
			near(t, "M2 entry", atof(t, s), want, 1e-12)
		}
	}
	if len(r.Discrepancies) != 0 {
		t.Errorf("unexpected discrepancies: %v", r.Discrepancies)
	}
}

// TestVoters: Table 2 exactly. M1 has utility 4/9 = (2·2/3 + 4·1/3)/6; the
// ring mechanism's z is 1/sum_r n_r 2^-r = 1/(1 + 2/2 + 2/4 + 1/8) = 8/21,
// computed here in exact rationals.
func TestVoters(t *testing.T) {
	r, dir := result(t, "voters")
	s := new(big.Rat)
	for d, nd := range []int64{1, 2, 2, 1} { // ball sizes of the 6-ring
		s.Add(s, big.NewRat(nd, 1<<d))
	}
	z, _ := new(big.Rat).Inv(s).Float64()
	near(t, "8/21", z, 8.0/21, 1e-15)
	near(t, "U(M2)", r.Values["U_M2_ring"], z, 1e-12)
	m1, _ := new(big.Rat).Quo(new(big.Rat).Add(big.NewRat(4, 3), big.NewRat(4, 3)), big.NewRat(6, 1)).Float64()
	near(t, "U(M1)", r.Values["U_M1_geometric"], m1, 1e-12)
	near(t, "U(tight on the line)", r.Values["U_tight_line"], 4.0/9, 1e-12)
	if !(r.Values["M1_audit_eps_on_ring"] > math.Ln2+0.1) {
		t.Errorf("M1 should not be ln2-private on the ring: audit %v", r.Values["M1_audit_eps_on_ring"])
	}
	rows := readCSV(t, filepath.Join(dir, "voters_M2_ring.csv"))
	for i, row := range rows[1:] {
		for k, c := range row[1:] {
			d := min((i-k+6)%6, (k-i+6)%6)
			near(t, "ring entry", atof(t, c), 8.0/21/math.Pow(2, float64(d)), 1e-12)
		}
	}
	if !strings.Contains(r.Markdown, "| 8/21 | 4/21 | 2/21 | 1/21 | 2/21 | 4/21 |") {
		t.Errorf("the ring matrix is not printed as fractions:\n%s", r.Markdown)
	}
}

// TestLeakage: Bnd(100, 2, 5) = 100·log2(2e^5/(1+e^5)) = 99.03 bits; the
// Example 17 mechanism's largest entry is e^(2eps)/(2+e^eps)^2 and its
// leakage equals Bnd(2, 3, 1); the individual bound for v = 3, eps = 1.35
// is log2(3e^1.35/(2+e^1.35)) ≈ 0.98 bits.
func TestLeakage(t *testing.T) {
	r, dir := result(t, "leakage")
	b := 100 * math.Log2(2*math.Exp(5)/(1+math.Exp(5)))
	near(t, "Bnd(100,2,5)", r.Values["bnd_100_2_5"], b, 1e-9)
	near(t, "Bnd(100,2,5) vs paper", b, 99.03, 0.005)
	if v := r.Values["posterior_vulnerability_100_2_5"]; !(v > 0.5) {
		t.Errorf("posterior vulnerability %v, paper says > 1/2", v)
	}
	e := math.E
	near(t, "Example 17 max M", r.Values["ex17_maxM"], e*e/((2+e)*(2+e)), 1e-12)
	near(t, "Example 17 leakage", r.Values["ex17_leakage_uniform"], 2*math.Log2(3*e/(2+e)), 1e-9)
	ib := math.Log2(3 * math.Exp(1.35) / (2 + math.Exp(1.35)))
	near(t, "individual bound", r.Values["individual_bound_v3_eps1.35"], ib, 1e-12)
	near(t, "individual bound vs paper", ib, 1.95-0.97, 0.02)
	near(t, "range bound r=v", r.Values["range_bound_r_eq_v"], math.Log2(2*math.Exp(10)/(1+math.Exp(10))), 1e-9)
	rows := readCSV(t, filepath.Join(dir, "leakage_bnd_eps.csv"))
	for _, row := range rows[1:] {
		u, v, eps := atof(t, row[0]), atof(t, row[1]), atof(t, row[2])
		near(t, "Bnd row", atof(t, row[3]), u*math.Log2(v*math.Exp(eps)/(v-1+math.Exp(eps))), 1e-9*u)
	}
}

// TestRegions: corners of the 3-point line at e^-eps = 1/2 are
// (4,2,1)/7, (1,2,1)/4, (1,2,4)/7; the database prior is regular exactly
// from eps = ln 2 (closed form: min_j p_j = 0.2 >= a/(1+3a) iff a <= 1/2),
// so the first 0.01-grid point is 0.70; Bnd(5,4,0.5) ≈ 2.52.
func TestRegions(t *testing.T) {
	r, dir := result(t, "regions")
	rows := readCSV(t, filepath.Join(dir, "regions_corners.csv"))
	want := map[string][]float64{"1": {4.0 / 7, 2.0 / 7, 1.0 / 7}, "2": {0.25, 0.5, 0.25}, "3": {1.0 / 7, 2.0 / 7, 4.0 / 7}}
	found := 0
	for _, row := range rows[1:] {
		if row[0] == "line" && row[2] == "e^-eps=0.5" {
			found++
			for k := 0; k < 3; k++ {
				near(t, "corner", atof(t, row[4+k]), want[row[3]][k], 1e-12)
			}
		}
	}
	if found != 3 {
		t.Errorf("found %d line corners at e^-eps = 0.5", found)
	}
	near(t, "first regular eps", r.Values["db_first_regular_eps"], math.Ceil(100*math.Ln2)/100, 1e-12)
	near(t, "Bnd(5,4,0.5)", r.Values["db_bnd_eps0.5"], 5*math.Log2(4*math.Exp(0.5)/(3+math.Exp(0.5))), 1e-9)
	a := math.Exp(-0.5)
	near(t, "prior formula at 0.5", r.Values["db_prior_bound_eps0.5"], 5*math.Log2(1/(1+3*a)/0.3), 1e-9)
	if r.Values["db_regular_all_0.48_1"] != 0 || len(r.Discrepancies) != 1 {
		t.Errorf("the database prior is not regular below ln 2; want one discrepancy, got %v", r.Discrepancies)
	}
}

// TestSingular: at e^-eps = 1/3 the even and odd rows of Phi have equal
// sums (1 + 3/9 = 4/3), so Phi is singular; the uniform prior still gives
// z = 3/8, and a prior with unequal even/odd mass has no solution.
func TestSingular(t *testing.T) {
	r, _ := result(t, "singular")
	// Independent check of the singularity: determinant of Phi.
	phi := mat.NewDense(8, 8, nil)
	for i := 0; i < 8; i++ {
		for j := 0; j < 8; j++ {
			d := bits.OnesCount(uint(i ^ j))
			if d == 3 {
				d = 1
			}
			phi.Set(i, j, math.Pow(1.0/3, float64(d)))
		}
	}
	near(t, "det Phi", mat.Det(phi), 0, 1e-12)
	near(t, "min |eig|", r.Values["min_abs_eigenvalue"], 0, 1e-12)
	if r.Values["dense_unique"] != 0 || r.Values["dense_exists"] != 1 {
		t.Errorf("dense tight: unique %v exists %v, want singular and existing", r.Values["dense_unique"], r.Values["dense_exists"])
	}
	near(t, "utility", r.Values["tight_utility"], 3.0/8, 1e-9)
	if r.Values["good_prior_regular"] != 1 || r.Values["bad_prior_regular"] != 0 {
		t.Errorf("regularity: consistent prior %v, inconsistent %v", r.Values["good_prior_regular"], r.Values["bad_prior_regular"])
	}
}

// TestUtilityQuick: the threshold eps* of the (scaled-down) sum query is
// checked with an independent dense solve of Phi z = 1 by gonum's LU:
// min z < 0 just below eps*, >= 0 just above.
func TestUtilityQuick(t *testing.T) {
	r, dir := result(t, "utility")
	minZ := func(eps float64) float64 {
		n := 30*5 + 1
		phi := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				d := math.Ceil(math.Abs(float64(i-j)) / 5)
				phi.Set(i, j, math.Exp(-eps*d))
			}
		}
		return mat.Min(solveOnes(t, phi))
	}
	es := r.Values["sum_eps_star"]
	if !(minZ(es-1e-3) < 0 && minZ(es+1e-3) >= 0) {
		t.Errorf("eps* = %v does not bracket the sign change: %v, %v", es, minZ(es-1e-3), minZ(es+1e-3))
	}
	if !(minZ(0.8) < 0) {
		t.Errorf("min z at the paper's 0.8 = %v", minZ(0.8))
	}
	near(t, "dense vs toeplitz min z", r.Values["sum_minz_paper_eps_dense"], r.Values["sum_minz_paper_eps_toeplitz"], 1e-8)
	if !(r.Values["sum_tight_utility_1.3"] > r.Values["sum_geometric_utility_1.3"]) || !(r.Values["2count_tight_utility_1.3"] > r.Values["2count_geometric_utility_1.3"]) {
		t.Errorf("tight should beat geometric at eps = 1.3: %v", r.Values)
	}
	rows := readCSV(t, filepath.Join(dir, "utility_sum.csv"))
	for _, row := range rows[1:] {
		if row[1] == "true" && !(atof(t, row[3]) > atof(t, row[4])) {
			t.Errorf("row %v: tight not above geometric", row)
		}
	}
}

// TestGeoQuick: on the 20x20 grid, mean(z) at eps = 1.3 equals the mean of
// an independent dense LU solve of Phi z = 1 (Euclidean Phi), and beats
// planar Laplace.
func TestGeoQuick(t *testing.T) {
	r, _ := result(t, "geo")
	side, eps := 20, 1.3
	n := side * side
	phi := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			dx, dy := float64(i%side-j%side), float64(i/side-j/side)
			phi.Set(i, j, math.Exp(-eps*math.Hypot(dx, dy)))
		}
	}
	near(t, "tight utility at 1.3", r.Values["tight_utility_eps1.3"], mat.Sum(solveOnes(t, phi))/float64(n), 1e-9)
	if !(r.Values["tight_utility_eps1.3"] > r.Values["planar_utility_eps1.3"]) {
		t.Errorf("tight %v <= planar %v", r.Values["tight_utility_eps1.3"], r.Values["planar_utility_eps1.3"])
	}
	if r.Values["check_max_abs_z_diff"] > 1e-7 {
		t.Errorf("dense and Toeplitz z differ by %v", r.Values["check_max_abs_z_diff"])
	}
}

// TestMatrixQuick: identity on all ranges of n = 32 has TSE
// 2·n(n+1)(n+2)/6 = 11968; Fig. 1's H and Y have sensitivity 3; the
// optimised strategy is never worse than the baselines.
func TestMatrixQuick(t *testing.T) {
	r, dir := result(t, "matrix")
	near(t, "identity TSE", r.Values["allrange_identity_tse"], 2*32*33*34/6.0, 1e-6)
	near(t, "D1(H)", r.Values["fig1_D1_H"], 3, 0)
	near(t, "D1(Y)", r.Values["fig1_D1_Y"], 3, 0)
	rows := readCSV(t, filepath.Join(dir, "matrix_tse.csv"))
	best := map[string]float64{}
	opt := map[string]float64{}
	for _, row := range rows[1:] {
		v := atof(t, row[3])
		if row[1] == "optimised (L-BFGS)" {
			opt[row[0]] = v
			continue
		}
		if b, ok := best[row[0]]; !ok || v < b {
			best[row[0]] = v
		}
	}
	if len(opt) != 4 {
		t.Errorf("optimised rows for %d workloads, want 4", len(opt))
	}
	for w, v := range opt {
		if v > best[w]*(1+1e-9) {
			t.Errorf("%s: optimised %v worse than best baseline %v", w, v, best[w])
		}
	}
}

// TestReportFiles: REPORT.md has every section, the machine header and the
// timings; every CSV parses with a constant width; every PNG decodes, is
// reasonably large and not blank; every plot has its SVG.
func TestReportFiles(t *testing.T) {
	rep, dir := quick(t)
	b, err := os.ReadFile(filepath.Join(dir, "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, want := range []string{"| machine |", "| Go |", "| backend |", "| date (UTC) |", "## Summary", "Discrepancies between the papers and optdp"} {
		if !strings.Contains(md, want) {
			t.Errorf("REPORT.md lacks %q", want)
		}
	}
	if rep.Failed != 0 {
		t.Errorf("%d experiments failed", rep.Failed)
	}
	for _, e := range Experiments() {
		if !strings.Contains(md, "\n## "+e.Name+"\n") {
			t.Errorf("REPORT.md lacks the section of %s", e.Name)
		}
	}
	for _, r := range rep.Results {
		if len(r.CSVs) == 0 || len(r.Plots) == 0 {
			t.Errorf("%s wrote %d CSVs and %d plots", r.Name, len(r.CSVs), len(r.Plots))
		}
		for _, c := range r.CSVs {
			rows := readCSV(t, filepath.Join(dir, c))
			for i, row := range rows {
				if len(row) != len(rows[0]) {
					t.Errorf("%s row %d has %d fields, header %d", c, i, len(row), len(rows[0]))
				}
			}
		}
		for _, p := range r.Plots {
			checkPNG(t, filepath.Join(dir, p))
			if _, err := os.Stat(filepath.Join(dir, strings.TrimSuffix(p, ".png")+".svg")); err != nil {
				t.Errorf("no SVG for %s: %v", p, err)
			}
		}
	}
}

func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	bd := img.Bounds()
	if bd.Dx() < 400 || bd.Dy() < 250 {
		t.Errorf("%s is only %dx%d", path, bd.Dx(), bd.Dy())
	}
	colours := map[[4]uint32]bool{}
	dark := 0
	for y := bd.Min.Y; y < bd.Max.Y; y += 2 {
		for x := bd.Min.X; x < bd.Max.X; x += 2 {
			r, g, b, a := img.At(x, y).RGBA()
			colours[[4]uint32{r >> 12, g >> 12, b >> 12, a >> 12}] = true
			if r+g+b < 3*0x8000 {
				dark++
			}
		}
	}
	if len(colours) < 4 || dark < 200 {
		t.Errorf("%s looks blank: %d colours, %d dark samples", path, len(colours), dark)
	}
}

// TestSelect: names select in report order; an unknown name is an error
// that lists the valid names.
func TestSelect(t *testing.T) {
	exps, err := Select([]string{"voters", "cities"})
	if err != nil || len(exps) != 2 || exps[0].Name != "cities" || exps[1].Name != "voters" {
		t.Fatalf("Select: %v %v", exps, err)
	}
	_, err = Select([]string{"nope"})
	if err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "cities") {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := Select([]string{" "}); err == nil {
		t.Error("blank name list accepted")
	}
	all, _ := Select(nil)
	if len(all) != len(Experiments()) {
		t.Errorf("Select(nil) = %d experiments", len(all))
	}
	for _, e := range all {
		if e.Name == "" || e.Title == "" || e.Paper == "" || e.Claim == "" || e.Run == nil {
			t.Errorf("experiment %+v incomplete", e)
		}
	}
}

// TestRunErrors: no directory, and a cancelled context.
func TestRunErrors(t *testing.T) {
	if _, err := Run(context.Background(), Experiments()[:1], &Config{}, nil); err == nil {
		t.Error("empty Dir accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, Experiments()[:1], &Config{Dir: t.TempDir()}, nil); err == nil {
		t.Error("cancelled context not reported")
	}
}

// TestFraction: the rational rendering used in the tables.
func TestFraction(t *testing.T) {
	for v, want := range map[float64]string{8.0 / 21: "8/21", 1.0 / 48: "1/48", 2.0 / 3: "2/3", 1: "1", 0.123456789: "0.1235"} {
		if got := fraction(v, 100); got != want {
			t.Errorf("fraction(%v) = %q, want %q", v, got, want)
		}
	}
}

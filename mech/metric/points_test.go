package metric

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/optdp/optdp/run"
)

// An irregular random point set (fixed seed): Dist is the Euclidean
// distance, symmetric, the rounding bound holds on every triple, and
// Locate agrees with a brute-force nearest point.
func TestPointsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	n := 60
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], y[i] = 50*rng.Float64()-25, 30*rng.NormFloat64()
	}
	p, err := Points(x, y)
	if err != nil {
		t.Fatal(err)
	}
	rb, ok := DistRounding(p)
	if !ok || !(rb.MinDist > 0) || rb.Defect <= 0 || rb.Defect > 1e-10 {
		t.Fatalf("rounding bound %+v, %v", rb, ok)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			want := math.Sqrt((x[i]-x[j])*(x[i]-x[j]) + (y[i]-y[j])*(y[i]-y[j]))
			if d := p.Dist(i, j); math.Abs(d-want) > 1e-14*want || d != p.Dist(j, i) || (i != j && d < rb.MinDist) {
				t.Fatalf("d(%d,%d) = %v, want %v", i, j, d, want)
			}
			for k := 0; k < n; k++ {
				if p.Dist(j, k)-p.Dist(i, k) > (1+rb.Defect)*p.Dist(i, j) {
					t.Fatalf("rounding bound broken at (%d,%d,%d)", i, j, k)
				}
			}
		}
	}
	for q := 0; q < 2000; q++ {
		a, b := 60*rng.Float64()-30, 80*rng.NormFloat64()
		got, ok := p.Locate(a, b, false)
		best, bestD := -1, math.Inf(1)
		for i := range x {
			if d := math.Hypot(x[i]-a, y[i]-b); d < bestD {
				best, bestD = i, d
			}
		}
		if !ok || math.Hypot(x[got]-a, y[got]-b) != bestD {
			t.Fatalf("Locate(%v, %v) = %d, want %d", a, b, got, best)
		}
	}
	if _, ok := p.Locate(1, 2, true); ok {
		t.Error("planar points located a lat/lon point")
	}
}

// vincentySphere is the great-circle angle by Vincenty's formula for the
// sphere (the special case of his ellipsoid formula), an independent check
// of the haversine form.
func vincentySphere(lat1, lon1, lat2, lon2 float64) float64 {
	r := math.Pi / 180
	p1, p2, dl := lat1*r, lat2*r, (lon2-lon1)*r
	a := math.Cos(p2) * math.Sin(dl)
	b := math.Cos(p1)*math.Sin(p2) - math.Sin(p1)*math.Cos(p2)*math.Cos(dl)
	c := math.Sin(p1)*math.Sin(p2) + math.Cos(p1)*math.Cos(p2)*math.Cos(dl)
	return math.Atan2(math.Hypot(a, b), c)
}

func TestHaversineCities(t *testing.T) {
	// Rosetta Code, "Haversine formula" (rosettacode.org/wiki/Haversine_formula):
	// Nashville BNA (36.12, -86.67) to Los Angeles LAX (33.94, -118.40) is
	// 2887.2599506071106 km on a sphere of radius 6372.8 km.
	if d := Haversine(36.12, -86.67, 33.94, -118.40) * 6372.8 / EarthRadiusKm; math.Abs(d-2887.2599506071106) > 1e-9 {
		t.Errorf("BNA-LAX = %.10f km at R = 6372.8, want 2887.2599506071106", d)
	}
	cities := [][2]float64{
		{51.5074, -0.1278},   // London
		{48.8566, 2.3522},    // Paris
		{40.7128, -74.0060},  // New York
		{-33.8688, 151.2093}, // Sydney
		{35.6762, 139.6503},  // Tokyo
		{-0.0001, 0},         // near the antipode of ...
		{0.0001, 180},        // ... this one
	}
	lat, lon := make([]float64, len(cities)), make([]float64, len(cities))
	for i, c := range cities {
		lat[i], lon[i] = c[0], c[1]
	}
	p, err := LatLon(lat, lon)
	if err != nil {
		t.Fatal(err)
	}
	for i := range cities {
		for j := range cities {
			want := EarthRadiusKm * vincentySphere(lat[i], lon[i], lat[j], lon[j])
			if d := p.Dist(i, j); math.Abs(d-want) > 1e-9*max(want, 1) || d != p.Dist(j, i) {
				t.Errorf("d(%v, %v) = %v km, Vincenty on the sphere %v", cities[i], cities[j], d, want)
			}
		}
	}
	if d := Haversine(0, 0, 0, 180); math.Abs(d-math.Pi*EarthRadiusKm) > 1e-9 {
		t.Errorf("antipodal distance %v, want pi·R = %v", d, math.Pi*EarthRadiusKm)
	}
	if rb, ok := DistRounding(p); !ok || !(rb.MinDist > 0) || !(rb.Defect > 0) {
		t.Errorf("latlon rounding bound %+v, %v", rb, ok)
	}
	if i, ok := p.Locate(49, 2.5, true); !ok || i != 1 {
		t.Errorf("Locate(49, 2.5) = %d, %v; want Paris (1)", i, ok)
	}
}

func TestPointsBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name    string
		geo     bool
		a, b    []float64
		wantMsg string
	}{
		{"coincide", false, []float64{0, 1, 0}, []float64{0, 1, 0}, "points 0 (0, 0) and 2 (0, 0) coincide"},
		{"nan", false, []float64{0, nan}, []float64{0, 1}, "point 1"},
		{"inf", false, []float64{0, 1}, []float64{inf, 1}, "point 0"},
		{"lat range", true, []float64{0, 91}, []float64{0, 1}, "latitude 91 is outside [-90, 90]"},
		{"lon range", true, []float64{0, 1}, []float64{-181, 1}, "longitude -181 is outside [-180, 180]"},
		{"antimeridian", true, []float64{10, 10}, []float64{-180, 180}, "coincide"},
		{"pole", true, []float64{90, 90, 0}, []float64{0, 45, 0}, "coincide"},
		{"lengths", false, []float64{0, 1}, []float64{0}, "2 first and 1 second"},
		{"empty", false, nil, nil, "0 points"},
	}
	for _, c := range cases {
		var err error
		if c.geo {
			_, err = LatLon(c.a, c.b)
		} else {
			_, err = Points(c.a, c.b)
		}
		if !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), c.wantMsg) {
			t.Errorf("%s: err = %v, want ErrBadInput containing %q", c.name, err, c.wantMsg)
		}
	}
}

// A small road graph against its hand-computed shortest-path table:
// edges 0-1 (2), 1-2 (3), 0-2 (10), 2-3 (1), 1-3 (7), 3-4 (4).
func TestRoadsHandTable(t *testing.T) {
	want := [5][5]float64{
		{0, 2, 5, 6, 10},
		{2, 0, 3, 4, 8},
		{5, 3, 0, 1, 5},
		{6, 4, 1, 0, 4},
		{10, 8, 5, 4, 0},
	}
	r, err := ReadRoads(strings.NewReader("from,to,km\n0,1,2\n1 2 3\n0\t2\t10\n2,3,1\n# a comment\n1,3,7\n3,4,4\n3,4,9\n"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		for j := range want {
			if d := r.Dist(i, j); d != want[i][j] {
				t.Errorf("d(%d,%d) = %v, want %v", i, j, d, want[i][j])
			}
		}
	}
	rb, ok := DistRounding(r)
	if !ok || rb.MinDist != 1 || rb.Defect <= 0 || rb.Defect > 1e-12 {
		t.Errorf("rounding bound %+v, %v", rb, ok)
	}
	// The roads that are shortest paths: 0-2 (10 > 5) and 1-3 (7 > 4)
	// are implied by shorter paths, the second 3-4 (9) by the first (4).
	edges, ok := r.PathEdges()
	if want := [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}}; !ok || !slices.Equal(edges, want) {
		t.Errorf("path edges %v (%v), want %v", edges, ok, want)
	}
	if _, ok := PathGraph(r).PathEdges(); !ok {
		t.Error("roads: no path edges")
	}
	rm, err := RepairMatrix([][]float64{{0, 1}, {1, 0}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := rm.PathEdges(); ok || e != nil {
		t.Errorf("a repaired matrix has path edges %v", e)
	}
}

func TestRoadsBadInput(t *testing.T) {
	cases := map[string]string{
		"0 1 1\n2 3 1\n":   "vertex 2 cannot be reached from vertex 0",
		"0 1 0\n":          "length \"0\" must be a finite number > 0",
		"0 1 NaN\n":        "must be a finite number > 0",
		"0 0 1\n":          "loop at vertex 0",
		"0 1\n":            "want \"u v w\"",
		"n 3\n0 1 1\n":     "vertex 2 cannot be reached",
		"0 99999999 1\n":   "above the limit",
		"a,b,c\nx,1,2\n":   "vertex indices must be integers",
		"# nothing here\n": "no edges",
	}
	for in, want := range cases {
		_, err := ReadRoads(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", in, err, want)
		}
	}
}

// A distance file written with six decimals (points 0, 1/3, 2/3 on a line)
// breaks the triangle inequality by 1e-6: refused with the repair named,
// accepted with it as the shortest-path closure.
func TestDistRepair(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(path, []byte("0,0.333333,0.666667\n0.333333,0,0.333333\n0.666667,0.333333,0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Parse("dist:file=" + path)
	if !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), "repair=1.5e-06") {
		t.Fatalf("err = %v, want the repair named", err)
	}
	if _, err := Parse("dist:file=" + path + ",repair=1e-7"); err == nil || !strings.Contains(err.Error(), "more than the tolerance 1e-07") {
		t.Fatalf("err = %v, want the tolerance exceeded", err)
	}
	m, err := Parse("dist:file=" + path + ",repair=1e-5")
	if err != nil {
		t.Fatal(err)
	}
	c := m.(*ClosureMetric)
	if d := m.Dist(0, 2); d != 0.333333+0.333333 || c.Lowered != 1 || m.Dist(2, 0) != d {
		t.Errorf("closure d(0,2) = %v (lowered %d), want 0.666666", d, c.Lowered)
	}
	if m.String() != "dist:file="+path+",repair=1e-05" {
		t.Errorf("String = %q", m)
	}
	if m2, err := Parse(m.String()); err != nil || m2.Dist(0, 2) != m.Dist(0, 2) {
		t.Errorf("String does not round-trip: %v", err)
	}
	if _, err := Parse("dist:file=" + path + ",repair=2"); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("repair=2: err = %v", err)
	}
}

func TestParsePointFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	xy := write("xy.csv", "id,y,x\na,0,0\nb,4,3\nc,0,3\n")
	m, err := Parse("points:file=" + xy)
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != 3 || m.Dist(0, 1) != 5 || m.String() != "points:file="+xy {
		t.Errorf("%v: n %d, d(0,1) = %v", m, m.Len(), m.Dist(0, 1))
	}
	two := write("two.csv", "51.5074 -0.1278\n48.8566 2.3522\n")
	if m, err := Parse("latlon:file=" + two); err != nil || math.Abs(m.Dist(0, 1)-343.5) > 1 {
		t.Errorf("latlon London-Paris: %v, %v", m, err)
	}
	bad := map[string]string{
		"latlon:file=" + xy: "must name the columns lat and lon",
		"latlon:file=" + write("r.csv", "lat,lon\n95,0\n"):    "latitude 95",
		"points:file=" + write("c.csv", "1,2\n1,2\n"):         "coincide",
		"points:file=" + write("s.csv", "x,y\n1,2,3\n"):       "3 fields, want 2",
		"points:file=" + write("e.csv", "# only a comment\n"): "no points",
		"roads:file=" + write("g.csv", "0,1,1\n2,3,1\n"):      "vertex 2 cannot be reached",
		"points:file=" + filepath.Join(dir, "missing.csv"):    "missing.csv",
	}
	for spec, want := range bad {
		_, err := Parse(spec)
		if !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want ErrBadInput with %q", spec, err, want)
		}
	}
}

package mech

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// geoGrid2x2 is a 2x2 grid on the box 10..12 N, 20..24 E: cells
// 0 = NW (lat 11..12, lon 20..22), 1 = NE, 2 = SW, 3 = SE.
func geoGrid2x2(t testing.TB) *metric.GridMetric {
	g, err := metric.GeoGrid(2, 2, metric.GeoBox{South: 10, West: 20, North: 12, East: 24}, 0, metric.Euclid)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestPriorFromPoints: counts by hand. Points: NW twice, SE once, one
// outside; with pseudo-count 1 the prior is (c+1)/(3+4).
func TestPriorFromPoints(t *testing.T) {
	g := geoGrid2x2(t)
	csv := "# a comment\nlat,lon\n11.5,20.5\n11.9, 21.9\n\n10.1,23.9\n9.5,21\n"
	res, err := PriorFromPoints(strings.NewReader(csv), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{2.0 / 3, 0, 0, 1.0 / 3}
	if res.Points != 4 || res.Inside != 3 || res.Outside != 1 {
		t.Errorf("counts %+v", res)
	}
	for i := range want {
		if !near(res.Prior[i], want[i], 1e-15) {
			t.Errorf("prior %v, want %v", res.Prior, want)
			break
		}
	}
	// lon,lat order and a pseudo-count.
	csv2 := "lon,lat\n20.5,11.5\n21.9,11.9\n23.9,10.1\n21,9.5\n"
	res2, err := PriorFromPoints(strings.NewReader(csv2), g, &MapPriorOptions{Pseudo: 1})
	if err != nil {
		t.Fatal(err)
	}
	want2 := []float64{3.0 / 7, 1.0 / 7, 1.0 / 7, 2.0 / 7}
	for i := range want2 {
		if !near(res2.Prior[i], want2[i], 1e-15) {
			t.Errorf("prior %v, want %v", res2.Prior, want2)
			break
		}
	}
	// Other separators, extra columns, weights and aliases: a check-in log
	// with a user and a time (with a blank inside), weights 2, 0.5, 3, 7.
	for _, log := range []string{
		"user;time;lng;lat;count\nu1;2010-10-19 23:55;20.5;11.5;2\nu2;t;20.7;11.2;0.5\nu1;t;23.9;10.1;3\nu3;t;21;9.5;7\n",
		"time\tLatitude\tLongitude\tweight\n2010-10-19 23:55\t11.5\t20.5\t2\nt\t11.2\t20.7\t0.5\nt\t10.1\t23.9\t3\nt\t9.5\t21\t7\n",
		"lat lon weight\n11.5 20.5 2\n11.2  20.7 0.5\n10.1 23.9 3\n9.5 21 7\n",
	} {
		res, err := PriorFromPoints(strings.NewReader(log), g, nil)
		if err != nil {
			t.Fatalf("%q: %v", log, err)
		}
		want := []float64{2.5 / 5.5, 0, 0, 3 / 5.5}
		if res.Points != 4 || res.Outside != 1 {
			t.Errorf("%q: counts %+v", log, res)
		}
		for i := range want {
			if !near(res.Prior[i], want[i], 1e-15) {
				t.Errorf("%q: prior %v, want %v", log, res.Prior, want)
				break
			}
		}
	}
	// x,y in km on a plain grid of step 0.5: (0.2,0.1) -> cell 0,
	// (1.2, 0.7) -> row 1 col 2 = 5.
	plain, _ := metric.Grid(3, 2, 0.5, metric.Euclid)
	res3, err := PriorFromPoints(strings.NewReader("x,y\n0.2,0.1\n1.2,0.7\n1.2,0.7\n"), plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res3.Prior[0] != 1.0/3 || res3.Prior[5] != 2.0/3 {
		t.Errorf("x,y prior %v", res3.Prior)
	}
}

// TestPriorFromRaster: weights normalised by hand, with and without a
// pseudo-count.
func TestPriorFromRaster(t *testing.T) {
	g, _ := metric.Grid(3, 2, 1, metric.Euclid)
	p, err := PriorFromRaster(strings.NewReader("# weights\n1,0,3\n\n0 4\t0\n"), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.125, 0, 0.375, 0, 0.5, 0}
	for i := range want {
		if p[i] != want[i] {
			t.Fatalf("prior %v, want %v", p, want)
		}
	}
	p, _ = PriorFromRaster(strings.NewReader("1,0,3\n0,4,0\n"), g, &MapPriorOptions{Pseudo: 0.5})
	want = []float64{1.5 / 11, 0.5 / 11, 3.5 / 11, 0.5 / 11, 4.5 / 11, 0.5 / 11}
	for i := range want {
		if !near(p[i], want[i], 1e-15) {
			t.Fatalf("prior %v, want %v", p, want)
		}
	}
}

// TestMapPriorBadInput: every malformed input is an error of the right
// kind, never a panic or a silent prior.
func TestMapPriorBadInput(t *testing.T) {
	g := geoGrid2x2(t)
	plain, _ := metric.Grid(3, 2, 1, metric.Euclid)
	bad := []struct {
		name string
		err  error
		f    func() error
	}{
		{"no header", run.ErrBadInput, func() error { _, err := PriorFromPoints(strings.NewReader("11,21\n"), g, nil); return err }},
		{"empty", run.ErrBadInput, func() error { _, err := PriorFromPoints(strings.NewReader(""), g, nil); return err }},
		{"three fields", run.ErrBadInput, func() error { _, err := PriorFromPoints(strings.NewReader("lat,lon\n1,2,3\n"), g, nil); return err }},
		{"mixed separators", run.ErrBadInput, func() error { _, err := PriorFromPoints(strings.NewReader("lat,lon\n11;21\n"), g, nil); return err }},
		{"duplicate column", run.ErrBadInput, func() error {
			_, err := PriorFromPoints(strings.NewReader("lat,lon,lng\n11,21,21\n"), g, nil)
			return err
		}},
		{"ambiguous columns", run.ErrBadInput, func() error {
			_, err := PriorFromPoints(strings.NewReader("lat,lon,x,y\n11,21,1,1\n"), g, nil)
			return err
		}},
		{"negative weight", run.ErrBadInput, func() error {
			_, err := PriorFromPoints(strings.NewReader("lat,lon,weight\n11,21,-1\n"), g, nil)
			return err
		}},
		{"no coordinate columns", run.ErrBadInput, func() error { _, err := PriorFromPoints(strings.NewReader("a,b\n11,21\n"), g, nil); return err }},
		{"NaN", run.ErrBadInput, func() error { _, err := PriorFromPoints(strings.NewReader("lat,lon\nNaN,21\n"), g, nil); return err }},
		{"lat/lon on a plain grid", run.ErrBadInput, func() error {
			_, err := PriorFromPoints(strings.NewReader("lat,lon\n1,2\n"), plain, nil)
			return err
		}},
		{"all outside", run.ErrBadInput, func() error { _, err := PriorFromPoints(strings.NewReader("lat,lon\n0,0\n"), g, nil); return err }},
		{"negative pseudo", run.ErrBadInput, func() error {
			_, err := PriorFromPoints(strings.NewReader("lat,lon\n11,21\n"), g, &MapPriorOptions{Pseudo: -1})
			return err
		}},
		{"too long", run.ErrTooLarge, func() error {
			_, err := PriorFromPoints(strings.NewReader("lat,lon\n"+strings.Repeat("11,21\n", 100)), g, &MapPriorOptions{MaxBytes: 64})
			return err
		}},
		{"long line", run.ErrBadInput, func() error {
			_, err := PriorFromPoints(strings.NewReader("lat,lon\n"+strings.Repeat("1", 2<<20)+"\n"), g, nil)
			return err
		}},
		{"raster short row", run.ErrBadInput, func() error { _, err := PriorFromRaster(strings.NewReader("1,2\n3,4,5\n"), plain, nil); return err }},
		{"raster extra row", run.ErrBadInput, func() error {
			_, err := PriorFromRaster(strings.NewReader("1,2,3\n3,4,5\n1,1,1\n"), plain, nil)
			return err
		}},
		{"raster missing row", run.ErrBadInput, func() error { _, err := PriorFromRaster(strings.NewReader("1,2,3\n"), plain, nil); return err }},
		{"raster negative", run.ErrBadInput, func() error {
			_, err := PriorFromRaster(strings.NewReader("1,2,3\n3,-4,5\n"), plain, nil)
			return err
		}},
		{"raster zero", run.ErrBadInput, func() error { _, err := PriorFromRaster(strings.NewReader("0,0,0\n0,0,0\n"), plain, nil); return err }},
		{"raster overflow", run.ErrBadInput, func() error {
			_, err := PriorFromRaster(strings.NewReader("1e308,1e308,1e308\n1,1,1\n"), plain, nil)
			return err
		}},
		{"huge grid", run.ErrTooLarge, func() error {
			huge, _ := metric.Grid(1<<15, 1<<15, 1, metric.Euclid)
			_, err := PriorFromRaster(strings.NewReader("1\n"), huge, nil)
			return err
		}},
	}
	for _, tc := range bad {
		if err := tc.f(); !errors.Is(err, tc.err) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.err)
		}
	}
}

// checkMapPrior is the fuzz tests' property: an accepted prior is a
// distribution on the grid's cells.
func checkMapPrior(t *testing.T, p []float64, n int) {
	if err := ValidatePrior(p, n); err != nil {
		t.Fatalf("accepted prior is not a distribution: %v", err)
	}
	for _, v := range p {
		if math.IsNaN(v) {
			t.Fatal("NaN in prior")
		}
	}
}

// FuzzPriorFromPoints: no panic, no hang, and an accepted input gives a
// distribution whose counts add up.
func FuzzPriorFromPoints(f *testing.F) {
	g := geoGrid2x2(f)
	plain, _ := metric.Grid(3, 2, 0.5, metric.Euclid)
	f.Fuzz(func(t *testing.T, data string, pseudo float64) {
		for _, grid := range []*metric.GridMetric{g, plain} {
			res, err := PriorFromPoints(strings.NewReader(data), grid, &MapPriorOptions{Pseudo: pseudo, MaxBytes: 1 << 16})
			if err != nil {
				continue
			}
			if res.Inside+res.Outside != res.Points {
				t.Fatalf("counts %+v", res)
			}
			checkMapPrior(t, res.Prior, grid.Len())
		}
	})
}

// FuzzPriorFromRaster: no panic, no hang, an accepted raster gives a
// distribution.
func FuzzPriorFromRaster(f *testing.F) {
	plain, _ := metric.Grid(3, 2, 1, metric.Euclid)
	f.Fuzz(func(t *testing.T, data string, pseudo float64) {
		p, err := PriorFromRaster(strings.NewReader(data), plain, &MapPriorOptions{Pseudo: pseudo, MaxBytes: 1 << 16})
		if err != nil {
			return
		}
		checkMapPrior(t, p, plain.Len())
	})
}

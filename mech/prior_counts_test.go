package mech

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

func TestPriorFromCounts(t *testing.T) {
	p, err := PriorFromCounts(strings.NewReader("# visits\n3, 0\n1\n"), 3, &MapPriorOptions{Pseudo: 1})
	if err != nil {
		t.Fatal(err)
	}
	// (3+1, 0+1, 1+1) / 7
	for i, w := range []float64{4.0 / 7, 1.0 / 7, 2.0 / 7} {
		if math.Abs(p[i]-w) > 1e-15 {
			t.Errorf("prior[%d] = %v, want %v", i, p[i], w)
		}
	}
	bad := map[string]string{
		"1 2":     "2 counts, want n = 3",
		"1 2 3 4": "more than n = 3 counts",
		"1 -2 3":  `"-2" is not a finite count`,
		"1 NaN 3": "not a finite count",
		"0 0 0":   "total weight is 0",
	}
	for in, want := range bad {
		if _, err := PriorFromCounts(strings.NewReader(in), 3, nil); !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want ErrBadInput with %q", in, err, want)
		}
	}
}

// Visit records snapped to the nearest location of point sets: planar and
// lat/lon; records of the other kind are refused.
func TestPriorFromPointsSnapped(t *testing.T) {
	m, err := metric.Points([]float64{0, 10, 0}, []float64{0, 0, 10})
	if err != nil {
		t.Fatal(err)
	}
	res, err := PriorFromPoints(strings.NewReader("x,y,who\n1,1,a\n9,-3,b\n8,1,c\n-50,-50,d\n"), m, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.5, 0.5, 0}
	for i := range want {
		if res.Prior[i] != want[i] {
			t.Errorf("prior = %v, want %v", res.Prior, want)
			break
		}
	}
	if res.Points != 4 || res.Inside != 4 {
		t.Errorf("points %d inside %d", res.Points, res.Inside)
	}
	if _, err := PriorFromPoints(strings.NewReader("lat,lon\n1,1\n"), m, nil); !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), "latlon:file=") {
		t.Errorf("lat/lon records on planar points: %v", err)
	}
	ll, err := metric.LatLon([]float64{51.5074, 48.8566}, []float64{-0.1278, 2.3522})
	if err != nil {
		t.Fatal(err)
	}
	res, err = PriorFromPoints(strings.NewReader("lon;lat;weight\n2.29;48.86;3\n-0.1;51.5;1\n"), ll, nil)
	if err != nil || res.Prior[0] != 0.25 || res.Prior[1] != 0.75 {
		t.Errorf("lat/lon prior %v, %v", res, err)
	}
}

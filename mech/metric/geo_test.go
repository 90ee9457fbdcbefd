package metric

import (
	"math"
	"strings"
	"testing"
)

// TestGeoCellKm: the cell sizes agree to 1e-4 with the WGS84 lengths of a degree published in geodesy tables (one degree of latitude
// is 110.574 km at the equator and 111.132 km at 45°; one degree of
// longitude is 111.320 km at the equator, 78.847 km at 45° and 55.800 km at
// 60°).
func TestGeoCellKm(t *testing.T) {
	cases := []struct {
		box          GeoBox
		lonKm, latKm float64 // the table's km per degree at the poleward edge
	}{
		{GeoBox{-0.001, 10, 0, 11}, 111.320, 110.574},
		{GeoBox{44.999, 10, 45, 11}, 78.847, 111.132},
		{GeoBox{59.999, 10, 60, 11}, 55.800, 111.412},
		{GeoBox{-60, 10, -59.999, 11}, 55.800, 111.412},
	}
	for _, tc := range cases {
		w, h := 7, 3
		cw, ch := tc.box.CellKm(w, h)
		wantW := tc.lonKm * (tc.box.East - tc.box.West) / float64(w)
		wantH := tc.latKm * (tc.box.North - tc.box.South) / float64(h)
		if cw > wantW*(1+1e-4) || cw < wantW*(1-1e-4) {
			t.Errorf("%v: cell width %v km, table %v km", tc.box, cw, wantW)
		}
		if ch > wantH*(1+1e-4) || ch < wantH*(1-1e-4) {
			t.Errorf("%v: cell height %v km, table %v km", tc.box, ch, wantH)
		}
	}
}

// TestGeoGridSpec: a bbox spec parses, computes the step as the smaller cell
// side, prints itself and parses back to the same grid; a larger step is
// refused, a smaller one kept.
func TestGeoGridSpec(t *testing.T) {
	m, err := Parse("grid:w=10,h=8,bbox=48.8,2.25,48.9,2.42,norm=manhattan")
	if err != nil {
		t.Fatal(err)
	}
	g := m.(*GridMetric)
	b, ok := g.Box()
	if !ok || b != (GeoBox{48.8, 2.25, 48.9, 2.42}) {
		t.Fatalf("box %v, %v", b, ok)
	}
	// Height: 0.1°/8 of latitude at >= 110.574 km; width 0.017° of
	// longitude at 48.9°, 1.2464 km on WGS84 (73.318 km per degree there):
	// the height (about 1.382 km) is larger, so the step is the width.
	cw, ch := b.CellKm(10, 8)
	if g.Step() != math.Min(cw, ch) || !(cw < ch) || math.Abs(cw-1.2464) > 1e-4 {
		t.Errorf("step %v, cells %v x %v km", g.Step(), cw, ch)
	}
	m2, err := Parse(g.String())
	if err != nil || m2.String() != g.String() {
		t.Fatalf("round trip %q -> %v, %v", g.String(), m2, err)
	}
	if _, err := Parse("grid:w=10,h=8,step=2,bbox=48.8,2.25,48.9,2.42"); err == nil || !strings.Contains(err.Error(), "overstate") {
		t.Errorf("a step above the cells: %v", err)
	}
	if m3, err := Parse("grid:w=10,h=8,step=1,bbox=48.8,2.25,48.9,2.42"); err != nil || m3.(*GridMetric).Step() != 1 {
		t.Errorf("a smaller step: %v, %v", m3, err)
	}
	for _, bad := range []string{
		"grid:w=10,h=8,bbox=48.9,2.25,48.8,2.42",
		"grid:w=10,h=8,bbox=48.8,2.25,48.9",
		"grid:w=10,h=8,bbox=48.8,2.25,48.9,2.42,7",
		"grid:w=10,h=8,bbox=a,b,c,d",
		"grid:w=10,h=8,bbox=89.95,0,89.99,1",
		"grid:w=10,h=8,bbox=0,170,1,190",
	} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestCellOf: corners and edges of the box and of the km grid.
func TestCellOf(t *testing.T) {
	g, err := GeoGrid(4, 2, GeoBox{10, 20, 12, 24}, 0, Euclid)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		lat, lon float64
		want     int
		ok       bool
	}{
		{12, 20, 0, true},      // north-west corner: row 0, col 0
		{10, 24, 7, true},      // south-east corner: last cell
		{11.5, 21.5, 1, true},  // row 0, col 1
		{10.5, 20.01, 4, true}, // row 1, col 0
		{9.99, 21, 0, false},
		{11, 24.01, 0, false},
		{math.NaN(), 21, 0, false},
	}
	for _, tc := range cases {
		i, ok := g.CellOfLatLon(tc.lat, tc.lon)
		if ok != tc.ok || (ok && i != tc.want) {
			t.Errorf("CellOfLatLon(%v, %v) = %d, %v; want %d, %v", tc.lat, tc.lon, i, ok, tc.want, tc.ok)
		}
	}
	plain, _ := Grid(3, 2, 0.5, Euclid)
	if _, ok := plain.CellOfLatLon(0, 0); ok {
		t.Error("a grid without a box located a lat/lon point")
	}
	for _, tc := range []struct {
		x, y float64
		want int
		ok   bool
	}{{0, 0, 0, true}, {1.49, 0.99, 5, true}, {1.5, 0, 0, false}, {0, 1, 0, false}, {-0.01, 0, 0, false}, {math.Inf(1), 0, 0, false}} {
		i, ok := plain.CellOfXY(tc.x, tc.y)
		if ok != tc.ok || (ok && i != tc.want) {
			t.Errorf("CellOfXY(%v, %v) = %d, %v; want %d, %v", tc.x, tc.y, i, ok, tc.want, tc.ok)
		}
	}
}

// FuzzParseGeoBox: no panic; an accepted box is valid and prints to a
// string that parses back to it.
func FuzzParseGeoBox(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseGeoBox(s)
		if err != nil {
			return
		}
		if err := b.Validate(); err != nil {
			t.Fatalf("accepted %q but invalid: %v", s, err)
		}
		b2, err := ParseGeoBox(b.String())
		if err != nil || b2 != b {
			t.Fatalf("%q: round trip %v -> %v, %v", s, b, b2, err)
		}
		if g, err := GeoGrid(3, 2, b, 0, Euclid); err == nil && !(g.Step() > 0) {
			t.Fatalf("%q: step %v", s, g.Step())
		}
	})
}

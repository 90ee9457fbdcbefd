package metric

import (
	"bytes"
	"math"
	"testing"
)

// FuzzReadPoints: any input is either refused with an error or gives a
// metric of at least one point, distinct and finite, whose distances are metric axioms'
// (checked on a few answers), planar or great-circle.
func FuzzReadPoints(f *testing.F) {
	for _, s := range []string{"x,y\n0,0\n1,0\n0,1\n", "lat,lon\n48.85,2.35\n51.5,-0.12\n", "0 0\n3 4\n", "x,y\n0,0\n0,0\n",
		"lat,lon\n91,0\n0,0\n", "x,y\nNaN,1\n2,2\n", "x,y,w\n1,2,3\n4,5,6\n", "\x00", "x\n1\n", "lat,lon\n90,0\n90,180\n"} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, geo bool) {
		p, err := ReadPoints(bytes.NewReader(data), geo)
		if err != nil {
			return
		}
		n := p.Len()
		if n < 1 {
			t.Fatalf("accepted %d points", n)
		}
		for i := 0; i < n && i < 8; i++ {
			a, b, g := p.Place(i)
			if g != geo || math.IsNaN(a) || math.IsInf(a, 0) || math.IsNaN(b) || math.IsInf(b, 0) {
				t.Fatalf("point %d = (%v, %v), geo %v", i, a, b, g)
			}
		}
		checkMetricAxioms(t, p, 8)
	})
}

// FuzzReadRoads: any input is either refused or gives a connected road
// metric whose distances satisfy the metric axioms, and every edge's
// distance is at most its weight (a shortest path is no longer than one of
// its candidates).
func FuzzReadRoads(f *testing.F) {
	for _, s := range []string{"u,v,w\n0,1,1.5\n1,2,2\n", "0 1 1\n1 2 1\n2 0 5\n", "0,1,0\n", "0,1,1\n2,3,1\n", "0,0,1\n",
		"0,1,-1\n", "0,1,NaN\n", "0,1,1e308\n1,2,1e308\n", "\x00", "u,v,w\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadRoads(bytes.NewReader(data))
		if err != nil {
			return
		}
		if m.Len() < 1 || m.Len() > MaxGraphVertices {
			t.Fatalf("accepted %d vertices", m.Len())
		}
		if m.Len() > 64 {
			return
		}
		checkMetricAxioms(t, m, 16)
		for i := range m.Len() {
			for j := range m.Len() {
				if d := m.Dist(i, j); math.IsInf(d, 0) || math.IsNaN(d) {
					t.Fatalf("d(%d,%d) = %v in an accepted (connected) road graph", i, j, d)
				}
			}
		}
	})
}

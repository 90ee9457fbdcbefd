package metric

import "testing"

// TestSymmetriesAreIsometries: every generator a metric lists is a
// permutation of its points preserving every distance exactly.
func TestSymmetriesAreIsometries(t *testing.T) {
	var ms []Symmetric
	var want []int // generators
	for _, norm := range []Norm{Euclid, Manhattan, Chebyshev} {
		for _, wh := range [][3]int{{4, 4, 3}, {5, 3, 2}, {1, 6, 2}} {
			g, err := Grid(wh[0], wh[1], 0.7, norm)
			if err != nil {
				t.Fatal(err)
			}
			ms, want = append(ms, g), append(want, wh[2])
		}
	}
	l, _ := Line(7)
	r9, _ := Ring(9)
	r600, _ := Ring(600)
	ms, want = append(ms, l, r9, r600), append(want, 1, 2, 1)
	for c, m := range ms {
		gens := m.Symmetries()
		n := m.Len()
		if len(gens) != want[c] {
			t.Errorf("%s: %d generators, want %d", m, len(gens), want[c])
		}
		for _, g := range gens {
			if len(g) != n {
				t.Fatalf("%s: generator of length %d", m, len(g))
			}
			seen := make([]bool, n)
			for _, v := range g {
				if v < 0 || v >= n || seen[v] {
					t.Fatalf("%s: not a permutation", m)
				}
				seen[v] = true
			}
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					if a, b := m.Dist(g[i], g[j]), m.Dist(i, j); a != b {
						t.Fatalf("%s: d(g%d, g%d) = %v, d(%d, %d) = %v", m, i, j, a, i, j, b)
					}
				}
			}
		}
	}
}

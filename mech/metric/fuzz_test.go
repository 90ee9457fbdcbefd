package metric

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// checkMetricAxioms checks, on the answers 0..min(n,k)-1 and the last one,
// that d is a metric as the Metric contract says: d(i,i) = 0, d(i,j) =
// d(j,i) > 0 for i != j (+Inf allowed: disconnected), and the triangle
// inequality up to TriangleTol.
func checkMetricAxioms(t *testing.T, m Metric, k int) {
	t.Helper()
	n := m.Len()
	if n < 1 {
		t.Fatalf("%s: Len = %d", m, n)
	}
	idx := []int{}
	for i := 0; i < n && i < k; i++ {
		idx = append(idx, i)
	}
	if n > k {
		idx = append(idx, n-1, n/2)
	}
	for _, i := range idx {
		if d := m.Dist(i, i); d != 0 {
			t.Fatalf("%s: d(%d,%d) = %v", m, i, i, d)
		}
		for _, j := range idx {
			dij, dji := m.Dist(i, j), m.Dist(j, i)
			if dij != dji || math.IsNaN(dij) || (i != j && !(dij > 0)) {
				t.Fatalf("%s: d(%d,%d) = %v, d(%d,%d) = %v", m, i, j, dij, j, i, dji)
			}
			for _, h := range idx {
				if dij > (m.Dist(i, h)+m.Dist(h, j))*(1+TriangleTol) {
					t.Fatalf("%s: triangle fails at (%d,%d,%d)", m, i, j, h)
				}
			}
		}
	}
}

// FuzzParse: metric.Parse never panics; what it accepts is a metric (the
// axioms on a sample of answers) whose String parses back to the same
// spec. File kinds are left to FuzzReadEdgeList and FuzzReadDistCSV (a
// fuzzed path could name any file).
func FuzzParse(f *testing.F) {
	for _, s := range []string{"line:n=5", "ring:n=9007199254740992", "clique:n=2147483648", "sum:u=3,v=2",
		"kcount:u=2,k=3", "hamming:u=3,v=3", "grid:w=3,h=2,step=0.5,norm=manhattan", "grid:w=2,h=2,norm=chebyshev",
		"line:n=0", "line:n=4,n=5", "kcount:u=1,k=100", "grid:w=3,h=3,step=NaN", "nosuch:n=1", "line", ":", "",
		"sum:u=4294967296,v=4294967296", "hamming:u=53,v=2", " line : n = 3 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		if strings.Contains(spec, "file") {
			return
		}
		m, err := Parse(spec)
		if err != nil {
			if m != nil {
				t.Fatalf("Parse(%q) returned a metric and an error", spec)
			}
			return
		}
		checkMetricAxioms(t, m, 6)
		m2, err := Parse(m.String())
		if err != nil || m2.String() != m.String() || m2.Len() != m.Len() {
			t.Fatalf("Parse(%q).String() = %q does not parse back: %v", spec, m.String(), err)
		}
	})
}

// FuzzReadEdgeList: ReadEdgeList never panics; an accepted graph has at
// most MaxGraphVertices vertices and, when small, the distances
// Floyd–Warshall computes from its edges.
func FuzzReadEdgeList(f *testing.F) {
	for _, s := range []string{"0 1\n1 2\n", "n 5\n0 1\n", "# c\n% c\n0,1\n1\t2\n", "n=3\n", "n 2000000000\n0 1\n",
		"90700070 0", "0 0\n", "0 -1\n", "n 2\nn 3\n", "99999999999999999999 1\n", "\x00\x00", "0 1 2\n", "n 4194305\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ReadEdgeList(bytes.NewReader(data))
		if err != nil {
			return
		}
		n := g.Len()
		if n < 1 || n > MaxGraphVertices {
			t.Fatalf("accepted a graph of %d vertices", n)
		}
		if n > 64 {
			return // distances of large graphs: one BFS each, not fuzzed
		}
		// Floyd–Warshall on the edge set: an independent all-pairs
		// computation of the BFS distances.
		inf := math.Inf(1)
		fw := make([][]float64, n)
		for i := range fw {
			fw[i] = make([]float64, n)
			for j := range fw[i] {
				if i != j {
					fw[i][j] = inf
				}
			}
		}
		for i, j := range g.Edges() {
			if !(i < j) {
				t.Fatalf("edge (%d,%d) not ordered", i, j)
			}
			fw[i][j], fw[j][i] = 1, 1
		}
		for k := range n {
			for i := range n {
				for j := range n {
					fw[i][j] = min(fw[i][j], fw[i][k]+fw[k][j])
				}
			}
		}
		for i := range n {
			for j := range n {
				if g.Dist(i, j) != fw[i][j] {
					t.Fatalf("d(%d,%d) = %v, Floyd–Warshall gives %v", i, j, g.Dist(i, j), fw[i][j])
				}
			}
		}
		checkMetricAxioms(t, g, 64)
	})
}

// FuzzReadDistCSV: ReadDistCSV never panics; an accepted matrix is a
// metric (checked here independently of NewMatrix's own validation).
func FuzzReadDistCSV(f *testing.F) {
	for _, s := range []string{"0,1\n1,0\n", "0,1,2\n1,0,1\n2,1,0\n", "# c\n0, inf\ninf, 0\n", ",\n,\n,\n", "0,\"1\n",
		"0,1\n1,0,3\n", "1,1\n1,1\n", "0,NaN\nNaN,0\n", "0,1,9\n1,0,1\n9,1,0\n", "0\n", "\x00", "0;1\n1;0\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadDistCSV(bytes.NewReader(data))
		if err != nil {
			return
		}
		if m.Len() > MaxMatrixAnswers {
			t.Fatalf("accepted %d answers", m.Len())
		}
		checkMetricAxioms(t, m, 64)
	})
}

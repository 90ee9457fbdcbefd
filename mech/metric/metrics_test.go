package metric

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// graphOf rebuilds a Graph metric from its own edges; BFS distances on it
// must equal the metric's closed-form Dist.
func graphOf(t *testing.T, g Graph) *GraphMetric {
	t.Helper()
	var e [][2]int
	for i, j := range g.Edges() {
		if i >= j {
			t.Fatalf("%s: edge (%d,%d) not i<j", g, i, j)
		}
		e = append(e, [2]int{i, j})
	}
	gm, err := NewGraph(g.Len(), e)
	if err != nil {
		t.Fatal(err)
	}
	if gm.NumEdges() != len(e) {
		t.Fatalf("%s: duplicate edges (%d distinct of %d)", g, gm.NumEdges(), len(e))
	}
	return gm
}

func TestGraphMetricsClosedFormsMatchBFS(t *testing.T) {
	var ms []Graph
	for _, n := range []int{1, 2, 7} {
		l, _ := Line(n)
		ms = append(ms, l)
	}
	for _, n := range []int{1, 2, 3, 7, 8} {
		r, _ := Ring(n)
		c, _ := Clique(n)
		ms = append(ms, r, c)
	}
	s1, _ := Sum(4, 3)
	s2, _ := Sum(1, 1)
	k1, _ := KCount(3, 2)
	k2, _ := KCount(2, 3)
	h1, _ := Hamming(3, 3)
	h2, _ := Hamming(2, 4)
	ms = append(ms, s1, s2, k1, k2, h1, h2)
	for _, m := range ms {
		g := graphOf(t, m)
		n := m.Len()
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if g.Dist(i, j) != m.Dist(i, j) {
					t.Fatalf("%s: d(%d,%d) = %v, BFS %v", m, i, j, m.Dist(i, j), g.Dist(i, j))
				}
			}
		}
		if b, ok := m.(BallSymmetric); ok {
			want := g.BallSizes()
			if got := b.BallSizes(); !slices.Equal(got, want) {
				t.Errorf("%s: ball sizes %v, BFS %v", m, got, want)
			}
		}
	}
	// Hand-computed values.
	s, _ := Sum(150, 5)
	k, _ := KCount(30, 2)
	h, _ := Hamming(4, 3)
	r, _ := Ring(10)
	for _, c := range []struct {
		m    Metric
		i, j int
		want float64
	}{
		{s, 0, 750, 150}, {s, 3, 9, 2}, {s, 3, 8, 1}, {s, 751 - 1, 744, 2},
		{k, 0, 31*31 - 1, 30}, {k, 31*2 + 5, 31*7 + 4, 5},
		{h, 0, 80, 4}, {h, 1*27 + 2*9 + 0*3 + 1, 1*27 + 0*9 + 0*3 + 2, 2},
		{r, 1, 9, 2}, {r, 0, 5, 5},
	} {
		if got := c.m.Dist(c.i, c.j); got != c.want {
			t.Errorf("%s: d(%d,%d) = %v, want %v", c.m, c.i, c.j, got, c.want)
		}
	}
	// Ball sizes of non-graph-built metrics.
	if got := h.BallSizes(); !slices.Equal(got, []int{1, 8, 24, 32, 16}) {
		t.Errorf("hamming 3^4 ball sizes %v", got)
	}
	if got := r.BallSizes(); !slices.Equal(got, []int{1, 2, 2, 2, 2, 1}) {
		t.Errorf("ring 10 ball sizes %v", got)
	}
}

func TestGraphMetric(t *testing.T) {
	// Two components: 0-1-2 and 3-4; duplicates merged.
	g, err := NewGraph(5, [][2]int{{0, 1}, {1, 2}, {2, 1}, {3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	if g.NumEdges() != 3 || g.Dist(0, 2) != 2 || !math.IsInf(g.Dist(0, 4), 1) || g.Dist(4, 3) != 1 {
		t.Errorf("edges %d d(0,2)=%v d(0,4)=%v", g.NumEdges(), g.Dist(0, 2), g.Dist(0, 4))
	}
	if g.BallSizes() != nil {
		t.Error("disconnected graph reported ball-symmetric")
	}
	l, _ := Line(5)
	if graphOf(t, l).BallSizes() != nil {
		t.Error("a path reported ball-symmetric")
	}
	// Phi of a disconnected graph is 0 across components.
	p, _ := Phi(g, 1)
	if p.At(0, 4) != 0 || p.At(0, 1) != math.Exp(-1) {
		t.Errorf("phi %v %v", p.At(0, 4), p.At(0, 1))
	}
	for _, bad := range []struct {
		n int
		e [][2]int
	}{{0, nil}, {3, [][2]int{{0, 3}}}, {3, [][2]int{{1, 1}}}, {3, [][2]int{{-1, 2}}}} {
		if _, err := NewGraph(bad.n, bad.e); err == nil {
			t.Errorf("NewGraph(%d, %v) accepted", bad.n, bad.e)
		}
	}
}

// A path too long for the all-pairs table (n² · 2 bytes > 1 GiB) answers by
// per-source BFS.
func TestGraphMetricNoTable(t *testing.T) {
	n := 23200
	e := make([][2]int, n-1)
	for i := range e {
		e[i] = [2]int{i, i + 1}
	}
	g, _ := NewGraph(n, e)
	if g.Dist(0, n-1) != float64(n-1) || g.Dist(n-1, 5) != float64(n-6) || g.Dist(17, 17) != 0 {
		t.Errorf("long path distances %v %v", g.Dist(0, n-1), g.Dist(n-1, 5))
	}
	if g.table16 != nil || g.table32 != nil {
		t.Error("table built above MaxGraphTableBytes")
	}
}

func TestReadEdgeList(t *testing.T) {
	g, err := ReadEdgeList(strings.NewReader("# a square\n0 1\n1,2\n2\t3\n\n3 0\n% comment\n"))
	if err != nil {
		t.Fatal(err)
	}
	if g.Len() != 4 || g.Dist(0, 2) != 2 || !slices.Equal(g.BallSizes(), []int{1, 2, 1}) {
		t.Errorf("square: n %d d(0,2) %v", g.Len(), g.Dist(0, 2))
	}
	g, err = ReadEdgeList(strings.NewReader("n 5\n0 1\n"))
	if err != nil || g.Len() != 5 || !math.IsInf(g.Dist(0, 4), 1) {
		t.Errorf("declared n: %v %v", g, err)
	}
	for _, bad := range []string{"0 1 2\n", "0 x\n", "-1 2\n", "n 2\n0 5\n", "", "0 0\n"} {
		if _, err := ReadEdgeList(strings.NewReader(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	_, err = ReadEdgeList(strings.NewReader("0 1\n1 2\nfoo bar\n"))
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("error should name line 3: %v", err)
	}
}

func TestMatrixMetric(t *testing.T) {
	d := [][]float64{{0, 1, 2}, {1, 0, 1.5}, {2, 1.5, 0}}
	m, err := NewMatrix(d)
	if err != nil || m.Dist(2, 1) != 1.5 || m.Len() != 3 {
		t.Fatalf("%v %v", m, err)
	}
	d[0][1] = 99 // copied, not retained
	if m.Dist(0, 1) != 1 {
		t.Error("NewMatrix retained its argument")
	}
	for _, c := range []struct {
		d    [][]float64
		want string
	}{
		{[][]float64{{0, 1}, {1}}, "square"},
		{[][]float64{{0, 1}, {2, 0}}, "not symmetric"},
		{[][]float64{{1, 1}, {1, 0}}, "diagonal"},
		{[][]float64{{0, 0}, {0, 0}}, "positive"},
		{[][]float64{{0, -1}, {-1, 0}}, "positive"},
		{[][]float64{{0, math.NaN()}, {math.NaN(), 0}}, "NaN"},
		{[][]float64{{0, 1, 5}, {1, 0, 1}, {5, 1, 0}}, "(i,j,k) = (0,2,1): d(0,2) = 5 > d(0,1) + d(1,2) = 1 + 1"},
		{nil, "empty"},
	} {
		if _, err := NewMatrix(c.d); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.d, err, c.want)
		}
	}
	m, err = ReadDistCSV(strings.NewReader("# km\n0, 3, inf\n3, 0, inf\ninf, inf, 0\n"))
	if err != nil || m.Dist(0, 1) != 3 || !math.IsInf(m.Dist(0, 2), 1) {
		t.Errorf("csv: %v %v", m, err)
	}
	for _, bad := range []string{"0,1\n1,zero\n", "", "0,1,2\n1,0\n", "0,\"1\n"} {
		if _, err := ReadDistCSV(strings.NewReader(bad)); err == nil {
			t.Errorf("csv %q accepted", bad)
		}
	}
}

// Lattice offsets and separable factors agree with Dist; the Kronecker
// product of the factors' Phi is Phi.
func TestLatticeAndSeparable(t *testing.T) {
	s, _ := Sum(3, 2)
	k, _ := KCount(2, 3)
	l, _ := Line(5)
	ge, _ := Grid(4, 3, 0.5, Euclid)
	gm, _ := Grid(4, 3, 0.5, Manhattan)
	gc, _ := Grid(4, 3, 0.5, Chebyshev)
	if d := ge.Dist(0, 3*4-1); math.Abs(d-0.5*math.Hypot(3, 2)) > 1e-15 {
		t.Errorf("euclid grid corner distance %v", d)
	}
	if gm.Dist(0, 11) != 2.5 || gc.Dist(0, 11) != 1.5 || gc.Dist(4*2+1, 4*1+3) != 1 {
		t.Errorf("manhattan %v chebyshev %v", gm.Dist(0, 11), gc.Dist(0, 11))
	}
	for _, m := range []Lattice{s, k, l, ge, gm, gc} {
		dims := m.Dims()
		n := 1
		for _, d := range dims {
			n *= d
		}
		if n != m.Len() {
			t.Fatalf("%s: dims %v, len %d", m, dims, m.Len())
		}
		coords := func(i int) []int {
			c := make([]int, len(dims))
			for a := len(dims) - 1; a >= 0; a-- {
				c[a] = i % dims[a]
				i /= dims[a]
			}
			return c
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				ci, cj := coords(i), coords(j)
				delta := make([]int, len(dims))
				for a := range delta {
					delta[a] = ci[a] - cj[a]
				}
				if m.Offset(delta) != m.Dist(i, j) {
					t.Fatalf("%s: offset %v = %v, d(%d,%d) = %v", m, delta, m.Offset(delta), i, j, m.Dist(i, j))
				}
			}
		}
	}
	h, _ := Hamming(2, 3)
	for _, m := range []Separable{h, gm} {
		f := m.Factors()
		if len(f) != 2 {
			t.Fatalf("%s: %d factors", m, len(f))
		}
		eps := 0.7
		p, _ := Phi(m, eps)
		p0, _ := Phi(f[0], eps)
		p1, _ := Phi(f[1], eps)
		var kr mat.Dense
		kr.Kronecker(p0, p1)
		if !mat.EqualApprox(p, &kr, 1e-15) {
			t.Errorf("%s: Phi != kron of the factors' Phi", m)
		}
	}
	if ge.Factors() != nil || gc.Factors() != nil {
		t.Error("euclid/chebyshev grids reported separable")
	}
	if g1, _ := Grid(1, 5, 1, Manhattan); g1.Factors() != nil {
		t.Error("1×5 grid split into factors")
	}
}

func TestParseMetric(t *testing.T) {
	dir := t.TempDir()
	gpath := filepath.Join(dir, "g.txt")
	dpath := filepath.Join(dir, "d.csv")
	os.WriteFile(gpath, []byte("0 1\n1 2\n2 0\n"), 0o600)
	os.WriteFile(dpath, []byte("0,2\n2,0\n"), 0o600)
	for spec, want := range map[string]struct {
		str string
		n   int
	}{
		"line:n=6":        {"line:n=6", 6},
		"ring:n=6":        {"ring:n=6", 6},
		"clique:n=6":      {"clique:n=6", 6},
		"sum:u=150,v=5":   {"sum:u=150,v=5", 751},
		"kcount:u=30,k=2": {"kcount:u=30,k=2", 961},
		"hamming:u=5,v=4": {"hamming:u=5,v=4", 1024},
		"grid:w=3,h=2":    {"grid:w=3,h=2,step=1,norm=euclid", 6},
		"grid: w=3, h=2, step=0.5,norm=manhattan": {"grid:w=3,h=2,step=0.5,norm=manhattan", 6},
		"graph:file=" + gpath:                     {"graph:file=" + gpath, 3},
		"dist:file=" + dpath:                      {"dist:file=" + dpath, 2},
	} {
		m, err := Parse(spec)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		if m.String() != want.str || m.Len() != want.n {
			t.Errorf("%s: %s with %d answers, want %s with %d", spec, m, m.Len(), want.str, want.n)
		}
		if m2, err := Parse(m.String()); err != nil || m2.String() != m.String() {
			t.Errorf("%s does not round-trip: %v", m, err)
		}
	}
	for spec, want := range map[string]string{
		"":                        "unknown kind",
		"torus:n=3":               "unknown kind",
		"line":                    "missing parameter \"n\"",
		"line:n=":                 "not key=value",
		"line:n=x":                "not an integer",
		"line:n=3,m=2":            "unknown parameter \"m\"",
		"line:n=3,n=4":            "given twice",
		"line:n=0":                "n must be",
		"sum:u=3":                 "missing parameter \"v\"",
		"grid:w=3,h=2,norm=taxi":  "unknown norm",
		"grid:w=3,h=2,step=fast":  "not a number",
		"hamming:u=80,v=4":        "exceeds",
		"graph:file=/nonexistent": "no such file",
		"dist:file=" + gpath:      "not a number",
	} {
		if _, err := Parse(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", spec, err, want)
		}
	}
}

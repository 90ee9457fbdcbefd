package metric

import (
	"bytes"
	"fmt"
	"io"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/optdp/optdp/run"
)

// GraphMetric is the shortest-path metric of an undirected, unweighted answer
// graph, stored as a compact CSR adjacency. Distances come from breadth-first
// searches: all pairs are computed lazily on first use and kept in a compact
// table (uint16 or int32 per pair) when it fits in MaxGraphTableBytes.
// Vertices in different components are at distance +Inf. It is safe for
// concurrent use.
type GraphMetric struct {
	n      int
	off    []int   // CSR offsets, len n+1
	adj    []int32 // neighbours, sorted per vertex
	edges  int
	source string // file the graph was read from, for String

	tableOnce sync.Once
	table16   []uint16 // n <= 65535: 0xFFFF = unreachable
	table32   []int32  // n > 65535: -1 = unreachable

	rowMu  sync.Mutex
	rowSrc int
	row    []int32

	ballOnce sync.Once
	balls    []int
}

var (
	_ Graph         = (*GraphMetric)(nil)
	_ BallSymmetric = (*GraphMetric)(nil)
)

// NewGraph returns the shortest-path metric of the undirected graph on the
// vertices 0..n-1 with the given edges. Duplicate edges are merged; self
// loops, out-of-range vertices, n above MaxGraphVertices and more than
// MaxGraphEdges edges are errors (before any allocation).
func NewGraph(n int, edges [][2]int) (*GraphMetric, error) {
	if err := checkGraphSize(n, len(edges)); err != nil {
		return nil, err
	}
	e32 := make([][2]int32, len(edges))
	for k, e := range edges {
		i, j := e[0], e[1]
		if i < 0 || j < 0 || i >= n || j >= n {
			return nil, run.BadInputf("graph: edge %d (%d,%d) has a vertex outside 0..%d", k, i, j, n-1)
		}
		e32[k] = [2]int32{int32(i), int32(j)}
	}
	return newGraph(n, e32)
}

// checkGraphSize applies MaxGraphVertices and MaxGraphEdges.
func checkGraphSize(n, m int) error {
	if n < 1 || n > MaxGraphVertices {
		return run.BadInputf("graph: n must be in 1..%d (MaxGraphVertices), got %d", MaxGraphVertices, n)
	}
	if m > MaxGraphEdges {
		return run.BadInputf("graph: %d edges, more than the limit of %d (MaxGraphEdges)", m, MaxGraphEdges)
	}
	return nil
}

// newGraph builds the CSR adjacency; every vertex is in 0..n-1.
func newGraph(n int, edges [][2]int32) (*GraphMetric, error) {
	deg := make([]int, n+1)
	for k, e := range edges {
		i, j := e[0], e[1]
		if i == j {
			return nil, run.BadInputf("graph: edge %d is a self loop at vertex %d", k, i)
		}
		deg[i+1]++
		deg[j+1]++
	}
	for i := 1; i <= n; i++ {
		deg[i] += deg[i-1]
	}
	adj := make([]int32, deg[n])
	fill := slices.Clone(deg[:n])
	for _, e := range edges {
		adj[fill[e[0]]] = e[1]
		fill[e[0]]++
		adj[fill[e[1]]] = e[0]
		fill[e[1]]++
	}
	// Sort and deduplicate each adjacency list, compacting in place.
	off := make([]int, n+1)
	w := 0
	for i := 0; i < n; i++ {
		nb := adj[deg[i]:deg[i+1]]
		slices.Sort(nb)
		nb = slices.Compact(nb)
		off[i] = w
		w += copy(adj[w:], nb)
	}
	off[n] = w
	g := &GraphMetric{n: n, off: off, adj: adj[:w:w], edges: w / 2, rowSrc: -1}
	return g, nil
}

// ReadEdgeList reads a graph as lines "i j" (vertex indices from 0, separated
// by spaces, tabs or a comma). Blank lines and lines starting with '#' or '%'
// are skipped. The vertex count is the largest index + 1, unless a line
// "n N" (or "n=N") declares it. Errors name the offending line. The input is
// bounded before it is stored: at most MaxEdgeListBytes bytes, lines of at
// most MaxEdgeListLine bytes, MaxGraphEdges edges, and vertex indices (and a
// declared n) below MaxGraphVertices; a 20-byte line "90700070 0" is refused
// at once instead of allocating for 9·10^7 vertices.
func ReadEdgeList(r io.Reader) (*GraphMetric, error) {
	sc, lr := boundedLines(r, MaxEdgeListBytes)
	var edges [][2]int32
	n, declared := 0, -1
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 || b[0] == '#' || b[0] == '%' {
			continue
		}
		s := string(b)
		f := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' || r == '=' })
		if len(f) == 2 && f[0] == "n" {
			v, err := strconv.Atoi(f[1])
			if err != nil || v < 1 {
				return nil, fmt.Errorf("metric: edge list line %d: bad vertex count %q", line, f[1])
			}
			if v > MaxGraphVertices {
				return nil, fmt.Errorf("metric: edge list line %d: declares n = %d vertices, above the limit of %d (MaxGraphVertices)", line, v, MaxGraphVertices)
			}
			if declared >= 0 && v != declared {
				return nil, fmt.Errorf("metric: edge list line %d: declares n = %d, an earlier line declared n = %d", line, v, declared)
			}
			declared = v
			continue
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("metric: edge list line %d: want two vertex indices \"i j\", got %q", line, trimQuote(s))
		}
		i, err1 := strconv.Atoi(f[0])
		j, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil || i < 0 || j < 0 {
			return nil, fmt.Errorf("metric: edge list line %d: vertex indices must be integers >= 0, got %q", line, trimQuote(s))
		}
		if i >= MaxGraphVertices || j >= MaxGraphVertices {
			return nil, fmt.Errorf("metric: edge list line %d: vertex index %d is above the limit of %d vertices (MaxGraphVertices)", line, max(i, j), MaxGraphVertices)
		}
		if len(edges) == MaxGraphEdges {
			return nil, fmt.Errorf("metric: edge list line %d: more than %d edges (MaxGraphEdges)", line, MaxGraphEdges)
		}
		edges = append(edges, [2]int32{int32(i), int32(j)})
		n = max(n, i+1, j+1)
	}
	if err := scanEnd(sc, lr, "edge list", line, "MaxEdgeListBytes", MaxEdgeListBytes); err != nil {
		return nil, err
	}
	if declared >= 0 {
		if n > declared {
			return nil, fmt.Errorf("metric: edge list: declares n=%d but uses vertex %d", declared, n-1)
		}
		n = declared
	}
	if n == 0 {
		return nil, fmt.Errorf("metric: edge list: no edges and no vertex count")
	}
	if err := checkGraphSize(n, len(edges)); err != nil {
		return nil, fmt.Errorf("edge list: %w", err)
	}
	return newGraph(n, edges)
}

// trimQuote shortens s to at most 80 bytes for an error message.
func trimQuote(s string) string {
	if len(s) <= 80 {
		return s
	}
	return s[:77] + "..."
}

// Len is the number of vertices.
func (g *GraphMetric) Len() int { return g.n }

// NumEdges is the number of distinct edges.
func (g *GraphMetric) NumEdges() int { return g.edges }

// Neighbors returns the sorted neighbours of vertex i (shared storage: do
// not modify).
func (g *GraphMetric) Neighbors(i int) []int32 { return g.adj[g.off[i]:g.off[i+1]] }

// String is "graph:file=PATH" when read through Parse, otherwise
// "graph:n=N,m=M" (not parseable: there is no file).
func (g *GraphMetric) String() string {
	if g.source != "" {
		return "graph:file=" + g.source
	}
	return fmt.Sprintf("graph:n=%d,m=%d", g.n, g.edges)
}

// Edges yields every edge (i, j) once with i < j.
func (g *GraphMetric) Edges() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i < g.n; i++ {
			for _, j := range g.Neighbors(i) {
				if int(j) > i && !yield(i, int(j)) {
					return
				}
			}
		}
	}
}

// Dist is the number of edges on a shortest path, +Inf when disconnected.
func (g *GraphMetric) Dist(i, j int) float64 {
	if i == j {
		return 0
	}
	g.tableOnce.Do(g.buildTable)
	switch {
	case g.table16 != nil:
		d := g.table16[i*g.n+j]
		if d == math.MaxUint16 {
			return math.Inf(1)
		}
		return float64(d)
	case g.table32 != nil:
		d := g.table32[i*g.n+j]
		if d < 0 {
			return math.Inf(1)
		}
		return float64(d)
	}
	g.rowMu.Lock()
	defer g.rowMu.Unlock()
	if g.rowSrc != i {
		if g.row == nil {
			g.row = make([]int32, g.n)
		}
		g.bfs(i, g.row, make([]int32, 0, g.n))
		g.rowSrc = i
	}
	if d := g.row[j]; d >= 0 {
		return float64(d)
	}
	return math.Inf(1)
}

// tableBytes is the size of the all-pairs table.
func (g *GraphMetric) tableBytes() float64 {
	per := 2.0
	if g.n > math.MaxUint16 {
		per = 4
	}
	return per * float64(g.n) * float64(g.n)
}

// buildTable runs one BFS per vertex when the table fits MaxGraphTableBytes.
func (g *GraphMetric) buildTable() {
	if g.tableBytes() > MaxGraphTableBytes {
		return
	}
	n := g.n
	dist := make([]int32, n)
	queue := make([]int32, 0, n)
	if n <= math.MaxUint16 {
		t := make([]uint16, n*n)
		for s := 0; s < n; s++ {
			g.bfs(s, dist, queue)
			row := t[s*n : (s+1)*n]
			for j, d := range dist {
				if d < 0 {
					row[j] = math.MaxUint16
				} else {
					row[j] = uint16(d) // d < n <= 65535
				}
			}
		}
		g.table16 = t
		return
	}
	t := make([]int32, n*n)
	for s := 0; s < n; s++ {
		g.bfs(s, t[s*n:(s+1)*n], queue)
	}
	g.table32 = t
}

// bfs writes the hop distances from s into dist (-1 = unreachable).
func (g *GraphMetric) bfs(s int, dist, queue []int32) {
	for k := range dist {
		dist[k] = -1
	}
	dist[s] = 0
	queue = append(queue[:0], int32(s))
	for h := 0; h < len(queue); h++ {
		v := queue[h]
		for _, w := range g.Neighbors(int(v)) {
			if dist[w] < 0 {
				dist[w] = dist[v] + 1
				queue = append(queue, w)
			}
		}
	}
}

// BallSizes detects ball-size symmetry by one BFS per vertex (only for
// graphs of at most MaxBallDetect vertices): it returns n_r when every
// vertex has the same number of vertices at each distance r, else nil.
// Disconnected graphs are never ball-symmetric.
func (g *GraphMetric) BallSizes() []int {
	g.ballOnce.Do(func() {
		if g.n > MaxBallDetect {
			return
		}
		dist := make([]int32, g.n)
		queue := make([]int32, 0, g.n)
		var ref []int
		for s := 0; s < g.n; s++ {
			g.bfs(s, dist, queue)
			var cnt []int
			for _, d := range dist {
				if d < 0 {
					return
				}
				for int(d) >= len(cnt) {
					cnt = append(cnt, 0)
				}
				cnt[d]++
			}
			if ref == nil {
				ref = cnt
			} else if !slices.Equal(ref, cnt) {
				return
			}
		}
		g.balls = ref
	})
	return slices.Clone(g.balls)
}

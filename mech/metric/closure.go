package metric

// Shortest-path closures: the metric of a weighted road graph (Dijkstra)
// and a distance file whose decimal rounding breaks the triangle
// inequality, repaired to the closure of its entries (Floyd–Warshall).

import (
	"bytes"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/optdp/optdp/run"
)

// MaxRoadVertices is the largest road graph NewRoads accepts: its all-pairs
// table holds 8·n² bytes (128 MiB at 4096).
const MaxRoadVertices = MaxMatrixAnswers

// WeightedEdge is an undirected edge U–V of length W > 0 (e.g. km).
type WeightedEdge struct {
	U, V int
	W    float64
}

// ClosureMetric is a shortest-path metric computed in float64: the road
// distances of a weighted graph (NewRoads) or the shortest-path closure of
// a distance matrix (RepairMatrix). d(i,j) is the length of a shortest path
// from i to j, computed with at most n-1 additions along it; the computed
// d̂ is within a relative gamma = n·u/(1 - n·u) (u = 2^-53) of the exact
// closure d*, an exact metric (see DistRounding).
type ClosureMetric struct {
	n      int
	d      []float64
	kind   string // "roads" or "dist"
	source string
	repair float64  // the spec's repair tolerance (dist)
	edges  [][2]int // roads: the edges that are shortest paths (PathEdges)

	// Lowered is the number of pairs i < j the closure lowered, MaxLowered
	// the largest relative lowering (d(i,j) - d'(i,j))/d(i,j) (RepairMatrix).
	Lowered    int
	MaxLowered float64
}

var (
	_ Rounded   = (*ClosureMetric)(nil)
	_ PathGraph = (*ClosureMetric)(nil)
)

// PathEdges is, for road distances (NewRoads), the roads (u, v), u < v,
// that are a shortest path between their ends (d̂(u,v) equal to the
// road's length up to a relative 1e-9): the others are implied by the
// shorter paths, and every shortest path runs along these. A repaired
// distance matrix has none (ok false).
func (c *ClosureMetric) PathEdges() ([][2]int, bool) {
	if c.kind != "roads" {
		return nil, false
	}
	return c.edges, true
}

// Len is n.
func (c *ClosureMetric) Len() int { return c.n }

// Dist is the computed shortest-path distance.
func (c *ClosureMetric) Dist(i, j int) float64 { return c.d[i*c.n+j] }

// String is "roads:file=PATH" or "dist:file=PATH,repair=TOL" when read
// through Parse, else "roads:n=N" or "dist:n=N" (not parseable).
func (c *ClosureMetric) String() string {
	if c.source == "" {
		return c.kind + ":n=" + strconv.Itoa(c.n)
	}
	s := c.kind + ":file=" + c.source
	if c.kind == "dist" {
		s += ",repair=" + strconv.FormatFloat(c.repair, 'g', -1, 64)
	}
	return s
}

// DistRounding: every computed d̂(i,j) is a float64 sum of the lengths of
// the edges of a path of at most n-1 edges, so d̂ >= (1-gamma)·d*(i,j), and
// at most the float64 sum along a shortest path (Dijkstra settles vertices
// by the float64 sums, which are monotone in the prefix; Floyd–Warshall's
// value at step k is within (1+u)^k of the exact closure through 0..k-1 by
// induction), so d̂ <= (1+gamma)·d*; gamma = n·u/(1-n·u). As for a grid,
// with t = 2gamma/(1-gamma): d̂(h,k) - d̂(i,k) <= (1 + t + t·diam/MinDist)·
// d̂(i,h), diam the largest finite d̂, MinDist the smallest positive one.
func (c *ClosureMetric) DistRounding() (RoundingBound, bool) {
	minD, diam := math.Inf(1), 0.0
	for _, x := range c.d {
		if x > 0 && !math.IsInf(x, 1) {
			minD, diam = min(minD, x), max(diam, x)
		}
	}
	if c.n < 2 || math.IsInf(minD, 1) {
		return RoundingBound{MinDist: 1}, true
	}
	if !(minD >= 0x1p-1022) || math.IsInf(up(diam)/minD, 0) {
		return RoundingBound{}, false
	}
	nu := float64(c.n) * 0x1p-53
	gamma := up(nu / down(1-nu))
	t := up(2 * gamma / down(1-gamma))
	return RoundingBound{Defect: up(t * (1 + up(diam/minD))), MinDist: minD}, true
}

// NewRoads returns the road distances of the undirected graph on vertices
// 0..n-1 with the given weighted edges: d(i,j) is the length of a shortest
// path, by Dijkstra's algorithm from every vertex (O(n·m log n)). Each
// weight must be finite and > 0 (a zero-length road would put distinct
// answers at distance 0: merge its ends); parallel edges keep the shortest.
// The graph must be connected: otherwise the error names a vertex that
// cannot be reached from vertex 0. n is at most MaxRoadVertices, the edges
// at most MaxGraphEdges (checked before allocation).
func NewRoads(n int, edges []WeightedEdge) (*ClosureMetric, error) {
	return NewRoadsContext(context.Background(), n, edges)
}

// NewRoadsContext is NewRoads stopped by ctx: ctx is read before each
// vertex's Dijkstra (one of n, O(m log n) each) and its error returned,
// wrapped, once it is cancelled.
func NewRoadsContext(ctx context.Context, n int, edges []WeightedEdge) (*ClosureMetric, error) {
	if n < 1 || n > MaxRoadVertices {
		return nil, run.BadInputf("roads: n must be in 1..%d (MaxRoadVertices), got %d", MaxRoadVertices, n)
	}
	if len(edges) > MaxGraphEdges {
		return nil, run.BadInputf("roads: %d edges, more than the limit of %d (MaxGraphEdges)", len(edges), MaxGraphEdges)
	}
	deg := make([]int, n+1)
	for k, e := range edges {
		switch {
		case e.U < 0 || e.V < 0 || e.U >= n || e.V >= n:
			return nil, run.BadInputf("roads: edge %d (%d,%d) has a vertex outside 0..%d", k, e.U, e.V, n-1)
		case e.U == e.V:
			return nil, run.BadInputf("roads: edge %d is a loop at vertex %d", k, e.U)
		case !finite(e.W) || !(e.W > 0):
			return nil, run.BadInputf("roads: edge %d (%d,%d) has length %v, want a finite number > 0 (merge the ends of a zero-length road)", k, e.U, e.V, e.W)
		}
		deg[e.U+1]++
		deg[e.V+1]++
	}
	// A shortest path uses each edge at most once, so every distance is at
	// most the sum of the lengths: when that sum is finite no path overflows.
	var total float64
	for _, e := range edges {
		if total += e.W; math.IsInf(total, 1) {
			return nil, run.BadInputf("roads: the edge lengths add up beyond the largest float64, so path lengths could overflow: rescale them (e.g. metres to km)")
		}
	}
	for i := 1; i <= n; i++ {
		deg[i] += deg[i-1]
	}
	to := make([]int32, deg[n])
	w := make([]float64, deg[n])
	fill := append([]int(nil), deg[:n]...)
	for _, e := range edges {
		to[fill[e.U]], w[fill[e.U]] = int32(e.V), e.W
		fill[e.U]++
		to[fill[e.V]], w[fill[e.V]] = int32(e.U), e.W
		fill[e.V]++
	}
	d := make([]float64, n*n)
	q := &distHeap{}
	for s := 0; s < n; s++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("roads: distances of %d vertices interrupted after %d sources: %w", n, s, err)
		}
		row := d[s*n : (s+1)*n]
		for k := range row {
			row[k] = math.Inf(1)
		}
		row[s] = 0
		q.items = append(q.items[:0], heapItem{0, int32(s)})
		for q.Len() > 0 {
			it := heap.Pop(q).(heapItem)
			if it.d > row[it.v] {
				continue
			}
			for k := deg[it.v]; k < deg[it.v+1]; k++ {
				if nd := it.d + w[k]; nd < row[to[k]] {
					row[to[k]] = nd
					heap.Push(q, heapItem{nd, to[k]})
				}
			}
		}
		if s == 0 {
			for v, x := range row {
				if math.IsInf(x, 1) {
					return nil, run.BadInputf("roads: the graph is disconnected: vertex %d cannot be reached from vertex 0 (keep one connected component, or join it with an edge)", v)
				}
			}
		}
	}
	// Symmetrise: both d̂(i,j) and d̂(j,i) satisfy the bounds of
	// DistRounding, and so does their minimum.
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			x := min(d[i*n+j], d[j*n+i])
			d[i*n+j], d[j*n+i] = x, x
		}
	}
	// The roads that are shortest paths between their ends, once each.
	var kept [][2]int
	seen := make(map[[2]int]bool, len(edges))
	for _, e := range edges {
		u, v := min(e.U, e.V), max(e.U, e.V)
		if key := [2]int{u, v}; !seen[key] && d[u*n+v] >= e.W*(1-1e-9) {
			seen[key] = true
			kept = append(kept, key)
		}
	}
	return &ClosureMetric{n: n, d: d, kind: "roads", edges: kept}, nil
}

type heapItem struct {
	d float64
	v int32
}

type distHeap struct{ items []heapItem }

func (h *distHeap) Len() int           { return len(h.items) }
func (h *distHeap) Less(i, j int) bool { return h.items[i].d < h.items[j].d }
func (h *distHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *distHeap) Push(x any)         { h.items = append(h.items, x.(heapItem)) }
func (h *distHeap) Pop() any {
	it := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return it
}

// ReadRoads reads a weighted edge list, lines "u v w" (vertex indices from
// 0 and the length w > 0, separated by commas, tabs or spaces; blank lines
// and lines starting with '#' or '%' skipped; an optional first line
// naming the columns, e.g. "u,v,w" or "from,to,km", is skipped too), and
// returns NewRoads of it. The vertex count is the largest index + 1 unless
// a line "n N" declares it. The input is bounded like ReadEdgeList's, and
// vertex indices must be below MaxRoadVertices. Errors name the line.
func ReadRoads(r io.Reader) (*ClosureMetric, error) {
	return ReadRoadsContext(context.Background(), r)
}

// ReadRoadsContext is ReadRoads with the distances stopped by ctx (see
// NewRoadsContext).
func ReadRoadsContext(ctx context.Context, r io.Reader) (*ClosureMetric, error) {
	sc, lr := boundedLines(r, MaxEdgeListBytes)
	var edges []WeightedEdge
	n, declared, line, data := 0, -1, 0, 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 || b[0] == '#' || b[0] == '%' {
			continue
		}
		s := string(b)
		f := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' || r == ';' })
		data++
		if len(f) == 2 && (f[0] == "n" || f[0] == "n=") || strings.HasPrefix(s, "n=") {
			v, err := strconv.Atoi(strings.TrimPrefix(f[len(f)-1], "n="))
			if err != nil || v < 1 || v > MaxRoadVertices {
				return nil, fmt.Errorf("metric: roads line %d: bad vertex count %q (want 1..%d)", line, trimQuote(s), MaxRoadVertices)
			}
			declared = v
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("metric: roads line %d: want \"u v w\" (two vertex indices and a length), got %q", line, trimQuote(s))
		}
		u, err1 := strconv.Atoi(f[0])
		v, err2 := strconv.Atoi(f[1])
		w, err3 := strconv.ParseFloat(f[2], 64)
		if err1 != nil && err2 != nil && err3 != nil && data == 1 {
			continue // a header
		}
		if err1 != nil || err2 != nil || u < 0 || v < 0 {
			return nil, fmt.Errorf("metric: roads line %d: vertex indices must be integers >= 0, got %q", line, trimQuote(s))
		}
		if err3 != nil || !finite(w) || !(w > 0) {
			return nil, fmt.Errorf("metric: roads line %d: length %q must be a finite number > 0", line, f[2])
		}
		if u >= MaxRoadVertices || v >= MaxRoadVertices {
			return nil, fmt.Errorf("metric: roads line %d: vertex %d is above the limit of %d vertices (MaxRoadVertices)", line, max(u, v), MaxRoadVertices)
		}
		if len(edges) == MaxGraphEdges {
			return nil, fmt.Errorf("metric: roads line %d: more than %d edges (MaxGraphEdges)", line, MaxGraphEdges)
		}
		edges = append(edges, WeightedEdge{u, v, w})
		n = max(n, u+1, v+1)
	}
	if err := scanEnd(sc, lr, "roads", line, "MaxEdgeListBytes", MaxEdgeListBytes); err != nil {
		return nil, err
	}
	if declared >= 0 {
		if n > declared {
			return nil, fmt.Errorf("metric: roads: declares n=%d but uses vertex %d", declared, n-1)
		}
		n = declared
	}
	if n == 0 {
		return nil, errors.New("metric: roads: no edges")
	}
	return NewRoadsContext(ctx, n, edges)
}

// RepairMatrix returns the shortest-path closure d'(i,j) = min over paths
// i = k_0, ..., k_m = j of Σ d(k_{l-1}, k_l) of the distance matrix d
// (Floyd–Warshall, O(n³)): an exact metric that never exceeds d. It is for
// files whose decimal rounding breaks the triangle inequality by a few
// units of the last digit: when the closure lowers some entry by more than
// the relative tolerance tol ((d - d')/d > tol), the error names the entry
// and the tolerance that would accept it. The entries are first checked as
// NewMatrix checks them (square, numbers, symmetric, zero exactly on the
// diagonal, positive off it).
func RepairMatrix(d [][]float64, tol float64) (*ClosureMetric, error) {
	return RepairMatrixContext(context.Background(), d, tol)
}

// RepairMatrixContext is RepairMatrix stopped by ctx: the Floyd–Warshall
// reads ctx before each of its n steps (n²/2 updates, some 10 ms at n =
// 4096) and returns its error, wrapped, once it is cancelled.
func RepairMatrixContext(ctx context.Context, d [][]float64, tol float64) (*ClosureMetric, error) {
	n := len(d)
	if n < 1 || n > MaxMatrixAnswers {
		return nil, run.BadInputf("distance matrix: %d answers, want 1..%d", n, MaxMatrixAnswers)
	}
	flat := make([]float64, n*n)
	for i, row := range d {
		if len(row) != n {
			return nil, run.BadInputf("distance matrix: row %d has %d entries, want %d (the matrix must be square)", i, len(row), n)
		}
		copy(flat[i*n:], row)
	}
	return repairMatrix(ctx, n, flat, tol)
}

// repairMatrix is RepairMatrixContext on the row-major matrix d
// (overwritten).
func repairMatrix(ctx context.Context, n int, d []float64, tol float64) (*ClosureMetric, error) {
	if !finite(tol) || tol < 0 || tol >= 1 {
		return nil, run.BadInputf("repair tolerance %v: want 0 <= tol < 1", tol)
	}
	if err := checkEntries(ctx, n, d); err != nil {
		return nil, err
	}
	orig := append([]float64(nil), d...)
	for k := 0; k < n; k++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("distance matrix: shortest-path closure of %d answers interrupted at step %d: %w", n, k, err)
		}
		rowK := d[k*n : (k+1)*n]
		for i := 0; i < n; i++ {
			dik := d[i*n+k]
			if i == k || math.IsInf(dik, 1) {
				continue
			}
			rowI := d[i*n : (i+1)*n]
			for j := i + 1; j < n; j++ {
				if s := dik + rowK[j]; s < rowI[j] {
					rowI[j] = s
					d[j*n+i] = s
				}
			}
		}
	}
	c := &ClosureMetric{n: n, d: d, kind: "dist", repair: tol}
	wi, wj := -1, -1
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			o, x := orig[i*n+j], d[i*n+j]
			if math.IsInf(o, 1) && !math.IsInf(x, 1) {
				return nil, run.BadInputf("distance matrix: d(%d,%d) = inf (unreachable) but a path of length %v joins them: not a metric", i, j, x)
			}
			if x < o {
				c.Lowered++
				if r := (o - x) / o; r > c.MaxLowered {
					c.MaxLowered, wi, wj = r, i, j
				}
			}
			if !(x > 0) {
				return nil, run.BadInputf("distance matrix: the shortest-path closure puts %d and %d at distance %v", i, j, x)
			}
		}
	}
	if c.MaxLowered > tol {
		return nil, run.BadInputf("distance matrix: the triangle inequality fails by more than the tolerance %g: the shortest-path closure lowers d(%d,%d) = %v to %v, a relative %.3g; if that is rounding, add repair=%.2g to the spec, else fix the file",
			tol, wi, wj, orig[wi*n+wj], d[wi*n+wj], c.MaxLowered, roundUp2(c.MaxLowered))
	}
	return c, nil
}

// roundUp2 rounds r > 0 up to two significant digits.
func roundUp2(r float64) float64 {
	if !(r > 0) || math.IsInf(r, 0) {
		return r
	}
	p := math.Pow(10, math.Floor(math.Log10(r))-1)
	return math.Ceil(r/p) * p
}

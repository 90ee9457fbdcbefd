package ldl

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/optdp/optdp/run"
)

// Chains answers shortest-chain queries on the directed graph of a fixed
// list of pairs, each pair (I,H,W) an arc I → H of length log W: the
// lengths Spanner compares with delta · log W. A pair (i,h,W) is implied
// at stretch delta by a graph whose chain from i to h has length at most
// delta · log W, and by every graph that contains it.
//
// A Chains holds the search's scratch and is not safe for concurrent use;
// Fork returns another on the same graph.
type Chains struct {
	g *digraph
	d *dijkstra
}

// NewChains returns the chains of the pairs ps on n rows. Errors (wrapping
// run.ErrBadInput) for n < 1 and for a malformed pair: rows out of range
// or equal, a ratio not finite and > 1.
func NewChains(n int, ps []Pair) (*Chains, error) {
	if n < 1 {
		return nil, fmt.Errorf("ldl: chains on %d rows: %w", n, run.ErrBadInput)
	}
	g := &digraph{adj: make([][]arc, n)}
	for k, q := range ps {
		if q.I < 0 || q.I >= n || q.H < 0 || q.H >= n || q.I == q.H || !(q.W > 1) || math.IsInf(q.W, 1) {
			return nil, fmt.Errorf("ldl: chains: pair %d = (%d,%d,%v) malformed: %w", k, q.I, q.H, q.W, run.ErrBadInput)
		}
		g.adj[q.I] = append(g.adj[q.I], arc{to: q.H, l: math.Log(q.W)})
	}
	return &Chains{g: g, d: newDijkstra(n)}, nil
}

// Add adds the pairs ps to the graph, as arcs of length log W (the forks
// share the graph: none may search meanwhile). Errors as NewChains for a
// malformed pair, before any is added.
func (c *Chains) Add(ps []Pair) error {
	n := len(c.g.adj)
	for k, q := range ps {
		if q.I < 0 || q.I >= n || q.H < 0 || q.H >= n || q.I == q.H || !(q.W > 1) || math.IsInf(q.W, 1) {
			return fmt.Errorf("ldl: chains: added pair %d = (%d,%d,%v) malformed: %w", k, q.I, q.H, q.W, run.ErrBadInput)
		}
	}
	c.g.added = c.g.added[:0]
	for _, q := range ps {
		a := arc{to: q.H, l: math.Log(q.W)}
		c.g.adj[q.I] = append(c.g.adj[q.I], a)
		c.g.added = append(c.g.added, added{from: int32(q.I), arc: a})
	}
	return nil
}

// Update lowers dist, the lengths of the shortest chains from some row
// before the last Add (From's, or Update's), to those of the graph with
// the pairs it added: a search from the rows an added arc
// brings closer, which reaches only the rows whose chains shorten
// (O((those + their arcs) log those)). The lengths are sums along
// shortest chains, as From's, up to the order of the sums when chains
// of equal length tie.
func (c *Chains) Update(dist []float64) {
	d := c.d
	d.heap = d.heap[:0]
	lower := func(v int, nd float64) {
		if nd < dist[v] {
			dist[v] = nd
			if p := d.pos[v]; p >= 0 {
				d.up(int(p), dist)
			} else {
				d.push(int32(v), dist)
			}
		}
	}
	for _, e := range c.g.added {
		lower(e.arc.to, dist[e.from]+e.arc.l)
	}
	for len(d.heap) > 0 {
		v := d.pop(dist)
		dv := dist[v]
		for _, a := range c.g.adj[v] {
			lower(a.to, dv+a.l)
		}
	}
}

// Fork returns a Chains on the same graph with scratch of its own.
func (c *Chains) Fork() *Chains { return &Chains{g: c.g, d: newDijkstra(len(c.g.adj))} }

// From writes into dist (n values) the length of the shortest chain from
// row s to every row: 0 at s, +Inf where no chain reaches (Dijkstra's
// algorithm, O((n + arcs) log n)).
func (c *Chains) From(s int, dist []float64) {
	c.d.run(c.g, s, math.Inf(1), dist)
}

// Within is From for the chains of length at most radius: +Inf for the
// rows beyond, whose chains it does not search.
func (c *Chains) Within(s int, radius float64, dist []float64) {
	c.d.run(c.g, s, radius, dist)
}

// To writes in out[k], for every row targets[k], the length of the
// shortest chain from s to it when at most bounds[k], and else a value
// above bounds[k] (+Inf where no chain was found). The search takes the
// rows by the length of their chains and stops past the largest bound
// of the targets it has not reached: a target beyond its bound (a pair
// its chains do not imply) does not hold it to the largest bound of all.
func (c *Chains) To(s int, targets []int, bounds, out []float64) {
	d := c.d
	ord := d.ord[:0]
	for k := range targets {
		ord = append(ord, int32(k))
	}
	slices.SortFunc(ord, func(a, b int32) int { return cmp.Compare(bounds[b], bounds[a]) })
	d.ord = ord
	dist := d.dist
	for _, v := range d.reached {
		dist[v] = math.Inf(1)
	}
	d.reached = append(d.reached[:0], int32(s))
	d.heap = d.heap[:0]
	dist[s] = 0
	d.push(int32(s), dist)
	// ord[p] is the target of the largest bound not yet taken off the
	// heap (taken: pos −1 with a finite distance).
	p := 0
	for len(d.heap) > 0 {
		v := d.pop(dist)
		for p < len(ord) {
			if t := targets[ord[p]]; d.pos[t] >= 0 || math.IsInf(dist[t], 1) {
				break
			}
			p++
		}
		if p == len(ord) || !(dist[v] <= bounds[ord[p]]) {
			break
		}
		radius, dv := bounds[ord[p]], dist[v]
		for _, a := range c.g.adj[v] {
			if nd := dv + a.l; nd <= radius && nd < dist[a.to] {
				if math.IsInf(dist[a.to], 1) {
					d.reached = append(d.reached, int32(a.to))
				}
				dist[a.to] = nd
				if q := d.pos[a.to]; q >= 0 {
					d.up(int(q), dist)
				} else {
					d.push(int32(a.to), dist)
				}
			}
		}
	}
	for _, u := range d.heap {
		d.pos[u] = -1
	}
	d.heap = d.heap[:0]
	for k, v := range targets {
		out[k] = dist[v]
	}
}

type arc struct {
	to int
	l  float64
}

// digraph is the arcs from each row, and those of the last Chains.Add.
type digraph struct {
	adj   [][]arc
	added []added
}

// added is an arc added to a digraph, and the row it leaves.
type added struct {
	from int32
	arc  arc
}

// dijkstra is the reusable state of a single-source shortest-path search:
// the tentative distances (+Inf outside the last search's reach), the
// rows the search reached, and a binary heap of rows keyed by distance
// with each row's place in it (-1 when not in it), so that a shorter
// distance moves the row up rather than adding an entry. A search costs
// O((reached + their arcs) log reached), not O(n).
type dijkstra struct {
	dist    []float64
	reached []int32
	heap    []int32
	pos     []int32
	// key is toward's heap key, dist + the bound of the rest; ord is To's
	// order of its targets.
	key []float64
	ord []int32
}

func newDijkstra(n int) *dijkstra {
	d := &dijkstra{dist: make([]float64, n), pos: make([]int32, n), key: make([]float64, n)}
	for v := range d.pos {
		d.dist[v], d.pos[v] = math.Inf(1), -1
	}
	return d
}

// search finds the distances from s in g that are at most radius: d.dist
// holds them for the rows in d.reached (+Inf elsewhere) until the next
// search. The arcs' lengths are positive (log W, W > 1).
func (d *dijkstra) search(g *digraph, s int, radius float64) {
	dist := d.dist
	for _, v := range d.reached {
		dist[v] = math.Inf(1)
	}
	d.reached = d.reached[:0]
	d.heap = d.heap[:0]
	dist[s] = 0
	d.push(int32(s), dist)
	for len(d.heap) > 0 {
		v := d.pop(dist)
		d.reached = append(d.reached, v)
		dv := dist[v]
		for _, a := range g.adj[v] {
			// A row already taken off the heap is at most dv away, below nd.
			if nd := dv + a.l; nd <= radius && nd < dist[a.to] {
				dist[a.to] = nd
				if p := d.pos[a.to]; p >= 0 {
					d.up(int(p), dist)
				} else {
					d.push(int32(a.to), dist)
				}
			}
		}
	}
}

// toward returns the length of the shortest chain from s to t in g if at
// most radius, else +Inf, by a search from s guided by lower(v), a lower
// bound of every chain from v to t (A*: rows are taken by their distance
// plus that bound, and those whose sum exceeds radius are left; a row
// reached again by a shorter chain is taken again, so the length is exact
// for any such bound). d.dist holds the distances it found until the next
// search.
func (d *dijkstra) toward(g *digraph, s, t int, radius float64, lower func(v int) float64) float64 {
	dist, key := d.dist, d.key
	for _, v := range d.reached {
		dist[v] = math.Inf(1)
	}
	d.reached = append(d.reached[:0], int32(s))
	d.heap = d.heap[:0]
	dist[s], key[s] = 0, lower(s)
	d.push(int32(s), key)
	found := math.Inf(1)
	for len(d.heap) > 0 {
		v := d.pop(key)
		if !(key[v] <= radius) {
			break // every row left is at least as far
		}
		if int(v) == t {
			found = dist[v]
			break
		}
		dv := dist[v]
		for _, a := range g.adj[v] {
			nd := dv + a.l
			if !(nd < dist[a.to]) {
				continue
			}
			k := nd + lower(a.to)
			if !(k <= radius) {
				continue
			}
			if math.IsInf(dist[a.to], 1) {
				d.reached = append(d.reached, int32(a.to))
			}
			dist[a.to], key[a.to] = nd, k
			if p := d.pos[a.to]; p >= 0 {
				d.up(int(p), key)
			} else {
				d.push(int32(a.to), key)
			}
		}
	}
	for _, u := range d.heap {
		d.pos[u] = -1
	}
	d.heap = d.heap[:0]
	return found
}

// run writes into dist the distances from s in g that are at most radius
// (+Inf beyond, and for unreachable rows).
func (d *dijkstra) run(g *digraph, s int, radius float64, dist []float64) {
	d.search(g, s, radius)
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	for _, v := range d.reached {
		dist[v] = d.dist[v]
	}
}

// lower lowers the upper bounds dist of the distances from s in g (0 for
// none: Spanner's cache) to the distances at most radius: exact for those
// rows, unchanged elsewhere.
func (d *dijkstra) lower(g *digraph, s int, radius float64, dist []float64) {
	d.search(g, s, radius)
	for _, v := range d.reached {
		dist[v] = lowerBound(dist[v], d.dist[v])
	}
}

func (d *dijkstra) push(v int32, dist []float64) {
	d.heap = append(d.heap, v)
	d.pos[v] = int32(len(d.heap) - 1)
	d.up(len(d.heap)-1, dist)
}

// up moves the row at place j up to its place by dist.
func (d *dijkstra) up(j int, dist []float64) {
	h := d.heap
	v := h[j]
	dv := dist[v]
	for j > 0 {
		p := (j - 1) / 2
		if !(dv < dist[h[p]]) {
			break
		}
		h[j] = h[p]
		d.pos[h[j]] = int32(j)
		j = p
	}
	h[j] = v
	d.pos[v] = int32(j)
}

// pop removes and returns the row of least distance.
func (d *dijkstra) pop(dist []float64) int32 {
	h := d.heap
	top := h[0]
	d.pos[top] = -1
	last := h[len(h)-1]
	h = h[:len(h)-1]
	d.heap = h
	if len(h) == 0 {
		return top
	}
	dl := dist[last]
	j := 0
	for {
		c := 2*j + 1
		if c >= len(h) {
			break
		}
		if r := c + 1; r < len(h) && dist[h[r]] < dist[h[c]] {
			c = r
		}
		if !(dist[h[c]] < dl) {
			break
		}
		h[j] = h[c]
		d.pos[h[j]] = int32(j)
		j = c
	}
	h[j] = last
	d.pos[last] = int32(j)
	return top
}

package ldl

import (
	"fmt"
	"math"

	"github.com/optdp/optdp/run"
)

// spanMarks holds what Spanner needs to bound a chain through a pair it
// kept (SpannerOptions.Landmarks): the graph's arcs reversed and, for each
// of the first pairs it kept, (a, b) of log-ratio l, the chains' lengths
// to a (listed by row, near) and from b (a row of n), up to reach, as they
// were when it was kept (upper bounds since: the graph only grows).
type spanMarks struct {
	max   int
	reach float64
	rev   *digraph
	near  [][]mark
	from  [][]float64
	l     []float64
}

// mark records that a row reaches a, the first row of landmark k's pair,
// by a chain of length d.
type mark struct {
	k int32
	d float64
}

// newSpanMarks checks k landmarks (a row of n float64 each, and up to n
// marks) against the budget and returns their state, nil for k = 0; their
// chains are searched up to reach, the largest bound tested.
func newSpanMarks(n, k int, reach float64, budget run.Budget) (*spanMarks, error) {
	if k == 0 {
		return nil, nil
	}
	if k < 0 {
		return nil, fmt.Errorf("ldl: spanner: %d landmarks: %w", k, run.ErrBadInput)
	}
	if err := budget.Check(fmt.Sprintf("ldl: spanner: the rows of %d landmarks", k), 24*float64(n)*float64(k), ""); err != nil {
		return nil, err
	}
	return &spanMarks{max: k, reach: reach, rev: &digraph{adj: make([][]arc, n)}, near: make([][]mark, n)}, nil
}

// arc records the arc i → h of length l in the reversed graph.
func (s *spanMarks) arc(i, h int, l float64) {
	s.rev.adj[h] = append(s.rev.adj[h], arc{to: i, l: l})
}

// keep records the pair (a, b) of log-ratio l just kept as a landmark
// while there is room: the chains to a and from b in g up to reach (a
// chain through the pair certifies no pair beyond).
func (s *spanMarks) keep(g *digraph, d *dijkstra, a, b int, l float64) {
	if len(s.l) == s.max {
		return
	}
	k := int32(len(s.l))
	d.search(s.rev, a, s.reach)
	for _, v := range d.reached {
		s.near[v] = append(s.near[v], mark{k, d.dist[v]})
	}
	from := make([]float64, len(g.adj))
	d.run(g, b, s.reach, from)
	s.from, s.l = append(s.from, from), append(s.l, l)
}

// chain returns the shortest of the chains from i to h through a
// landmark, i → a → b → h, and whether it is at most bound.
func (s *spanMarks) chain(i, h int, bound float64) (float64, bool) {
	best := math.Inf(1)
	for _, m := range s.near[i] {
		if c := m.d + s.l[m.k] + s.from[m.k][h]; c < best {
			best = c
			if c <= bound {
				return c, true
			}
		}
	}
	return best, false
}

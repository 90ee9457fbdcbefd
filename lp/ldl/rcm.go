package ldl

import (
	"context"
	"fmt"
	"slices"
)

// RCM returns a reverse Cuthill–McKee ordering of the rows of p: perm[new]
// is the old index. It numbers the rows breadth-first from a
// pseudo-peripheral row of each component of the pair graph, neighbours by
// increasing degree, then reverses, which keeps the bandwidth of the
// per-column Newton matrices small for rings, grids and general graphs
// (a ring in its natural order has bandwidth n-1, after RCM 2). It reads
// ctx every few hundred rows visited and returns its error, wrapped, once
// it is cancelled.
func RCM(ctx context.Context, p *Graph) ([]int, error) {
	pl := &poll{ctx: ctx}
	perm := rcm(pl, p)
	if err := pl.err(); err != nil {
		return nil, fmt.Errorf("ldl: bandwidth-reducing order interrupted: %w", err)
	}
	return perm, nil
}

// rcm is RCM stopped by pl: once pl is done the result is meaningless.
func rcm(pl *poll, p *Graph) []int {
	n := p.N
	adj := make([][]int, n)
	for _, q := range p.Pairs {
		adj[q.I] = append(adj[q.I], q.H)
		adj[q.H] = append(adj[q.H], q.I)
	}
	for i := range adj {
		if pl.done() {
			return nil
		}
		slices.Sort(adj[i])
		adj[i] = slices.Compact(adj[i])
	}
	deg := func(i int) int { return len(adj[i]) }
	level := make([]int, n)
	// bfs returns the rows reachable from s in Cuthill–McKee order.
	bfs := func(s int, mark []bool) []int {
		order := []int{s}
		mark[s] = true
		level[s] = 0
		for k := 0; k < len(order); k++ {
			if pl.done() {
				return order
			}
			u := order[k]
			nb := make([]int, 0, len(adj[u]))
			for _, v := range adj[u] {
				if !mark[v] {
					mark[v] = true
					level[v] = level[u] + 1
					nb = append(nb, v)
				}
			}
			slices.SortStableFunc(nb, func(a, b int) int { return deg(a) - deg(b) })
			order = append(order, nb...)
		}
		return order
	}
	done := make([]bool, n)
	perm := make([]int, 0, n)
	for s0 := 0; s0 < n; s0++ {
		if pl.done() {
			return nil
		}
		if done[s0] {
			continue
		}
		// Pseudo-peripheral start: repeat BFS from a deepest, lowest-degree
		// row while the depth grows.
		s, depth := s0, -1
		for range 8 {
			mark := slices.Clone(done)
			comp := bfs(s, mark)
			far := comp[len(comp)-1]
			d := level[far]
			if d <= depth {
				break
			}
			depth = d
			best := far
			for _, v := range comp {
				if level[v] == d && deg(v) < deg(best) {
					best = v
				}
			}
			s = best
		}
		comp := bfs(s, done)
		slices.Reverse(comp)
		perm = append(perm, comp...)
	}
	return perm
}

package ldl

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
)

// OrderEnv is the environment variable that selects the fill-reducing row
// order of the sparse per-column factorisation (sparse.go), read at every
// Solve:
//
//   - "md": lp's minimum degree (MinimumDegree);
//   - "mdpost": minimum degree followed by a postorder of its elimination
//     tree (postorder): the same column counts (fill, factor flops), the
//     columns of each subtree contiguous;
//   - "nd": lp's nested dissection by breadth-first level separators
//     (nestedDissection), in pure Go;
//   - in the netlib build only (`-tags netlib`, cgo, SuiteSparse):
//     "metis" (METIS_NodeND through CHOLMOD), "amd" (approximate minimum
//     degree), "nesdis" (CHOLMOD's nested dissection) and "cholmod"
//     (CHOLMOD's default choice between AMD and METIS).
//
// Empty means the build's default, DefaultOrder (docs/MATH.md §11.4 for
// the factorisation and Takahashi's assembly). Whatever the order, the
// numeric factorisation and the Schur assembly are lp's own (LDL),
// so the answer and its certificate do not depend on it; only the fill of
// L, and with it the time of Takahashi's assembly, does. An unknown name
// is reported once on standard error and the default used.
const OrderEnv = "OPTDP_LP_ORDER"

// Orders returns the names OrderEnv accepts in this build: "md" and "nd",
// then, in the netlib build, CHOLMOD's orderings.
func Orders() []string {
	return append([]string{"md", "mdpost", "nd"}, externalOrders...)
}

var badOrderOnce sync.Once

// FillReducing returns the fill-reducing order of p's pair graph selected by
// OrderEnv (perm[new] = old) and the symbolic factorisation in it. The
// orders in Go (md, mdpost, nd) and the symbolic factorisation read ctx
// every few hundred steps (eliminations, columns, visited rows) and return
// its error, wrapped, once it is cancelled; CHOLMOD's (netlib build,
// chosen by OrderEnv only) run to their end in C, and ctx is read after
// them: under 0.45 s on the 200×200 grid graph (40,000 rows) and on a
// random graph of 8,000 rows and degree 10 (the symbolic factorisation
// that follows, which polls, takes the rest).
func FillReducing(ctx context.Context, p *Graph) ([]int, *Symbolic, error) {
	pl := &poll{ctx: ctx}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("ldl: fill-reducing order interrupted: %w", err)
	}
	name := os.Getenv(OrderEnv)
	if name == "" {
		name = DefaultOrder
	}
	if !slices.Contains(Orders(), name) {
		badOrderOnce.Do(func() {
			fmt.Fprintf(os.Stderr, "lp: %s=%q is not one of %v; using %q\n", OrderEnv, name, Orders(), DefaultOrder)
		})
		name = DefaultOrder
	}
	perm, sym, err := orderByName(pl, name, p)
	if err != nil && pl.err() == nil {
		// The library refused the graph (cannot happen for a valid
		// Problem): fall back on lp's own order.
		perm, sym = minimumDegree(pl, p)
	}
	if err := pl.err(); err != nil {
		return nil, nil, fmt.Errorf("ldl: fill-reducing order interrupted: %w", err)
	}
	return perm, sym, nil
}

// OrderByName returns the order name (one of Orders()) of p's pair graph
// and the symbolic factorisation in it. It is not cancellable
// (FillReducing is).
func OrderByName(name string, p *Graph) ([]int, *Symbolic, error) {
	return orderByName(nil, name, p)
}

// orderByName is OrderByName stopped by pl (nil: never): once pl is done
// it returns nil, nil and a nil error (the caller reads pl.err).
func orderByName(pl *poll, name string, p *Graph) ([]int, *Symbolic, error) {
	var perm []int
	switch name {
	case "md":
		perm, sym := minimumDegree(pl, p)
		return perm, sym, nil
	case "mdpost":
		var sym *Symbolic
		if perm, sym = minimumDegree(pl, p); perm == nil {
			return nil, nil, nil
		}
		perm = postorder(perm, sym)
	case "nd":
		if perm = nestedDissection(pl, p); perm == nil {
			return nil, nil, nil
		}
	default:
		var err error
		if perm, err = externalOrder(pl, name, p); err != nil || perm == nil {
			return nil, nil, err
		}
	}
	return perm, symbolicFromOrder(pl, p, perm), nil
}

// pairGraph returns the adjacency lists of p's pair graph, sorted and
// without repeats or loops.
// Once pl (nil: never) is done it returns nil.
func pairGraph(pl *poll, p *Graph) [][]int {
	adj := make([][]int, p.N)
	for _, q := range p.Pairs {
		if q.I == q.H {
			continue
		}
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
	return adj
}

// lowerPattern returns the pattern of the lower triangle, diagonal
// included, of p's pair graph in compressed columns (rows ascending).
// Once pl (nil: never) is done it returns nils.
func lowerPattern(pl *poll, p *Graph) (colPtr, rowIdx []int) {
	adj := pairGraph(pl, p)
	if adj == nil {
		return nil, nil
	}
	colPtr = make([]int, p.N+1)
	for j, nb := range adj {
		rowIdx = append(rowIdx, j)
		for _, i := range nb {
			if i > j {
				rowIdx = append(rowIdx, i)
			}
		}
		colPtr[j+1] = len(rowIdx)
	}
	return colPtr, rowIdx
}

// symbolicFromOrder returns the symbolic factorisation of the pair graph of
// p in the row order perm (perm[new] = old): the structure of column j of L
// is the union of j's later neighbours and of the structures of j's
// children in the elimination tree, less j (the parent of j is the first
// row of its structure). This is the exact nonzero pattern of L for any
// H_o with the pair graph's sparsity (barring cancellation), in
// O(nnz(L)) time after the sort of each column. Once pl (nil: never) is
// done it returns nil.
func symbolicFromOrder(pl *poll, p *Graph, perm []int) *Symbolic {
	n := p.N
	inv := make([]int, n)
	for k, old := range perm {
		inv[old] = k
	}
	later := make([][]int, n) // later[j]: neighbours of j numbered after it
	for _, q := range p.Pairs {
		a, b := inv[q.I], inv[q.H]
		if a == b {
			continue
		}
		lo, hi := min(a, b), max(a, b)
		later[lo] = append(later[lo], hi)
	}
	structs := make([][]int, n)
	// Children lists of the elimination tree as linked lists.
	head, next := make([]int, n), make([]int, n)
	for i := range head {
		head[i] = -1
	}
	mark := make([]int, n)
	for i := range mark {
		mark[i] = -1
	}
	s := &Symbolic{N: n, colPtr: make([]int, n+1)}
	for j := 0; j < n; j++ {
		if pl.done() {
			return nil
		}
		mark[j] = j
		rows := make([]int, 0, len(later[j]))
		for _, r := range later[j] {
			if mark[r] != j {
				mark[r] = j
				rows = append(rows, r)
			}
		}
		for c := head[j]; c >= 0; c = next[c] {
			for _, r := range structs[c] {
				if mark[r] != j {
					mark[r] = j
					rows = append(rows, r)
				}
			}
			structs[c] = nil // every column has one parent: used once
		}
		slices.Sort(rows)
		structs[j] = rows
		if len(rows) > 0 {
			par := rows[0]
			next[j] = head[par]
			head[par] = j
		}
		s.rowIdx = append(s.rowIdx, rows...)
		s.colPtr[j+1] = len(s.rowIdx)
		later[j] = nil
	}
	s.finish()
	return s
}

// postorder returns perm (perm[new] = old) renumbered by a postorder of
// the elimination tree of sym (the symbolic factorisation in perm; the
// parent of column j is the first row of its structure), children in
// increasing order: an equivalent order (Liu 1990), with the same column
// counts (the same fill and factorisation flops; Takahashi's assembly,
// which weighs column j by n-j, changes), every subtree numbered
// contiguously.
func postorder(perm []int, sym *Symbolic) []int {
	n := sym.N
	head, next := make([]int, n), make([]int, n)
	for i := range head {
		head[i] = -1
	}
	var roots []int
	for j := n - 1; j >= 0; j-- {
		if sym.colPtr[j] == sym.colPtr[j+1] {
			roots = append(roots, j)
			continue
		}
		par := sym.rowIdx[sym.colPtr[j]]
		next[j] = head[par]
		head[par] = j
	}
	out := make([]int, 0, n)
	stack := make([]int, 0, n)
	for k := len(roots) - 1; k >= 0; k-- {
		stack = append(stack[:0], roots[k])
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			if c := head[j]; c >= 0 {
				head[j] = next[c] // visit child c, then j's next child
				stack = append(stack, c)
				continue
			}
			stack = stack[:len(stack)-1]
			out = append(out, perm[j])
		}
	}
	return out
}

// ndLeaf is the size below which nestedDissection orders a part by
// minimum degree instead of dividing it further.
const ndLeaf = 48

// nestedDissection returns a nested-dissection order of p's pair graph
// (perm[new] = old; George 1973, with the level-structure separators of
// George and Liu 1978): each connected part is split by a level of a
// breadth-first search from a pseudo-peripheral row — the smallest level
// that leaves at least a quarter of the part on either side, thinned of
// the rows with no neighbour beyond it — the two sides are ordered
// recursively and the separator last; parts of at most ndLeaf rows, or
// too shallow to split, are ordered by minimum degree. The first separator
// of a k×k grid is an anti-diagonal of at most k rows. Measured on grids
// up to 50×50 and the Euclidean 1.2-spanner, its nnz(L) is 2-16 % above
// minimum degree's and its assembly flops 1.4-1.7× (BenchmarkColumnOrder),
// so it is not the default. Once pl (nil: never) is done it returns nil.
func nestedDissection(pl *poll, p *Graph) []int {
	n := p.N
	adj := pairGraph(pl, p)
	if adj == nil {
		return nil
	}
	stopped := false
	where := make([]int, n) // the part a row belongs to (0 = all)
	level := make([]int, n)
	nextID := 1
	perm := make([]int, 0, n)
	var order func(rows []int, id int)
	// bfs returns the rows of part id reachable from s in breadth-first
	// order, setting level; seen is a stamp.
	seen := make([]int, n)
	stamp := 0
	bfs := func(s, id int) []int {
		stamp++
		out := []int{s}
		seen[s] = stamp
		level[s] = 0
		for k := 0; k < len(out); k++ {
			if pl.done() {
				stopped = true
				return out
			}
			u := out[k]
			for _, v := range adj[u] {
				if where[v] == id && seen[v] != stamp {
					seen[v] = stamp
					level[v] = level[u] + 1
					out = append(out, v)
				}
			}
		}
		return out
	}
	leaf := func(rows []int, id int) {
		local := make(map[int]int, len(rows))
		for k, r := range rows {
			local[r] = k
		}
		sub := &Graph{N: len(rows)}
		for k, r := range rows {
			for _, v := range adj[r] {
				if where[v] == id && v > r {
					sub.Pairs = append(sub.Pairs, Pair{I: k, H: local[v], W: 1})
				}
			}
		}
		sp, _ := minimumDegree(pl, sub)
		stopped = stopped || sp == nil
		for _, k := range sp {
			perm = append(perm, rows[k])
		}
	}
	order = func(rows []int, id int) {
		if stopped {
			return
		}
		if len(rows) <= ndLeaf {
			leaf(rows, id)
			return
		}
		// Connected components first.
		comp := bfs(rows[0], id)
		if len(comp) < len(rows) {
			in := seen
			st := stamp
			var rest []int
			for _, r := range rows {
				if in[r] != st {
					rest = append(rest, r)
				}
			}
			a, b := nextID, nextID+1
			nextID += 2
			for _, r := range comp {
				where[r] = a
			}
			for _, r := range rest {
				where[r] = b
			}
			order(comp, a)
			order(rest, b)
			return
		}
		// Pseudo-peripheral start: restart from a deepest row of least
		// degree while the depth grows.
		depth := -1
		for range 6 {
			far := comp[len(comp)-1]
			d := level[far]
			if d <= depth {
				break
			}
			depth = d
			best := far
			for _, v := range comp {
				if level[v] == d && len(adj[v]) < len(adj[best]) {
					best = v
				}
			}
			comp = bfs(best, id)
		}
		depth = level[comp[len(comp)-1]]
		if depth < 2 {
			leaf(rows, id)
			return
		}
		cnt := make([]int, depth+1)
		for _, v := range comp {
			cnt[level[v]]++
		}
		// The smallest level with a quarter of the rows on each side,
		// ties to the most balanced.
		sep, below := -1, 0
		bestSize, bestImb := len(rows)+1, len(rows)+1
		for l := 0; l <= depth; l++ {
			above := len(rows) - below - cnt[l]
			if 4*below >= len(rows) && 4*above >= len(rows) {
				imb := max(below, above) - min(below, above)
				if cnt[l] < bestSize || (cnt[l] == bestSize && imb < bestImb) {
					sep, bestSize, bestImb = l, cnt[l], imb
				}
			}
			below += cnt[l]
		}
		if sep < 0 {
			leaf(rows, id)
			return
		}
		a, b, c := nextID, nextID+1, nextID+2
		nextID += 3
		var ra, rb, rc []int
		for _, v := range comp {
			switch {
			case level[v] < sep:
				ra = append(ra, v)
			case level[v] > sep:
				rb = append(rb, v)
			}
		}
		// Thin the separator: a row with no neighbour beyond it joins
		// the near side.
		for _, v := range comp {
			if level[v] != sep {
				continue
			}
			far := false
			for _, u := range adj[v] {
				if where[u] == id && level[u] == sep+1 {
					far = true
					break
				}
			}
			if far {
				rc = append(rc, v)
			} else {
				ra = append(ra, v)
			}
		}
		for _, v := range ra {
			where[v] = a
		}
		for _, v := range rb {
			where[v] = b
		}
		for _, v := range rc {
			where[v] = c
		}
		order(ra, a)
		order(rb, b)
		perm = append(perm, rc...)
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	if n > 0 {
		order(all, 0)
	}
	if stopped {
		return nil
	}
	return perm
}

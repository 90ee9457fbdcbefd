package linear

// Counting the marginals of AnswerGaussianMarginals from the records.

import (
	"context"
	"sort"
	"strconv"
	"strings"
)

// column is one attribute's values in the narrowest of uint8 (at most 256
// values), uint16 (at most 65,536) or the caller's int32 (exactly one is
// set).
type column struct {
	u8  []uint8
	u16 []uint16
	i32 []int32
}

// compactColumns returns the columns of data in their narrowest types
// (values already validated against dims); columns are converted in
// parallel on workers goroutines.
func compactColumns(dims []int, cols [][]int32, workers int) []column {
	out := make([]column, len(cols))
	parallelFor(len(cols), workers, func(f int) {
		switch col := cols[f]; {
		case dims[f] <= 1<<8:
			c := make([]uint8, len(col))
			for r, v := range col {
				c[r] = uint8(v)
			}
			out[f].u8 = c
		case dims[f] <= 1<<16:
			c := make([]uint16, len(col))
			for r, v := range col {
				c[r] = uint16(v)
			}
			out[f].u16 = c
		default:
			out[f].i32 = col
		}
	})
	return out
}

// compactBytes is the memory of compactColumns' copies.
func compactBytes(dims []int, rows int) float64 {
	b := 0.0
	for _, n := range dims {
		switch {
		case n <= 1<<8:
			b += float64(rows)
		case n <= 1<<16:
			b += 2 * float64(rows)
		}
	}
	return b
}

// countGroup is a set of marginals (indices into the plan's Marginals, of
// one or more attributes) sharing all but their last attribute, prefix:
// one pass over the records forms each record's index in the prefix's
// marginal once and counts every member from it.
type countGroup struct {
	prefix  []int
	members []int
}

// groupMarginals groups the marginals listed in jobs (none empty) by their
// attributes but the last, largest groups first.
func groupMarginals(ms []WeightedMarginal, jobs []int) []countGroup {
	at := make(map[string]int)
	var gs []countGroup
	var key strings.Builder
	for _, i := range jobs {
		a := ms[i].Attrs
		key.Reset()
		for _, f := range a[:len(a)-1] {
			key.WriteString(strconv.Itoa(f))
			key.WriteByte(',')
		}
		k, ok := at[key.String()]
		if !ok {
			k = len(gs)
			at[key.String()] = k
			gs = append(gs, countGroup{prefix: a[:len(a)-1]})
		}
		gs[k].members = append(gs[k].members, i)
	}
	sort.SliceStable(gs, func(x, y int) bool { return len(gs[x].members) > len(gs[y].members) })
	return gs
}

// countBlock is the number of records per block: the prefix indices of a
// block (128 KiB) stay in the second-level cache while every member counts
// from them, each member's table staying in the first-level cache for a
// block's increments (a group's tables together can exceed the caches).
const countBlock = 1 << 15

// colInt is the element type of a column.
type colInt interface{ ~uint8 | ~uint16 | ~int32 }

// counter counts one group: pre is scratch of countBlock prefix indices.
type counter struct {
	ctx   context.Context // checked every 16 blocks
	dims  []int
	cols  []column
	pairs []column // pairs[x]: attributes x and x+1 as one column (value v_x·n_{x+1} + v_{x+1}), or empty
	w     []int64  // the rows' counts, nil for one record per row
	pre   []uint32
}

// pairMaxCells bounds the table of a pair of members counted as one
// (preCells·n_x·n_{x+1} uint32 counters, 48 KiB: the first-level cache).
const pairMaxCells = 12 << 10

// pairable reports whether the members j and j+1 of a group with prefix
// cells preCells and last attributes x and x+1 are counted as one table:
// it fits pairMaxCells and the records outnumber its cells 8 to 1 (so
// summing it out costs little).
func pairable(dims []int, preCells, x, rows int) bool {
	if preCells > pairMaxCells || dims[x] > pairMaxCells || dims[x+1] > pairMaxCells {
		return false
	}
	c := preCells * dims[x] // < 2^28: no overflow in 32-bit ints
	if c > pairMaxCells {
		return false
	}
	c *= dims[x+1]
	return c <= pairMaxCells && rows/8 >= c
}

// pairColumns returns the pair columns the groups use (counting without
// row counts only): x where a group has members with last attributes x
// and x+1, pairable.
func pairColumns(dims []int, ms []WeightedMarginal, groups []countGroup, cols []column, rows, workers int) []column {
	need := make([]bool, len(dims))
	used := false
	for _, g := range groups {
		preCells := 1
		for _, f := range g.prefix {
			preCells *= dims[f]
		}
		for _, j := range memberPairs(dims, ms, g, preCells, rows) {
			need[lastAttr(ms, g.members[j])] = true
			used = true
		}
	}
	if !used {
		return nil
	}
	out := make([]column, len(dims))
	parallelFor(len(dims), workers, func(x int) {
		if !need[x] {
			return
		}
		n := dims[x+1]
		if dims[x]*n <= 1<<8 {
			c := make([]uint8, rows)
			pairFill(c, cols[x], cols[x+1], n)
			out[x].u8 = c
		} else {
			c := make([]uint16, rows)
			pairFill(c, cols[x], cols[x+1], n)
			out[x].u16 = c
		}
	})
	return out
}

// pairBytes is the memory of pairColumns' columns.
func pairBytes(dims []int, ms []WeightedMarginal, groups []countGroup, rows int) float64 {
	need := make([]bool, len(dims))
	b := 0.0
	for _, g := range groups {
		preCells := 1
		for _, f := range g.prefix {
			preCells *= dims[f]
		}
		for _, j := range memberPairs(dims, ms, g, preCells, rows) {
			if x := lastAttr(ms, g.members[j]); !need[x] {
				need[x] = true
				b += float64(rows)
				if dims[x]*dims[x+1] > 1<<8 {
					b += float64(rows)
				}
			}
		}
	}
	return b
}

// memberPairs returns the members j of g counted with member j+1 as one
// table (last attributes x and x+1, pairable), in order.
func memberPairs(dims []int, ms []WeightedMarginal, g countGroup, preCells, rows int) []int {
	var js []int
	for j := 0; j+1 < len(g.members); j++ {
		x := lastAttr(ms, g.members[j])
		if lastAttr(ms, g.members[j+1]) == x+1 && pairable(dims, preCells, x, rows) {
			js = append(js, j)
			j++
		}
	}
	return js
}

// lastAttr is the last attribute of marginal i.
func lastAttr(ms []WeightedMarginal, i int) int { return ms[i].Attrs[len(ms[i].Attrs)-1] }

// pairFill sets c[r] = a[r]·n + b[r].
func pairFill[T uint8 | uint16](c []T, a, b column, n int) {
	for r := range c {
		c[r] = T(a.at(r)*n + b.at(r))
	}
}

// at returns the value of row r.
func (c column) at(r int) int {
	switch c.kind() {
	case 0:
		return int(c.u8[r])
	case 1:
		return int(c.u16[r])
	}
	return int(c.i32[r])
}

// count returns the counts of every member of g (row-major over its
// attributes), in one pass over the records in blocks: tables of uint32
// for records (a column has fewer than 2^32 rows), int64 for counted rows;
// nil when the context is cancelled.
func (c *counter) count(ms []WeightedMarginal, g countGroup) [][]int64 {
	rows := 0
	if len(c.cols) > 0 {
		rows = c.cols[0].len()
	}
	preCells := 1
	for _, f := range g.prefix {
		preCells *= c.dims[f]
	}
	last := make([]int, len(g.members))
	for j, i := range g.members {
		last[j] = ms[i].Attrs[len(ms[i].Attrs)-1]
	}
	// Pairs of members counted as one table (their last attributes x and
	// x+1 as one column), then the others by column type, so four of one
	// type count in one loop.
	paired := make([]bool, len(last))
	var pj []int
	var tp [][]uint32
	if c.w == nil && c.pairs != nil {
		for _, j := range memberPairs(c.dims, ms, g, preCells, rows) {
			if c.pairs[last[j]].len() == rows {
				pj = append(pj, j)
				paired[j], paired[j+1] = true, true
				tp = append(tp, make([]uint32, preCells*c.dims[last[j]]*c.dims[last[j+1]]))
			}
		}
	}
	var byType [3][]int
	for j, f := range last {
		if !paired[j] {
			byType[c.cols[f].kind()] = append(byType[c.cols[f].kind()], j)
		}
	}
	var t32 [][]uint32
	var t64 [][]int64
	if c.w == nil {
		t32 = make([][]uint32, len(last))
		for j, f := range last {
			if !paired[j] {
				t32[j] = make([]uint32, preCells*c.dims[f])
			}
		}
	} else {
		t64 = make([][]int64, len(last))
		for j, f := range last {
			t64[j] = make([]int64, preCells*c.dims[f])
		}
	}
	ns := make([]int, len(last))
	for j, f := range last {
		ns[j] = c.dims[f]
	}
	for r0 := 0; r0 < rows; r0 += countBlock {
		if r0%(16*countBlock) == 0 && c.ctx.Err() != nil {
			return nil
		}
		r1 := min(rows, r0+countBlock)
		pre := c.pre[:r1-r0]
		if len(g.prefix) == 0 {
			clear(pre)
		}
		for k, f := range g.prefix {
			col, n := c.cols[f], uint32(c.dims[f])
			if k == 0 {
				n = 0 // pre = col, without reading the zeros
			}
			switch col.kind() {
			case 0:
				prefixStep(pre, col.u8[r0:r1], n)
			case 1:
				prefixStep(pre, col.u16[r0:r1], n)
			default:
				prefixStep(pre, col.i32[r0:r1], n)
			}
		}
		if c.w != nil {
			w := c.w[r0:r1]
			for j, f := range last {
				col := c.cols[f]
				switch col.kind() {
				case 0:
					countWeighted(pre, col.u8[r0:r1], ns[j], t64[j], w)
				case 1:
					countWeighted(pre, col.u16[r0:r1], ns[j], t64[j], w)
				default:
					countWeighted(pre, col.i32[r0:r1], ns[j], t64[j], w)
				}
			}
			continue
		}
		for k, j := range pj {
			col, n := c.pairs[last[j]], ns[j]*ns[j+1]
			if col.kind() == 0 {
				count1(pre, col.u8[r0:r1], n, tp[k])
			} else {
				count1(pre, col.u16[r0:r1], n, tp[k])
			}
		}
		countTyped(pre, byType[0], last, ns, t32, func(f int) []uint8 { return c.cols[f].u8[r0:r1] })
		countTyped(pre, byType[1], last, ns, t32, func(f int) []uint16 { return c.cols[f].u16[r0:r1] })
		countTyped(pre, byType[2], last, ns, t32, func(f int) []int32 { return c.cols[f].i32[r0:r1] })
	}
	if c.w != nil {
		return t64
	}
	out := make([][]int64, len(last))
	for k, j := range pj { // sum each pair table out to its two members
		nx, ny := ns[j], ns[j+1]
		yx, yy := make([]int64, preCells*nx), make([]int64, preCells*ny)
		t := tp[k]
		for p := 0; p < preCells; p++ {
			for u := 0; u < nx; u++ {
				row := t[(p*nx+u)*ny : (p*nx+u+1)*ny]
				sx := int64(0)
				for v, val := range row {
					sx += int64(val)
					yy[p*ny+v] += int64(val)
				}
				yx[p*nx+u] = sx
			}
		}
		out[j], out[j+1] = yx, yy
		tp[k] = nil
	}
	for j, t := range t32 {
		if paired[j] {
			continue
		}
		y := make([]int64, len(t))
		for q, v := range t {
			y[q] = int64(v)
		}
		out[j] = y
		t32[j] = nil
	}
	return out
}

func (c column) len() int {
	switch c.kind() {
	case 0:
		return len(c.u8)
	case 1:
		return len(c.u16)
	}
	return len(c.i32)
}

// kind is 0 for uint8, 1 for uint16, 2 for int32.
func (c column) kind() int {
	switch {
	case c.u8 != nil:
		return 0
	case c.u16 != nil:
		return 1
	}
	return 2
}

// countTyped counts the members js (all of column type T, col(f) the
// block of attribute f) four at a time.
func countTyped[T colInt](pre []uint32, js, last, ns []int, tabs [][]uint32, col func(f int) []T) {
	k := 0
	for ; k+4 <= len(js); k += 4 {
		a, b, c, d := js[k], js[k+1], js[k+2], js[k+3]
		count4(pre, col(last[a]), col(last[b]), col(last[c]), col(last[d]), ns[a], ns[b], ns[c], ns[d], tabs[a], tabs[b], tabs[c], tabs[d])
	}
	for ; k < len(js); k++ {
		a := js[k]
		count1(pre, col(last[a]), ns[a], tabs[a])
	}
}

// prefixStep appends an attribute of n values to the prefix indices:
// pre[i] = pre[i]·n + col[i], or pre[i] = col[i] for n = 0 (the first).
func prefixStep[T colInt](pre []uint32, col []T, n uint32) {
	col = col[:len(pre)]
	if n == 0 {
		for i, v := range col {
			pre[i] = uint32(v)
		}
		return
	}
	for i, v := range col {
		pre[i] = pre[i]*n + uint32(v)
	}
}

// count1 adds one to tab[pre[i]·n + col[i]] for every i.
func count1[T colInt](pre []uint32, col []T, n int, tab []uint32) {
	col = col[:len(pre)]
	for i, v := range col {
		tab[int(pre[i])*n+int(v)]++
	}
}

// count4 is count1 for four columns at once (independent tables, so the
// increments overlap).
func count4[T colInt](pre []uint32, c0, c1, c2, c3 []T, n0, n1, n2, n3 int, t0, t1, t2, t3 []uint32) {
	c0, c1, c2, c3 = c0[:len(pre)], c1[:len(pre)], c2[:len(pre)], c3[:len(pre)]
	for i, p := range pre {
		q := int(p)
		t0[q*n0+int(c0[i])]++
		t1[q*n1+int(c1[i])]++
		t2[q*n2+int(c2[i])]++
		t3[q*n3+int(c3[i])]++
	}
}

// countWeighted adds w[i] to tab[pre[i]·n + col[i]] for every i.
func countWeighted[T colInt](pre []uint32, col []T, n int, tab []int64, w []int64) {
	col, w = col[:len(pre)], w[:len(pre)]
	for i, v := range col {
		tab[int(pre[i])*n+int(v)] += w[i]
	}
}

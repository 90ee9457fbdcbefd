package linear

// Counting the marginals of AnswerGaussianMarginals from the records.

import (
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
// block (16 KiB) stay in the first-level cache while every member counts
// from them.
const countBlock = 4096

// colInt is the element type of a column.
type colInt interface{ ~uint8 | ~uint16 | ~int32 }

// counter counts one group: pre is scratch of countBlock prefix indices.
type counter struct {
	dims []int
	cols []column
	w    []int64 // the rows' counts, nil for one record per row
	pre  []uint32
}

// count returns the counts of every member of g (row-major over its
// attributes), in one pass over the records in blocks: tables of uint32
// for records (a column has fewer than 2^32 rows), int64 for counted rows.
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
	// Members by column type, so four of one type count in one loop.
	var byType [3][]int
	for j, f := range last {
		byType[c.cols[f].kind()] = append(byType[c.cols[f].kind()], j)
	}
	var t32 [][]uint32
	var t64 [][]int64
	if c.w == nil {
		t32 = make([][]uint32, len(last))
		for j, f := range last {
			t32[j] = make([]uint32, preCells*c.dims[f])
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
		r1 := min(rows, r0+countBlock)
		pre := c.pre[:r1-r0]
		clear(pre)
		for _, f := range g.prefix {
			col, n := c.cols[f], uint32(c.dims[f])
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
		countTyped(pre, byType[0], last, ns, t32, func(f int) []uint8 { return c.cols[f].u8[r0:r1] })
		countTyped(pre, byType[1], last, ns, t32, func(f int) []uint16 { return c.cols[f].u16[r0:r1] })
		countTyped(pre, byType[2], last, ns, t32, func(f int) []int32 { return c.cols[f].i32[r0:r1] })
	}
	if c.w != nil {
		return t64
	}
	out := make([][]int64, len(last))
	for j, t := range t32 {
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
// pre[i] = pre[i]·n + col[i].
func prefixStep[T colInt](pre []uint32, col []T, n uint32) {
	col = col[:len(pre)]
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

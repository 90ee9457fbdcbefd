package optimal

import (
	"math"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/mech/metric"
)

// latticeOffsets returns, for a Lattice metric, the offsets (nonnegative
// coordinate differences, as a flat row-major index into the box of Dims)
// whose pairs are not implied by others: offset delta is implied when it
// splits as delta = a + b with a, b nonzero, 0 <= a <= delta componentwise
// and Offset(a) + Offset(b) <= Offset(delta)·(1 + 1e-12). Then for points
// i and h = i ± delta (signs per coordinate), the point i ± a lies in the
// box between them, so X[i][o] <= e^{eps Offset(a)} X[i±a][o] <=
// e^{eps (Offset(a)+Offset(b))} X[h][o] makes the pair (i, h) redundant
// (by induction on the offset, since a and b are smaller). For a Manhattan
// grid only the unit offsets remain; for a Euclidean grid the primitive
// ones. The rounding the tolerance admits is removed by the audit and
// repair of Solve.
func latticeOffsets(l metric.Lattice) []bool {
	dims := l.Dims()
	k := len(dims)
	size := 1
	for _, d := range dims {
		size *= d
	}
	off := make([]float64, size)
	coord := make([]int, k)
	decode := func(idx int, c []int) {
		for j := k - 1; j >= 0; j-- {
			c[j] = idx % dims[j]
			idx /= dims[j]
		}
	}
	for idx := range off {
		decode(idx, coord)
		off[idx] = l.Offset(coord)
	}
	encode := func(c []int) int {
		idx := 0
		for j, v := range c {
			idx = idx*dims[j] + v
		}
		return idx
	}
	kept := make([]bool, size)
	a, b := make([]int, k), make([]int, k)
	for idx := 1; idx < size; idx++ {
		decode(idx, coord)
		limit := off[idx] * (1 + 1e-12)
		implied := false
		// Enumerate a in the box [0, coord], a != 0, a != coord.
		for j := range a {
			a[j] = 0
		}
		for !implied {
			// Next a (odometer over the box).
			j := k - 1
			for j >= 0 && a[j] == coord[j] {
				a[j] = 0
				j--
			}
			if j < 0 {
				break
			}
			a[j]++
			same := true
			for t := range a {
				b[t] = coord[t] - a[t]
				same = same && b[t] == 0
			}
			if same {
				continue // a == coord
			}
			if off[encode(a)]+off[encode(b)] <= limit {
				implied = true
			}
		}
		kept[idx] = !implied
	}
	return kept
}

// latticePairs lists both orientations of the pairs of a Lattice metric at
// the offsets kept by latticeOffsets, with ratio e^{eps Offset}.
func latticePairs(l metric.Lattice, eps float64) []lp.Pair {
	dims := l.Dims()
	k := len(dims)
	kept := latticeOffsets(l)
	n := l.Len()
	var ps []lp.Pair
	delta := make([]int, k)
	ci, ch := make([]int, k), make([]int, k)
	for idx, ok := range kept {
		if !ok {
			continue
		}
		r := idx
		for j := k - 1; j >= 0; j-- {
			delta[j] = r % dims[j]
			r /= dims[j]
		}
		w := math.Min(math.Exp(eps*l.Offset(delta)), 1e300)
		// Every sign pattern of delta's nonzero coordinates, up to the
		// overall sign (both orientations are added per pair).
		nz := []int{}
		for j, v := range delta {
			if v != 0 {
				nz = append(nz, j)
			}
		}
		for mask := 0; mask < 1<<len(nz); mask++ {
			if len(nz) > 0 && mask&(1<<(len(nz)-1)) != 0 {
				continue // one nonzero coordinate keeps its sign
			}
			sd := make([]int, k)
			copy(sd, delta)
			for t, j := range nz {
				if mask&(1<<t) != 0 {
					sd[j] = -sd[j]
				}
			}
			for i := 0; i < n; i++ {
				r := i
				for j := k - 1; j >= 0; j-- {
					ci[j] = r % dims[j]
					r /= dims[j]
				}
				inside := true
				for j := range ch {
					ch[j] = ci[j] + sd[j]
					inside = inside && ch[j] >= 0 && ch[j] < dims[j]
				}
				if !inside {
					continue
				}
				h := 0
				for j, v := range ch {
					h = h*dims[j] + v
				}
				ps = append(ps, lp.Pair{I: i, H: h, W: w}, lp.Pair{I: h, H: i, W: w})
			}
		}
	}
	return ps
}

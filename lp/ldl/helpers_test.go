package ldl

import "math"

// gridPts are the cells of a w×h grid with unit step.
func gridPts(w, h int) [][2]float64 {
	var pts [][2]float64
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			pts = append(pts, [2]float64{float64(x), float64(y)})
		}
	}
	return pts
}

func l1(a, b [2]float64) float64 { return math.Abs(a[0]-b[0]) + math.Abs(a[1]-b[1]) }

func l2(a, b [2]float64) float64 { return math.Hypot(a[0]-b[0], a[1]-b[1]) }

// metricPairs are both orientations of every pair at ratio e^{eps d}.
func metricPairs(pts [][2]float64, d func(a, b [2]float64) float64, eps float64) []Pair {
	var ps []Pair
	for i := range pts {
		for h := range pts {
			if i != h {
				ps = append(ps, Pair{I: i, H: h, W: math.Exp(eps * d(pts[i], pts[h]))})
			}
		}
	}
	return ps
}

// bandPairs are the privacy constraints of the sum-query metric with band v
// on answers 0..n-1 (i ~ j iff 0 < |i-j| <= v), ratio e^eps on each edge;
// v = 1 is the line.
func bandPairs(n, v int, eps float64) []Pair {
	var ps []Pair
	w := math.Exp(eps)
	for i := 0; i < n; i++ {
		for j := i + 1; j <= i+v && j < n; j++ {
			ps = append(ps, Pair{I: i, H: j, W: w}, Pair{I: j, H: i, W: w})
		}
	}
	return ps
}

// rectEdgePairs are both orientations of the 4-neighbour edges of a w×h
// grid (row y·w+x) at the given ratio.
func rectEdgePairs(w, h int, ratio float64) []Pair {
	var ps []Pair
	for y := range h {
		for x := range w {
			i := y*w + x
			if x+1 < w {
				ps = append(ps, Pair{I: i, H: i + 1, W: ratio}, Pair{I: i + 1, H: i, W: ratio})
			}
			if y+1 < h {
				ps = append(ps, Pair{I: i, H: i + w, W: ratio}, Pair{I: i + w, H: i, W: ratio})
			}
		}
	}
	return ps
}

// permuted returns g with its rows renumbered by perm (perm[new] = old).
func permuted(g *Graph, perm []int) *Graph {
	inv := make([]int, g.N)
	for k, old := range perm {
		inv[old] = k
	}
	q := &Graph{N: g.N, Pairs: make([]Pair, len(g.Pairs))}
	for k, pr := range g.Pairs {
		q.Pairs[k] = Pair{I: inv[pr.I], H: inv[pr.H], W: pr.W}
	}
	return q
}

package tight

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"github.com/optdp/optdp/solve"
)

// autoBandedN is the size above which "auto" prefers the banded solver to
// the dense one for a graph of small bandwidth.
const autoBandedN = 2000

// maxBandFraction: the banded solver applies when the graph's bandwidth b
// is at most n/maxBandFraction.
const maxBandFraction = 8

// bandedTol is the largest ||Phi - Phi_K||_inf the banded solver accepts
// when it truncates Phi (see bandedDepth).
const bandedTol = 1e-17

// graphBandwidth is max |i-j| over the edges of g, or -1 when it exceeds
// limit (the scan stops there).
func graphBandwidth(g metric.Graph, limit int) int {
	b := 0
	for i, j := range g.Edges() {
		b = max(b, j-i)
		if b > limit {
			return -1
		}
	}
	return b
}

// bandedApplies reports whether m is a graph with bandwidth at most
// n/maxBandFraction in its own vertex order. Graphs above MaxVectorN
// answers are never banded (the solver keeps n-vectors, and scanning the
// edges of ring:n=1e9 alone took 16 s).
func bandedApplies(m metric.Metric) bool {
	g, ok := m.(metric.Graph)
	if !ok || m.Len() < 2 || m.Len() > MaxVectorN {
		return false
	}
	return graphBandwidth(g, m.Len()/maxBandFraction) >= 0
}

// bandedTail bounds ||Phi - Phi_K||_inf when Phi_K keeps the entries with
// d(i,j) <= K of a graph of bandwidth b. A dropped entry has
// d >= max(K+1, ceil(|i-j|/b)), since a path of d edges moves the index by
// at most d·b, and at most 2b indices j have ceil(|i-j|/b) = k, so a row
// loses at most 2b(K+1)·e^{-eps(K+1)} (k <= K+1) plus
// 2b·Σ_{k>K+1} e^{-eps k} = 2b·e^{-eps(K+2)}/(1-e^{-eps}).
func bandedTail(b, k int, eps float64) float64 {
	q := math.Exp(-eps)
	t := 2 * float64(b) * math.Exp(-eps*float64(k+1)) * (float64(k+1) + q/-math.Expm1(-eps))
	return t * (1 + 1e-12) // rounding of exp and of the products
}

// bandedDepth is the smallest depth K with bandedTail <= bandedTol, and the
// tail bound there; K = n-1 (every finite distance kept, tail 0) when that
// comes first.
func bandedDepth(n, b int, eps float64) (int, float64) {
	for k := 1; k < n-1; k++ {
		if t := bandedTail(b, k, eps); t <= bandedTol {
			return k, t
		}
	}
	return max(n-1, 1), 0
}

// csrOf builds the adjacency lists of g from its edges.
func csrOf(g metric.Graph, n int) (off []int, adj []int32) {
	off = make([]int, n+1)
	for i, j := range g.Edges() {
		off[i+1]++
		off[j+1]++
	}
	for i := 1; i <= n; i++ {
		off[i] += off[i-1]
	}
	adj = make([]int32, off[n])
	fill := make([]int, n)
	copy(fill, off[:n])
	for i, j := range g.Edges() {
		adj[fill[i]] = int32(j)
		fill[i]++
		adj[fill[j]] = int32(i)
		fill[j]++
	}
	return off, adj
}

// tightBanded solves Phi z = 1 for a graph of small bandwidth b
// (docs/MATH.md §12.5). Since d(i,j) >= ceil(|i-j|/b), Phi is numerically
// banded: Phi_K, the entries with d <= K (found by a breadth-first search of
// depth K from each vertex, never the all-pairs table), has half-bandwidth
// K·b and ||Phi - Phi_K||_inf <= delta = bandedTail(b, K) <= 1e-17. Phi_K is
// factorised by band Cholesky in O(n·(Kb)²).
//
// Certificate: for the computed z̃, r = 1 - Phi z̃ satisfies
// ||r|| <= ||1 - Phi_K z̃|| (plus its rounding) + delta·||z̃||, and
// |z - z̃| <= ||Phi^{-1}||·||r||. When Phi_K's off-diagonal row sums s
// (enlarged for rounding) satisfy s + delta < 1, Varah's bound
// ||Phi^{-1}||_inf <= 1/(1 - s - delta) is rigorous (certificate
// "error-bound/varah", or "diagonal-dominance" when that settles z > 0
// directly); otherwise ||Phi_K^{-1}|| is the LAPACK condition estimate
// times solve.ErrorSafety, as in the dense path (certificate "error-bound"),
// and ||Phi^{-1}|| <=
// ||Phi_K^{-1}||/(1 - delta·||Phi_K^{-1}||). An indefinite or singular
// Phi_K falls back to the dense solver (with a Note).
func tightBanded(ctx context.Context, m metric.Metric, eps float64, o *Options) (*Result, error) {
	g, ok := m.(metric.Graph)
	n := m.Len()
	if !ok || n < 2 {
		return nil, fmt.Errorf("tight: banded: %s is not a graph metric", m)
	}
	b := graphBandwidth(g, n)
	k, delta := bandedDepth(n, b, eps)
	bw := min(k*b, n-1)
	if need := solve.BandedBytes(n, bw); !o.Budget.Fits(need) {
		return nil, fmt.Errorf("tight: banded solve: n = %d with half-bandwidth %d (graph bandwidth %d, depth %d) needs %s, above the limit of %s: %w",
			n, bw, b, k, run.FormatBytes(need), run.FormatBytes(float64(o.Budget.Bytes())), run.ErrTooLarge)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	off, adj := csrOf(g, n)
	// Depth-K BFS from each row's vertex, computed when entry first asks
	// for row i (SolveBanded asks row by row).
	dist := make([]int32, n)
	for v := range dist {
		dist[v] = -1
	}
	var queue []int32
	src := -1
	entry := func(i, j int) float64 {
		if i != src {
			for _, v := range queue {
				dist[v] = -1
			}
			dist[i] = 0
			queue = append(queue[:0], int32(i))
			for h := 0; h < len(queue); h++ {
				v := queue[h]
				if int(dist[v]) >= k {
					continue
				}
				for _, w := range adj[off[v]:off[v+1]] {
					if dist[w] < 0 {
						dist[w] = dist[v] + 1
						queue = append(queue, w)
					}
				}
			}
			src = i
		}
		if dist[j] < 0 {
			return 0
		}
		return math.Exp(-eps * float64(dist[j]))
	}
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	res, err := solve.SolveBanded(n, bw, entry, ones, o.Budget)
	if errors.Is(err, solve.ErrBandedNotPD) {
		r, derr := tightDense(ctx, m, eps, o)
		if derr != nil {
			return nil, fmt.Errorf("%w; dense fallback: %w", err, derr)
		}
		r.Note = joinNote(r.Note, "banded Phi is not numerically positive definite: solved densely")
		return r, nil
	}
	if err != nil {
		return nil, fmt.Errorf("banded solve: %w", err)
	}
	return bandedResult(res, bw, delta), nil
}

// bandedResult turns the banded solve of Phi_K z = 1 into a Result
// with the error bound of tightBanded's doc comment.
func bandedResult(res solve.BandedResult, bw int, delta float64) *Result {
	const u = 0x1p-53
	terms := float64(2*bw + 3)
	gam := terms * u / (1 - terms*u)
	zmax, minZ := 0.0, math.Inf(1)
	for _, v := range res.Z {
		zmax = max(zmax, math.Abs(v))
		minZ = min(minZ, v)
	}
	// Residual of the exact Phi: computed banded residual, its rounding,
	// the rounding (relative u) and underflow of Phi_K's entries, and the
	// truncated tail.
	rTrue := res.ResidualAbs + gam*res.AbsMax + u*res.AbsMax + terms*0x1p-1074*zmax + delta*zmax
	// Off-diagonal row sums of Phi: Phi_K's, enlarged for the rounding of
	// exp and of the sums, plus the tail.
	s := res.OffDiag*(1+terms*0x1p-52) + terms*0x1p-1074 + delta
	var invNorm float64
	rigorous := res.UnitNonneg && s < 1
	if rigorous {
		invNorm = 1 / (1 - s) // Varah
	} else {
		est := solve.ErrorSafety / (res.RCond * res.Norm)
		invNorm = math.Inf(1)
		if delta*est < 1 {
			invNorm = est / (1 - delta*est)
		}
	}
	r := &Result{
		Z: res.Z, MinZ: minZ, ZErr: invNorm * rTrue, Unique: true,
		Solver: Solver(res.Solver), RCond: res.RCond, Utility: meanOf(res.Z),
		Residual: res.Residual,
	}
	if r.Exists = run.SignVerdict(r.MinZ, r.ZErr); r.Exists != Borderline {
		r.Certificate = "error-bound"
	}
	// Phi = I + E, E >= 0, ||E|| <= s < 1, b = 1: z = 1 - E z gives
	// ||z|| <= 1/(1-s) and z_i >= 1 - s/(1-s) > 0 when 1-s > s.
	if r.Exists != Yes && rigorous && 1-s > s*(1+0x1p-50) {
		r.Exists, r.Certificate = Yes, "diagonal-dominance"
	}
	if rigorous && r.Certificate == "error-bound" {
		r.Certificate = "error-bound/varah"
	}
	return r
}

package linear

import (
	"fmt"
	"slices"

	"github.com/optdp/optdp/run"
)

// gcFactor is the ratio of the Go heap's peak to its live data under the
// default GOGC=100: the collector lets the heap grow to twice the data live
// after the previous collection before it runs again.
const gcFactor = 2

// minHeap is the Go runtime's minimum heap goal (4 MiB): below it the
// collector does not run, so small problems peak at live data + 4 MiB.
const minHeap = 4 << 20

// gramSplit returns the factor orders into which every Kronecker term of
// w.Gram() splits the domain ([n] for a workload with a dense Gram), or nil
// when the terms split it differently (Optimize then forms the dense Gram).
// It mirrors kronTerms without forming the Gram.
func gramSplit(w Workload) []int {
	switch v := w.(type) {
	case *scaledWorkload:
		return gramSplit(v.w)
	case *marginalWorkload:
		return slices.Clone(v.dims)
	case *kronWorkload:
		var out []int
		for _, f := range v.fs {
			s := gramSplit(f)
			if s == nil {
				return nil
			}
			out = append(out, s...)
		}
		return out
	case *unionWorkload:
		var out []int
		for i, f := range v.ws {
			s := gramSplit(f)
			if s == nil || (i > 0 && !slices.Equal(s, out)) {
				return nil
			}
			out = s
		}
		return out
	}
	_, n := w.Dims()
	return []int{n}
}

// gramTerms returns the number of Kronecker terms of w.Gram(), counted
// without forming it.
func gramTerms(w Workload) int {
	switch v := w.(type) {
	case *scaledWorkload:
		return gramTerms(v.w)
	case *unionWorkload:
		t := 0
		for _, f := range v.ws {
			t += gramTerms(f)
		}
		return t
	case *kronWorkload:
		t := 1
		for _, f := range v.fs {
			t *= gramTerms(f)
		}
		return t
	case *marginalWorkload:
		return len(v.subsets)
	}
	return 1
}

// baselineRows returns an upper bound on the total number of rows of the
// standard strategies Optimize compares against on one factor of order n
// (identity, hierarchical with branchings 2, 4, 8, 16 with and without the
// root, wavelet): a tree of branching b has at most Σ_k ceil(n/b^k) + 1
// nodes.
func baselineRows(n int) float64 {
	rows := 2 * float64(n) // identity and wavelet
	for _, b := range hierBranchings {
		t := 1.0
		for m := n; m > 1; m = (m + b - 1) / b {
			t += float64(m)
		}
		rows += 2 * t
	}
	return rows
}

// OptimizeBytes estimates the peak memory, in bytes, of Optimize(w, opts)
// when it runs a dense optimiser, that is when the Gram matrix W^T W of w
// is one dense n×n matrix (range, prefix, explicit workloads; unions of
// them; sums of Kronecker terms that split the domain differently), and
// returns 0 for the Kronecker and marginal paths, whose factors the sdp
// optimisers check against the budget one by one. The estimate counts, in
// n×n float64 matrices: per Gram term (T of them, e.g. the members of a
// union) the term, its counting workspace and the optimiser's copy (4 T),
// the dense sum (1), the standard strategies compared against
// (baselineRows(n)/n, about 13, held together by the L1 optimiser; the L2
// path holds one at a time, 2), the returned strategy ((n+p)/n), the
// inverse-Gram workspaces of the error evaluations (4), and, for eps-DP
// (Delta = 0), the p-Identity and L-BFGS workspaces (30 + 7 T p×n
// matrices, p = opts.P or max(1, n/16)), or, for Delta > 0, the L2 Newton
// workspaces (sdp.L2Bytes, 14; 4 for all ranges and prefixes, whose Gram
// has a tridiagonal inverse and takes sdp's structured path); the total is
// multiplied by gcFactor = 2, the heap's peak-to-live ratio under GOGC=100,
// and the runtime's 4 MiB minimum heap goal is added. For allrange with --max-iter 3 the estimate
// is 1.3x to 1.5x the measured peak resident set at n = 512, 1024, 2048
// (eps-DP) and 1.6x to 1.7x at n = 512, 1024 (--delta);
// TestOptimizeBytesBoundsPeak checks it against the heap.
func OptimizeBytes(w Workload, opts *OptimizeOptions) float64 {
	if w == nil {
		return 0
	}
	if s := gramSplit(w); len(s) > 1 {
		return 0
	}
	_, n := w.Dims()
	nf := float64(n)
	terms := float64(gramTerms(w))
	mats := 4*terms + 1 + 4
	extra := 0.0
	if opts != nil && opts.Delta != 0 {
		// The L2 path holds one baseline at a time (the largest, a binary
		// tree, has at most 2n rows).
		mats += 2
		if tridiagInverse(w) {
			mats += 4 // sdp.OptimizeL2's structured path (docs/MATH.md §15.7)
		} else {
			mats += 14
		}
	} else {
		mats += baselineRows(n) / nf
		p := max(1, n/16)
		if opts != nil && opts.P > 0 {
			p = opts.P
		}
		mats += (nf + float64(p)) / nf
		extra = run.DenseBytes(p, n, 30) + run.DenseBytes(p, n, 7)*terms + run.DenseBytes(p, p, 2)
	}
	return gcFactor*(run.DenseBytes(n, n, 1)*mats+extra) + minHeap
}

// tridiagInverse reports whether w (possibly scaled) is an all-range or
// prefix workload, whose Gram matrix has a tridiagonal inverse.
func tridiagInverse(w Workload) bool {
	for {
		switch v := w.(type) {
		case *scaledWorkload:
			w = v.w
		case *rangeWorkload:
			return v.tridiagInverse
		default:
			return false
		}
	}
}

// checkOptimizeBytes checks OptimizeBytes against the budget before any
// matrix is allocated.
func checkOptimizeBytes(w Workload, opts *OptimizeOptions) error {
	need := OptimizeBytes(w, opts)
	if need == 0 {
		return nil
	}
	_, n := w.Dims()
	return opts.Budget.Check(fmt.Sprintf("optimising %v (the dense Gram matrix W^T W of order %d, %s alone, the baselines and the workspaces)",
		w, n, run.FormatBytes(run.DenseBytes(n, n, 1))), need,
		"state the workload as a Kronecker product of per-attribute blocks (range2d, marginals or a workload file), which the product-domain optimiser solves factor by factor, use a smaller domain, or raise the memory budget (OptimizeOptions.Budget)")
}

package lp

import (
	"errors"
	"fmt"
	"math"

	"github.com/optdp/optdp/lp/ldl"
	"github.com/optdp/optdp/run"
)

// Pair is one ratio constraint X[I][o] <= W·X[H][o], imposed on every
// column o: I and H are rows, W > 1 is the allowed ratio, e^{eps d(I,H)}
// for a privacy constraint. It is the type of package ldl, whose
// factorisations take the pairs as the rows of the constraint matrix.
type Pair = ldl.Pair

// Problem is the linear program of the package documentation: n rows, m
// columns, the gain matrix C and the ratio constraints Pairs shared by all
// columns.
type Problem struct {
	// N is the number of rows (true answers), M the number of columns (outputs).
	N, M int
	// C holds the objective coefficients row-major: C[i*M+o] multiplies X[i][o].
	C []float64
	// Pairs are the ratio constraints; each ordered pair is listed separately
	// (a symmetric privacy constraint is two pairs).
	Pairs []Pair
}

// validate checks the problem's shape and values.
func (p *Problem) validate() error {
	if p == nil {
		return errors.New("lp: nil problem")
	}
	if p.N < 1 || p.M < 1 {
		return fmt.Errorf("lp: need at least one row and one column, got %d×%d", p.N, p.M)
	}
	if p.N > math.MaxInt32 || p.M > math.MaxInt32 || p.N*p.M/p.M != p.N {
		return fmt.Errorf("lp: %d×%d variables: %w", p.N, p.M, run.ErrTooLarge)
	}
	if len(p.C) != p.N*p.M {
		return fmt.Errorf("lp: gain has %d entries, want N·M = %d", len(p.C), p.N*p.M)
	}
	for k, c := range p.C {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("lp: gain entry (%d,%d) is %v, want a finite number", k/p.M, k%p.M, c)
		}
	}
	for k, q := range p.Pairs {
		if q.I < 0 || q.I >= p.N || q.H < 0 || q.H >= p.N || q.I == q.H {
			return fmt.Errorf("lp: pair %d = (%d,%d): rows must be distinct and in [0,%d)", k, q.I, q.H, p.N)
		}
		if !(q.W > 1) || math.IsInf(q.W, 1) {
			return fmt.Errorf("lp: pair %d = (%d,%d) has ratio %v, want a finite ratio > 1", k, q.I, q.H, q.W)
		}
	}
	return nil
}

// bandwidth is the largest |I-H| over the pairs: the half-bandwidth of the
// per-column Newton matrices.
func (p *Problem) bandwidth() int {
	b := 0
	for _, q := range p.Pairs {
		b = max(b, q.I-q.H, q.H-q.I)
	}
	return b
}

// WorkspaceBytes estimates the memory Solve allocates for p with the given
// number of parallel workers in the banded mode (Solve checks it for the
// row numbering it solves with, a bandwidth-reducing renumbering of p, and
// adds the sparse factors and per-worker inverses when it uses them): 15
// arrays of N·M values (iterate, residuals, direction, corrector,
// certificate), 7 of len(Pairs)·M (slacks, multipliers, residuals,
// direction, corrector), the M banded factors of bandwidth b
// (allocated by the sparse mode only for its QR fallback, but counted), the
// N×N Schur complement and one N×N accumulator per extra worker, and
// per-worker scratch.
func (p *Problem) WorkspaceBytes(workers int) float64 {
	return p.workspaceBytes(workers, p.M)
}

// workspaceBytes is WorkspaceBytes for a solver that keeps m of the
// columns (the symmetric mode keeps one per orbit).
func (p *Problem) workspaceBytes(workers, cols int) float64 {
	return workspaceBytes(p.N, cols, len(p.Pairs), p.bandwidth(), workers)
}

// workspaceBytes is Problem.workspaceBytes for the given numbers of rows,
// columns kept and pairs, and the half-bandwidth bw.
func workspaceBytes(rows, cols, pairs, bw, workers int) float64 {
	n, m, np := float64(rows), float64(cols), float64(pairs)
	b, w := float64(bw), float64(max(1, workers))
	floats := 15*n*m + 7*np*m + m*n*(b+1) + w*n*n + w*(2*(b+1)*n+np+3*n)
	return 8 * floats
}

// MinBytes is a lower bound of the memory Solve and SolveSpanner allocate
// for an n×m problem without symmetries whose LP keeps np pairs (after
// the pruning or of the spanner): 15 arrays of n·m values and 7 of np·m,
// 8(15nm + 7·np·m) bytes. Solve refuses with it before the pruning;
// a caller can refuse with it before building the problem.
func MinBytes(n, m, np int) float64 {
	return 8 * (15*float64(n)*float64(m) + 7*float64(np)*float64(m))
}

// graph is p's pair graph, the pattern of its per-column Newton matrices.
func (p *Problem) graph() *ldl.Graph { return &ldl.Graph{N: p.N, Pairs: p.Pairs} }

// objective is sum C∘X for X row-major.
func (p *Problem) objective(x []float64) float64 {
	var v float64
	for k, c := range p.C {
		v += c * x[k]
	}
	return v
}

// permutedBandwidth is permuted(p, perm).bandwidth(), without the copy.
func permutedBandwidth(p *Problem, perm []int) int {
	inv := make([]int, p.N)
	for k, old := range perm {
		inv[old] = k
	}
	b := 0
	for _, q := range p.Pairs {
		b = max(b, inv[q.I]-inv[q.H], inv[q.H]-inv[q.I])
	}
	return b
}

// permuted returns p with its rows renumbered by perm (perm[new] = old), and
// its bandwidth.
func permuted(p *Problem, perm []int) *Problem {
	inv := make([]int, p.N)
	for k, old := range perm {
		inv[old] = k
	}
	q := &Problem{N: p.N, M: p.M, C: make([]float64, len(p.C)), Pairs: make([]Pair, len(p.Pairs))}
	for k, old := range perm {
		copy(q.C[k*p.M:(k+1)*p.M], p.C[old*p.M:(old+1)*p.M])
	}
	for k, pr := range p.Pairs {
		q.Pairs[k] = Pair{I: inv[pr.I], H: inv[pr.H], W: pr.W}
	}
	return q
}

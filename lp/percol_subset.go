package lp

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/optdp/optdp/run"
)

// The subset start of generateColumns: from a common start on at least
// startColsMin columns, the first relaxation keeps m/startColsFrac of
// them (at least startColsMin/startColsFrac), spread over the rows by
// spreadColumns. The optimum uses few outputs (random points, two hot
// spots, eps 1: 37 of 400 and 71 of 1,000 columns carry mass), so the
// columns come back as their prices say. Random points, Tol 1e-2, 2
// cores: at 2,500 points a twelfth (208 columns; 534 solved by round 6)
// certified a gap of 0.0095 in 6 rounds and 22.6 minutes, where a fifth
// (500; 716 by round 4) took 4-5 minutes a round and was refused for
// memory in round 4 under 8 GiB; at 1,600 points 6.2 minutes against
// 7.4. Below startColsMin every column is in the first round: on 1,000
// points (Tol 1e-6) a fifth made the first round 28 s instead of 137 s,
// but the columns brought back one round after another made it 12
// rounds and 11.3 minutes instead of 10 rounds and 9.3. A variable so
// that tests can take the path on small problems.
var startColsMin = 1500

const startColsFrac = 12

// logRatios returns the N×N table of the smallest log W of p's pairs
// (I, H) at [I][H] (+Inf without a pair, 0 on the diagonal), checked
// against budget.
func logRatios(p *Problem, budget run.Budget) ([]float64, error) {
	n := p.N
	if err := budget.Check(fmt.Sprintf("lp: generate: %d×%d log-ratio table", n, n), run.DenseBytes(n, n, 1), ""); err != nil {
		return nil, err
	}
	lw := make([]float64, n*n)
	for i := range lw {
		lw[i] = math.Inf(1)
	}
	for i := 0; i < n; i++ {
		lw[i*n+i] = 0
	}
	for _, q := range p.Pairs {
		l := math.Log(q.W)
		lw[q.I*n+q.H] = min(lw[q.I*n+q.H], l)
	}
	return lw, nil
}

// spreadColumns returns k of the n columns of a square problem (column o
// is the output at row o) spread by farthest-point sampling in the
// log-ratio table lw (logRatios, either orientation): the first column 0,
// each next the one whose smallest log-ratio to those chosen is largest
// (a pair absent both ways counts as infinitely far).
func spreadColumns(ctx context.Context, lw []float64, n, k int) ([]int, error) {
	k = min(k, n)
	dist := make([]float64, n)
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	keep := make([]int, 0, k)
	next := 0
	for len(keep) < k {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("lp: generate: interrupted choosing the first columns: %w", err)
		}
		keep = append(keep, next)
		dist[next] = -1
		far := -1
		for i, d := range dist {
			if d >= 0 {
				d = min(d, lw[next*n+i], lw[i*n+next])
				dist[i] = d
				if far < 0 || d > dist[far] {
					far = i
				}
			}
		}
		if far < 0 {
			break
		}
		next = far
	}
	slices.Sort(keep)
	return keep, nil
}

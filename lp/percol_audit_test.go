package lp_test

import (
	"context"
	"math"
	"testing"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"gonum.org/v1/gonum/mat"
)

// TestGeneratePerColumnAudit: the mechanism of per-column constraint
// generation on a 6×6 Euclidean grid passes mech.Audit, the exact audit
// (no tolerance) of package mech, for the full metric at eps; its rows are
// stochastic. Two priors: a mild one, and one on a corner with which
// column elimination leaves outputs out (their columns 0 before Repair).
func TestGeneratePerColumnAudit(t *testing.T) {
	const w, eps = 6, 0.5
	g, err := metric.Grid(w, w, 1, metric.Euclid)
	if err != nil {
		t.Fatal(err)
	}
	n := g.Len()
	for _, corner := range []bool{false, true} {
		prior := make([]float64, n)
		var sum float64
		for i := range prior {
			prior[i] = 1 + float64(i%7)
			if corner {
				x, y := float64(i%w), float64(i/w)
				prior[i] = 0.01 + math.Exp(-(x*x+y*y)/4)
			}
			sum += prior[i]
		}
		c := make([]float64, n*n)
		var pairs []lp.Pair
		for i := 0; i < n; i++ {
			for h := 0; h < n; h++ {
				c[i*n+h] = -prior[i] / sum * g.Dist(i, h)
				if i != h {
					pairs = append(pairs, lp.Pair{I: i, H: h, W: math.Exp(eps * g.Dist(i, h))})
				}
			}
		}
		p := &lp.Problem{N: n, M: n, C: c, Pairs: pairs}
		r, err := lp.Generate(context.Background(), p, &lp.GenerateOptions{Options: lp.Options{Tol: 1e-7}, PerColumn: true})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := mech.Audit(mat.NewDense(n, n, r.X), g, eps)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Private || rep.Eps > eps {
			t.Errorf("corner %v: audit: eps %v, private %v (worst %v)", corner, rep.Eps, rep.Private, rep.Worst)
		}
		for i := 0; i < n; i++ {
			var s float64
			for o := 0; o < n; o++ {
				s += r.X[i*n+o]
			}
			if math.Abs(s-1) > 1e-12 {
				t.Errorf("corner %v: row %d sums to %v", corner, i, s)
			}
		}
		if r.Gap > 1e-7 || !(r.Primal <= r.Dual) {
			t.Errorf("corner %v: primal %v, dual %v, gap %v", corner, r.Primal, r.Dual, r.Gap)
		}
		if corner && r.ActiveColumns >= n {
			t.Errorf("corner prior: %d active columns of %d, none left out", r.ActiveColumns, n)
		}
		t.Logf("corner %v: %d active columns of %d, gap %.2g", corner, r.ActiveColumns, n, r.Gap)
	}
}

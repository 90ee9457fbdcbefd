package lp

import (
	"math/big"
)

// exactOptimum solves the problem p exactly over the rationals (every float64
// in p converts exactly) with a dense two-phase tableau simplex and Bland's
// rule, and returns the optimal value. It is meant for a few dozen
// variables: an independent check of the interior-point method.
//
// Standard form: variables X[i][o] >= 0 and a slack s[k][o] >= 0 per pair and
// column, rows sum_o X[i][o] = 1 (with an artificial variable each, phase 1)
// and X[I][o] - W X[H][o] + s[k][o] = 0 (the slack starts basic at 0).
func exactOptimum(p *Problem) *big.Rat {
	n, m, np := p.N, p.M, len(p.Pairs)
	nx, ns := n*m, np*m
	cols := nx + ns + n // X, slacks, artificials
	rows := n + ns
	rat := func(f float64) *big.Rat { return new(big.Rat).SetFloat64(f) }
	// Tableau T[r] = coefficients | rhs.
	t := make([][]*big.Rat, rows)
	for r := range t {
		t[r] = make([]*big.Rat, cols+1)
		for c := range t[r] {
			t[r][c] = new(big.Rat)
		}
	}
	basis := make([]int, rows)
	for i := 0; i < n; i++ {
		for o := 0; o < m; o++ {
			t[i][i*m+o].SetInt64(1)
		}
		t[i][nx+ns+i].SetInt64(1)
		t[i][cols].SetInt64(1)
		basis[i] = nx + ns + i
	}
	for k, q := range p.Pairs {
		for o := 0; o < m; o++ {
			r := n + k*m + o
			t[r][q.I*m+o].SetInt64(1)
			t[r][q.H*m+o].Neg(rat(q.W))
			t[r][nx+k*m+o].SetInt64(1)
			basis[r] = nx + k*m + o
		}
	}
	// simplex minimises cost·v over the current tableau; allowed limits the
	// entering columns.
	simplex := func(cost []*big.Rat, allowed int) {
		for {
			// Reduced costs: cost_c - sum_r cost_{basis r} T[r][c].
			enter := -1
			for c := 0; c < allowed && enter < 0; c++ {
				rc := new(big.Rat).Set(cost[c])
				for r := range t {
					if t[r][c].Sign() != 0 && cost[basis[r]].Sign() != 0 {
						rc.Sub(rc, new(big.Rat).Mul(cost[basis[r]], t[r][c]))
					}
				}
				if rc.Sign() < 0 {
					enter = c
				}
			}
			if enter < 0 {
				return
			}
			// Ratio test, ties broken by the smallest basic index (Bland).
			leave := -1
			var best *big.Rat
			for r := range t {
				if t[r][enter].Sign() > 0 {
					ratio := new(big.Rat).Quo(t[r][cols], t[r][enter])
					if leave < 0 || ratio.Cmp(best) < 0 || (ratio.Cmp(best) == 0 && basis[r] < basis[leave]) {
						leave, best = r, ratio
					}
				}
			}
			if leave < 0 {
				panic("exactOptimum: unbounded")
			}
			piv := new(big.Rat).Set(t[leave][enter])
			for c := range t[leave] {
				t[leave][c].Quo(t[leave][c], piv)
			}
			for r := range t {
				if r == leave || t[r][enter].Sign() == 0 {
					continue
				}
				f := new(big.Rat).Set(t[r][enter])
				for c := range t[r] {
					if t[leave][c].Sign() != 0 {
						t[r][c].Sub(t[r][c], new(big.Rat).Mul(f, t[leave][c]))
					}
				}
			}
			basis[leave] = enter
		}
	}
	// Phase 1: minimise the artificials.
	cost1 := make([]*big.Rat, cols)
	for c := range cost1 {
		cost1[c] = new(big.Rat)
		if c >= nx+ns {
			cost1[c].SetInt64(1)
		}
	}
	simplex(cost1, cols)
	for r, b := range basis {
		if b >= nx+ns && t[r][cols].Sign() != 0 {
			panic("exactOptimum: infeasible")
		}
	}
	// Phase 2: minimise -C·X without letting artificials re-enter (those
	// still basic are at 0 and stay there).
	cost2 := make([]*big.Rat, cols)
	for c := range cost2 {
		cost2[c] = new(big.Rat)
		if c < nx {
			cost2[c].Neg(rat(p.C[c]))
		}
	}
	simplex(cost2, nx+ns)
	v := new(big.Rat)
	for r, b := range basis {
		if b < nx {
			v.Add(v, new(big.Rat).Mul(rat(p.C[b]), t[r][cols]))
		}
	}
	return v
}

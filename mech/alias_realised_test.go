package mech

import (
	"math"
	"math/big"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// aliasRealised is the exact distribution an AliasTable draws: column k
// (probability 1/n, uniformInt is exact) is kept when Uniform01 = j·2^-53
// < prob[k], that is for ceil(prob[k]·2^53) of the 2^53 values of j, and
// otherwise replaced by alias[k].
func aliasRealised(t *AliasTable) []*big.Rat {
	n := len(t.prob)
	out := make([]*big.Rat, n)
	for k := range out {
		out[k] = new(big.Rat)
	}
	two53 := new(big.Int).Lsh(big.NewInt(1), 53)
	for k, p := range t.prob {
		keep := new(big.Rat).SetFloat64(p)
		keep.Mul(keep, new(big.Rat).SetInt(two53))
		c := new(big.Int).Quo(keep.Num(), keep.Denom()) // floor
		if !keep.IsInt() {
			c.Add(c, big.NewInt(1)) // ceil
		}
		a := new(big.Rat).SetFrac(c, new(big.Int).Mul(two53, big.NewInt(int64(n))))
		out[k].Add(out[k], a)
		rest := new(big.Rat).Sub(big.NewRat(1, int64(n)), a)
		out[t.alias[k]].Add(out[t.alias[k]], rest)
	}
	return out
}

// TestAliasTableNotExact documents why AliasTable is not for releases: the
// truncated geometric mechanism (formed exactly at eps = 0.2, n = 200) is
// 0.2-private as a matrix up to rounding, but the distributions its alias
// tables realise, computed exactly, have a level of about 0.405 on the line. Sampler, which
// realises exactly X[i][o]/Σ_o X[i][o], is what releases use.
func TestAliasTableNotExact(t *testing.T) {
	const n, eps = 200, 0.2
	x := mat.NewDense(n, n, geometricData(n, eps))
	rows := make([][]*big.Rat, n)
	for i := range n {
		tab, err := NewAliasTable(x.RawRowView(i))
		if err != nil {
			t.Fatal(err)
		}
		rows[i] = aliasRealised(tab)
		sum := new(big.Rat)
		for _, p := range rows[i] {
			sum.Add(sum, p)
		}
		if sum.Cmp(big.NewRat(1, 1)) != 0 {
			t.Fatalf("row %d: realised probabilities sum to %v", i, sum)
		}
	}
	level := 0.0
	for i := 0; i+1 < n; i++ {
		for o := range n {
			a, b := rows[i][o], rows[i+1][o]
			if a.Sign() == 0 || b.Sign() == 0 {
				continue
			}
			q := new(big.Rat).Quo(a, b)
			f, _ := new(big.Float).SetRat(q).Float64()
			level = max(level, math.Abs(math.Log(f)))
		}
	}
	if math.Abs(level-0.405) > 0.005 {
		t.Errorf("realised level through alias tables %v, issue 13 measured 0.405", level)
	}
}

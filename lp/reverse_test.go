package lp

import (
	"math/rand/v2"
	"testing"
)

// TestCloseReverse: after closeReverse, a pair is marked exactly when it
// was, or its reverse is listed and was (checked against every pair by
// brute force), on a random pair list with missing reverses and repeated
// rows.
func TestCloseReverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 40
	var ps []Pair
	for i := 0; i < n; i++ {
		for h := 0; h < n; h++ {
			if i != h && rng.Float64() < 0.6 {
				ps = append(ps, Pair{I: i, H: h, W: 2})
			}
		}
	}
	p := &Problem{N: n, M: n, Pairs: ps}
	in := make([]bool, len(ps))
	for k := range in {
		in[k] = rng.Float64() < 0.15
	}
	want := make([]bool, len(ps))
	for k, q := range ps {
		want[k] = in[k]
		for j, r := range ps {
			if in[j] && r.I == q.H && r.H == q.I {
				want[k] = true
			}
		}
	}
	closeReverse(p, in)
	added := 0
	for k := range in {
		if in[k] != want[k] {
			t.Fatalf("pair %d (%d,%d): marked %v, want %v", k, ps[k].I, ps[k].H, in[k], want[k])
		}
		if want[k] {
			added++
		}
	}
	if added == 0 {
		t.Fatal("nothing marked")
	}
}

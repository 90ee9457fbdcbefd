package lp

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestColMembers: colMembers against a set of (pair, column) kept by
// hand, through batches of random puts (duplicates within a batch skipped
// by in, as generation skips them), on columns that start with equal,
// shared lists and with lists in random order; and a cursor walking a
// column in ascending order agrees with has.
func TestColMembers(t *testing.T) {
	const np, m = 500, 6
	rng := rand.New(rand.NewPCG(11, 12))
	start := rng.Perm(np)[:40]
	cols := [][]int{start, slices.Clone(start), slices.Clone(start), rng.Perm(np)[:90], nil, rng.Perm(np)[:3]}
	want := make(map[[2]int]bool)
	for c, ks := range cols {
		for _, k := range ks {
			want[[2]int{k, c}] = true
		}
	}
	s, err := newColMembers(np, cols)
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		for c := range m {
			if !slices.IsSorted(s.sorted[c]) {
				t.Fatalf("%s: column %d not sorted", when, c)
			}
			u := cursor{ks: s.sorted[c]}
			held := 0
			for k := range np {
				w := want[[2]int{k, c}]
				if s.has(c, k) != w || s.in(c, k) != w || u.at(k) != w {
					t.Fatalf("%s: pair %d column %d: has %v in %v cursor %v, want %v", when, k, c, s.has(c, k), s.in(c, k), u.at(k), w)
				}
				if w {
					held++
				}
			}
			if len(s.sorted[c]) != held {
				t.Fatalf("%s: column %d holds %d, want %d", when, c, len(s.sorted[c]), held)
			}
		}
	}
	check("start")
	for round := range 5 {
		for c := range m {
			for range 30 {
				k := rng.IntN(np)
				if s.in(c, k) {
					if !want[[2]int{k, c}] {
						t.Fatalf("round %d: pair %d reported in column %d", round, k, c)
					}
					continue
				}
				s.put(c, k)
				want[[2]int{k, c}] = true
				if !s.in(c, k) {
					t.Fatalf("round %d: pair %d put in column %d, not in it", round, k, c)
				}
			}
			s.flush(c)
		}
		check("after a round")
	}
}

// TestExtraByColumn: the entries grouped by column in a stable order,
// against a grouping by hand.
func TestExtraByColumn(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const m = 7
	var extra [][2]int
	for k := range 60 {
		extra = append(extra, [2]int{k, rng.IntN(m - 1)}) // column m-1 left empty
	}
	var want [][2]int
	for c := range m {
		for _, e := range extra {
			if e[1] == c {
				want = append(want, e)
			}
		}
	}
	off := extraByColumn(extra, m)
	if !slices.Equal(extra, want) {
		t.Errorf("grouped %v, want %v", extra, want)
	}
	for c := range m {
		for _, e := range extra[off[c]:off[c+1]] {
			if e[1] != c {
				t.Errorf("column %d's range holds %v", c, e)
			}
		}
	}
	if off[m] != len(extra) || off[m-1] != off[m] {
		t.Errorf("offsets %v", off)
	}
}

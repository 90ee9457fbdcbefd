package optimal

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
)

// TestNthSmallest: nthSmallest is the k-th entry of the sorted slice, for
// every k, on random values with many ties and on sorted, reversed and
// constant slices.
func TestNthSmallest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 10, 257} {
		random := make([]float64, n)
		for i := range random {
			random[i] = float64(rng.IntN(7)) // ties
		}
		sorted := slices.Clone(random)
		slices.Sort(sorted)
		reversed := slices.Clone(sorted)
		slices.Reverse(reversed)
		for _, a := range [][]float64{random, sorted, reversed, make([]float64, n)} {
			want := slices.Sorted(slices.Values(a))
			for k := range n {
				if got := nthSmallest(slices.Clone(a), k); got != want[k] {
					t.Fatalf("n %d, k %d: %v, sorted %v", n, k, got, want[k])
				}
			}
		}
	}
}

// TestForRowChunks: every row is visited once, in chunks of rowChunk
// rows, whatever the number of workers (and by forChunks, with each
// goroutine's w in range and never running twice at once); a cancelled
// ctx returns its error.
func TestForRowChunks(t *testing.T) {
	for _, n := range []int{1, rowChunk, 3*rowChunk + 5} {
		for _, workers := range []int{0, 1, 3} {
			seen := make([]int, n)
			err := forRowChunks(context.Background(), n, workers, func(k, lo, hi int) {
				if lo != k*rowChunk || hi-lo > rowChunk {
					t.Errorf("chunk %d = [%d,%d)", k, lo, hi)
				}
				for i := lo; i < hi; i++ {
					seen[i]++ // chunks are disjoint: no race
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("n %d, %d workers: row %d visited %d times", n, workers, i, c)
				}
			}
		}
	}
	// forChunks names each goroutine by a w below the workers asked for
	// and the chunks there are: scratch indexed by w is never shared.
	for _, c := range []struct{ n, size, workers int }{{10, 1, 3}, {2, 1, 3}, {7, 3, 0}} {
		busy := make([]atomic.Bool, max(c.workers, runtime.GOMAXPROCS(0)))
		seen := make([]atomic.Int32, c.n)
		err := forChunks(context.Background(), c.n, c.size, c.workers, func(w, k, lo, hi int) {
			if w < 0 || w >= len(busy) || busy[w].Swap(true) {
				t.Errorf("%+v: worker %d out of range or running twice at once", c, w)
				return
			}
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
			busy[w].Store(false)
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := range seen {
			if seen[i].Load() != 1 {
				t.Errorf("%+v: item %d visited %d times", c, i, seen[i].Load())
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := forRowChunks(ctx, 100, 2, func(int, int, int) {}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

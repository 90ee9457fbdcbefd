package optimal

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// rowChunk is how many rows forRowChunks hands a goroutine at a time.
const rowChunk = 32

// forRowChunks calls f(k, lo, hi) once for every chunk k of rowChunk rows
// [lo, hi) of n, on workers goroutines (GOMAXPROCS for 0): forChunks.
func forRowChunks(ctx context.Context, n, workers int, f func(k, lo, hi int)) error {
	return forChunks(ctx, n, rowChunk, workers, func(_, k, lo, hi int) { f(k, lo, hi) })
}

// forChunks calls f(w, k, lo, hi) once for every chunk k of size items
// [lo, hi) of n, on workers goroutines (GOMAXPROCS for 0; w < workers
// names the goroutine, for scratch of its own), the chunks taken in turn
// so that uneven ones (a triangle's rows) balance. A cancelled ctx stops
// it between chunks, with ctx's error.
func forChunks(ctx context.Context, n, size, workers int, f func(w, k, lo, hi int)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	chunks := (n + size - 1) / size
	workers = max(1, min(workers, chunks))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for {
				k := int(next.Add(1) - 1)
				if k >= chunks || ctx.Err() != nil {
					return
				}
				f(w, k, k*size, min(n, (k+1)*size))
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// nthSmallest returns the k-th smallest of a (0-based), reordering a
// (Hoare's selection with a median-of-three pivot; expected linear time).
func nthSmallest(a []float64, k int) float64 {
	lo, hi := 0, len(a)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if a[mid] < a[lo] {
			a[mid], a[lo] = a[lo], a[mid]
		}
		if a[hi] < a[lo] {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if a[hi] < a[mid] {
			a[hi], a[mid] = a[mid], a[hi]
		}
		p := a[mid]
		i, j := lo, hi
		for i <= j {
			for a[i] < p {
				i++
			}
			for p < a[j] {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return a[k]
		}
	}
	return a[k]
}

package linear

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/optdp/optdp/run"
)

// heapPeak runs f while a goroutine samples runtime.MemStats.HeapInuse
// every millisecond, and returns the largest growth over the value before
// f (a lower bound on the true peak: a sample can miss it).
func heapPeak(f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak uint64
	var mu sync.Mutex
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		mu.Lock()
		if m.HeapInuse > base && m.HeapInuse-base > peak {
			peak = m.HeapInuse - base
		}
		mu.Unlock()
	}
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	f()
	sample()
	close(done)
	wg.Wait()
	return peak
}

// TestOptimizeBytesBoundsPeak measures the heap growth of Optimize on the
// dense paths (eps-DP L-BFGS and the (eps, delta) Newton solver) and checks
// that OptimizeBytes bounds it.
func TestOptimizeBytesBoundsPeak(t *testing.T) {
	sizes := []int{128, 256, 512}
	if testing.Short() {
		sizes = sizes[:2]
	}
	// A union of one-dimensional workloads takes another dense path (the
	// per-attribute optimiser on one attribute for eps-DP, the dense Newton
	// solver for --delta).
	union := func(n int) (Workload, error) {
		a, err := AllRange(n)
		if err != nil {
			return nil, err
		}
		p, err := Prefix(n)
		if err != nil {
			return nil, err
		}
		return Union(a, p)
	}
	for _, delta := range []float64{0, 1e-6} {
		for _, n := range append(sizes, -sizes[len(sizes)-1]) {
			var w Workload
			var err error
			if n > 0 {
				w, err = AllRange(n)
			} else {
				n = -n
				w, err = union(n)
			}
			if err != nil {
				t.Fatal(err)
			}
			opts := &OptimizeOptions{Eps: 1, Delta: delta, MaxIter: 3, Restarts: 2}
			est := OptimizeBytes(w, opts)
			var oerr error
			peak := heapPeak(func() { _, oerr = Optimize(context.Background(), w, opts) })
			if oerr != nil {
				t.Fatalf("%v delta=%g: %v", w, delta, oerr)
			}
			t.Logf("%v delta=%g: peak heap growth %s, estimate %s", w, delta, run.FormatBytes(float64(peak)), run.FormatBytes(est))
			if est < float64(peak) {
				t.Errorf("%v delta=%g: OptimizeBytes = %.0f < measured peak heap growth %d", w, delta, est, peak)
			}
		}
	}
}

// TestOptimizeRefusesLargeDense checks that allrange on 8192 counts
// (measured at 18 GB before the estimate) is refused with run.ErrTooLarge
// before the Gram matrix (512 MiB) is allocated, and that Kronecker
// workloads are left to the per-factor checks.
func TestOptimizeRefusesLargeDense(t *testing.T) {
	for _, delta := range []float64{0, 1e-6} {
		w, err := AllRange(8192)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = Optimize(context.Background(), w, &OptimizeOptions{Eps: 1, Delta: delta})
		runtime.ReadMemStats(&after)
		if !errors.Is(err, run.ErrTooLarge) {
			t.Fatalf("delta=%g: err = %v, want run.ErrTooLarge", delta, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew >= 64<<20 {
			t.Errorf("delta=%g: allocated %d bytes before the refusal", delta, grew)
		}
		t.Log(err)
	}
	a, _ := AllRange(64)
	k, err := Kron(a, a)
	if err != nil {
		t.Fatal(err)
	}
	if est := OptimizeBytes(k, &OptimizeOptions{Eps: 1}); est != 0 {
		t.Errorf("OptimizeBytes(allrange 64 ⊗ allrange 64) = %v, want 0 (Kronecker path)", est)
	}
}

package metric

import (
	"math/rand/v2"
	"testing"
)

// naiveFirstViolation is the sequential scan in the order k, i, j > i: the
// reference for the parallel check.
func naiveFirstViolation(n int, d []float64) (int, int, int, bool) {
	for k := 0; k < n; k++ {
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if d[i*n+j] > (d[i*n+k]+d[k*n+j])*(1+TriangleTol) {
					return i, j, k, true
				}
			}
		}
	}
	return 0, 0, 0, false
}

// TestFirstTriangleViolation plants violations in random line metrics and
// checks that the parallel scan names the triple the sequential scan finds
// first, for several GOMAXPROCS-independent sizes.
func TestFirstTriangleViolation(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 200; trial++ {
		n := 2 + rng.IntN(40)
		pos := make([]float64, n)
		for i := range pos {
			pos[i] = float64(i) + rng.Float64()*0.5
		}
		d := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if i != j {
					d[i*n+j] = max(pos[i]-pos[j], pos[j]-pos[i])
				}
			}
		}
		for v := rng.IntN(3); v > 0; v-- { // 0, 1 or 2 planted stretches
			i, j := rng.IntN(n), rng.IntN(n)
			if i == j {
				continue
			}
			d[i*n+j] *= 1.5
			d[j*n+i] = d[i*n+j]
		}
		wi, wj, wk, wok := naiveFirstViolation(n, d)
		gi, gj, gk, gok := firstTriangleViolation(n, d)
		if wok != gok || (wok && (wi != gi || wj != gj || wk != gk)) {
			t.Fatalf("trial %d n=%d: parallel (%d,%d,%d,%v), sequential (%d,%d,%d,%v)", trial, n, gi, gj, gk, gok, wi, wj, wk, wok)
		}
	}
}

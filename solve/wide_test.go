//go:build !(386 || arm || mips || mipsle)

// Tests of sizes beyond 32-bit ints: built where int has 64 bits.

package solve

import (
	"slices"
	"testing"
)

// TestNextFastLarge compares nextFast for large n with the sorted list of
// all 5-smooth numbers below 2^52 built by a different method than its own
// (closing the set {1} under ·2, ·3, ·5), up to n near 2·10^15.
func TestNextFastLarge(t *testing.T) {
	const limit = 1 << 52
	set := map[int]bool{1: true}
	queue := []int{1}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, f := range []int{2, 3, 5} {
			if w := v * f; w < limit && !set[w] {
				set[w] = true
				queue = append(queue, w)
			}
		}
	}
	all := make([]int, 0, len(set))
	for v := range set {
		all = append(all, v)
	}
	slices.Sort(all)
	for _, n := range []int{2e15 - 1, 2e15, 1e15 + 12345, 1<<51 + 1, 20000000001, 123456789012} {
		k, _ := slices.BinarySearch(all, n)
		if got := nextFast(n); got != all[k] {
			t.Errorf("nextFast(%d) = %d, want %d", n, got, all[k])
		}
	}
	if got := nextFast(1<<62 + 1); got != 1<<62 {
		t.Errorf("nextFast(2^62+1) = %d, want the cap 2^62", got)
	}
}

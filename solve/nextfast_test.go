package solve

import (
	"slices"
	"testing"
)

// TestNextFastBruteForce compares nextFast with a scan upwards (the
// definition) for n <= 5000, and for large n with the sorted list of all
// 5-smooth numbers below 2^52 built by a different method (closing the
// set {1} under ·2, ·3, ·5); n near 2·10^15 used to take hours.
func TestNextFastBruteForce(t *testing.T) {
	smooth := func(m int) bool {
		for _, f := range []int{2, 3, 5} {
			for m%f == 0 {
				m /= f
			}
		}
		return m == 1
	}
	for n := 1; n <= 5000; n++ {
		want := n
		for !smooth(want) {
			want++
		}
		if got := nextFast(n); got != want {
			t.Fatalf("nextFast(%d) = %d, want %d", n, got, want)
		}
	}
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

package solve

import (
	"testing"
)

// TestNextFastBruteForce compares nextFast with a scan upwards (the
// definition) for n <= 5000 (large n: TestNextFastLarge).
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

}

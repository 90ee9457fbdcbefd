package mech

import (
	"strings"
	"testing"
)

// FuzzPriorFromCounts: no panic, no hang; an accepted counts file gives a
// distribution on the n answers.
func FuzzPriorFromCounts(f *testing.F) {
	for _, s := range []string{"1 2 3 4", "0,0,0,0", "1\n2\n3\n4\n", "1 2 3", "-1 2 3 4", "NaN 1 1 1", "1e308 1e308 1e308 1e308", "# c\n1 1 1 1"} {
		f.Add(s, 0.0)
		f.Add(s, 0.5)
	}
	f.Fuzz(func(t *testing.T, data string, pseudo float64) {
		p, err := PriorFromCounts(strings.NewReader(data), 4, &MapPriorOptions{Pseudo: pseudo, MaxBytes: 1 << 16})
		if err != nil {
			return
		}
		checkMapPrior(t, p, 4)
	})
}

package run

import "testing"

func TestFormatSeconds(t *testing.T) {
	for sec, want := range map[float64]string{0.5: "under a second", 30: "30 s", 119: "119 s", 600: "10 min", 9000: "2.5 h"} {
		if got := FormatSeconds(sec); got != want {
			t.Errorf("FormatSeconds(%v) = %q, want %q", sec, got, want)
		}
	}
}

package run

import "fmt"

// FormatSeconds formats a duration in seconds for people: "under a
// second", "30 s", "10 min", "2.5 h".
func FormatSeconds(sec float64) string {
	switch {
	case sec < 1:
		return "under a second"
	case sec < 120:
		return fmt.Sprintf("%.0f s", sec)
	case sec < 7200:
		return fmt.Sprintf("%.0f min", sec/60)
	}
	return fmt.Sprintf("%.1f h", sec/3600)
}

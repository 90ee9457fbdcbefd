//go:build !unix

package bench

import "math"

// cpuSeconds is not measured on this platform.
func cpuSeconds() float64 { return math.NaN() }

// peakMB is not measured on this platform.
func peakMB() float64 { return math.NaN() }

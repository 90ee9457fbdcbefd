//go:build !linux || 386 || arm || mips || mipsle

package lp

// hugeAlloc returns k zeroed float64s (see the Linux version, which also
// advises large ones to huge pages).
func hugeAlloc(k int) []float64 { return make([]float64, k) }

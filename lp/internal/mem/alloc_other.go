//go:build !linux || 386 || arm || mips || mipsle

package mem

// Alloc returns k zeroed float64s (see the Linux version, which also
// advises large ones to huge pages).
func Alloc(k int) []float64 { return make([]float64, k) }

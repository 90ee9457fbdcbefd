//go:build linux && !386 && !arm && !mips && !mipsle

package mem

import (
	"syscall"
	"unsafe"
)

// Alloc returns k zeroed float64s. On Linux, an allocation of at least
// 4 MiB is advised to transparent huge pages (madvise MADV_HUGEPAGE) before
// it is first written. The dense n×n buffers of Takahashi's recurrence and
// of the Schur complement (50 MB each at n = 2500) are written down their
// columns (the mirror of each row), one 4 KiB page per entry: with 2 MiB
// pages the assembly of a 50×50 column took 13.5-18.5 ms against 20.3-26.6
// (BenchmarkAddInverse). The advice is only advice: where
// transparent huge pages are off, nothing changes.
func Alloc(k int) []float64 {
	v := make([]float64, k)
	if k*8 >= 4<<20 {
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), k*8)
		_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // advice: an error changes nothing
	}
	return v
}

package solve

import (
	"math"
	"math/bits"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"
)

// fftN is a d-dimensional FFT of real arrays of shape m (m[0] varies
// fastest), computed as real FFTs along dimension 0 followed by complex FFTs
// along each further dimension. The spectrum keeps only j0 <= m[0]/2 (the
// rest follows by conjugate symmetry), so it has h0*m[1]*...*m[d-1] entries
// with h0 = m[0]/2+1, stored with j0 varying fastest.
//
// forward and inverse accept arrays smaller than m (shape n, n[i] <= m[i]):
// the input is zero-padded and the output truncated, which is what circulant
// embedding needs, and lines that are known to be zero are skipped. All
// workspaces are allocated once; forward and inverse do not allocate except
// for starting goroutines: large transforms split their lines among up to
// maxFFTWorkers workers, each with its own FFT plans and buffers.
type fftN struct {
	m       []int
	h0      int
	stride  []int // spectrum strides: stride[0] = 1, stride[1] = h0, ...
	spec    []complex128
	workers []*fftWorker
}

// fftWorker holds one goroutine's FFT plans and line buffers.
type fftWorker struct {
	rfft  *fourier.FFT
	cfft  []*fourier.CmplxFFT // cfft[i] for dimension i >= 1
	row   []float64           // length m[0]
	lines [][]complex128      // lineBlock buffers of length max m[i]
}

// lineBlock is how many adjacent lines the passes over dimensions >= 1
// gather at once: adjacent lines are adjacent in memory, so a block reads
// whole cache lines instead of one complex number per row.
const lineBlock = 8

// maxFFTWorkers caps the goroutines of one transform; transforms with fewer
// than parallelFFTSize spectrum entries run on one.
const (
	maxFFTWorkers   = 4
	parallelFFTSize = 1 << 15
)

// specLen returns the number of complex entries of the half spectrum of an
// array of shape m, or -1 on overflow.
func specLen(m []int) int {
	s := m[0]/2 + 1
	for _, v := range m[1:] {
		if s > math.MaxInt/v {
			return -1
		}
		s *= v
	}
	return s
}

func newFFTN(m []int) *fftN {
	d := len(m)
	p := &fftN{m: append([]int(nil), m...), h0: m[0]/2 + 1}
	p.stride = make([]int, d)
	p.stride[0] = 1
	if d > 1 {
		p.stride[1] = p.h0
		for i := 2; i < d; i++ {
			p.stride[i] = p.stride[i-1] * m[i-1]
		}
	}
	p.spec = make([]complex128, specLen(m))
	nw := 1
	if len(p.spec) >= parallelFFTSize {
		nw = min(runtime.GOMAXPROCS(0), maxFFTWorkers)
	}
	maxm := 1
	for i := 1; i < d; i++ {
		maxm = max(maxm, m[i])
	}
	for range nw {
		w := &fftWorker{rfft: fourier.NewFFT(m[0]), cfft: make([]*fourier.CmplxFFT, d), row: make([]float64, m[0])}
		for i := 1; i < d; i++ {
			w.cfft[i] = fourier.NewCmplxFFT(m[i])
		}
		w.lines = make([][]complex128, lineBlock)
		for b := range w.lines {
			w.lines[b] = make([]complex128, maxm)
		}
		p.workers = append(p.workers, w)
	}
	return p
}

// size returns the product of m.
func (p *fftN) size() int {
	s := 1
	for _, v := range p.m {
		s *= v
	}
	return s
}

// parallel calls f(w, lo, hi) on disjoint ranges covering [0, count), one
// per worker, and waits for all.
func (p *fftN) parallel(count int, f func(w *fftWorker, lo, hi int)) {
	nw := len(p.workers)
	if nw == 1 || count < 2*nw {
		f(p.workers[0], 0, count)
		return
	}
	var wg sync.WaitGroup
	for k, w := range p.workers {
		lo, hi := k*count/nw, (k+1)*count/nw
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(w, lo, hi)
		}()
	}
	wg.Wait()
}

// rowOffset returns the spectrum offset of row r of an array of shape n
// (rows indexed by (j1..j_{d-1}), j_i < n[i]).
func (p *fftN) rowOffset(r int, n []int) int {
	off := 0
	for i := 1; i < len(n); i++ {
		off += (r % n[i]) * p.stride[i]
		r /= n[i]
	}
	return off
}

// numRows returns prod(n[1:]).
func numRows(n []int) int {
	rows := 1
	for _, v := range n[1:] {
		rows *= v
	}
	return rows
}

// forward computes the half spectrum of x (shape n, zero-padded to m) into
// p.spec.
func (p *fftN) forward(x []float64, n []int) {
	// Dimension 0: real FFT of every row of x; rows outside x are zero and
	// are never read below.
	p.parallel(numRows(n), func(w *fftWorker, lo, hi int) {
		for r := lo; r < hi; r++ {
			off := p.rowOffset(r, n)
			copy(w.row, x[r*n[0]:(r+1)*n[0]])
			clear(w.row[n[0]:])
			w.rfft.Coefficients(p.spec[off:off+p.h0], w.row)
		}
	})
	// Dimensions 1..d-1: complex FFTs along lines. Before the pass over
	// dimension i, the valid region is full in dims < i and < n in dims >= i.
	for i := 1; i < len(p.m); i++ {
		mi, ni, st := p.m[i], n[i], p.stride[i]
		p.parallel(p.numBlocks(i, n), func(w *fftWorker, lo, hi int) {
			for blk := lo; blk < hi; blk++ {
				base, count := p.block(i, n, blk)
				for j := 0; j < ni; j++ {
					row := p.spec[base+j*st : base+j*st+count]
					for b, v := range row {
						w.lines[b][j] = v
					}
				}
				for b := range count {
					line := w.lines[b][:mi]
					clear(line[ni:])
					w.cfft[i].Coefficients(line, line)
				}
				for j := 0; j < mi; j++ {
					row := p.spec[base+j*st : base+j*st+count]
					for b := range row {
						row[b] = w.lines[b][j]
					}
				}
			}
		})
	}
}

// inverse computes the real array of shape m from p.spec (which it
// overwrites), scales it by 1/size and writes the part of shape n into y.
func (p *fftN) inverse(y []float64, n []int) {
	for i := len(p.m) - 1; i >= 1; i-- {
		mi, ni, st := p.m[i], n[i], p.stride[i]
		// Lines along i: full in dims < i, truncated to n in dims > i (those
		// were already truncated by the passes before).
		p.parallel(p.numBlocks(i, n), func(w *fftWorker, lo, hi int) {
			for blk := lo; blk < hi; blk++ {
				base, count := p.block(i, n, blk)
				for j := 0; j < mi; j++ {
					row := p.spec[base+j*st : base+j*st+count]
					for b, v := range row {
						w.lines[b][j] = v
					}
				}
				for b := range count {
					line := w.lines[b][:mi]
					w.cfft[i].Sequence(line, line)
				}
				for j := 0; j < ni; j++ {
					row := p.spec[base+j*st : base+j*st+count]
					for b := range row {
						row[b] = w.lines[b][j]
					}
				}
			}
		})
	}
	scale := 1 / float64(p.size())
	p.parallel(numRows(n), func(w *fftWorker, lo, hi int) {
		for r := lo; r < hi; r++ {
			off := p.rowOffset(r, n)
			w.rfft.Sequence(w.row, p.spec[off:off+p.h0])
			dst := y[r*n[0] : (r+1)*n[0]]
			for k := range dst {
				dst[k] = w.row[k] * scale
			}
		}
	})
}

// The passes over dimension i >= 1 work on blocks of up to lineBlock
// adjacent lines (adjacent in dimension 0). The lines covered have their
// other coordinates full (range m, h0 for dimension 0) in dimensions < i and
// in range n in dimensions > i.

// extent returns the range of coordinate k in the pass over dimension i.
func (p *fftN) extent(k, i int, n []int) int {
	switch {
	case k == 0:
		return p.h0
	case k < i:
		return p.m[k]
	default:
		return n[k]
	}
}

// numBlocks returns the number of line blocks of the pass over dimension i.
func (p *fftN) numBlocks(i int, n []int) int {
	c := (p.h0 + lineBlock - 1) / lineBlock
	for k := 1; k < len(p.m); k++ {
		if k != i {
			c *= p.extent(k, i, n)
		}
	}
	return c
}

// block returns the spectrum offset of the first element of the first line
// of block blk in the pass over dimension i, and the number of lines in it.
func (p *fftN) block(i int, n []int, blk int) (base, count int) {
	per := (p.h0 + lineBlock - 1) / lineBlock
	j0 := (blk % per) * lineBlock
	blk /= per
	base = j0
	for k := 1; k < len(p.m); k++ {
		if k == i {
			continue
		}
		e := p.extent(k, i, n)
		base += (blk % e) * p.stride[k]
		blk /= e
	}
	return base, min(lineBlock, p.h0-j0)
}

// nextFast returns the smallest integer >= n whose prime factors are 2, 3
// and 5 (sizes the FFT handles fastest), by enumerating the products
// 5^c·3^b and doubling each up to n: O(log² n) steps. (A scan upwards from
// n took hours for n near 2·10^15, where such numbers are 10^11 apart:
// tight --metric sum:u=1e12,v=1000 hung before its memory check.) Sizes
// above 2^62 return 1<<62 rounded up no further: no workspace that large
// can be allocated, and the callers' size checks refuse it.
func nextFast(n int) int {
	if n <= 1 {
		return 1
	}
	const top = 1 << (bits.UintSize - 2)
	if n >= top {
		return top
	}
	best := top
	for p5 := 1; p5 < best; p5 *= 5 {
		for p35 := p5; p35 < best; p35 *= 3 {
			p := p35
			for p < n {
				p *= 2
			}
			best = min(best, p)
			if p35 > top/3 {
				break
			}
		}
		if p5 > top/5 {
			break
		}
	}
	return best
}

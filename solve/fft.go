package solve

import (
	"math"

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
// workspaces are allocated once; forward and inverse do not allocate.
type fftN struct {
	m      []int
	h0     int
	stride []int // spectrum strides: stride[0] = 1, stride[1] = h0, ...
	spec   []complex128
	rfft   *fourier.FFT
	cfft   []*fourier.CmplxFFT // cfft[i] for dimension i >= 1
	row    []float64           // length m[0]
	coef   []complex128        // length h0
	line   []complex128        // length max m[i]
}

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
	p.rfft = fourier.NewFFT(m[0])
	p.cfft = make([]*fourier.CmplxFFT, d)
	maxm := 1
	for i := 1; i < d; i++ {
		p.cfft[i] = fourier.NewCmplxFFT(m[i])
		maxm = max(maxm, m[i])
	}
	p.row = make([]float64, m[0])
	p.coef = make([]complex128, p.h0)
	p.line = make([]complex128, maxm)
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

// forward computes the half spectrum of x (shape n, zero-padded to m) into
// p.spec.
func (p *fftN) forward(x []float64, n []int) {
	d := len(p.m)
	// Dimension 0: real FFT of every row of x; rows outside x are zero and
	// are never read below.
	rows := 1
	for _, v := range n[1:] {
		rows *= v
	}
	for r := 0; r < rows; r++ {
		// Decode r into (j1..j_{d-1}) with j_i < n[i].
		off, rr := 0, r
		for i := 1; i < d; i++ {
			j := rr % n[i]
			rr /= n[i]
			off += j * p.stride[i]
		}
		copy(p.row, x[r*n[0]:(r+1)*n[0]])
		clear(p.row[n[0]:])
		p.rfft.Coefficients(p.spec[off:off+p.h0], p.row)
	}
	// Dimensions 1..d-1: complex FFTs along lines. Before the pass over
	// dimension i, the valid region is full in dims < i and < n in dims >= i.
	for i := 1; i < d; i++ {
		mi, ni, st := p.m[i], n[i], p.stride[i]
		line := p.line[:mi]
		p.eachLine(i, n, func(base int) {
			for j := 0; j < ni; j++ {
				line[j] = p.spec[base+j*st]
			}
			clear(line[ni:])
			p.cfft[i].Coefficients(line, line)
			for j := 0; j < mi; j++ {
				p.spec[base+j*st] = line[j]
			}
		})
	}
}

// inverse computes the real array of shape m from p.spec (which it
// overwrites), scales it by 1/size and writes the part of shape n into y.
func (p *fftN) inverse(y []float64, n []int) {
	d := len(p.m)
	for i := d - 1; i >= 1; i-- {
		mi, ni, st := p.m[i], n[i], p.stride[i]
		line := p.line[:mi]
		// Lines along i: full in dims < i, truncated to n in dims > i (those
		// were already truncated by the passes before).
		p.eachLine(i, n, func(base int) {
			for j := 0; j < mi; j++ {
				line[j] = p.spec[base+j*st]
			}
			p.cfft[i].Sequence(line, line)
			for j := 0; j < ni; j++ {
				p.spec[base+j*st] = line[j]
			}
		})
	}
	scale := 1 / float64(p.size())
	rows := 1
	for _, v := range n[1:] {
		rows *= v
	}
	for r := 0; r < rows; r++ {
		off, rr := 0, r
		for i := 1; i < d; i++ {
			j := rr % n[i]
			rr /= n[i]
			off += j * p.stride[i]
		}
		p.rfft.Sequence(p.row, p.spec[off:off+p.h0])
		dst := y[r*n[0] : (r+1)*n[0]]
		for k := range dst {
			dst[k] = p.row[k] * scale
		}
	}
}

// eachLine calls f with the spectrum offset of the first element of every
// line along dimension i whose other coordinates are full (range m) in
// dimensions < i and in range n in dimensions > i.
func (p *fftN) eachLine(i int, n []int, f func(base int)) {
	d := len(p.m)
	// Extent of each other dimension.
	ext := func(k int) int {
		switch {
		case k == 0:
			return p.h0
		case k < i:
			return p.m[k]
		default:
			return n[k]
		}
	}
	count := 1
	for k := 0; k < d; k++ {
		if k != i {
			count *= ext(k)
		}
	}
	for c := 0; c < count; c++ {
		base, cc := 0, c
		for k := 0; k < d; k++ {
			if k == i {
				continue
			}
			e := ext(k)
			base += (cc % e) * p.stride[k]
			cc /= e
		}
		f(base)
	}
}

// nextFast returns the smallest integer >= n whose prime factors are 2, 3
// and 5 (sizes the FFT handles fastest).
func nextFast(n int) int {
	if n <= 1 {
		return 1
	}
	for m := n; ; m++ {
		k := m
		for _, f := range [...]int{2, 3, 5} {
			for k%f == 0 {
				k /= f
			}
		}
		if k == 1 {
			return m
		}
	}
}

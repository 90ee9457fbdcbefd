package linear

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/optdp/optdp/run"
)

// zeros is an endless reader of NUL bytes, like /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestReadMatrixBounded checks the line and byte limits of ReadMatrix:
// endless input without a newline (/dev/zero cost 39 s and 2.1 GB before
// the bound) is refused with run.ErrTooLarge after reading about
// MaxMatrixLine bytes, and rows up to the limit still parse.
func TestReadMatrixBounded(t *testing.T) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadMatrix(zeros{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, run.ErrTooLarge) || !strings.Contains(err.Error(), "MaxMatrixLine") {
		t.Fatalf("ReadMatrix(zeros) = %v, want run.ErrTooLarge naming MaxMatrixLine", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4*MaxMatrixLine {
		t.Errorf("ReadMatrix(zeros) allocated %d bytes, want at most 4·MaxMatrixLine", grew)
	}
	// A line just over the limit is refused; one row of 10^6 entries
	// (2 MB) parses, with the entries in order.
	if _, err := ReadMatrix(strings.NewReader(strings.Repeat("1,", MaxMatrixLine/2+1) + "1\n")); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("line over MaxMatrixLine: err = %v, want run.ErrTooLarge", err)
	}
	var b strings.Builder
	for i := range 1000000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte(byte('0' + i%10))
	}
	b.WriteString("\n")
	m, err := ReadMatrix(strings.NewReader(b.String() + b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if r, c := m.Dims(); r != 2 || c != 1000000 || m.At(1, 999999) != 9 || m.At(0, 12) != 2 {
		t.Errorf("got %d×%d, [1][999999] = %v, [0][12] = %v; want 2×1000000, 9, 2", r, c, m.At(1, 999999), m.At(0, 12))
	}
	// Rows of different lengths, found while decoding.
	if _, err := ReadMatrix(strings.NewReader("1 2\n3 4 5\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("ragged rows: err = %v, want an error naming line 2", err)
	}
	if _, err := ReadMatrix(strings.NewReader("1 2 3\n4 5\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("short row: err = %v, want an error naming line 2", err)
	}
}

// TestBoundedReader checks the byte limit at its edge: input of exactly
// the limit ends with io.EOF, one byte more fails with errMatrixBytes.
func TestBoundedReader(t *testing.T) {
	const limit = 10
	for _, tc := range []struct {
		n    int
		want error
	}{{limit, nil}, {limit + 1, errMatrixBytes}, {3 * limit, errMatrixBytes}} {
		got, err := io.ReadAll(&boundedReader{r: strings.NewReader(strings.Repeat("x", tc.n)), left: limit + 1})
		if !errors.Is(err, tc.want) {
			t.Errorf("%d bytes: err = %v, want %v", tc.n, err, tc.want)
		}
		if tc.want == nil && len(got) != tc.n {
			t.Errorf("%d bytes: read %d", tc.n, len(got))
		}
	}
	if !errors.Is(errMatrixBytes, run.ErrTooLarge) {
		t.Error("errMatrixBytes does not wrap run.ErrTooLarge")
	}
}

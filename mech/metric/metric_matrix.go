package metric

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/optdp/optdp/run"
)

// TriangleTol is the relative slack of the triangle-inequality check of
// NewMatrix: d(i,j) <= (d(i,k) + d(k,j))·(1 + TriangleTol) is accepted, to
// absorb the rounding of distances written in decimal.
const TriangleTol = 1e-12

// MatrixMetric is an explicit, validated distance matrix (in the unit of the
// caller, e.g. km or hops).
type MatrixMetric struct {
	n      int
	d      []float64 // row-major n×n
	source string
}

var _ Metric = (*MatrixMetric)(nil)

// NewMatrix validates d and returns it as a metric: square, every entry a
// number (+Inf allowed off the diagonal: unreachable), symmetric, zero on the
// diagonal, positive off it, and satisfying the triangle inequality (up to
// TriangleTol). A violation is an error naming the offending entries; the
// triangle check names the triple (i, j, k) and the three values. d is
// copied.
func NewMatrix(d [][]float64) (*MatrixMetric, error) {
	return NewMatrixContext(context.Background(), d)
}

// NewMatrixContext is NewMatrix stopped by ctx: the cubic triangle check
// reads ctx between its steps (see firstTriangleViolationContext) and
// returns its error, wrapped, once it is cancelled.
func NewMatrixContext(ctx context.Context, d [][]float64) (*MatrixMetric, error) {
	n := len(d)
	if n < 1 {
		return nil, run.BadInputf("distance matrix: empty")
	}
	if n > MaxMatrixAnswers {
		return nil, run.BadInputf("distance matrix: %d×%d is larger than the %d×%d limit of the (cubic) validation", n, n, MaxMatrixAnswers, MaxMatrixAnswers)
	}
	flat := make([]float64, n*n)
	for i, row := range d {
		if len(row) != n {
			return nil, run.BadInputf("distance matrix: row %d has %d entries, want %d (the matrix must be square)", i, len(row), n)
		}
		copy(flat[i*n:], row)
	}
	return newMatrix(ctx, n, flat)
}

// newMatrix validates the row-major n×n matrix d (kept, not copied).
func newMatrix(ctx context.Context, n int, d []float64) (*MatrixMetric, error) {
	if err := checkEntries(ctx, n, d); err != nil {
		return nil, err
	}
	i, j, k, ok, err := firstTriangleViolationContext(ctx, n, d)
	if err != nil {
		return nil, err
	}
	if ok {
		return nil, triangleError(n, d, i, j, k)
	}
	return &MatrixMetric{n: n, d: d}, nil
}

// triangleError names the violation d(i,j) > d(i,k) + d(k,j).
func triangleError(n int, d []float64, i, j, k int) error {
	dij, dik, dkj := d[i*n+j], d[i*n+k], d[k*n+j]
	return run.BadInputf("distance matrix: triangle inequality fails for (i,j,k) = (%d,%d,%d): d(%d,%d) = %v > d(%d,%d) + d(%d,%d) = %v + %v",
		i, j, k, i, j, dij, i, k, k, j, dik, dkj)
}

// checkEntries checks every entry of the row-major n×n matrix d: numbers,
// symmetric, zero exactly on the diagonal; it reads ctx before each row
// (the symmetry check reads a column, a cache miss per entry) and returns
// its error, wrapped, once it is cancelled.
func checkEntries(ctx context.Context, n int, d []float64) error {
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("distance matrix: entry check of %d answers interrupted at row %d: %w", n, i, err)
		}
		for j := 0; j < n; j++ {
			x := d[i*n+j]
			switch {
			case math.IsNaN(x):
				return run.BadInputf("distance matrix: d(%d,%d) is NaN", i, j)
			case i == j && x != 0:
				return run.BadInputf("distance matrix: diagonal d(%d,%d) = %v, must be 0", i, j, x)
			case i != j && !(x > 0):
				return run.BadInputf("distance matrix: d(%d,%d) = %v, distinct answers must be at a positive distance", i, j, x)
			case j > i && x != d[j*n+i]:
				// (j > i only: a mismatch at j < i was found at (j, i).)
				return run.BadInputf("distance matrix: not symmetric, d(%d,%d) = %v but d(%d,%d) = %v", i, j, x, j, i, d[j*n+i])
			}
		}
	}
	return nil
}

// ReadDistCSV reads a square distance matrix, one row per CSV record
// (lines starting with '#' are comments), and validates it with NewMatrix.
// "inf" marks unreachable pairs. The input is bounded as it is read: at
// most MaxDistCSVBytes bytes and lines of MaxDistCSVLine bytes (so
// /dev/zero is refused after 1 MiB), the first row's length n at most
// MaxMatrixAnswers, and every later row must have n entries, at most n rows
// (a 10^5-column row is refused as soon as it is read).
func ReadDistCSV(r io.Reader) (*MatrixMetric, error) {
	return ReadDistCSVContext(context.Background(), r)
}

// ReadDistCSVContext is ReadDistCSV stopped by ctx: the reading reads ctx
// before each row, the validation as NewMatrixContext.
func ReadDistCSVContext(ctx context.Context, r io.Reader) (*MatrixMetric, error) {
	n, d, err := readDistCSV(ctx, r)
	if err != nil {
		return nil, err
	}
	return newMatrix(ctx, n, d)
}

// readDistCSV reads the n×n matrix of ReadDistCSV, unvalidated, reading
// ctx before each row.
func readDistCSV(ctx context.Context, r io.Reader) (int, []float64, error) {
	lr := &limitReader{r: r, bytes: MaxDistCSVBytes, line: MaxDistCSVLine}
	cr := csv.NewReader(lr)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	var d []float64
	n, rows := 0, 0
	for {
		if err := ctx.Err(); err != nil {
			return 0, nil, fmt.Errorf("metric: distance CSV: reading interrupted after %d rows: %w", rows, err)
		}
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			if lr.err != nil {
				return 0, nil, fmt.Errorf("distance CSV: %w", lr.err)
			}
			return 0, nil, fmt.Errorf("distance CSV: %w", err)
		}
		line, _ := cr.FieldPos(0)
		if rows == 0 {
			n = len(rec)
			if n > MaxMatrixAnswers {
				return 0, nil, fmt.Errorf("metric: distance CSV line %d: %d entries, larger than the %d×%d limit of the (cubic) validation", line, n, MaxMatrixAnswers, MaxMatrixAnswers)
			}
		} else if len(rec) != n {
			return 0, nil, fmt.Errorf("metric: distance CSV line %d: %d entries, the first row has %d (the matrix must be square)", line, len(rec), n)
		}
		if rows == n {
			return 0, nil, fmt.Errorf("metric: distance CSV line %d: more than %d rows, the first row has %d entries (the matrix must be square)", line, n, n)
		}
		for j, f := range rec {
			x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				line, _ := cr.FieldPos(j)
				return 0, nil, fmt.Errorf("metric: distance CSV line %d, column %d: %q is not a number", line, j+1, trimQuote(f))
			}
			d = append(d, x)
		}
		rows++
	}
	if rows == 0 {
		return 0, nil, errors.New("metric: distance CSV: no rows")
	}
	if rows != n {
		return 0, nil, fmt.Errorf("metric: distance CSV: %d rows of %d entries (the matrix must be square)", rows, n)
	}
	return n, d, nil
}

// limitReader reads from r until bytes bytes have been read or a line is
// longer than line bytes; err then says which (and Read returns it).
type limitReader struct {
	r           io.Reader
	bytes, line int64
	run         int64 // bytes since the last '\n'
	total       int64
	err         error
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if rest := l.bytes + 1 - l.total; int64(len(p)) > rest {
		p = p[:rest]
	}
	k, err := l.r.Read(p)
	for _, c := range p[:k] {
		l.run++
		if c == '\n' {
			l.run = 0
		} else if l.run > l.line {
			l.err = fmt.Errorf("metric: a line is longer than %d bytes", l.line)
			return 0, l.err
		}
	}
	l.total += int64(k)
	if l.total > l.bytes {
		l.err = fmt.Errorf("metric: larger than %d bytes", l.bytes)
		return 0, l.err
	}
	return k, err
}

// Len is n.
func (m *MatrixMetric) Len() int { return m.n }

// Dist is the stored d(i,j).
func (m *MatrixMetric) Dist(i, j int) float64 { return m.d[i*m.n+j] }

// String is "dist:file=PATH" when read through Parse, otherwise
// "dist:n=N" (not parseable: there is no file).
func (m *MatrixMetric) String() string {
	if m.source != "" {
		return "dist:file=" + m.source
	}
	return "dist:n=" + strconv.Itoa(m.n)
}

// firstTriangleViolation returns the first triple (i, j, k) in the order
// k, then i, then j > i at which d(i,j) > (d(i,k) + d(k,j))·(1 + TriangleTol)
// for the symmetric row-major n×n matrix d, and whether there is one. The
// O(n³) scan is split by k across GOMAXPROCS goroutines; each stops at its
// first violation, and a goroutine stops early once another has found one at
// a smaller k, so the answer is the one the sequential scan would give.
func firstTriangleViolation(n int, d []float64) (int, int, int, bool) {
	i, j, k, ok, _ := firstTriangleViolationContext(context.Background(), n, d)
	return i, j, k, ok
}

// firstTriangleViolationContext is firstTriangleViolation stopped by ctx:
// each goroutine reads ctx before each k and every 256 rows within it (a
// step of n²/2 comparisons sweeps the whole matrix, 128 MiB at n = 4096,
// where the whole scan takes 20 to 80 s), and ctx's error is returned once
// it is cancelled.
func firstTriangleViolationContext(ctx context.Context, n int, d []float64) (int, int, int, bool, error) {
	workers := min(runtime.GOMAXPROCS(0), n)
	var best atomic.Int64 // smallest violating k found so far
	best.Store(int64(n))
	type hit struct{ i, j, k int }
	hits := make([]hit, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		hits[w].k = n
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for k := w * n / workers; k < (w+1)*n/workers; k++ {
				if int64(k) > best.Load() || ctx.Err() != nil {
					return
				}
				rowK := d[k*n : (k+1)*n]
				for i := 0; i < n; i++ {
					if i%256 == 255 && ctx.Err() != nil {
						return
					}
					dik := d[i*n+k]
					rowI := d[i*n : (i+1)*n]
					for j := i + 1; j < n; j++ {
						if rowI[j] > (dik+rowK[j])*(1+TriangleTol) {
							hits[w] = hit{i, j, k}
							for {
								b := best.Load()
								if int64(k) >= b || best.CompareAndSwap(b, int64(k)) {
									return
								}
							}
						}
					}
				}
			}
		}(w)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, 0, 0, false, fmt.Errorf("distance matrix: triangle check of %d answers interrupted: %w", n, err)
	}
	first := hit{k: n}
	for _, h := range hits {
		if h.k < first.k {
			first = h
		}
	}
	return first.i, first.j, first.k, first.k < n, nil
}

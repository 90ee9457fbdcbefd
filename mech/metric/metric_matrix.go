package metric

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// TriangleTol is the relative slack of the triangle-inequality check of
// NewMatrix: d(i,j) <= (d(i,k) + d(k,j))·(1 + TriangleTol) is accepted, to
// absorb the rounding of distances written in decimal.
const TriangleTol = 1e-12

// MaxMatrixAnswers is the largest explicit distance matrix NewMatrix
// validates (the triangle check is cubic).
const MaxMatrixAnswers = 4096

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
	n := len(d)
	if n < 1 {
		return nil, errors.New("distance matrix: empty")
	}
	if n > MaxMatrixAnswers {
		return nil, fmt.Errorf("distance matrix: %d×%d is larger than the %d×%d limit of the (cubic) validation", n, n, MaxMatrixAnswers, MaxMatrixAnswers)
	}
	m := &MatrixMetric{n: n, d: make([]float64, n*n)}
	for i, row := range d {
		if len(row) != n {
			return nil, fmt.Errorf("distance matrix: row %d has %d entries, want %d (the matrix must be square)", i, len(row), n)
		}
		copy(m.d[i*n:], row)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			x := m.d[i*n+j]
			switch {
			case math.IsNaN(x):
				return nil, fmt.Errorf("distance matrix: d(%d,%d) is NaN", i, j)
			case i == j && x != 0:
				return nil, fmt.Errorf("distance matrix: diagonal d(%d,%d) = %v, must be 0", i, j, x)
			case i != j && !(x > 0):
				return nil, fmt.Errorf("distance matrix: d(%d,%d) = %v, distinct answers must be at a positive distance", i, j, x)
			case x != m.d[j*n+i]:
				return nil, fmt.Errorf("distance matrix: not symmetric, d(%d,%d) = %v but d(%d,%d) = %v", i, j, x, j, i, m.d[j*n+i])
			}
		}
	}
	for k := 0; k < n; k++ {
		for i := 0; i < n; i++ {
			dik := m.d[i*n+k]
			for j := i + 1; j < n; j++ {
				dij, dkj := m.d[i*n+j], m.d[k*n+j]
				if dij > (dik+dkj)*(1+TriangleTol) {
					return nil, fmt.Errorf("distance matrix: triangle inequality fails for (i,j,k) = (%d,%d,%d): d(%d,%d) = %v > d(%d,%d) + d(%d,%d) = %v + %v",
						i, j, k, i, j, dij, i, k, k, j, dik, dkj)
				}
			}
		}
	}
	return m, nil
}

// ReadDistCSV reads a square distance matrix, one row per CSV record
// (lines starting with '#' are comments), and validates it with NewMatrix.
// "inf" marks unreachable pairs.
func ReadDistCSV(r io.Reader) (*MatrixMetric, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	var d [][]float64
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("distance CSV: %w", err)
		}
		if len(d) >= MaxMatrixAnswers {
			return nil, fmt.Errorf("distance CSV: more than %d rows", MaxMatrixAnswers)
		}
		row := make([]float64, len(rec))
		for j, f := range rec {
			x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				line, _ := cr.FieldPos(j)
				return nil, fmt.Errorf("distance CSV line %d, column %d: %q is not a number", line, j+1, f)
			}
			row[j] = x
		}
		d = append(d, row)
	}
	if len(d) == 0 {
		return nil, errors.New("distance CSV: no rows")
	}
	return NewMatrix(d)
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

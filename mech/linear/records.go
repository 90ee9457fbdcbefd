package linear

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/optdp/optdp/run"
)

// Histogram reads data records, one per line of CSV (fields separated by
// commas, semicolons, tabs or blanks; blank lines and lines starting with
// '#' skipped), and returns the count of every cell of the product domain
// attrs, in row-major order (the first attribute slowest), the data vector x
// of the matrix mechanism. Each record gives one integer value in
// [0, Size) per attribute. The first line may be a header naming the
// columns: columns are then matched to the attributes by name (every
// attribute must appear; other columns are ignored); without a header the
// columns are the attributes in order. The n-cell vector (8n bytes) is
// checked against budget before it is allocated; nothing of the size of
// the domain squared is ever formed. Package mech/linear/tables reads the
// same records (and histograms, and Parquet) in one streaming pass with
// progress and cancellation, and refuses an empty field between two
// delimiters, which this reader skips.
func Histogram(attrs []Attribute, r io.Reader, budget run.Budget) ([]float64, error) {
	if len(attrs) == 0 {
		return nil, fmt.Errorf("linear: histogram: %w: no attributes", run.ErrBadInput)
	}
	if err := budget.Validate(); err != nil {
		return nil, fmt.Errorf("linear: histogram: %w", err)
	}
	cells := 1.0
	for i, a := range attrs {
		if a.Size < 1 {
			return nil, fmt.Errorf("linear: histogram: %w: attribute %d (%q) has size %d", run.ErrBadInput, i, a.Name, a.Size)
		}
		cells *= float64(a.Size)
	}
	if cells > 1<<40 {
		return nil, fmt.Errorf("linear: histogram: a domain of %g cells: %w", cells, run.ErrTooLarge)
	}
	if err := budget.Check(fmt.Sprintf("histogram: the data vector over %g cells", cells), 8*cells, ""); err != nil {
		return nil, err
	}
	x := make([]float64, int(cells))
	records := 0
	err := scanRecords(attrs, r, "histogram", func(vals []int) error {
		idx := 0
		for i, a := range attrs {
			idx = idx*a.Size + vals[i]
		}
		x[idx]++
		records++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if records == 0 {
		return nil, fmt.Errorf("linear: histogram: %w: no records", run.ErrBadInput)
	}
	return x, nil
}

// scanRecords reads records in Histogram's CSV format from r and calls
// visit with each record's values, one per attribute in attrs' order, each
// checked to lie in [0, Size) (vals is reused between calls). Errors wrap
// run.ErrBadInput (a line of separators only, a header naming a column
// twice or missing an attribute, a line with more fields than the header
// or too few for an attribute, a value that is not an integer in its
// domain), visit's error, or the reader's; each names
// "linear: what" and the line.
func scanRecords(attrs []Attribute, r io.Reader, what string, visit func(vals []int) error) error {
	col := make([]int, len(attrs)) // column of each attribute
	for i := range col {
		col[i] = i
	}
	vals := make([]int, len(attrs))
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	split := func(t string) []string {
		return strings.FieldsFunc(t, func(c rune) bool { return c == ',' || c == ';' || c == ' ' || c == '\t' })
	}
	line, first, width := 0, true, 0 // width: the header's fields (0: no header)
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		fields := split(t)
		if len(fields) == 0 {
			return fmt.Errorf("linear: %s: %w: line %d has only separators", what, run.ErrBadInput, line)
		}
		if first {
			first = false
			if _, err := strconv.Atoi(fields[0]); err != nil { // a header
				pos := map[string]int{}
				for k, f := range fields {
					if j, dup := pos[f]; dup {
						return fmt.Errorf("linear: %s: %w: the header (line %d) names column %q twice (columns %d and %d)", what, run.ErrBadInput, line, f, j+1, k+1)
					}
					pos[f] = k
				}
				for i, a := range attrs {
					k, ok := pos[a.Name]
					if !ok {
						return fmt.Errorf("linear: %s: %w: the header (line %d) has no column %q", what, run.ErrBadInput, line, a.Name)
					}
					col[i] = k
				}
				width = len(fields)
				continue
			}
		}
		if width > 0 && len(fields) > width {
			return fmt.Errorf("linear: %s: %w: line %d has %d fields, more than the header's %d (a separator inside a value?)", what, run.ErrBadInput, line, len(fields), width)
		}
		for i, a := range attrs {
			if col[i] >= len(fields) {
				return fmt.Errorf("linear: %s: %w: line %d has %d fields, attribute %q is column %d", what, run.ErrBadInput, line, len(fields), a.Name, col[i]+1)
			}
			v, err := strconv.Atoi(fields[col[i]])
			if err != nil || v < 0 || v >= a.Size {
				return fmt.Errorf("linear: %s: %w: line %d: %s = %q is not an integer in [0, %d)", what, run.ErrBadInput, line, a.Name, fields[col[i]], a.Size)
			}
			vals[i] = v
		}
		if err := visit(vals); err != nil {
			return fmt.Errorf("linear: %s: line %d: %w", what, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("linear: %s: reading records: %w", what, err)
	}
	return nil
}

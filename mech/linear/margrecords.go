package linear

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/optdp/optdp/run"
)

// ReadMarginalRecords reads data records in Histogram's CSV format (one
// record per line, one integer value in [0, Size) per attribute, an
// optional header naming the columns) into the columns of a MarginalData,
// without forming the histogram: 4 bytes per attribute and record, checked
// against budget as the records arrive. Errors match run.ErrBadInput (a
// value outside its domain, a short line, a line longer than the header, a header without an attribute's
// column, no records) or run.ErrTooLarge (the budget, or more than 2^31-1
// records).
func ReadMarginalRecords(attrs []Attribute, r io.Reader, budget run.Budget) (*MarginalData, error) {
	if len(attrs) == 0 {
		return nil, fmt.Errorf("linear: records: %w: no attributes", run.ErrBadInput)
	}
	for i, a := range attrs {
		if a.Size < 1 || a.Size > maxSpecAttrSize {
			return nil, fmt.Errorf("linear: records: %w: attribute %d (%q) has size %d, want 1..%d", run.ErrBadInput, i, a.Name, a.Size, maxSpecAttrSize)
		}
	}
	d := &MarginalData{Columns: make([][]int32, len(attrs))}
	col := make([]int, len(attrs))
	for i := range col {
		col[i] = i
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	split := func(t string) []string {
		return strings.FieldsFunc(t, func(c rune) bool { return c == ',' || c == ';' || c == ' ' || c == '\t' })
	}
	line, rows, first, width := 0, 0, true, 0 // width: the header's fields (0: no header)
	limit := float64(budget.Bytes())
	if budget < 0 {
		limit = -1
	}
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		fields := split(t)
		if len(fields) == 0 {
			return nil, fmt.Errorf("linear: records: %w: line %d has only separators", run.ErrBadInput, line)
		}
		if first {
			first = false
			if _, err := strconv.Atoi(fields[0]); err != nil { // a header
				pos := map[string]int{}
				for k, f := range fields {
					if j, dup := pos[f]; dup {
						return nil, fmt.Errorf("linear: records: %w: the header (line %d) names column %q twice (columns %d and %d)", run.ErrBadInput, line, f, j+1, k+1)
					}
					pos[f] = k
				}
				for i, a := range attrs {
					k, ok := pos[a.Name]
					if !ok {
						return nil, fmt.Errorf("linear: records: %w: the header (line %d) has no column %q", run.ErrBadInput, line, a.Name)
					}
					col[i] = k
				}
				width = len(fields)
				continue
			}
		}
		if rows == 1<<31-1 || (limit >= 0 && 4*float64(len(attrs))*float64(rows+1) > limit) {
			return nil, fmt.Errorf("linear: records: more than %d records of %d attributes (4 bytes each) exceed the memory budget: %w", rows, len(attrs), run.ErrTooLarge)
		}
		if width > 0 && len(fields) > width {
			return nil, fmt.Errorf("linear: records: %w: line %d has %d fields, more than the header's %d (a separator inside a value?)", run.ErrBadInput, line, len(fields), width)
		}
		for i, a := range attrs {
			if col[i] >= len(fields) {
				return nil, fmt.Errorf("linear: records: %w: line %d has %d fields, attribute %q is column %d", run.ErrBadInput, line, len(fields), a.Name, col[i]+1)
			}
			v, err := strconv.Atoi(fields[col[i]])
			if err != nil || v < 0 || v >= a.Size {
				return nil, fmt.Errorf("linear: records: %w: line %d: %s = %q is not an integer in [0, %d)", run.ErrBadInput, line, a.Name, fields[col[i]], a.Size)
			}
			d.Columns[i] = append(d.Columns[i], int32(v))
		}
		rows++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("linear: records: reading: %w", err)
	}
	if rows == 0 {
		return nil, fmt.Errorf("linear: records: %w: no records", run.ErrBadInput)
	}
	return d, nil
}

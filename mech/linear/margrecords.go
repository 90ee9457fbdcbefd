package linear

import (
	"fmt"
	"io"

	"github.com/optdp/optdp/run"
)

// ReadMarginalRecords reads data records in Histogram's CSV format (one
// record per line, one integer value in [0, Size) per attribute, an
// optional header naming the columns) into the columns of a MarginalData,
// without forming the histogram: 4 bytes per attribute and record, checked
// against budget as the records arrive. Errors match run.ErrBadInput (a
// value outside its domain, a short line, a header without an attribute's
// column, no records) or run.ErrTooLarge (the budget, or more than 2^31-1
// records). Package tables' ReadMarginal reads the same columns from
// records or a histogram (rows with counts), in CSV or Parquet.
func ReadMarginalRecords(attrs []Attribute, r io.Reader, budget run.Budget) (*MarginalData, error) {
	if len(attrs) == 0 {
		return nil, fmt.Errorf("linear: records: %w: no attributes", run.ErrBadInput)
	}
	for i, a := range attrs {
		if a.Size < 1 || a.Size > maxSpecAttrSize {
			return nil, fmt.Errorf("linear: records: %w: attribute %d (%q) has size %d, want 1..%d", run.ErrBadInput, i, a.Name, a.Size, maxSpecAttrSize)
		}
	}
	if err := budget.Validate(); err != nil {
		return nil, fmt.Errorf("linear: records: %w", err)
	}
	d := &MarginalData{Columns: make([][]int32, len(attrs))}
	limit := float64(budget.Bytes())
	rows := 0
	err := scanRecords(attrs, r, "records", func(vals []int) error {
		if rows == 1<<31-1 || 4*float64(len(attrs))*float64(rows+1) > limit {
			return fmt.Errorf("more than %d records of %d attributes (4 bytes each) exceed the memory budget: %w", rows, len(attrs), run.ErrTooLarge)
		}
		for i, v := range vals {
			d.Columns[i] = append(d.Columns[i], int32(v))
		}
		rows++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if rows == 0 {
		return nil, fmt.Errorf("linear: records: %w: no records", run.ErrBadInput)
	}
	return d, nil
}

package tables

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/run"
)

// maxColumnRows is the most rows ReadMarginal keeps: 2^31 - 1, the
// longest slice on a 32-bit machine.
const maxColumnRows = math.MaxInt32

// columnsAdvice is the advice of ReadMarginal's budget errors.
const columnsAdvice = "give a histogram (one row per cell with its count: SELECT ..., count(*) AS count ... GROUP BY ...) instead of records, or raise the budget"

// MarginalResult is a table read row by row into the columns of a
// linear.MarginalData (ReadMarginal).
type MarginalResult struct {
	// Data holds the rows: Data.Columns[i][r] is row r's value of
	// attribute i; for a histogram Data.Counts[r] is its count (nil for
	// records, one record per row).
	Data *linear.MarginalData
	// Rows is the number of data rows read (headers, blank lines and
	// comments not counted); Total the number of records they hold (Rows
	// for records, the summed counts for a histogram, at most 2^53).
	Rows  int64
	Total float64
}

// columns holds the rows of a table for ReadMarginal: one int32 column per
// attribute and, for a histogram, the counts.
type columns struct {
	cols   [][]int32 // nil when counting cells
	counts []int64
	total  float64 // the summed counts (exact: at most 2^53)
	bpr    int64   // bytes per row: 4 per attribute, 8 for a count
	budget run.Budget
}

// ReadMarginal reads the table at path (a file, or a directory of parts,
// as Count) of opts.Kind and opts.Format, in one streaming pass, into the
// columns of a linear.MarginalData for linear.AnswerGaussianMarginals:
// the rows themselves, never the histogram over the product domain, so
// the domain may have any number of cells. The table's format and
// validation are Count's (CountCSV, CountParquet: the same parser, the
// same errors), with two limits of their own: a histogram's counts may sum
// to at most 2^53 over the whole table (not only per cell), and at most
// 2^31-1 rows are kept.
//
// Memory is 4 bytes per attribute and row, plus 8 per row for a
// histogram's counts, checked against opts.Budget before every allocation
// (a Parquet file's rows are reserved at once from its metadata when they
// fit; other rows by doubling, the old and new columns both counted while
// they are copied); over the budget the error wraps run.ErrTooLarge. Bad data wraps
// run.ErrBadInput, naming the line or row and the column; a cancelled ctx
// returns its error.
func ReadMarginal(ctx context.Context, attrs []linear.Attribute, path string, opts *Options) (*MarginalResult, error) {
	c, err := readTable(ctx, attrs, path, opts, newColumnCounter)
	if err != nil {
		return nil, err
	}
	return c.marginalResult()
}

// ReadMarginalCSV reads a CSV table from r as ReadMarginal reads a file.
func ReadMarginalCSV(ctx context.Context, attrs []linear.Attribute, r io.Reader, opts *Options) (*MarginalResult, error) {
	o := options(opts)
	c, err := newColumnCounter(attrs, o.Kind, &o)
	if err != nil {
		return nil, err
	}
	if err := readCSV(ctx, c, r, 0, o); err != nil {
		return nil, err
	}
	return c.marginalResult()
}

// ReadMarginalParquet reads a Parquet table (r holds size bytes) as
// ReadMarginal reads a file.
func ReadMarginalParquet(ctx context.Context, attrs []linear.Attribute, r io.ReaderAt, size int64, opts *Options) (*MarginalResult, error) {
	o := options(opts)
	c, err := newColumnCounter(attrs, o.Kind, &o)
	if err != nil {
		return nil, err
	}
	if err := readParquet(ctx, c, r, size, o); err != nil {
		return nil, err
	}
	return c.marginalResult()
}

// newColumnCounter checks attrs as newCounter does (any number of cells;
// sizes at most 2^31-1, the values being int32) and returns a counter
// that keeps the rows.
func newColumnCounter(attrs []linear.Attribute, kind Kind, o *Options) (*counter, error) {
	if _, err := checkAttrs(attrs, kind, o); err != nil {
		return nil, err
	}
	for i, a := range attrs {
		if a.Size > math.MaxInt32 {
			return nil, fmt.Errorf("tables: %w: attribute %d (%q) has size %d, above 2^31-1", run.ErrBadInput, i, a.Name, a.Size)
		}
	}
	if err := o.Budget.Validate(); err != nil {
		return nil, fmt.Errorf("tables: %w", err)
	}
	c := &counter{attrs: attrs, report: o.Progress, vals: make([]int, len(attrs))}
	c.cols = make([][]int32, len(attrs))
	c.bpr = 4 * int64(len(attrs))
	if kind == Histogram {
		c.counts = []int64{}
		c.bpr += 8
	}
	c.budget = o.Budget
	return c, nil
}

// grow makes room for one more row: the columns are reallocated to twice
// their capacity (at least 4096 rows; less if the budget allows only
// that), the old and the new columns counted against the budget.
func (c *columns) grow() error {
	n, old := int64(len(c.cols[0])), int64(cap(c.cols[0]))
	need := n + 1
	if need > maxColumnRows {
		return fmt.Errorf("tables: %d rows, more than the 2^31-1 kept: %w", need, run.ErrTooLarge)
	}
	want := min(max(need, 2*old, 1<<12), maxColumnRows)
	if fit := c.budget.Bytes()/c.bpr - old; want > fit {
		want = max(need, fit)
	}
	what := fmt.Sprintf("tables: the columns of %d rows of %d attributes (%d bytes a row)", need, len(c.cols), c.bpr)
	if err := c.budget.Check(what, float64(old+want)*float64(c.bpr), columnsAdvice); err != nil {
		return err
	}
	c.realloc(want)
	return nil
}

// tryReserve makes room for extra more rows at once if they fit in 2^31-1
// rows and, with the old columns, in the budget; otherwise it does
// nothing.
func (c *columns) tryReserve(extra int64) {
	n, old := int64(len(c.cols[0])), int64(cap(c.cols[0]))
	if want := n + extra; want > old && want <= maxColumnRows && c.budget.Fits(float64(old+want)*float64(c.bpr)) {
		c.realloc(want)
	}
}

// realloc moves the columns to new ones of capacity want.
func (c *columns) realloc(want int64) {
	for i, col := range c.cols {
		c.cols[i] = append(make([]int32, 0, int(want)), col...)
	}
	if c.counts != nil {
		c.counts = append(make([]int64, 0, int(want)), c.counts...)
	}
}

// appendRow keeps a row of values vals with its count (an integer in
// [0, 2^53]); where and n name it in messages ("line 7", "row 7").
func (c *columns) appendRow(vals []int, count float64, where string, n int64) error {
	if len(c.cols[0]) == cap(c.cols[0]) {
		if err := c.grow(); err != nil {
			return err
		}
	}
	if count > maxCount-c.total {
		return fmt.Errorf("tables: %w: %s %d: the total count %.17g + %.17g is above 2^53 = %d, the largest total the marginals carry exactly", run.ErrBadInput, where, n, c.total, count, int64(maxCount))
	}
	c.total += count
	for i, v := range vals {
		c.cols[i] = append(c.cols[i], int32(v))
	}
	if c.counts != nil {
		c.counts = append(c.counts, int64(count))
	}
	return nil
}

// marginalResult closes the read: a table without data rows is refused,
// as by Count.
func (c *counter) marginalResult() (*MarginalResult, error) {
	if c.rows == 0 {
		return nil, fmt.Errorf("tables: %w: no data rows", run.ErrBadInput)
	}
	d := &linear.MarginalData{Columns: c.cols}
	if c.counts != nil {
		d.Counts = c.counts
	}
	return &MarginalResult{Data: d, Rows: c.rows, Total: c.total}, nil
}

package tables

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/run"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// parquetBatch is the number of rows read from each column at a time.
const parquetBatch = 4096

// CountParquet reads a Parquet table (r holds size bytes) and returns its
// histogram over attrs (Count, for a file). The columns are the schema's
// top-level fields, matched by name (other columns are never read); each
// must be a required or optional (not repeated) primitive column: INT32 or
// INT64 (signed or unsigned) for an attribute, these or FLOAT or DOUBLE for
// a histogram's count. A null is refused, as is a floating count that is
// not an integer. The file is read row group by row group, each needed
// column page by page, so memory is a few pages whatever the file's size.
// A truncated or corrupt file is refused with an error wrapping
// run.ErrBadInput (a panic of the Parquet decoder on a corrupt page is
// recovered into one).
func CountParquet(ctx context.Context, attrs []linear.Attribute, r io.ReaderAt, size int64, opts *Options) (*Result, error) {
	o := options(opts)
	c, err := newCounter(attrs, o.Kind, &o)
	if err != nil {
		return nil, err
	}
	if err := readParquet(ctx, c, r, size, o); err != nil {
		return nil, err
	}
	return c.result()
}

// readParquet counts the Parquet table in r (size bytes) into c.
func readParquet(ctx context.Context, c *counter, r io.ReaderAt, size int64, o Options) (err error) {
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("tables: %w: corrupt Parquet file (the decoder failed: %v)", run.ErrBadInput, e)
		}
	}()
	c.base = c.rows
	attrs := c.attrs
	if err := checkFooter(r, size); err != nil {
		return err
	}
	f, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return fmt.Errorf("tables: %w: not a readable Parquet file: %v", run.ErrBadInput, err)
	}
	cols, err := parquetColumns(f, attrs, o)
	if err != nil {
		return err
	}
	if c.cols != nil {
		// The row groups' metadata says how many rows follow: reserve
		// them at once if they fit (a corrupt count is refused as the
		// groups are read; beyond the budget, appendRow's doubling
		// refuses the row that does not fit).
		var n int64
		for _, rg := range f.RowGroups() {
			n += max(0, min(rg.NumRows(), maxColumnRows))
		}
		c.tryReserve(n)
	}
	var done int64
	if n := f.NumRows(); n > 0 {
		c.frac = func() float64 { return min(1, float64(done)/float64(n)) }
	}
	bufs := make([][]parquet.Value, len(cols))
	for i := range bufs {
		bufs[i] = make([]parquet.Value, parquetBatch)
	}
	for g, rg := range f.RowGroups() {
		if err := checkPages(r, size, f, g, cols); err != nil {
			return err
		}
		if err := countRowGroup(ctx, c, rg, g, cols, bufs, o.Kind); err != nil {
			return err
		}
		done += rg.NumRows()
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tables: %w", err)
	}
	return nil
}

// parquetColumn is one column read: its leaf index, name, role (attribute
// index or slotCount) and how its values are read.
type parquetColumn struct {
	index    int
	name     string
	role     int
	kind     parquet.Kind
	unsigned bool
}

// parquetColumns finds the attributes' (and the count's) columns among the
// schema's top-level fields and checks their types.
func parquetColumns(f *parquet.File, attrs []linear.Attribute, o Options) ([]parquetColumn, error) {
	schema := f.Schema()
	fields := map[string]parquet.Field{}
	var names []string
	for _, fd := range schema.Fields() {
		if _, dup := fields[fd.Name()]; dup {
			return nil, fmt.Errorf("tables: %w: the Parquet schema has two columns named %q", run.ErrBadInput, fd.Name())
		}
		fields[fd.Name()] = fd
		names = append(names, fd.Name())
	}
	want := make([]string, 0, len(attrs)+1)
	for _, a := range attrs {
		want = append(want, a.Name)
	}
	if o.Kind == Histogram {
		want = append(want, o.CountColumn)
	}
	cols := make([]parquetColumn, len(want))
	for i, name := range want {
		fd, ok := fields[name]
		if !ok {
			return nil, fmt.Errorf("tables: %w: the Parquet file has no column %q (its columns: %v)", run.ErrBadInput, name, names)
		}
		leaf, ok := schema.Lookup(name)
		if !fd.Leaf() || !ok {
			return nil, fmt.Errorf("tables: %w: Parquet column %q is a group, not a primitive column", run.ErrBadInput, name)
		}
		if fd.Repeated() || leaf.MaxRepetitionLevel > 0 {
			return nil, fmt.Errorf("tables: %w: Parquet column %q is repeated (a list); want one value per row", run.ErrBadInput, name)
		}
		col := parquetColumn{index: leaf.ColumnIndex, name: name, role: i, kind: fd.Type().Kind()}
		if i == len(attrs) {
			col.role = slotCount
		}
		if lt := fd.Type().LogicalType(); lt != nil && lt.Value != nil {
			it, ok := lt.Value.(*format.IntType)
			if !ok {
				// A DECIMAL, DATE, TIMESTAMP ... is stored as an integer
				// that is not the value: never read it as one.
				return nil, fmt.Errorf("tables: %w: Parquet column %q is a %v, not an integer or floating column", run.ErrBadInput, name, lt)
			}
			col.unsigned = !it.IsSigned
		}
		switch col.kind {
		case parquet.Int32, parquet.Int64:
		case parquet.Float, parquet.Double:
			if col.role != slotCount {
				return nil, fmt.Errorf("tables: %w: Parquet column %q holds %v values; an attribute's values are integers (INT32 or INT64)", run.ErrBadInput, name, col.kind)
			}
		default:
			what := "an attribute's values are integers (INT32 or INT64)"
			if col.role == slotCount {
				what = "a count is an integer (INT32 or INT64) or an integral FLOAT or DOUBLE"
			}
			return nil, fmt.Errorf("tables: %w: Parquet column %q holds %v values (type %v); %s", run.ErrBadInput, name, col.kind, fd.Type(), what)
		}
		cols[i] = col
	}
	return cols, nil
}

// columnReader reads the values of one column chunk across its pages.
type columnReader struct {
	pages parquet.Pages
	page  parquet.Page
	vals  parquet.ValueReader
}

// read fills buf with the next values; fewer only at the chunk's end
// (io.EOF).
func (cr *columnReader) read(buf []parquet.Value) (int, error) {
	n := 0
	for n < len(buf) {
		if cr.vals == nil {
			p, err := cr.pages.ReadPage()
			if err != nil {
				return n, err
			}
			cr.release()
			cr.page, cr.vals = p, p.Values()
		}
		k, err := cr.vals.ReadValues(buf[n:])
		n += k
		if errors.Is(err, io.EOF) {
			cr.vals = nil
		} else if err != nil {
			return n, err
		}
	}
	return n, nil
}

func (cr *columnReader) release() {
	if cr.page != nil {
		parquet.Release(cr.page)
		cr.page = nil
	}
}

func (cr *columnReader) close() {
	cr.release()
	cr.pages.Close()
}

// countRowGroup counts the rows of row group g, reading its needed columns
// in lockstep, parquetBatch rows at a time.
func countRowGroup(ctx context.Context, c *counter, rg parquet.RowGroup, g int, cols []parquetColumn, bufs [][]parquet.Value, kind Kind) error {
	chunks := rg.ColumnChunks()
	readers := make([]*columnReader, len(cols))
	defer func() {
		for _, cr := range readers {
			if cr != nil {
				cr.close()
			}
		}
	}()
	for i, col := range cols {
		if col.index < 0 || col.index >= len(chunks) {
			return fmt.Errorf("tables: %w: corrupt Parquet file: row group %d has no chunk for column %q", run.ErrBadInput, g, col.name)
		}
		readers[i] = &columnReader{pages: chunks[col.index].Pages()}
	}
	want := rg.NumRows()
	var got int64
	d := len(c.attrs)
	for got < want {
		n, err := readers[0].read(bufs[0][:min(int64(len(bufs[0])), want-got)])
		if err != nil && !errors.Is(err, io.EOF) {
			return corrupt(g, cols[0].name, err)
		}
		for i := 1; i < len(cols); i++ {
			k, err := readers[i].read(bufs[i][:n])
			if err != nil && !(errors.Is(err, io.EOF) && k == n) {
				return corrupt(g, cols[i].name, err)
			}
		}
		if n == 0 {
			break
		}
		for r := 0; r < n; r++ {
			row := c.rows + 1 - c.base // within this file
			count := 1.0
			for i, col := range cols {
				v := bufs[i][r]
				if v.IsNull() {
					return fmt.Errorf("tables: %w: row %d: %s is null (a missing value)", run.ErrBadInput, row, col.name)
				}
				if i < d {
					x, ok := col.integer(v)
					if !ok || x < 0 || x >= int64(c.attrs[i].Size) {
						return fmt.Errorf("tables: %w: row %d: %s = %s is outside the attribute's domain [0, %d)", run.ErrBadInput, row, col.name, col.text(v), c.attrs[i].Size)
					}
					c.vals[i] = int(x)
					continue
				}
				var err error
				if count, err = col.count(v); err != nil {
					return fmt.Errorf("tables: %w: row %d: %s: %v", run.ErrBadInput, row, col.name, err)
				}
			}
			c.rows++
			if c.cols != nil {
				if err := c.appendRow(c.vals, count, "row", row); err != nil {
					return err
				}
			} else if err := c.addCell(kind, count, row); err != nil {
				return err
			}
			if c.rows%checkEvery == 0 {
				if err := c.tick(ctx); err != nil {
					return err
				}
			}
		}
		got += int64(n)
	}
	for i := range cols {
		if k, _ := readers[i].read(bufs[i][:1]); k != 0 {
			return fmt.Errorf("tables: %w: corrupt Parquet file: row group %d: column %q has more values than the %d rows of its metadata", run.ErrBadInput, g, cols[i].name, want)
		}
	}
	if got != want {
		return fmt.Errorf("tables: %w: corrupt Parquet file: row group %d holds %d rows of column %q, its metadata says %d", run.ErrBadInput, g, got, cols[0].name, want)
	}
	return nil
}

// addCell adds a row of count records (1 for records) with values c.vals
// to its cell; row names it in messages.
func (c *counter) addCell(kind Kind, count float64, row int64) error {
	idx := 0
	for i, v := range c.vals {
		idx += v * c.stride[i]
	}
	if kind == Records {
		if c.x[idx] >= maxCount {
			return fmt.Errorf("tables: %w: row %d: a cell with more than 2^53 records", run.ErrBadInput, row)
		}
		c.x[idx]++
		return nil
	}
	if err := c.addCount(idx, count); err != nil {
		return fmt.Errorf("tables: %w: row %d: %v", run.ErrBadInput, row, err)
	}
	return nil
}

// corrupt wraps a decoder's error on row group g's column name.
func corrupt(g int, name string, err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("tables: %w: corrupt or truncated Parquet file: row group %d, column %q: %v", run.ErrBadInput, g, name, err)
}

// integer returns an integer column's value (ok false for an unsigned
// value above 2^63-1).
func (col parquetColumn) integer(v parquet.Value) (int64, bool) {
	switch {
	case col.kind == parquet.Int32 && col.unsigned:
		return int64(uint32(v.Int32())), true
	case col.kind == parquet.Int32:
		return int64(v.Int32()), true
	case col.unsigned:
		u := v.Uint64()
		return int64(u), u <= math.MaxInt64
	}
	return v.Int64(), true
}

// count returns a count column's value: an integer in [0, 2^53].
func (col parquetColumn) count(v parquet.Value) (float64, error) {
	var f float64
	switch col.kind {
	case parquet.Float:
		f = float64(v.Float())
	case parquet.Double:
		f = v.Double()
	default:
		x, ok := col.integer(v)
		switch {
		case !ok || x > maxCount:
			return 0, fmt.Errorf("count %s is above 2^53 = %d, the largest count carried exactly", col.text(v), int64(maxCount))
		case x < 0:
			return 0, fmt.Errorf("count %d is negative (counts are >= 0)", x)
		}
		return float64(x), nil
	}
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f):
		return 0, fmt.Errorf("count %v is not an integer", f)
	case f < 0:
		return 0, fmt.Errorf("count %v is negative (counts are >= 0)", f)
	case f > maxCount:
		return 0, fmt.Errorf("count %.17g is above 2^53 = %d, the largest count carried exactly", f, int64(maxCount))
	}
	return f, nil
}

// text formats an integer column's value for a message.
func (col parquetColumn) text(v parquet.Value) string {
	if x, ok := col.integer(v); ok {
		return fmt.Sprint(x)
	}
	return fmt.Sprint(v.Uint64())
}

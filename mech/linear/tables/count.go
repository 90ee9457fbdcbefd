package tables

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/optdp/optdp/internal/readlimit"
	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/run"
)

// Kind says what the rows of a table are.
type Kind int

const (
	// Records: one row per individual, counted once in its cell.
	Records Kind = iota
	// Histogram: one row per cell with its count in the count column.
	Histogram
)

// String returns "records" or "histogram".
func (k Kind) String() string {
	if k == Histogram {
		return "histogram"
	}
	return "records"
}

// Format is a file format: FormatCSV or FormatParquet.
type Format string

// The formats Count reads.
const (
	FormatCSV     Format = "csv"
	FormatParquet Format = "parquet"
)

// String returns the format's name.
func (f Format) String() string { return string(f) }

// ParseFormat parses "csv" or "parquet" (any case); "" gives "" (the format
// is then taken from the file).
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case "", FormatCSV, FormatParquet:
		return f, nil
	}
	return "", fmt.Errorf("tables: %w: unknown format %q (want csv or parquet)", run.ErrBadInput, s)
}

// DefaultCountColumn is the name of a histogram's count column when
// Options.CountColumn is empty.
const DefaultCountColumn = "count"

// maxCount is the largest count carried exactly: 2^53, up to which every
// integer is a float64.
const maxCount = 1 << 53

// Options are the options of Count, CountCSV and CountParquet (nil = the
// defaults: records, format from the file, count column "count", budget
// 4 GiB, no progress).
type Options struct {
	run.Settings
	// Kind is Records (the default) or Histogram.
	Kind Kind
	// Format is the file's format for Count; "" takes it from the
	// extension (.csv, .tsv, .txt: CSV; .parquet, .pq: Parquet) and, for
	// any other name, from the first four bytes ("PAR1": Parquet).
	Format Format
	// CountColumn names a histogram's count column ("" = "count"). A CSV
	// histogram without a header has the count after the attributes.
	CountColumn string
}

// Result is the histogram read from a table.
type Result struct {
	// X holds the count of every cell of the product domain, row-major
	// (the first attribute slowest): linear's data vector x.
	X []float64
	// Rows is the number of data rows read (headers, blank lines and
	// comments not counted).
	Rows int64
	// Total is the sum of X: Rows for records, the summed counts for a
	// histogram (exact up to 2^53).
	Total float64
}

// Count reads the table in the file at path, of opts.Kind and opts.Format,
// in one streaming pass (CountCSV, CountParquet), and returns its
// histogram over attrs. A directory is read as one table split in parts,
// as Spark and BigQuery write them: every file in it (not its
// subdirectories) whose name does not start with '_' or '.' (_SUCCESS,
// .crc files), in name order, each part's format told on its own, the
// counts summed. The files' sizes are not limited: memory is the n-cell
// vector plus a buffer. Errors: bad data (wrapping run.ErrBadInput, with
// the file, the line or row and the column), a domain over the budget
// (run.ErrTooLarge), ctx's error when it is cancelled, and the files' own
// errors (missing, unreadable, an empty directory).
func Count(ctx context.Context, attrs []linear.Attribute, path string, opts *Options) (*Result, error) {
	c, err := readTable(ctx, attrs, path, opts, newCounter)
	if err != nil {
		return nil, err
	}
	return c.result()
}

// readTable reads the table at path (a file or the parts of a directory)
// into the counter that newC makes for attrs: the shared body of Count
// and ReadMarginal.
func readTable(ctx context.Context, attrs []linear.Attribute, path string, opts *Options,
	newC func([]linear.Attribute, Kind, *Options) (*counter, error)) (*counter, error) {
	o := options(opts)
	if _, err := ParseFormat(string(o.Format)); err != nil {
		return nil, err
	}
	files, err := tablePaths(path)
	if err != nil {
		return nil, err
	}
	c, err := newC(attrs, o.Kind, &o)
	if err != nil {
		return nil, err
	}
	if err := countFiles(ctx, c, files, o); err != nil {
		return nil, err
	}
	return c, nil
}

// tablePaths returns the file at path, or the parts of the table in the
// directory at path (tableFiles).
func tablePaths(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return tableFiles(path)
	}
	return []string{path}, nil
}

// countFiles counts the tables in files into c, naming the part that
// fails when there are several.
func countFiles(ctx context.Context, c *counter, files []string, o Options) error {
	for _, p := range files {
		if err := countFile(ctx, c, p, o); err != nil {
			if len(files) > 1 {
				err = fmt.Errorf("in %s: %w", filepath.Base(p), err)
			}
			return err
		}
	}
	return nil
}

// tableFiles lists the parts of a table split over the files of dir.
func tableFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if name := e.Name(); !e.IsDir() && !strings.HasPrefix(name, "_") && !strings.HasPrefix(name, ".") {
			files = append(files, filepath.Join(dir, name))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("tables: %w: the directory %s holds no table files (names starting with _ or . are skipped)", run.ErrBadInput, dir)
	}
	return files, nil
}

// countFile counts the table in the file at path into c.
func countFile(ctx context.Context, c *counter, path string, o Options) error {
	f, err := readlimit.Open(path, math.MaxInt64)
	if err != nil {
		return err
	}
	defer f.Close()
	format := o.Format
	if format == "" {
		switch strings.ToLower(filepath.Ext(path)) {
		case ".csv", ".tsv", ".txt":
			format = FormatCSV
		case ".parquet", ".pq":
			format = FormatParquet
		default:
			var magic [4]byte
			n, err := io.ReadFull(f, magic[:])
			if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
				return err
			}
			format = FormatCSV
			if n == 4 && string(magic[:]) == "PAR1" {
				format = FormatParquet
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return fmt.Errorf("tables: %s: cannot tell its format (name it) on a stream: %w", path, err)
			}
		}
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if format == FormatParquet {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("tables: %s: a Parquet file must be a regular file (its footer is read first)", path)
		}
		return readParquet(ctx, c, f, fi.Size(), o)
	}
	size := int64(0)
	if fi.Mode().IsRegular() {
		size = fi.Size()
	}
	return readCSV(ctx, c, f, size, o)
}

// options resolves nil options to the defaults.
func options(opts *Options) Options {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.CountColumn == "" {
		o.CountColumn = DefaultCountColumn
	}
	return o
}

// counter accumulates the histogram: x[idx] for the cell
// idx = Σ_i v_i·stride_i of the values v_i; or, when cols is not nil (x is
// then nil), the rows themselves as columns (margcols.go).
type counter struct {
	attrs  []linear.Attribute
	stride []int
	x      []float64
	rows   int64
	base   int64 // rows counted before the current file
	report func(run.Progress)
	frac   func() float64 // the fraction of the input read, or nil
	vals   []int          // the current row's values (scratch)
	columns
}

// progressEvery is the number of rows between progress reports; checkEvery
// between checks of the context.
const (
	progressEvery = 1 << 22
	checkEvery    = 1 << 14
)

// newCounter checks attrs (names distinct and not empty, sizes >= 1) and
// the n-cell vector against the budget, and allocates it.
func newCounter(attrs []linear.Attribute, kind Kind, o *Options) (*counter, error) {
	cells, err := checkAttrs(attrs, kind, o)
	if err != nil {
		return nil, err
	}
	if cells > 1<<40 || cells > math.MaxInt {
		return nil, fmt.Errorf("tables: a domain of %g cells: %w", cells, run.ErrTooLarge)
	}
	if err := o.Budget.Check(fmt.Sprintf("tables: the data vector over %g cells", cells), 8*cells, ""); err != nil {
		return nil, err
	}
	c := &counter{attrs: attrs, stride: make([]int, len(attrs)), x: make([]float64, int(cells)), report: o.Progress, vals: make([]int, len(attrs))}
	s := 1
	for i := len(attrs) - 1; i >= 0; i-- {
		c.stride[i] = s
		s *= attrs[i].Size
	}
	return c, nil
}

// checkAttrs checks attrs (names distinct, not empty and not the count
// column's, sizes >= 1) and returns the number of cells of their domain.
func checkAttrs(attrs []linear.Attribute, kind Kind, o *Options) (float64, error) {
	if len(attrs) == 0 {
		return 0, fmt.Errorf("tables: %w: no attributes", run.ErrBadInput)
	}
	seen := map[string]bool{}
	cells := 1.0
	for i, a := range attrs {
		if a.Size < 1 {
			return 0, fmt.Errorf("tables: %w: attribute %d (%q) has size %d", run.ErrBadInput, i, a.Name, a.Size)
		}
		if a.Name == "" || seen[a.Name] {
			return 0, fmt.Errorf("tables: %w: attribute %d has an empty or repeated name %q", run.ErrBadInput, i, a.Name)
		}
		if kind == Histogram && a.Name == o.CountColumn {
			return 0, fmt.Errorf("tables: %w: attribute %q has the count column's name (choose another count column)", run.ErrBadInput, a.Name)
		}
		seen[a.Name] = true
		cells *= float64(a.Size)
	}
	return cells, nil
}

// addCount adds count (an integer in [0, 2^53]) to cell idx, refusing a
// sum above 2^53, which a float64 would round. Both operands are exact
// integers, so maxCount - x is exact and the test is too.
func (c *counter) addCount(idx int, count float64) error {
	if count > maxCount-c.x[idx] {
		return fmt.Errorf("the cell's summed count %.17g + %.17g is above 2^53 = %d, the largest count carried exactly", c.x[idx], count, int64(maxCount))
	}
	c.x[idx] += count
	return nil
}

// tick is called every checkEvery rows: it checks ctx and reports progress
// every progressEvery rows.
func (c *counter) tick(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tables: counting stopped after %d rows: %w", c.rows, err)
	}
	if c.report != nil && c.rows%progressEvery == 0 {
		p := run.NewProgress(run.StageCount)
		if c.frac != nil {
			p.Frac = c.frac()
		}
		p.Message = fmt.Sprintf("%d rows", c.rows)
		c.report(p)
	}
	return nil
}

// result closes the count: a table without data rows is refused (a
// release on nothing is certainly a mistake).
func (c *counter) result() (*Result, error) {
	if c.rows == 0 {
		return nil, fmt.Errorf("tables: %w: no data rows", run.ErrBadInput)
	}
	total := 0.0
	for _, v := range c.x {
		total += v // exact while the total is below 2^53
	}
	return &Result{X: c.x, Rows: c.rows, Total: total}, nil
}

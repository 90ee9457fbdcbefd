package tables

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/run"
)

// MaxCSVLine is the longest CSV line read (bytes, with its newline): the
// reader's buffer, so that a file without newlines (or /dev/zero) is
// refused after it instead of growing memory.
const MaxCSVLine = 1 << 20

// CountCSV reads a CSV table from r in one pass and returns its histogram
// over attrs (Count, for a file).
//
// The format: lines end in \n or \r\n; blank lines and lines starting with
// '#' are skipped. The field delimiter is the first of ',', ';' and tab
// found on the first line, or else runs of blanks; with a delimiter, two in
// a row enclose an empty field, which is refused as a missing value (never
// skipped, which would shift the columns). Fields may be enclosed in double
// quotes and padded with blanks. The first line is a header if its first
// field is not an integer: columns are then matched to the attributes (and
// to the count column of a histogram) by name, other columns are ignored,
// a name given twice is refused, and so is a value beyond the header's last
// column (empty trailing fields are tolerated). Without a header the columns are the
// attributes in order, followed, for a histogram, by the count and nothing
// else. An attribute's value is an integer in [0, Size) ("3.0" is read as 3);
// a count is an integer in [0, 2^53], written as an integer (parsed
// exactly) or as a number with an integral value below 2^53 ("1e3").
func CountCSV(ctx context.Context, attrs []linear.Attribute, r io.Reader, opts *Options) (*Result, error) {
	return countCSV(ctx, attrs, r, 0, options(opts))
}

// countCSV is CountCSV with the input's size in bytes (0 if unknown) for the
// progress reports' fraction.
func countCSV(ctx context.Context, attrs []linear.Attribute, r io.Reader, size int64, o Options) (*Result, error) {
	c, err := newCounter(attrs, o.Kind, &o)
	if err != nil {
		return nil, err
	}
	if err := readCSV(ctx, c, r, size, o); err != nil {
		return nil, err
	}
	return c.result()
}

// readCSV counts the CSV table in r (size bytes, 0 if unknown) into c.
func readCSV(ctx context.Context, c *counter, r io.Reader, size int64, o Options) error {
	attrs := c.attrs
	var read int64
	if size > 0 {
		c.frac = func() float64 { return min(1, float64(read)/float64(size)) }
	}
	p := &csvParser{attrs: attrs, kind: o.Kind, countName: o.CountColumn, vals: make([]int, len(attrs))}
	br := bufio.NewReaderSize(r, MaxCSVLine)
	var line int64
	for {
		raw, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return fmt.Errorf("tables: %w: line %d is longer than %d bytes", run.ErrBadInput, line+1, MaxCSVLine)
		}
		if len(raw) > 0 {
			line++
			read += int64(len(raw))
			if err := p.line(c, raw, line); err != nil {
				return err
			}
			if c.rows%checkEvery == 0 && c.rows > 0 {
				if err := c.tick(ctx); err != nil {
					return err
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("tables: reading line %d: %w", line+1, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tables: %w", err)
	}
	return nil
}

// Column roles in csvParser.slot.
const (
	slotIgnored = -1
	slotCount   = -2
)

// csvParser holds the layout learnt from the first line: the delimiter
// (0 = runs of blanks) and the role of each of the first need columns.
type csvParser struct {
	attrs     []linear.Attribute
	kind      Kind
	countName string
	started   bool
	delim     byte
	slot      []int
	names     []string // the header's names (nil without a header)
	need      int
	exact     bool // no field may follow the need-th
	vals      []int
}

// line parses one line (with its newline).
func (p *csvParser) line(c *counter, b []byte, line int64) error {
	if line == 1 {
		b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
	}
	b = trimBlanks(b)
	if len(b) == 0 || b[0] == '#' {
		return nil
	}
	if !p.started {
		header, err := p.layout(b, line)
		if err != nil || header {
			return err
		}
	}
	count := 1.0
	pos := 0
	for col := 0; col < p.need; col++ {
		if pos > len(b) {
			return p.fieldsError(b, line, col)
		}
		var f []byte
		f, pos = p.field(b, pos)
		switch s := p.slot[col]; {
		case s >= 0:
			v, ok := parseValue(f, p.attrs[s].Size)
			if !ok {
				return p.valueError(line, col, s, f)
			}
			p.vals[s] = v
		case s == slotCount:
			var err error
			if count, err = parseCountBytes(f); err != nil {
				return fmt.Errorf("tables: %w: line %d: %s: %v", run.ErrBadInput, line, p.colName(col), err)
			}
		}
	}
	if p.names != nil {
		// Under a header, a value beyond the header's last column (an
		// unquoted delimiter inside a value shifts the columns) is refused;
		// empty trailing fields ("1,2,") are tolerated.
		for col := p.need; pos <= len(b); col++ {
			var f []byte
			f, pos = p.field(b, pos)
			if col >= len(p.names) && len(unquote(f)) > 0 {
				return fmt.Errorf("tables: %w: line %d has a value %q in field %d, beyond the header's %d columns", run.ErrBadInput, line, f, col+1, len(p.names))
			}
		}
	}
	if p.exact && pos <= len(b) {
		return fmt.Errorf("tables: %w: line %d has more than the %d fields of a histogram without a header (the attributes, then the count)", run.ErrBadInput, line, p.need)
	}
	c.rows++
	if c.cols != nil {
		return c.appendRow(p.vals, count, "line", line)
	}
	idx := 0
	for i, v := range p.vals {
		idx += v * c.stride[i]
	}
	if p.kind == Records {
		if c.x[idx] >= maxCount {
			return fmt.Errorf("tables: %w: line %d: a cell with more than 2^53 records", run.ErrBadInput, line)
		}
		c.x[idx]++
		return nil
	}
	if err := c.addCount(idx, count); err != nil {
		return fmt.Errorf("tables: %w: line %d: %v", run.ErrBadInput, line, err)
	}
	return nil
}

// field returns the field of b starting at pos, blanks trimmed, and the
// position after its delimiter (len(b)+1 at the end of the line).
func (p *csvParser) field(b []byte, pos int) ([]byte, int) {
	if p.delim == 0 {
		for pos < len(b) && (b[pos] == ' ' || b[pos] == '\t') {
			pos++
		}
		end := pos
		for end < len(b) && b[end] != ' ' && b[end] != '\t' {
			end++
		}
		if end == len(b) {
			return b[pos:end], end + 1
		}
		return b[pos:end], end
	}
	end := pos
	for end < len(b) && b[end] != p.delim {
		end++
	}
	return trimBlanks(b[pos:end]), end + 1
}

// layout reads the first line: the delimiter, and the columns' roles from
// the header (it returns true) or in order (false: the line is data).
func (p *csvParser) layout(b []byte, line int64) (bool, error) {
	p.started = true
	for _, d := range b {
		if d == ',' || d == ';' || d == '\t' {
			p.delim = d
			break
		}
	}
	var fields [][]byte
	for pos := 0; pos <= len(b); {
		var f []byte
		f, pos = p.field(b, pos)
		if p.delim == 0 && len(f) == 0 {
			break
		}
		fields = append(fields, f)
	}
	d := len(p.attrs)
	if v, err := strconv.ParseFloat(string(unquote(fields[0])), 64); err == nil && v == math.Trunc(v) {
		p.need = d
		if p.kind == Histogram {
			p.need, p.exact = d+1, true
		}
		p.slot = make([]int, p.need)
		for i := range p.slot {
			p.slot[i] = i
		}
		if p.kind == Histogram {
			p.slot[d] = slotCount
		}
		return false, nil
	}
	pos := map[string]int{}
	for k, f := range fields {
		name := string(unquote(f))
		if j, dup := pos[name]; dup {
			return false, fmt.Errorf("tables: %w: the header (line %d) names column %q twice (columns %d and %d)", run.ErrBadInput, line, name, j+1, k+1)
		}
		pos[name] = k
		p.names = append(p.names, name)
	}
	p.slot = make([]int, len(fields))
	for k := range p.slot {
		p.slot[k] = slotIgnored
	}
	use := func(name string, role int) error {
		k, ok := pos[name]
		if !ok {
			return fmt.Errorf("tables: %w: the header (line %d) has no column %q (its columns: %s)", run.ErrBadInput, line, name, strings.Join(p.names, ", "))
		}
		p.slot[k] = role
		p.need = max(p.need, k+1)
		return nil
	}
	for i, a := range p.attrs {
		if err := use(a.Name, i); err != nil {
			return false, err
		}
	}
	if p.kind == Histogram {
		if err := use(p.countName, slotCount); err != nil {
			return false, err
		}
	}
	p.slot = p.slot[:p.need]
	return true, nil
}

// colName names column col (0-based) in messages.
func (p *csvParser) colName(col int) string {
	switch s := p.slot[col]; {
	case s >= 0:
		return p.attrs[s].Name
	case s == slotCount && p.names == nil:
		return "the count"
	case p.names != nil:
		return p.names[col]
	}
	return fmt.Sprintf("column %d", col+1)
}

// fieldsError says that line has too few fields for column col.
func (p *csvParser) fieldsError(b []byte, line int64, col int) error {
	return fmt.Errorf("tables: %w: line %d has %d fields, %s is column %d", run.ErrBadInput, line, col, p.colName(col), col+1)
}

// valueError says why field f of attribute s is not a value in its domain.
func (p *csvParser) valueError(line int64, col, s int, f []byte) error {
	a := p.attrs[s]
	t := string(unquote(f))
	why := fmt.Sprintf("is not an integer in [0, %d)", a.Size)
	switch strings.ToLower(t) {
	case "":
		why = "is empty (a missing value)"
	case "na", "nan", "null", "none", "nil", "\\n":
		why = "is a missing value"
	default:
		if v, err := strconv.ParseFloat(t, 64); err == nil && v == math.Trunc(v) {
			why = fmt.Sprintf("is outside the attribute's domain [0, %d)", a.Size)
		}
	}
	return fmt.Errorf("tables: %w: line %d: %s = %q %s", run.ErrBadInput, line, a.Name, t, why)
}

// trimBlanks trims blanks, tabs, \r and \n at both ends.
func trimBlanks(b []byte) []byte {
	for len(b) > 0 && isBlank(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	for len(b) > 0 && isBlank(b[0]) {
		b = b[1:]
	}
	return b
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// unquote strips one pair of enclosing double quotes.
func unquote(f []byte) []byte {
	if len(f) >= 2 && f[0] == '"' && f[len(f)-1] == '"' {
		return f[1 : len(f)-1]
	}
	return f
}

// parseValue parses an attribute's value: decimal digits (optionally
// quoted, optionally followed by a point and zeros) making an integer in
// [0, size).
func parseValue(f []byte, size int) (int, bool) {
	f = unquote(f)
	if len(f) == 0 {
		return 0, false
	}
	v, i := int64(0), 0
	for ; i < len(f); i++ {
		d := f[i] - '0'
		if d > 9 {
			break
		}
		v = v*10 + int64(d) // v < size <= 2^40 before: no overflow
		if v >= int64(size) {
			return 0, false
		}
	}
	if i == 0 {
		return 0, false
	}
	if i < len(f) {
		if f[i] != '.' {
			return 0, false
		}
		for i++; i < len(f); i++ {
			if f[i] != '0' {
				return 0, false
			}
		}
	}
	return int(v), true
}

// parseCountBytes parses a count: up to 16 decimal digits directly, else
// as ParseCount does.
func parseCountBytes(f []byte) (float64, error) {
	f = unquote(f)
	if n := len(f); n > 0 && n <= 16 {
		v := int64(0)
		i := 0
		for ; i < n; i++ {
			d := f[i] - '0'
			if d > 9 {
				break
			}
			v = v*10 + int64(d)
		}
		if i == n && v <= maxCount {
			return float64(v), nil
		}
	}
	return ParseCount(string(f))
}

// ParseCount parses one count exactly: an integer in [0, 2^53] written as
// an integer, or a number with an integral value below 2^53 ("3.0",
// "1e3"); 9007199254740993 is refused, not rounded to 2^53.
func ParseCount(t string) (float64, error) {
	if i, err := strconv.ParseInt(t, 10, 64); err == nil {
		if i < 0 {
			return 0, fmt.Errorf("count %s is negative (counts are >= 0)", t)
		}
		if i > maxCount {
			return 0, fmt.Errorf("count %s is above 2^53 = %d, the largest count carried exactly", t, int64(maxCount))
		}
		return float64(i), nil
	} else if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("count %s is out of range (counts are integers in [0, 2^53])", t)
	}
	switch strings.ToLower(t) {
	case "":
		return 0, errors.New("the count is empty (a missing value)")
	case "na", "nan", "null", "none", "nil", "\\n":
		return 0, fmt.Errorf("the count %q is a missing value", t)
	}
	v, err := strconv.ParseFloat(t, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("count %q is not a number", t)
	case math.IsNaN(v) || math.IsInf(v, 0) || v != math.Trunc(v):
		return 0, fmt.Errorf("count %s is not an integer", t)
	case v < 0:
		return 0, fmt.Errorf("count %s is negative (counts are >= 0)", t)
	case v >= maxCount:
		return 0, fmt.Errorf("count %s is not below 2^53 = %d: write it as an integer (counts up to 2^53 are carried exactly)", t, int64(maxCount))
	}
	return v, nil
}

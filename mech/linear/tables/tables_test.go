package tables

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/run"
	"github.com/parquet-go/parquet-go"
)

// refCount is the reference histogram: rows of values (one per attribute)
// with their counts, each cell's index computed by nested loops over the
// domain in row-major order (the first attribute slowest) and compared
// value by value: no strides, no parsing.
func refCount(sizes []int, rows [][]int, counts []float64) []float64 {
	var cells [][]int
	var rec func(prefix []int)
	rec = func(prefix []int) {
		if len(prefix) == len(sizes) {
			cells = append(cells, append([]int(nil), prefix...))
			return
		}
		for v := 0; v < sizes[len(prefix)]; v++ {
			rec(append(prefix, v))
		}
	}
	rec(nil)
	x := make([]float64, len(cells))
	for k, cell := range cells {
		for r, row := range rows {
			same := true
			for i := range cell {
				same = same && cell[i] == row[i]
			}
			if same {
				x[k] += counts[r]
			}
		}
	}
	return x
}

// table is a random test table over attributes a, b, c of sizes irregular
// in each run (2..7, 1..5, 3..11 values), with an ignored extra column.
type table struct {
	attrs  []linear.Attribute
	rows   [][]int
	counts []float64
}

func randomTable(rng *rand.Rand, nrows int, hist bool) table {
	sizes := []int{2 + rng.IntN(6), 1 + rng.IntN(5), 3 + rng.IntN(9)}
	t := table{attrs: []linear.Attribute{{Name: "a", Size: sizes[0]}, {Name: "b", Size: sizes[1]}, {Name: "c", Size: sizes[2]}}}
	for range nrows {
		t.rows = append(t.rows, []int{rng.IntN(sizes[0]), rng.IntN(sizes[1]), rng.IntN(sizes[2])})
		c := 1.0
		if hist {
			c = float64(rng.IntN(1000))
			if rng.IntN(50) == 0 {
				c = float64(1<<53) / 64 // large counts, still summed exactly
			}
		}
		t.counts = append(t.counts, c)
	}
	return t
}

func (t table) sizes() []int {
	s := make([]int, len(t.attrs))
	for i, a := range t.attrs {
		s[i] = a.Size
	}
	return s
}

// csv writes the table with the columns in the order c, extra, a, b (and
// the count), with comments, blank lines, quotes, padding and CRLF.
func (t table) csv(hist bool) string {
	var b strings.Builder
	b.WriteString("# written by the test\r\n")
	b.WriteString(`c, extra ,"a",b`)
	if hist {
		b.WriteString(",count")
	}
	b.WriteString("\r\n")
	for r, row := range t.rows {
		if r%97 == 5 {
			b.WriteString("\n   \n# a comment\n")
		}
		fmt.Fprintf(&b, "%d,x%d, \"%d\" ,%d", row[2], r, row[0], row[1])
		if hist {
			fmt.Fprintf(&b, ",%d", int64(t.counts[r]))
		}
		if r%3 == 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
	}
	return b.String()
}

type pqRecord struct {
	C     int64  `parquet:"c"`
	Extra string `parquet:"extra"`
	A     int32  `parquet:"a"`
	B     uint32 `parquet:"b"`
}

type pqDictRecord struct {
	A int64 `parquet:"a,dict"`
	B int32 `parquet:"b,dict"`
	C int64 `parquet:"c,dict"`
}

type pqHist struct {
	A     int64   `parquet:"a"`
	B     int64   `parquet:"b"`
	C     int32   `parquet:"c"`
	Count float64 `parquet:"count"`
}

// writeParquet writes rows with the library's writer, in row groups of
// rowGroup rows, with more options (compression, page version) if given.
func writeParquet[T any](t testing.TB, rows []T, rowGroup int64, opts ...parquet.WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	opts = append([]parquet.WriterOption{parquet.MaxRowsPerRowGroup(rowGroup), parquet.PageBufferSize(4096)}, opts...)
	w := parquet.NewGenericWriter[T](&buf, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func (t table) parquetRecords(tb testing.TB) []byte {
	var rs []pqRecord
	for r, row := range t.rows {
		rs = append(rs, pqRecord{C: int64(row[2]), Extra: fmt.Sprint("x", r), A: int32(row[0]), B: uint32(row[1])})
	}
	return writeParquet(tb, rs, 777)
}

func (t table) parquetHist(tb testing.TB) []byte {
	var rs []pqHist
	for r, row := range t.rows {
		rs = append(rs, pqHist{A: int64(row[0]), B: int64(row[1]), C: int32(row[2]), Count: t.counts[r]})
	}
	return writeParquet(tb, rs, 333)
}

func same(t *testing.T, what string, got *Result, want []float64, rows int) {
	t.Helper()
	if got.Rows != int64(rows) {
		t.Errorf("%s: %d rows, want %d", what, got.Rows, rows)
	}
	if len(got.X) != len(want) {
		t.Fatalf("%s: %d cells, want %d", what, len(got.X), len(want))
	}
	total := 0.0
	for k := range want {
		total += want[k]
		if got.X[k] != want[k] {
			t.Fatalf("%s: cell %d = %v, want %v", what, k, got.X[k], want[k])
		}
	}
	if got.Total != total {
		t.Errorf("%s: total %v, want %v", what, got.Total, total)
	}
}

// TestRecordsAndHistograms: random tables over irregular domains, as
// records and as histograms (repeated cells, zero counts, counts of 2^47),
// in CSV and in Parquet (written by the Parquet library in several row
// groups), all equal to the reference count.
func TestRecordsAndHistograms(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 36))
		for _, hist := range []bool{false, true} {
			tab := randomTable(rng, 1500+rng.IntN(1000), hist)
			want := refCount(tab.sizes(), tab.rows, tab.counts)
			kind := Records
			pq := tab.parquetRecords(t)
			if hist {
				kind, pq = Histogram, tab.parquetHist(t)
			}
			opts := &Options{Kind: kind}
			got, err := CountCSV(ctx, tab.attrs, strings.NewReader(tab.csv(hist)), opts)
			if err != nil {
				t.Fatalf("seed %d %v csv: %v", seed, kind, err)
			}
			same(t, fmt.Sprintf("seed %d %v csv", seed, kind), got, want, len(tab.rows))
			got, err = CountParquet(ctx, tab.attrs, bytes.NewReader(pq), int64(len(pq)), opts)
			if err != nil {
				t.Fatalf("seed %d %v parquet: %v", seed, kind, err)
			}
			same(t, fmt.Sprintf("seed %d %v parquet", seed, kind), got, want, len(tab.rows))
			if hist {
				continue
			}
			// As engines write them: dictionary-encoded, compressed, data
			// pages of version 1 and 2.
			var rs []pqDictRecord
			for _, row := range tab.rows {
				rs = append(rs, pqDictRecord{A: int64(row[0]), B: int32(row[1]), C: int64(row[2])})
			}
			for _, o := range []struct {
				name string
				opts []parquet.WriterOption
			}{
				{"snappy v1", []parquet.WriterOption{parquet.Compression(&parquet.Snappy), parquet.DataPageVersion(1)}},
				{"zstd v2", []parquet.WriterOption{parquet.Compression(&parquet.Zstd), parquet.DataPageVersion(2)}},
				{"gzip v2", []parquet.WriterOption{parquet.Compression(&parquet.Gzip), parquet.DataPageVersion(2)}},
			} {
				pq := writeParquet(t, rs, 500, o.opts...)
				if f, err := parquet.OpenFile(bytes.NewReader(pq), int64(len(pq))); err != nil || f.Metadata().RowGroups[0].Columns[0].MetaData.DictionaryPageOffset <= 0 {
					t.Fatalf("%s: the file has no dictionary page (%v)", o.name, err)
				}
				got, err = CountParquet(ctx, tab.attrs, bytes.NewReader(pq), int64(len(pq)), opts)
				if err != nil {
					t.Fatalf("seed %d %s: %v", seed, o.name, err)
				}
				same(t, fmt.Sprintf("seed %d %s", seed, o.name), got, want, len(tab.rows))
			}
		}
	}
}

// TestCSVLayouts: without a header (the attributes in order, then the
// count), blank-separated, semicolons, tabs, "3.0" values and "1e3"
// counts, against hand-counted cells of a 2×3 domain.
func TestCSVLayouts(t *testing.T) {
	attrs := []linear.Attribute{{Name: "a", Size: 2}, {Name: "b", Size: 3}}
	for _, c := range []struct {
		kind Kind
		in   string
		want []float64
	}{
		{Records, "0,2\n1,0\n# comment\n1,0\n\n0,0\n", []float64{1, 0, 1, 2, 0, 0}},
		{Records, "0 2 9\n  1   0\n1\t0\n", []float64{0, 0, 1, 2, 0, 0}},
		{Records, "b;a\n2;0\n0.0;1.00\n", []float64{0, 0, 1, 1, 0, 0}},
		{Records, "b\ta\n2\t0\n", []float64{0, 0, 1, 0, 0, 0}},
		{Records, "\xef\xbb\xbfb,a\r\n2,0\r\n", []float64{0, 0, 1, 0, 0, 0}}, // Excel's byte order mark
		{Records, "a,b\n1,2,\n1,2,,\n", []float64{0, 0, 0, 0, 0, 2}},         // empty fields after the columns read
		{Histogram, "0,2,5\n1,0,7\n1,0,1e3\n0,2,0\n", []float64{0, 0, 5, 1007, 0, 0}},
		{Histogram, "a,b,count\n1,2,9007199254740992\n", []float64{0, 0, 0, 0, 0, 1 << 53}},
		{Histogram, "n,b,a\n4,1,1\n3.0,1,1\n", []float64{0, 0, 0, 0, 7, 0}},
	} {
		opts := &Options{Kind: c.kind}
		if strings.HasPrefix(c.in, "n,") {
			opts.CountColumn = "n"
		}
		got, err := CountCSV(context.Background(), attrs, strings.NewReader(c.in), opts)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		for k := range c.want {
			if got.X[k] != c.want[k] {
				t.Errorf("%q: x = %v, want %v", c.in, got.X, c.want)
				break
			}
		}
	}
}

// TestCSVBadInput: every kind of bad cell, column and count is refused with
// ErrBadInput and a message naming it.
func TestCSVBadInput(t *testing.T) {
	attrs := []linear.Attribute{{Name: "a", Size: 2}, {Name: "b", Size: 3}}
	for _, c := range csvBadCases {
		_, err := CountCSV(context.Background(), attrs, strings.NewReader(c.in), &Options{Kind: c.kind})
		if !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %q: %v, want ErrBadInput with %q", c.kind, c.in, err, c.want)
		}
	}
	// A line without a newline for over MaxCSVLine bytes (a device such as
	// /dev/zero) stops at the buffer.
	_, err := CountCSV(context.Background(), attrs, bytes.NewReader(make([]byte, 3*MaxCSVLine)), nil)
	if !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("a 3 MiB line: %v", err)
	}
}

// csvBadCases are CSV tables over a (2 values) and b (3 values) that are
// refused, with a part of the message.
var csvBadCases = []struct {
	kind     Kind
	in, want string
}{
	{Records, "a,b\n0,3\n", `line 2: b = "3" is outside the attribute's domain [0, 3)`},
	{Records, "a,b\n-1,0\n", `a = "-1" is outside`},
	{Records, "a,b\n0,1.5\n", `b = "1.5" is not an integer in [0, 3)`},
	{Records, "a,b\n0,x\n", `b = "x" is not an integer`},
	{Records, "a,b\n,1\n", `a = "" is empty (a missing value)`},
	{Records, "a,b\n0,NA\n", `b = "NA" is a missing value`},
	{Records, "a,b\n0,NaN\n", `b = "NaN" is a missing value`},
	{Records, "0,1\n0\n", "line 2 has 1 fields, b is column 2"},
	{Records, "a,c\n0,1\n", `the header (line 1) has no column "b"`},
	{Records, "a,b,a\n0,1,1\n", `names column "a" twice`},
	{Records, "a,b\n99999999999999999999999,0\n", "outside the attribute's domain"},
	{Records, "# only a comment\n\n", "no data rows"},
	{Records, "a,b\n", "no data rows"},
	{Histogram, "a,b\n0,1\n", `no column "count"`},
	{Histogram, "a,b,count\n0,1,-3\n", "count -3 is negative"},
	{Histogram, "a,b,count\n0,1,2.5\n", "count 2.5 is not an integer"},
	{Histogram, "a,b,count\n0,1,NaN\n", "a missing value"},
	{Histogram, "a,b,count\n0,1,inf\n", "not an integer"},
	{Histogram, "a,b,count\n0,1,\n", "the count is empty"},
	{Histogram, "a,b,count\n0,1,9007199254740993\n", "above 2^53"},
	{Histogram, "a,b,count\n0,1,1e16\n", "not below 2^53"},
	{Histogram, "a,b,count\n0,1,9007199254740992\n0,1,1\n", "line 3: the cell's summed count"},
	{Histogram, "0,1,3,4\n", "more than the 3 fields"},
	{Histogram, "0,1\n", "line 1 has 2 fields, the count is column 3"},
}

type pqOptional struct {
	A *int64 `parquet:"a,optional"`
	B int64  `parquet:"b"`
}

type pqString struct {
	A string `parquet:"a"`
	B int64  `parquet:"b"`
}

type pqList struct {
	A []int64 `parquet:"a,list"`
	B int64   `parquet:"b"`
}

type pqDecimal struct {
	A int64 `parquet:"a,decimal(1:10)"`
	B int64 `parquet:"b"`
}

type pqFloatAttr struct {
	A float64 `parquet:"a"`
	B int64   `parquet:"b"`
}

type pqCount struct {
	A     int64  `parquet:"a"`
	B     int64  `parquet:"b"`
	Count uint64 `parquet:"count"`
}

type pqFloatCount struct {
	A     int64   `parquet:"a"`
	B     int64   `parquet:"b"`
	Count float32 `parquet:"count"`
}

type pqBytesCount struct {
	A     int64  `parquet:"a"`
	B     int64  `parquet:"b"`
	Count []byte `parquet:"count"`
}

type pqStringCount struct {
	A     int64  `parquet:"a"`
	B     int64  `parquet:"b"`
	Count string `parquet:"count"`
}

// TestParquetBadInput: nulls, wrong column types, lists, decimals, missing
// columns, bad counts and corrupt files are refused with ErrBadInput.
func TestParquetBadInput(t *testing.T) {
	attrs := []linear.Attribute{{Name: "a", Size: 2}, {Name: "b", Size: 3}}
	for _, c := range parquetBadCases(t) {
		_, err := CountParquet(context.Background(), attrs, bytes.NewReader(c.data), int64(len(c.data)), &Options{Kind: c.kind})
		if !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrBadInput with %q", c.name, err, c.want)
		}
	}
}

type parquetBadCase struct {
	name string
	kind Kind
	data []byte
	want string
}

// parquetBadCases are Parquet tables over a (2 values) and b (3 values)
// that are refused, with a part of the message.
func parquetBadCases(t *testing.T) []parquetBadCase {
	one := int64(1)
	return []parquetBadCase{
		{"null", Records, writeParquet(t, []pqOptional{{&one, 0}, {nil, 1}}, 10), "row 2: a is null"},
		{"string", Records, writeParquet(t, []pqString{{"0", 0}}, 10), `column "a" is a STRING, not an integer`},
		{"list", Records, writeParquet(t, []pqList{{[]int64{0}, 0}}, 10), "group"},
		{"decimal", Records, writeParquet(t, []pqDecimal{{1, 0}}, 10), "DECIMAL"},
		{"float attribute", Records, writeParquet(t, []pqFloatAttr{{1, 0}}, 10), "an attribute's values are integers"},
		{"domain", Records, writeParquet(t, []pqDecimal{}, 10), "DECIMAL"},
		{"outside", Records, writeParquet(t, []pqCount{{0, 1, 0}, {0, 3, 0}}, 10), "row 2: b = 3 is outside the attribute's domain [0, 3)"},
		{"no count", Histogram, writeParquet(t, []pqOptional{{&one, 0}}, 10), `no column "count"`},
		{"count above 2^53", Histogram, writeParquet(t, []pqCount{{0, 1, 1<<53 + 1}}, 10), "above 2^53"},
		{"count 2^64-1", Histogram, writeParquet(t, []pqCount{{0, 1, 1<<64 - 1}}, 10), "18446744073709551615 is above 2^53"},
		{"fractional count", Histogram, writeParquet(t, []pqFloatCount{{0, 1, 2.5}}, 10), "count 2.5 is not an integer"},
		{"negative count", Histogram, writeParquet(t, []pqFloatCount{{0, 1, -1}}, 10), "negative"},
		{"string count", Histogram, writeParquet(t, []pqStringCount{{0, 1, "3"}}, 10), `column "count" is a STRING`},
		{"bytes count", Histogram, writeParquet(t, []pqBytesCount{{0, 1, []byte{3}}}, 10), "a count is an integer (INT32 or INT64) or an integral FLOAT or DOUBLE"},
		{"no rows", Records, writeParquet(t, []pqCount{}, 10), "no data rows"},
		{"not parquet", Records, []byte("a,b\n0,1\n"), "not a readable Parquet file"},
	}
}

// TestParquetTruncatedAndCorrupt: every prefix of a valid file and the file
// with bytes flipped in its pages is either refused with ErrBadInput or, if
// the damage missed the columns read, counted to the right histogram;
// never a panic or a wrong count.
func TestParquetTruncatedAndCorrupt(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 36))
	tab := randomTable(rng, 400, false)
	data := tab.parquetRecords(t)
	want := refCount(tab.sizes(), tab.rows, tab.counts)
	check := func(what string, b []byte) {
		got, err := CountParquet(context.Background(), tab.attrs, bytes.NewReader(b), int64(len(b)), nil)
		if err != nil {
			if !errors.Is(err, run.ErrBadInput) {
				t.Fatalf("%s: %v, not ErrBadInput", what, err)
			}
			return
		}
		for k := range want {
			if got.X[k] != want[k] {
				t.Fatalf("%s: counted without error to a wrong histogram (cell %d = %v, want %v)", what, k, got.X[k], want[k])
			}
		}
	}
	for n := 0; n < len(data); n += 1 + n/20 {
		check(fmt.Sprintf("the first %d of %d bytes", n, len(data)), data[:n])
	}
	for i := range 300 {
		b := append([]byte(nil), data...)
		k := 4 + rng.IntN(len(b)-8)
		b[k] ^= byte(1 + rng.IntN(255))
		check(fmt.Sprintf("flip %d: byte %d", i, k), b)
	}
}

// TestCount: the format from the extension, from the magic bytes, or named;
// a directory and a missing file are errors; the budget and a cancelled
// context stop the count.
func TestCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 36))
	tab := randomTable(rng, 300, false)
	want := refCount(tab.sizes(), tab.rows, tab.counts)
	dir := t.TempDir()
	files := map[string][]byte{
		"r.csv": []byte(tab.csv(false)), "r.parquet": tab.parquetRecords(t),
		"r.data": tab.parquetRecords(t), "r": []byte(tab.csv(false)),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	for name := range files {
		got, err := Count(ctx, tab.attrs, filepath.Join(dir, name), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		same(t, name, got, want, len(tab.rows))
	}
	if _, err := Count(ctx, tab.attrs, filepath.Join(dir, "r.csv"), &Options{Format: FormatParquet}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("CSV read as Parquet: %v", err)
	}
	// A table in parts, as Spark writes it: the parts are summed, the
	// markers and checksums skipped.
	parts := filepath.Join(dir, "parts")
	half := table{attrs: tab.attrs, rows: tab.rows[:150], counts: tab.counts[:150]}
	rest := table{attrs: tab.attrs, rows: tab.rows[150:], counts: tab.counts[150:]}
	for name, b := range map[string][]byte{
		"part-00000.csv": []byte(half.csv(false)), "part-00001": rest.parquetRecords(t),
		"_SUCCESS": []byte("x"), ".part-00000.csv.crc": []byte("\x00\x01"), "sub/part-9.csv": []byte("junk"),
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(parts, name)), 0o755)
		if err := os.WriteFile(filepath.Join(parts, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Count(ctx, tab.attrs, parts, nil)
	if err != nil {
		t.Fatalf("parts: %v", err)
	}
	same(t, "parts", got, want, len(tab.rows))
	os.WriteFile(filepath.Join(parts, "part-00002.csv"), []byte("a,b,c\n0,0,99\n"), 0o644)
	if _, err := Count(ctx, tab.attrs, parts, nil); !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), "in part-00002.csv") {
		t.Errorf("a bad part: %v", err)
	}
	if _, err := Count(ctx, tab.attrs, filepath.Join(parts, "sub", ".."), &Options{Format: "xls"}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("format xls: %v", err)
	}
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	if _, err := Count(ctx, tab.attrs, empty, nil); !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), "no table files") {
		t.Errorf("an empty directory: %v", err)
	}
	if _, err := Count(ctx, tab.attrs, filepath.Join(dir, "none.csv"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	big := []linear.Attribute{{Name: "a", Size: 1 << 20}, {Name: "b", Size: 1 << 10}}
	if _, err := Count(ctx, big, filepath.Join(dir, "r.csv"), &Options{Settings: run.Settings{Budget: 1 << 20}}); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("8 GiB of cells in 1 MiB: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Count(cctx, tab.attrs, filepath.Join(dir, "r.parquet"), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := ParseFormat("xlsx"); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("format xlsx: %v", err)
	}
}

// TestProgress: a count of 2^23 + 5 records reports its progress with the
// rows counted so far, stage "count", the fraction in (0, 1].
func TestProgress(t *testing.T) {
	n := progressEvery*2 + 5
	var b bytes.Buffer
	for i := range n {
		b.WriteString([]string{"0\n", "1\n"}[i%2])
	}
	var reports []run.Progress
	data := b.Bytes()
	f := filepath.Join(t.TempDir(), "r.csv")
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Count(context.Background(), []linear.Attribute{{Name: "a", Size: 2}}, f,
		&Options{Settings: run.Settings{Progress: func(p run.Progress) { reports = append(reports, p) }}})
	if err != nil {
		t.Fatal(err)
	}
	if got.X[0] != float64((n+1)/2) || got.X[1] != float64(n/2) {
		t.Errorf("x = %v, want [%d %d]", got.X, (n+1)/2, n/2)
	}
	if len(reports) != 2 || reports[0].Stage != run.StageCount || reports[1].Message != fmt.Sprintf("%d rows", 2*progressEvery) ||
		!(reports[0].Frac > 0.49 && reports[0].Frac < 0.51) {
		t.Errorf("reports %+v", reports)
	}
}

// TestCSVAllocations: the CSV reader allocates nothing per row: counting
// 20,000 records allocates as often as counting 2,000.
func TestCSVAllocations(t *testing.T) {
	attrs := []linear.Attribute{{Name: "a", Size: 7}, {Name: "b", Size: 5}}
	allocs := func(rows int) float64 {
		var b strings.Builder
		b.WriteString("b,a\n")
		for i := range rows {
			fmt.Fprintf(&b, "%d,%d\n", i%5, i%7)
		}
		in := b.String()
		return testing.AllocsPerRun(5, func() {
			if _, err := CountCSV(context.Background(), attrs, strings.NewReader(in), nil); err != nil {
				t.Fatal(err)
			}
		})
	}
	if small, large := allocs(2000), allocs(20000); large != small {
		t.Errorf("%v allocations for 2,000 rows, %v for 20,000", small, large)
	}
}

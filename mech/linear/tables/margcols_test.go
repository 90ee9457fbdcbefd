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
)

// sameRows checks that res holds the table's rows in the file's order,
// value by value, with their counts (nil for records).
func sameRows(t *testing.T, what string, res *MarginalResult, tab table, hist bool) {
	t.Helper()
	d := res.Data
	if len(d.Columns) != len(tab.attrs) || res.Rows != int64(len(tab.rows)) {
		t.Fatalf("%s: %d columns, %d rows; want %d, %d", what, len(d.Columns), res.Rows, len(tab.attrs), len(tab.rows))
	}
	if hist != (d.Counts != nil) {
		t.Fatalf("%s: counts %v for a histogram %v", what, d.Counts != nil, hist)
	}
	total := 0.0
	for r, row := range tab.rows {
		for i, v := range row {
			if len(d.Columns[i]) != len(tab.rows) || d.Columns[i][r] != int32(v) {
				t.Fatalf("%s: row %d attribute %d: got %v, want %d", what, r, i, d.Columns[i][r], v)
			}
		}
		if hist && d.Counts[r] != int64(tab.counts[r]) {
			t.Fatalf("%s: row %d count %d, want %v", what, r, d.Counts[r], tab.counts[r])
		}
		total += tab.counts[r]
	}
	if res.Total != total {
		t.Errorf("%s: total %v, want %v", what, res.Total, total)
	}
}

// TestReadMarginal: random tables over irregular domains, as records and
// as histograms, in CSV and Parquet, read into columns that hold the
// tables' rows in order; as files, a directory of CSV and Parquet parts,
// and over a domain of 10^100 cells that Count refuses.
func TestReadMarginal(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 41))
		for _, hist := range []bool{false, true} {
			n := 3000 + rng.IntN(3000)
			if hist {
				n = 1000 + rng.IntN(500) // about 25 counts of 2^47: a total below 2^53
			}
			tab := randomTable(rng, n, hist)
			kind, pq := Records, tab.parquetRecords(t)
			if hist {
				kind, pq = Histogram, tab.parquetHist(t)
			}
			opts := &Options{Kind: kind}
			got, err := ReadMarginalCSV(ctx, tab.attrs, strings.NewReader(tab.csv(hist)), opts)
			if err != nil {
				t.Fatalf("seed %d %v csv: %v", seed, kind, err)
			}
			sameRows(t, fmt.Sprintf("seed %d %v csv", seed, kind), got, tab, hist)
			got, err = ReadMarginalParquet(ctx, tab.attrs, bytes.NewReader(pq), int64(len(pq)), opts)
			if err != nil {
				t.Fatalf("seed %d %v parquet: %v", seed, kind, err)
			}
			sameRows(t, fmt.Sprintf("seed %d %v parquet", seed, kind), got, tab, hist)
			// In parts: the first rows in CSV, the rest in Parquet.
			dir := t.TempDir()
			k := 1 + rng.IntN(len(tab.rows)-1)
			head := table{attrs: tab.attrs, rows: tab.rows[:k], counts: tab.counts[:k]}
			rest := table{attrs: tab.attrs, rows: tab.rows[k:], counts: tab.counts[k:]}
			restPQ := rest.parquetRecords(t)
			if hist {
				restPQ = rest.parquetHist(t)
			}
			os.WriteFile(filepath.Join(dir, "part-0.csv"), []byte(head.csv(hist)), 0o644)
			os.WriteFile(filepath.Join(dir, "part-1"), restPQ, 0o644)
			os.WriteFile(filepath.Join(dir, "_SUCCESS"), nil, 0o644)
			got, err = ReadMarginal(ctx, tab.attrs, dir, opts)
			if err != nil {
				t.Fatalf("seed %d %v parts: %v", seed, kind, err)
			}
			sameRows(t, fmt.Sprintf("seed %d %v parts", seed, kind), got, tab, hist)
		}
	}
	// 100 attributes of 10 values: rows kept, the domain never formed.
	var attrs []linear.Attribute
	var b strings.Builder
	for i := range 100 {
		attrs = append(attrs, linear.Attribute{Name: fmt.Sprint("x", i), Size: 10})
		fmt.Fprintf(&b, "x%d,", 99-i)
	}
	b.WriteString("extra\n")
	for r := range 7 {
		for i := range 100 {
			fmt.Fprintf(&b, "%d,", (r*(99-i)+i*i)%10)
		}
		b.WriteString("z\n")
	}
	path := filepath.Join(t.TempDir(), "wide.csv")
	os.WriteFile(path, []byte(b.String()), 0o644)
	got, err := ReadMarginal(ctx, attrs, path, nil)
	if err != nil || got.Rows != 7 {
		t.Fatalf("100 attributes: %v", err)
	}
	for r := range 7 {
		for i := range 100 {
			if want := int32((r*i + (99-i)*(99-i)) % 10); got.Data.Columns[i][r] != want {
				t.Fatalf("100 attributes: row %d x%d = %d, want %d", r, i, got.Data.Columns[i][r], want)
			}
		}
	}
	if _, err := Count(ctx, attrs, path, nil); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("Count over 10^100 cells: %v", err)
	}
}

// TestReadMarginalBadInput: every bad CSV and Parquet table of Count's
// tests is refused with Count's very error, and a histogram whose counts
// sum above 2^53 over different cells (which Count accepts) is refused.
func TestReadMarginalBadInput(t *testing.T) {
	ctx := context.Background()
	attrs := []linear.Attribute{{Name: "a", Size: 2}, {Name: "b", Size: 3}}
	for _, c := range csvBadCases {
		opts := &Options{Kind: c.kind}
		_, want := CountCSV(ctx, attrs, strings.NewReader(c.in), opts)
		_, err := ReadMarginalCSV(ctx, attrs, strings.NewReader(c.in), opts)
		if strings.Contains(c.want, "summed count") {
			// Two rows of one cell whose sum passes 2^53: the total
			// passes it too.
			if !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), "line 3: the total count") {
				t.Errorf("%q: %v", c.in, err)
			}
			continue
		}
		if err == nil || want == nil || err.Error() != want.Error() || !errors.Is(err, run.ErrBadInput) {
			t.Errorf("%v %q: %v, want Count's %v", c.kind, c.in, err, want)
		}
	}
	for _, c := range parquetBadCases(t) {
		opts := &Options{Kind: c.kind}
		_, want := CountParquet(ctx, attrs, bytes.NewReader(c.data), int64(len(c.data)), opts)
		_, err := ReadMarginalParquet(ctx, attrs, bytes.NewReader(c.data), int64(len(c.data)), opts)
		if err == nil || want == nil || err.Error() != want.Error() || !errors.Is(err, run.ErrBadInput) {
			t.Errorf("%s: %v, want Count's %v", c.name, err, want)
		}
	}
	in := "a,b,count\n0,1,9007199254740992\n1,2,0\n1,2,1\n"
	if _, err := CountCSV(ctx, attrs, strings.NewReader(in), &Options{Kind: Histogram}); err != nil {
		t.Fatalf("Count: %v", err)
	}
	if _, err := ReadMarginalCSV(ctx, attrs, strings.NewReader(in), &Options{Kind: Histogram}); !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), "line 4: the total count") {
		t.Errorf("a total of 2^53 + 1: %v", err)
	}
	pq := writeParquet(t, []pqCount{{0, 1, 1 << 52}, {1, 2, 1 << 52}, {1, 0, 1}}, 2)
	if _, err := ReadMarginalParquet(ctx, attrs, bytes.NewReader(pq), int64(len(pq)), &Options{Kind: Histogram}); !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), "row 3: the total count") {
		t.Errorf("Parquet, a total of 2^53 + 1: %v", err)
	}
	for _, a := range [][]linear.Attribute{nil, {{Name: "a", Size: 0}}, {{Name: "a", Size: 2}, {Name: "a", Size: 2}}, {{Name: "count", Size: 2}}} {
		if _, err := ReadMarginalCSV(ctx, a, strings.NewReader("0\n"), &Options{Kind: Histogram}); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("attributes %v: %v", a, err)
		}
	}
	if _, err := ReadMarginalCSV(ctx, attrs, strings.NewReader("0,1\n"), &Options{Settings: run.Settings{Budget: -1}}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("a negative budget: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ReadMarginalCSV(cctx, attrs, strings.NewReader("0,1\n"), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestReadMarginalBudget: n rows of 3 attributes take 12n bytes (20n with
// a histogram's counts): a budget of exactly that reads them, one byte
// less is refused with ErrTooLarge before the columns are allocated,
// whether the rows are reserved at once (Parquet) or by doubling (CSV,
// several reallocations under a large budget).
func TestReadMarginalBudget(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 41))
	for _, hist := range []bool{false, true} {
		tab := randomTable(rng, 1000, hist)
		kind, pq, bpr := Records, tab.parquetRecords(t), int64(12)
		if hist {
			kind, pq, bpr = Histogram, tab.parquetHist(t), 20
		}
		for _, budget := range []int64{1000 * bpr, 1000*bpr - 1} {
			opts := &Options{Kind: kind, Settings: run.Settings{Budget: run.Budget(budget)}}
			_, err := ReadMarginalParquet(ctx, tab.attrs, bytes.NewReader(pq), int64(len(pq)), opts)
			_, err2 := ReadMarginalCSV(ctx, tab.attrs, strings.NewReader(tab.csv(hist)), opts)
			fits := budget == 1000*bpr
			for what, e := range map[string]error{"parquet": err, "csv": err2} {
				if fits && e != nil || !fits && !errors.Is(e, run.ErrTooLarge) {
					t.Errorf("%v %s, budget %d: %v", kind, what, budget, e)
				}
			}
		}
	}
	// Doubling: 20,000 rows from a 4096-row start, under the default
	// budget, in order.
	tab := randomTable(rng, 20000, false)
	got, err := ReadMarginalCSV(ctx, tab.attrs, strings.NewReader(tab.csv(false)), nil)
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, "20,000 rows", got, tab, false)
}

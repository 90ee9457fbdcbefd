//go:build unix

package bench

import (
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/mech/linear/tables"
	"github.com/parquet-go/parquet-go"
)

// tablesAttrs is a census-like domain: age (115 values), sex (2), race (64
// combinations), relationship (17): 250,240 cells.
var tablesAttrs = []linear.Attribute{{Name: "age", Size: 115}, {Name: "sex", Size: 2}, {Name: "race", Size: 64}, {Name: "rel", Size: 17}}

type tablesRow struct {
	Age  int32 `parquet:"age"`
	Sex  int32 `parquet:"sex"`
	Race int32 `parquet:"race"`
	Rel  int32 `parquet:"rel"`
}

// tablesRows is the number of records: $OPTDP_TABLES_ROWS, default 10^7
// (10^8 is the target: OPTDP_TABLES_ROWS=100000000, about 1.2 GB of CSV).
func tablesRows(b *testing.B) int {
	n := 10_000_000
	if s := os.Getenv("OPTDP_TABLES_ROWS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			b.Fatalf("OPTDP_TABLES_ROWS=%q", s)
		}
		n = v
	}
	return n
}

// genRows calls emit with n random records from a fixed seed.
func genRows(n int, emit func(r tablesRow)) {
	rng := rand.New(rand.NewPCG(36, 1))
	for range n {
		emit(tablesRow{int32(rng.IntN(115)), int32(rng.IntN(2)), int32(rng.IntN(64)), int32(rng.IntN(17))})
	}
}

// writeTables writes the n records as CSV (with a header) and as Parquet
// (row groups of 10^6 rows) in dir, untimed.
func writeTables(b *testing.B, dir string, n int) (csvPath, pqPath string) {
	csvPath, pqPath = filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.parquet")
	f, err := os.Create(csvPath)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("age,sex,race,rel\n")
	var line []byte
	genRows(n, func(r tablesRow) {
		line = strconv.AppendInt(line[:0], int64(r.Age), 10)
		line = append(line, ',')
		line = strconv.AppendInt(line, int64(r.Sex), 10)
		line = append(line, ',')
		line = strconv.AppendInt(line, int64(r.Race), 10)
		line = append(line, ',')
		line = strconv.AppendInt(line, int64(r.Rel), 10)
		line = append(line, '\n')
		w.Write(line)
	})
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	g, err := os.Create(pqPath)
	if err != nil {
		b.Fatal(err)
	}
	pw := parquet.NewGenericWriter[tablesRow](g, parquet.MaxRowsPerRowGroup(1_000_000))
	batch := make([]tablesRow, 0, 1<<16)
	flush := func() {
		if _, err := pw.Write(batch); err != nil {
			b.Fatal(err)
		}
		batch = batch[:0]
	}
	genRows(n, func(r tablesRow) {
		batch = append(batch, r)
		if len(batch) == cap(batch) {
			flush()
		}
	})
	flush()
	if err := pw.Close(); err != nil {
		b.Fatal(err)
	}
	g.Close()
	return csvPath, pqPath
}

// BenchmarkCountRecords counts $OPTDP_TABLES_ROWS records (default 10^7)
// from CSV and from Parquet (tables.Count): rows/s, the process's peak RSS
// (peakMB, which includes the untimed writing) and its CPU seconds (cpu-s).
//
//	OPTDP_TABLES_ROWS=100000000 go test -run '^$' -bench CountRecords -benchtime 1x -timeout 1h ./bench/
func BenchmarkCountRecords(b *testing.B) {
	n := tablesRows(b)
	dir := b.TempDir()
	t0 := time.Now()
	csvPath, pqPath := writeTables(b, dir, n)
	b.Logf("wrote %d records in %.1f s", n, time.Since(t0).Seconds())
	for _, c := range []struct{ name, path string }{{"csv", csvPath}, {"parquet", pqPath}} {
		b.Run(c.name, func(b *testing.B) {
			fi, _ := os.Stat(c.path)
			b.SetBytes(fi.Size())
			cpu0 := cpuSeconds()
			start := time.Now()
			for range b.N {
				res, err := tables.Count(context.Background(), tablesAttrs, c.path, nil)
				if err != nil {
					b.Fatal(err)
				}
				if res.Rows != int64(n) || res.Total != float64(n) {
					b.Fatalf("%d rows, total %v, want %d", res.Rows, res.Total, n)
				}
			}
			sec := time.Since(start).Seconds() / float64(b.N)
			b.ReportMetric(float64(n)/sec, "rows/s")
			b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s")
			var ru syscall.Rusage
			if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
				b.ReportMetric(float64(ru.Maxrss)/1024, "peakMB")
			}
		})
	}
}

// BenchmarkReadMarginal reads the records of BenchmarkCountRecords into
// columns (tables.ReadMarginal, the input of optdp answer --strategy
// residual): 16 bytes per record, from CSV (grown by doubling) and from
// Parquet (reserved from its metadata). Metrics as BenchmarkCountRecords;
// run it alone for its own peak RSS.
//
//	go test -run '^$' -bench ReadMarginal -benchtime 1x ./bench/
func BenchmarkReadMarginal(b *testing.B) {
	n := tablesRows(b)
	csvPath, pqPath := writeTables(b, b.TempDir(), n)
	for _, c := range []struct{ name, path string }{{"csv", csvPath}, {"parquet", pqPath}} {
		b.Run(c.name, func(b *testing.B) {
			fi, _ := os.Stat(c.path)
			b.SetBytes(fi.Size())
			cpu0 := cpuSeconds()
			start := time.Now()
			for range b.N {
				res, err := tables.ReadMarginal(context.Background(), tablesAttrs, c.path, nil)
				if err != nil {
					b.Fatal(err)
				}
				if res.Rows != int64(n) || len(res.Data.Columns[3]) != n {
					b.Fatalf("%d rows, want %d", res.Rows, n)
				}
			}
			sec := time.Since(start).Seconds() / float64(b.N)
			b.ReportMetric(float64(n)/sec, "rows/s")
			b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s")
			var ru syscall.Rusage
			if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
				b.ReportMetric(float64(ru.Maxrss)/1024, "peakMB")
			}
		})
	}
}

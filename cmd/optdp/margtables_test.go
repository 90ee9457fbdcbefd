package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/linear"
)

type margRecord struct {
	A2    int32  `parquet:"a2"`
	Extra string `parquet:"extra"`
	A0    int64  `parquet:"a0"`
	A1    int32  `parquet:"a1"`
}

type margHist struct {
	A0 int64 `parquet:"a0"`
	A1 int64 `parquet:"a1"`
	A2 int64 `parquet:"a2"`
	N  int64 `parquet:"n"`
}

// TestAnswerResidualTables: one random data set over 3 × 2 × 5 values
// (its 2-way marginals), given as CSV records (columns shuffled, an
// extra column), Parquet records, a CSV histogram (repeated cells, zero
// counts), a Parquet histogram with a named count column and a directory
// of CSV and Parquet parts: under one seed every form releases the very
// answers of linear.AnswerGaussianMarginals on the records as the test
// holds them (its own rows, no file read); --csv prints the same answers,
// labelled cell by cell.
func TestAnswerResidualTables(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	dims := []int{3, 2, 5}
	dir := t.TempDir()
	var rows [][]int
	var recs []margRecord
	var rc strings.Builder
	rc.WriteString("a2,extra,a1,a0\n")
	for r := range 400 {
		row := []int{rng.IntN(3), rng.IntN(2), rng.IntN(5)}
		if r%7 == 0 {
			row = []int{2, 1, 4}
		}
		rows = append(rows, row)
		recs = append(recs, margRecord{A2: int32(row[2]), Extra: "x", A0: int64(row[0]), A1: int32(row[1])})
		fmt.Fprintf(&rc, "%d,z%d,%d,%d\n", row[2], r, row[1], row[0])
	}
	// The histogram: the cells counted by hand, each split over two rows
	// (one of them sometimes zero), plus a cell of count zero.
	counts := map[[3]int]int64{}
	for _, row := range rows {
		counts[[3]int{row[0], row[1], row[2]}]++
	}
	var hc strings.Builder
	hc.WriteString("count,a0,a1,a2\n0,1,0,0\n")
	var hist []margHist
	for a := range 3 {
		for b := range 2 {
			for c := range 5 {
				n := counts[[3]int{a, b, c}]
				k := rng.Int64N(n + 1)
				fmt.Fprintf(&hc, "%d,%d,%d,%d\n%d,%d,%d,%d\n", k, a, b, c, n-k, a, b, c)
				if n > 0 {
					hist = append(hist, margHist{int64(a), int64(b), int64(c), n})
				}
			}
		}
	}
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	recCSV, histCSV := file("r.csv", rc.String()), file("h.csv", hc.String())
	recPQ, histPQ := filepath.Join(dir, "r.parquet"), filepath.Join(dir, "h.pq")
	writeParquetFile(t, recPQ, recs)
	writeParquetFile(t, histPQ, hist)
	parts := filepath.Join(dir, "parts")
	os.Mkdir(parts, 0o755)
	lines := strings.SplitAfter(rc.String(), "\n")
	os.WriteFile(filepath.Join(parts, "part-0.csv"), []byte(strings.Join(lines[:151], "")), 0o644)
	writeParquetFile(t, filepath.Join(parts, "part-1.parquet"), recs[150:])
	os.WriteFile(filepath.Join(parts, "_SUCCESS"), nil, 0o644)

	// The reference: the test's rows as columns, released by the library.
	ms := []linear.WeightedMarginal{{Attrs: []int{0, 1}, Weight: 1}, {Attrs: []int{0, 2}, Weight: 1}, {Attrs: []int{1, 2}, Weight: 1}}
	plan, err := linear.PlanGaussianMarginals(context.Background(), dims, ms, &linear.MarginalPlanOptions{Eps: 1, Delta: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	data := &linear.MarginalData{Columns: make([][]int32, 3)}
	for _, row := range rows {
		for i, v := range row {
			data.Columns[i] = append(data.Columns[i], int32(v))
		}
	}
	want, err := linear.AnswerGaussianMarginals(context.Background(), plan, data, linear.SeededSource(3), 0)
	if err != nil {
		t.Fatal(err)
	}
	base := []string{"answer", "--workload", "marginals:dims=3x2x5,k=2", "--strategy", "residual", "--eps", "1", "--delta", "1e-6", "--seed", "3"}
	for _, c := range [][]string{
		{"--records", recCSV}, {"--records", recPQ}, {"--records", parts}, {"--histogram", histCSV},
		{"--histogram", histPQ, "--count-column", "n"}, {"--histogram", histPQ, "--count-column", "n", "--format", "parquet"},
	} {
		v := matrixJSON(t, append(append([]string{}, base...), c...)...)
		got := v["marginals"].([]any)
		if len(got) != len(want.Marginals) {
			t.Fatalf("%v: %d marginals, want %d", c, len(got), len(want.Marginals))
		}
		for k, mv := range got {
			m := mv.(map[string]any)
			ans := m["answers"].([]any)
			w := want.Marginals[k]
			if fmt.Sprint(m["attrs"]) != fmt.Sprint(w.Attrs) || len(ans) != len(w.Answers) {
				t.Fatalf("%v: marginal %d is %v with %d answers, want %v with %d", c, k, m["attrs"], len(ans), w.Attrs, len(w.Answers))
			}
			for q, a := range ans {
				if a.(float64) != w.Answers[q] {
					t.Fatalf("%v: marginal %v cell %d = %v, want %v", c, w.Attrs, q, a, w.Answers[q])
				}
			}
		}
	}
	code, out, errs := runCLI(append(append([]string{}, base...), "--histogram", histCSV, "--csv")...)
	if code != 0 {
		t.Fatalf("--csv: exit %d: %s", code, errs)
	}
	table, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || strings.Join(table[0], ",") != "query,label,answer" {
		t.Fatalf("--csv output %q: %v", out, err)
	}
	q := 1
	names := []string{"a0", "a1", "a2"}
	for _, m := range want.Marginals {
		for k, a := range m.Answers {
			// The cell's values, the last attribute fastest.
			var parts []string
			rest := k
			vals := make([]int, len(m.Attrs))
			for j := len(m.Attrs) - 1; j >= 0; j-- {
				vals[j], rest = rest%dims[m.Attrs[j]], rest/dims[m.Attrs[j]]
			}
			for j, f := range m.Attrs {
				parts = append(parts, fmt.Sprintf("%s=%d", names[f], vals[j]))
			}
			wantRow := []string{fmt.Sprint(q - 1), strings.Join(parts, " & "), fmtFloat(a)}
			if q >= len(table) || strings.Join(table[q], "|") != strings.Join(wantRow, "|") {
				t.Fatalf("--csv row %d = %v, want %v", q, table[min(q, len(table)-1)], wantRow)
			}
			q++
		}
	}
	if q != len(table) {
		t.Errorf("--csv: %d rows, want %d", len(table)-1, q-1)
	}
}

// TestAnswerResidualTablesBadInput: every bad table is refused with exit 1
// and the very message of the matrix mechanism's path (--strategy
// identity on the same workload and file); a histogram whose counts total
// more than 2^53 over different cells, which the matrix path accepts, is
// refused by the residual path; flag misuse exits 2.
func TestAnswerResidualTablesBadInput(t *testing.T) {
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	good := file("good.csv", "a0,a1\n0,1\n")
	pq := filepath.Join(dir, "r.parquet")
	writeParquetFile(t, pq, []margHist{{0, 1, 0, 2}, {2, 1, 0, 3}})
	b, _ := os.ReadFile(pq)
	trunc := file("t.parquet", string(b[:len(b)-20]))
	strCol := filepath.Join(dir, "s.parquet")
	writeParquetFile(t, strCol, []struct {
		A0 string `parquet:"a0"`
		A1 int64  `parquet:"a1"`
	}{{"1", 0}})
	run := func(strategy string, args []string) (int, string) {
		code, _, errs := runCLI(append([]string{"answer", "--workload", "marginals:dims=3x2,k=1", "--strategy", strategy,
			"--eps", "1", "--delta", "1e-6", "--seed", "1"}, args...)...)
		return code, errs
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--records", file("d.csv", "a0,a1\n3,1\n")}, `a0 = "3" is outside the attribute's domain [0, 3)`},
		{[]string{"--records", file("neg.csv", "a0,a1\n0,-1\n")}, `a1 = "-1" is outside`},
		{[]string{"--records", file("m.csv", "a0,x\n0,1\n")}, `no column "a1"`},
		{[]string{"--records", file("dup.csv", "a0,a1,a0\n0,1,1\n")}, `names column "a0" twice`},
		{[]string{"--records", file("e.csv", "a0,a1\n0,\n")}, "empty (a missing value)"},
		{[]string{"--records", file("short.csv", "0,1\n2\n")}, "line 2 has 1 fields"},
		{[]string{"--records", file("wide.csv", "a0,a1\n0,1,5\n")}, "beyond the header's 2 columns"},
		{[]string{"--records", file("none.csv", "a0,a1\n")}, "no data rows"},
		{[]string{"--histogram", file("n.csv", "a0,a1,count\n0,1,-2\n")}, "count -2 is negative"},
		{[]string{"--histogram", file("f.csv", "a0,a1,count\n0,1,1.5\n")}, "count 1.5 is not an integer"},
		{[]string{"--histogram", file("big.csv", "a0,a1,count\n0,1,9007199254740993\n")}, "above 2^53"},
		{[]string{"--histogram", file("hw.csv", "0,1,3,4\n")}, "more than the 3 fields"},
		{[]string{"--histogram", good}, `no column "count"`},
		{[]string{"--histogram", pq}, `no column "count"`},
		{[]string{"--histogram", pq, "--count-column", "a2"}, ""},
		{[]string{"--records", trunc}, "Parquet"},
		{[]string{"--records", strCol}, `column "a0" is a STRING, not an integer`},
		{[]string{"--records", good, "--format", "parquet"}, "not a readable Parquet file"},
		{[]string{"--records", filepath.Join(dir, "missing.csv")}, "no such file"},
	} {
		code, errs := run("residual", c.args)
		mcode, merrs := run("identity", c.args)
		if c.msg == "" { // a good table: both paths answer
			if code != 0 || mcode != 0 {
				t.Errorf("%v: exit %d (%s), matrix path %d (%s)", c.args, code, errs, mcode, merrs)
			}
			continue
		}
		if code != 1 || errs != merrs || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 mentioning %q and the matrix path's %q", c.args, code, errs, c.msg, merrs)
		}
	}
	total := file("total.csv", "a0,a1,count\n0,1,9007199254740992\n2,0,1\n")
	if code, _ := run("identity", []string{"--histogram", total}); code != 0 {
		t.Errorf("the matrix path on a total of 2^53 + 1: exit %d", code)
	}
	if code, errs := run("residual", []string{"--histogram", total}); code != 1 || !strings.Contains(errs, "line 3: the total count") {
		t.Errorf("a total of 2^53 + 1: exit %d, %s", code, errs)
	}
	for _, args := range [][]string{
		{"--data", good}, {"--records", good, "--histogram", good}, {"--records", good, "--count-column", "n"},
		{"--records", good, "--format", "xlsx"}, {"--records", good, "--json", "--csv"},
	} {
		if code, errs := run("residual", args); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
	}
}

// TestAnswerResidualCSVRanges: --csv labels the answers of prefix and
// all-range attributes by their ranges, one row per query: a prefix
// attribute of 3 values asks 0..0, 0..1, 0..2; all ranges of 2 values ask
// 0..0, 0..1, 1..1 (n(n+1)/2 of them), whatever their order; a range of
// one value is labelled by the value, as linear.Labels does.
func TestAnswerResidualCSVRanges(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "r.csv")
	if err := os.WriteFile(rec, []byte("a0,a1\n0,1\n2,0\n1,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("answer", "--workload", "marginals:dims=3x2,k=1,prefix=0,allrange=1", "--strategy", "residual",
		"--eps", "1", "--delta", "1e-6", "--seed", "1", "--records", rec, "--csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	table, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("--csv output %q: %v", out, err)
	}
	got := map[string]bool{}
	for _, row := range table[1:] {
		got[row[1]] = true
	}
	want := []string{"a0=0", "a0=0..1", "a0=0..2", "a1=0", "a1=0..1", "a1=1"}
	if len(table)-1 != len(want) {
		t.Fatalf("%d rows, want %d: %v", len(table)-1, len(want), table)
	}
	for _, l := range want {
		if !got[l] {
			t.Errorf("no row labelled %q in %v", l, table)
		}
	}
}

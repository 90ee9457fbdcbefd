package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/linear"
	"github.com/parquet-go/parquet-go"
)

const tablesWorkload = `{"attributes": [{"name": "a", "size": 3}, {"name": "b", "size": 2}],
  "workload": [{"marginals": 1}, {"blocks": {"a": "prefix", "b": "identity"}}]}`

type cliRecord struct {
	B int32 `parquet:"b"`
	A int64 `parquet:"a"`
}

type cliHist struct {
	A int64 `parquet:"a"`
	B int64 `parquet:"b"`
	N int64 `parquet:"n"`
}

func writeParquetFile[T any](t *testing.T, path string, rows []T) {
	t.Helper()
	if err := parquet.WriteFile(path, rows); err != nil {
		t.Fatal(err)
	}
}

// TestAnswerTablesCLI: the same data as records (CSV, Parquet) and as a
// histogram (CSV with repeated cells, Parquet with a named count column)
// gives, under one seed, the answers of linear.Answer on the histogram
// counted by hand; the labels name the queries (1-way marginals, then
// prefix(a) × identity(b)); --csv prints the same answers and labels.
func TestAnswerTablesCLI(t *testing.T) {
	dir := t.TempDir()
	wf := filepath.Join(dir, "w.json")
	os.WriteFile(wf, []byte(tablesWorkload), 0o644)
	// Records (a, b): (0,1), (2,1), (2,0), (2,1), (1,1): cell a·2 + b.
	x := []float64{0, 1, 0, 1, 1, 2}
	recCSV := filepath.Join(dir, "r.csv")
	os.WriteFile(recCSV, []byte("b,a\n1,0\n1,2\n0,2\n1,2\n1,1\n"), 0o644)
	recPQ := filepath.Join(dir, "r.parquet")
	writeParquetFile(t, recPQ, []cliRecord{{1, 0}, {1, 2}, {0, 2}, {1, 2}, {1, 1}})
	histCSV := filepath.Join(dir, "h.csv")
	os.WriteFile(histCSV, []byte("a,b,count\n2,1,1\n0,1,1\n2,0,1\n2,1,1\n1,1,1\n0,0,0\n"), 0o644)
	histPQ := filepath.Join(dir, "h.data") // no extension: the magic bytes say Parquet
	writeParquetFile(t, histPQ, []cliHist{{0, 1, 1}, {2, 1, 2}, {2, 0, 1}, {1, 1, 1}})

	w, _, err := linear.ParseWorkloadJSON([]byte(tablesWorkload), nil)
	if err != nil {
		t.Fatal(err)
	}
	i3, _ := linear.IdentityStrategy(3)
	i2, _ := linear.IdentityStrategy(2)
	a, _ := linear.KronStrategy(i3, i2)
	rel, err := linear.Answer(w, a, x, 1, linear.SeededSource(5))
	if err != nil {
		t.Fatal(err)
	}
	wantLabels := []string{"a=0", "a=1", "a=2", "b=0", "b=1",
		"a=0 & b=0", "a=0 & b=1", "a=0..1 & b=0", "a=0..1 & b=1", "b=0", "b=1"}
	base := []string{"answer", "--workload", "file:" + wf, "--strategy", "identity", "--eps", "1", "--seed", "5"}
	for _, c := range [][]string{
		{"--records", recCSV}, {"--records", recPQ}, {"--histogram", histCSV},
		{"--histogram", histPQ, "--count-column", "n"},
	} {
		v := matrixJSON(t, append(append([]string{}, base...), c...)...)
		got, labels := v["answers"].([]any), v["labels"].([]any)
		if len(got) != len(rel.Answers) || len(labels) != len(wantLabels) {
			t.Fatalf("%v: %d answers and %d labels, want %d", c, len(got), len(labels), len(rel.Answers))
		}
		for i := range got {
			if got[i].(float64) != rel.Answers[i] || labels[i] != wantLabels[i] {
				t.Fatalf("%v: answer %d = %v labelled %v, want %v labelled %s", c, i, got[i], labels[i], rel.Answers[i], wantLabels[i])
			}
		}
	}
	code, out, errs := runMatrixCLI(append(append([]string{}, base...), "--records", recPQ, "--csv")...)
	if code != 0 {
		t.Fatalf("--csv: exit %d: %s", code, errs)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != len(wantLabels)+1 || strings.Join(recs[0], ",") != "query,label,answer" {
		t.Fatalf("--csv output %q: %v", out, err)
	}
	for i, r := range recs[1:] {
		if r[1] != wantLabels[i] || r[2] != fmtFloat(rel.Answers[i]) {
			t.Errorf("--csv row %d = %v, want %s, %v", i, r, wantLabels[i], rel.Answers[i])
		}
	}
}

// TestAnswerTablesBadInput: bad tables exit 1 with the reason; flag misuse
// exits 2.
func TestAnswerTablesBadInput(t *testing.T) {
	dir := t.TempDir()
	wf := filepath.Join(dir, "w.json")
	os.WriteFile(wf, []byte(tablesWorkload), 0o644)
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	good := file("good.csv", "a,b\n0,1\n")
	pq := filepath.Join(dir, "r.parquet")
	writeParquetFile(t, pq, []cliRecord{{1, 0}, {1, 2}})
	data, _ := os.ReadFile(pq)
	trunc := file("t.parquet", string(data[:len(data)-20]))
	base := []string{"answer", "--workload", "file:" + wf, "--strategy", "identity", "--eps", "1", "--seed", "1"}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--records", file("d.csv", "a,b\n3,1\n")}, 1, `a = "3" is outside the attribute's domain [0, 3)`},
		{[]string{"--records", file("m.csv", "a,c\n0,1\n")}, 1, `no column "b"`},
		{[]string{"--records", file("e.csv", "a,b\n0,,\n")}, 1, "empty (a missing value)"},
		{[]string{"--histogram", file("n.csv", "a,b,count\n0,1,-2\n")}, 1, "negative"},
		{[]string{"--histogram", file("f.csv", "a,b,count\n0,1,1.5\n")}, 1, "not an integer"},
		{[]string{"--histogram", file("big.csv", "a,b,count\n0,1,9007199254740993\n")}, 1, "above 2^53"},
		{[]string{"--histogram", good}, 1, `no column "count"`},
		{[]string{"--records", trunc}, 1, "Parquet"},
		{[]string{"--records", good, "--format", "parquet"}, 1, "not a readable Parquet file"},
		{[]string{"--records", filepath.Join(dir, "none.csv")}, 1, "no such file"},
		{[]string{"--records", good, "--format", "xlsx"}, 2, "unknown format"},
		{[]string{"--records", good, "--count-column", "n"}, 2, "--count-column applies to --histogram"},
		{[]string{"--records", good, "--histogram", good}, 2, "give one of"},
		{[]string{"--records", good, "--json", "--csv"}, 2, "one of --json and --csv"},
	} {
		code, _, errs := runMatrixCLI(append(append([]string{}, base...), c.args...)...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("answer %v: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, errs, c.code, c.msg)
		}
	}
}

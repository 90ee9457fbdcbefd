package main

// The adversarial corpus at the command line: bad flags, bad specs and
// hostile files (empty, binary, endless pipes, huge numbers, counts beyond
// 2^53, duplicate columns, a byte-order mark, CRLF line ends, truncated
// Parquet) across every command, including the table inputs of answer
// (--records, --histogram in CSV and Parquet, --strategy residual), stream
// --release and optimize --loss max. Each case must end with the exit code
// of the README's table (1: the data or the computation said no; 2: the
// command line was wrong), one message starting with "optdp" that names
// the culprit, no Go stack dump, and no NaN anywhere in the output.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// corpusCase is one hostile command line; files are written to {dir}
// first.
type corpusCase struct {
	args  string
	files map[string][]byte
	codes []int
	want  string
}

type pqRecord struct {
	A int64 `parquet:"a"`
	B int64 `parquet:"b"`
}

type pqHist struct {
	A     int64 `parquet:"a"`
	B     int64 `parquet:"b"`
	Count int64 `parquet:"count"`
}

type pqFloat struct {
	A float64 `parquet:"a"`
	B float64 `parquet:"b"`
}

type pqString struct {
	A string `parquet:"a"`
	B string `parquet:"b"`
}

func pqBytes[T any](rows []T) []byte {
	var b bytes.Buffer
	if err := parquet.Write(&b, rows); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// The marginal workload of the table cases: attributes a (size 3) and b
// (size 2), all 1-way marginals and the 2-way one.
const corpusWorkload = `{"attributes": [{"name": "a", "size": 3}, {"name": "b", "size": 2}], "workload": [{"marginals": 1}, {"marginals": 2}]}`

func corpusCases() []corpusCase {
	b := func(kv ...string) map[string][]byte {
		m := map[string][]byte{"w.json": []byte(corpusWorkload)}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = []byte(kv[i+1])
		}
		return m
	}
	with := func(m map[string][]byte, name string, body []byte) map[string][]byte {
		m[name] = body
		return m
	}
	good := pqBytes([]pqRecord{{0, 1}, {2, 0}, {1, 1}})
	hist := pqBytes([]pqHist{{0, 1, 3}, {2, 0, 1}})
	const ans = "answer --workload file:{dir}/w.json --strategy identity --eps 1 --seed 1"
	const res = "answer --workload marginals:dims=3x2,k=2 --strategy residual --eps 1 --delta 1e-6 --seed 1"
	const dat = "answer --workload identity:n=4 --strategy identity --eps 1 --seed 1 --data {dir}/x.txt"
	var cs []corpusCase
	add := func(args string, files map[string][]byte, codes []int, want string) {
		cs = append(cs, corpusCase{args: args, files: files, codes: codes, want: want})
	}

	// --- the command line itself ---
	add("", nil, usage, "")
	add("frobnicate", nil, usage, "frobnicate")
	add("help frobnicate", nil, usage, "frobnicate")
	add("help tight optimal", nil, usage, "at most one")
	for _, cmd := range []string{"tight", "threshold", "regular", "optimal", "audit", "measure", "matrix", "optimize", "answer", "stream", "compare", "sample", "bound"} {
		add(cmd+" --no-such-flag 1", nil, usage, "no-such-flag")
		add(cmd+" --eps", nil, usage, "eps")
		add(cmd+" stray-positional", nil, usage, "")
	}
	for _, e := range []string{"nan", "NaN", "inf", "-inf", "-1", "0", "1e400", "abc", "0x1p-2000", "1,5", ""} {
		add("tight --metric line:n=5 --eps "+e, nil, usage, "eps")
		add("optimal --metric line:n=5 --prior uniform --eps "+e, nil, usage, "eps")
	}
	for _, d := range []string{"0", "1", "-1e-6", "nan", "2"} {
		add("optimize --workload prefix:n=8 --eps 1 --delta "+d, nil, usage, "delta")
	}

	// --- metric and workload specs ---
	for _, m := range []string{"line", "line:n=", "line:n=-3", "line:n=0", "line:n=2.5", "line:n=3,n=4", "line:n=3,q=1",
		"banana:n=3", "grid:w=3,h=3,step=nan", "grid:w=3,h=3,step=-1", "grid:w=3", "line:n=99999999999999999999",
		"sum:u=0,v=2", "hamming:u=3,v=1", "line:n=3\x00"} {
		add("tight --metric "+m+" --eps 1", nil, spec, "")
	}
	for _, w := range []string{"identity", "identity:n=0", "identity:n=-1", "prefix:n=abc", "allrange:n=1e3",
		"marginals:dims=2x0,k=1", "marginals:dims=2x3,k=3", "random:n=10,m=1000000000000,seed=1", "zeta:n=3",
		"prefix:n=8,n=9", "kron:", "file:"} {
		add("matrix --workload "+w+" --strategy identity --eps 1", nil, spec, "")
	}
	for _, s := range []string{"hier:b=1", "hier:b=0", "hier:b=x", "wavelet:x=1", "residual:loss=mean", "opt:restarts=-1", "bogus"} {
		add("matrix --workload prefix:n=8 --strategy "+s+" --eps 1", nil, spec, "")
	}

	// --- optimize --loss max (marginal workloads, Gaussian) ---
	add("optimize --workload marginals:dims=3x2,k=1 --eps 1 --loss max", nil, usage, "delta")
	add("optimize --workload marginals:dims=3x2,k=1 --eps 1 --delta 1e-6 --loss mean", nil, usage, "loss")
	add("optimize --workload marginals:dims=3x2,k=1 --eps 1 --delta 1e-6 --loss MAX", nil, usage, "loss")
	add("optimize --workload marginals:dims=3x2,k=1 --eps 1 --delta 1e-6 --loss max --max-iter -1", nil, usage, "max-iter")
	add("optimize --workload marginals:dims=3x2,k=1 --eps 1 --delta 1e-6 --loss max --restarts -1", nil, usage, "restarts")
	add("optimize --workload prefix:n=8 --eps 1 --delta 1e-6 --loss max", nil, spec, "")
	// the residual planner never forms the 10^24-cell domain: a plan
	add("optimize --workload marginals:dims=1000000x1000000x1000000x1000000,k=4 --eps 1 --delta 1e-6 --loss max", nil, []int{exitOK}, "")

	// --- stream ---
	for _, a := range []string{
		"--workload prefix:n=0", "--workload prefix:n=-1", "--workload identity:n=8", "--workload prefix:n=x",
		"--workload prefix:n=16 --participation epochs:k=0,b=8", "--workload prefix:n=16 --participation minsep:k=2",
		"--workload prefix:n=16 --participation rounds", "--workload prefix:n=16 --family lowrank",
		"--workload prefix:n=16 --bands -1 --family toeplitz", "--workload prefix:n=16 --buffers 99 --family blt",
		"--workload prefix:n=16 --loss rmse", "--workload prefix:n=16 --tol -1", "--workload prefix:n=16 --tol nan",
		"--workload prefix:n=16 --release {dir}/x.txt", "--workload prefix:n=16 --release {dir}/x.txt --eps 1",
		"--workload prefix:n=16 --release {dir}/x.txt --eps 1 --delta 0",
		"--workload prefix:n=16 --release {dir}/x.txt --eps -1 --delta 1e-6",
		"--workload prefix:n=16 --eps 1 --delta 1e-6",
	} {
		add("stream "+a, b("x.txt", "1\n2\n"), usage, "")
	}
	const rel = "stream --workload prefix:n=4 --family toeplitz --bands 2 --eps 1 --delta 1e-6 --seed 1 --release {dir}/x.txt"
	add(rel, b("x.txt", ""), []int{exitOK}, "") // an empty stream: nothing released
	add(rel, b("x.txt", "1\n2\n3\n4\n5\n"), data, "")
	add(rel, b("x.txt", "1\n2.5\n"), data, "2.5")
	add(rel, b("x.txt", "1\nnan\n"), data, "nan")
	add(rel, b("x.txt", "1\n9007199254740993\n"), []int{exitOK}, "") // int64, parsed exactly
	add(rel, b("x.txt", "1\n99999999999999999999\n"), data, "")
	add(rel, b("x.txt", "\x00\x01\x02\xff\xfe"), data, "")
	add(rel, b("x.txt", "1\nabc\n"), data, "abc")
	add(rel, map[string][]byte{}, data, "x.txt")
	add("stream --workload prefix:n=4 --family toeplitz --bands 2 --eps 1 --delta 1e-6 --seed 1 --release /dev/zero", nil, data, "")
	add("stream --workload prefix:n=4 --family toeplitz --bands 2 --eps 1 --delta 1e-6 --seed 1 --release {dir}", nil, data, "")
	add("stream --workload prefix:n=1000000 --family dense", nil, data, "")

	// --- answer --data (a histogram vector) ---
	add(dat, b("x.txt", ""), data, "")
	add(dat, b("x.txt", "1 2 3\n"), data, "")
	add(dat, b("x.txt", "1 2 3 4 5\n"), data, "")
	add(dat, b("x.txt", "1 2 3 -4\n"), data, "")
	add(dat, b("x.txt", "1 2 3 9007199254740993\n"), data, "9007199254740993")
	add(dat, b("x.txt", "1 2 3 1e400\n"), data, "")
	add(dat, b("x.txt", "1 2 3 nan\n"), data, "")
	add(dat, b("x.txt", "1 2 3 0x10\n"), data, "")
	add(dat, b("x.txt", "\xef\xbb\xbf1 2 3 4\n"), []int{exitOK, exitFailed}, "")
	add(dat, b("x.txt", "1\r\n2\r\n3\r\n4\r\n"), []int{exitOK}, "")
	add(dat, b("x.txt", string([]byte{0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0xff, 0xff})), data, "")
	add(dat, b("x.txt", "\x00\x00\x00\x00"), data, "")
	add("answer --workload identity:n=4 --strategy identity --eps 1 --seed 1 --data {dir}", nil, data, "")
	add("answer --workload identity:n=4 --strategy identity --eps 1 --seed 1 --data {dir}/missing.txt", nil, data, "missing.txt")

	// --- answer --records / --histogram, CSV ---
	rec := ans + " --records {dir}/r.csv"
	for _, body := range []struct{ s, want string }{
		{"", ""},
		{"a,b\n", ""},
		{"a,b\n0,1\n3,0\n", "3"},
		{"a,b\n0,1\n-1,0\n", "-1"},
		{"a,b\n0,1\n0.5,0\n", "0.5"},
		{"a,b\n0,1\n1\n", ""},
		{"a,b\n0,1\n1,1,1\n", ""},
		{"a,a\n0,1\n", "a"},
		{"a,b,b\n0,1,1\n", "b"},
		{"a,c\n0,1\n", "c"},
		{"a,b\n0,1\n9007199254740993,0\n", ""},
		{"a,b\n0,1\nx,0\n", "x"},
		{"a,b\n0,\"1\n", ""},
		{"\x00\x01\x02\x03", ""},
	} {
		add(rec, b("r.csv", body.s), data, body.want)
	}
	add(rec, b("r.csv", "\xef\xbb\xbfa,b\n0,1\n2,0\n"), []int{exitOK}, "")
	add(rec, b("r.csv", "a,b\r\n0,1\r\n2,0\r\n"), []int{exitOK}, "")
	add(rec, b("r.csv", "b,a\n1,0\n0,2\n"), []int{exitOK}, "")
	add(ans+" --records {dir}/r.csv --count-column n", b("r.csv", "a,b\n0,1\n"), usage, "count-column")
	add(ans+" --records {dir}/r.csv --format xml", b("r.csv", "a,b\n0,1\n"), usage, "format")
	add(ans+" --records {dir}/r.csv --data {dir}/r.csv", b("r.csv", "a,b\n0,1\n"), usage, "one of")
	add(ans+" --records {dir}/r.csv --histogram {dir}/r.csv", b("r.csv", "a,b\n0,1\n"), usage, "one of")
	add(ans+" --records {dir}", b(), data, "")
	add(ans+" --records /dev/zero --format csv", b(), data, "")

	hcsv := ans + " --histogram {dir}/h.csv"
	for _, body := range []struct{ s, want string }{
		{"", ""},
		{"a,b\n0,1\n", "count"},
		{"a,b,count\n0,1,-1\n", "-1"},
		{"a,b,count\n0,1,1.5\n", "1.5"},
		{"a,b,count\n0,1,9007199254740993\n", ""},
		{"a,b,count\n0,1,99999999999999999999\n", ""},
		{"a,b,count\n0,1,nan\n", "nan"},
		{"a,b,count,count\n0,1,1,2\n", "count"},
		{"a,b,count\n0,2,1\n", "2"},
		{"a,b,count\n0,1,9223372036854775807\n0,1,9223372036854775807\n", ""},
	} {
		add(hcsv, b("h.csv", body.s), data, body.want)
	}
	add(hcsv+" --count-column n", b("h.csv", "a,b,count\n0,1,1\n"), data, "n")
	add(hcsv, b("h.csv", "a,b,count\r\n0,1,2\r\n"), []int{exitOK}, "")

	// --- Parquet ---
	pq := ans + " --records {dir}/r.parquet"
	add(pq, with(b(), "r.parquet", good), []int{exitOK}, "")
	add(pq, with(b(), "r.parquet", good[:len(good)/2]), data, "")
	add(pq, with(b(), "r.parquet", good[:len(good)-3]), data, "")
	add(pq, with(b(), "r.parquet", good[4:]), data, "magic")
	add(pq, with(b(), "r.parquet", []byte("PAR1")), data, "")
	add(pq, with(b(), "r.parquet", []byte("PAR1PAR1")), data, "")
	add(pq, with(b(), "r.parquet", append([]byte("PAR1"), bytes.Repeat([]byte{0xff}, 64)...)), data, "")
	add(pq, with(b(), "r.parquet", nil), data, "")
	add(pq, with(b(), "r.parquet", pqBytes([]pqRecord{{0, 1}, {3, 0}})), data, "3")
	add(pq, with(b(), "r.parquet", pqBytes([]pqRecord{{0, 1}, {-1, 0}})), data, "-1")
	add(pq, with(b(), "r.parquet", pqBytes([]pqFloat{{0, 1}, {0.5, 0}})), data, "")
	add(pq, with(b(), "r.parquet", pqBytes([]pqString{{"0", "1"}})), data, "")
	// a column the workload does not name is ignored (documented)
	add(pq, with(b(), "r.parquet", pqBytes([]pqHist{{0, 1, 1}})), []int{exitOK}, "")
	add(pq+" --format csv", with(b(), "r.parquet", good), data, "")
	add(ans+" --records {dir}/r.csv --format parquet", b("r.csv", "a,b\n0,1\n"), data, "")
	hp := ans + " --histogram {dir}/h.parquet"
	add(hp, with(b(), "h.parquet", hist), []int{exitOK}, "")
	add(hp+" --count-column n", with(b(), "h.parquet", hist), data, "n")
	add(hp, with(b(), "h.parquet", pqBytes([]pqHist{{0, 1, -5}})), data, "-5")
	add(hp, with(b(), "h.parquet", pqBytes([]pqHist{{0, 1, 1 << 53}, {0, 1, 1}})), data, "")
	add(hp, with(b(), "h.parquet", pqBytes([]pqRecord{{0, 1}})), data, "count")
	add(hp, with(b(), "h.parquet", hist[:len(hist)-10]), data, "")

	// --- --strategy residual ---
	add(res+" --records {dir}/r.csv", b("r.csv", "a0,a1\n0,1\n2,0\n"), []int{exitOK}, "")
	add(res+" --records {dir}/r.csv", b("r.csv", "a0,a1\n0,2\n"), data, "2")
	add(res+" --records {dir}/r.csv", b("r.csv", "a0,a1\n-1,0\n"), data, "-1")
	add(res+" --records {dir}/r.csv", b("r.csv", ""), data, "")
	add(res+" --records {dir}/r.csv", b("r.csv", "a0,a0\n0,1\n"), data, "a0")
	add(res+" --histogram {dir}/h.csv", b("h.csv", "a0,a1,count\n0,1,-2\n"), data, "negative")
	add(res+" --histogram {dir}/h.csv", b("h.csv", "a0,a1,count\n0,1,2\n0,1,3\n"), []int{exitOK}, "")
	add(res+" --histogram {dir}/h.csv", b("h.csv", "a0,a1,count\n0,1,9007199254740992\n1,1,1\n"), data, "2^53")
	add(res+" --records {dir}/r.csv", b("r.csv", "a0,a1\n0,1,5\n"), data, "line 2")
	add(res+" --records {dir}/r.parquet", with(b(), "r.parquet", good[:20]), data, "")
	add("answer --workload marginals:dims=3x2,k=2 --strategy residual --eps 1 --seed 1 --records {dir}/r.csv", b("r.csv", "0,1\n"), usage, "delta")
	add("answer --workload prefix:n=8 --strategy residual --eps 1 --delta 1e-6 --seed 1 --data {dir}/x.txt", b("x.txt", "1 2 3 4 5 6 7 8\n"), usage, "residual")
	add("answer --workload marginals:dims=3x2,k=2 --strategy residual:loss=mean --eps 1 --delta 1e-6 --seed 1 --records {dir}/r.csv", b("r.csv", "0,1\n"), usage, "loss")
	add("answer --workload marginals:dims=3x2,k=2 --strategy residual --eps 1 --delta 2 --seed 1 --records {dir}/r.csv", b("r.csv", "0,1\n"), usage, "delta")
	add("answer --workload marginals:dims=1000000x1000000x1000000,k=3 --strategy residual --eps 1 --delta 1e-6 --seed 1 --records {dir}/r.csv", b("r.csv", "0,1,2\n"), data, "")

	// --- other files: audit, measure, sample, metric files ---
	for _, body := range []string{"", "\x00\x01", "0.5,0.5\n0.5\n", "0.5,0.5\n0.5,nan\n", "1,0\n0,1\n1,0\n", "2,-1\n0,1\n", "\xef\xbb\xbf1,0\n0,1\n"} {
		add("audit --metric line:n=2 --eps 1 --matrix {dir}/m.csv", b("m.csv", body), data, "")
		if body != "1,0\n0,1\n1,0\n" { // 3 inputs, 2 outputs: a valid channel
			add("measure --matrix {dir}/m.csv --prior uniform", b("m.csv", body), data, "")
		}
	}
	add("audit --metric line:n=2 --eps 1 --matrix /dev/zero", nil, data, "")
	add("sample --matrix {dir}/m.csv --metric line:n=2 --eps 1 --true 5 --seed 1", b("m.csv", stoch2), spec, "")
	add("tight --metric dist:file={dir}/d.csv --eps 1", b("d.csv", "0,1\n2,0\n"), data, "")
	add("tight --metric graph:file={dir}/g.txt --eps 1", b("g.txt", "0 1.5\n"), data, "")
	add("tight --metric graph:file={dir}/g.txt --eps 1", b("g.txt", "0 -1\n"), data, "")
	add("matrix --workload file:{dir}/w.json --strategy identity --eps 1", b("w.json", `{"op":"identity","n":3} {"x":1}`), spec, "")
	add("matrix --workload file:{dir}/w.json --strategy identity --eps 1", b("w.json", strings.Repeat("[", 100000)), spec, "")
	add("matrix --workload file:{dir}/w.csv --strategy identity --eps 1 --json", b("w.csv", "1,0\n0,0\n"), []int{exitOK, exitFailed}, "")
	return cs
}

// TestCLICorpus runs every case in-process (runBounded: a wall bound, a
// recovered panic is a failure) and checks the exit code, the message
// (checkBadInput), and the absence of NaN in any output.
func TestCLICorpus(t *testing.T) {
	cases := corpusCases()
	if len(cases) < 150 {
		t.Fatalf("the CLI corpus has %d cases, want at least 150", len(cases))
	}
	for k, c := range cases {
		name := fmt.Sprintf("%03d %s", k, c.args)
		if len(name) > 90 {
			name = name[:90]
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for fn, body := range c.files {
				if err := os.WriteFile(filepath.Join(dir, fn), body, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var args []string
			for _, a := range strings.Fields(c.args) {
				args = append(args, strings.ReplaceAll(a, "{dir}", dir))
			}
			if strings.HasSuffix(c.args, "--eps ") || strings.HasSuffix(c.args, "--eps") {
				// an empty flag value: Fields dropped it
				if strings.HasSuffix(c.args, " ") {
					args = append(args, "")
				}
			}
			code, stdout, stderr, alloc, ok := runBounded(args, badInputTimeout)
			if !ok {
				t.Fatalf("optdp %s: still running after %v", c.args, badInputTimeout)
			}
			stderr = dropSeedWarning(stderr)
			checkBadInput(t, badCase{args: c.args, codes: c.codes, want: c.want}, code, stderr, alloc)
			// NaN is never printed: not as a result, and not in a message
			// unless the command line itself said nan.
			if strings.Contains(stdout, "NaN") || strings.Contains(stderr, "NaN") && !strings.Contains(strings.ToLower(c.args), "nan") && !fileHasNaN(c.files) {
				t.Errorf("optdp %s: NaN in the output:\n%s\n%s", c.args, stdout, stderr)
			}
			if code != exitOK && stdout != "" {
				t.Errorf("optdp %s: exit %d after printing to stdout:\n%s", c.args, code, stdout)
			}
		})
	}
}

// dropSeedWarning removes the CLI's warning that --seed makes the noise
// predictable (the corpus seeds its releases so that failures reproduce).
func dropSeedWarning(stderr string) string {
	var keep []string
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if !strings.Contains(l, "warning: --seed") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}

func fileHasNaN(files map[string][]byte) bool {
	for _, b := range files {
		if bytes.Contains(bytes.ToLower(b), []byte("nan")) {
			return true
		}
	}
	return false
}

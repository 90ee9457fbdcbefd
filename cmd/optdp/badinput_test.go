package main

// The bad-input corpus: malformed command lines and files
// across every command, each of which must end with the documented exit
// code (see exitCode: 1 the data or the computation said no, 2 the command
// line was wrong), a short message on stderr that starts with "optdp" and
// carries no stack trace, within a time bound and a bound on the memory
// allocated. It includes every reproducer of the issue.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// badCase is one malformed input: the command line (with {dir} replaced by
// a directory holding files), the files, and the exit codes accepted.
type badCase struct {
	args  string            // split on spaces; {dir}/NAME names a file of files
	files map[string]string // NAME -> contents
	codes []int             // accepted exit codes
	want  string            // substring of the message ("" = any)
}

// Exit-code sets of the corpus.
var (
	usage = []int{exitUsage}
	data  = []int{exitFailed}
	// spec: a spec or flag value out of range: a command-line mistake (2)
	// under the exit-code table; 1 is accepted where the command reports
	// it as a failed construction (answer, matrix and optimize exit 2 for
	// bad --delta, --restarts and specs: their cases use usage).
	spec = []int{exitUsage, exitFailed}
)

// Per-case bounds: wall time and bytes allocated (runtime.MemStats
// TotalAlloc growth) before the refusal.
const (
	badInputTimeout = 60 * time.Second
	badInputAlloc   = 256 << 20
)

const stoch2 = "0.5,0.5\n0.5,0.5\n"

func badInputCorpus() []badCase {
	f := func(name, body string) map[string]string { return map[string]string{name: body} }
	return []badCase{
		// --- eps out of range, and out-of-range values in files ---
		{"answer --workload identity:n=4 --strategy identity --eps 1e308 --data {dir}/x.csv", f("x.csv", "1 2 3 4\n"), usage, "eps"},
		{"answer --workload identity:n=4 --strategy identity --eps 1.7e299 --data {dir}/x.csv", f("x.csv", "1 2 3 4\n"), usage, "eps"},
		{"answer --workload identity:n=4 --strategy identity --eps 1e299 --data {dir}/x.csv", f("x.csv", "1 2 3 4\n"), usage, "eps"},
		{"answer --workload identity:n=4 --strategy identity --eps 1e-308 --data {dir}/x.csv", f("x.csv", "1 2 3 4\n"), usage, "eps"},
		{"tight --metric ring:n=9007199254740992 --eps 1", nil, data, "too large"},
		{"tight --metric ring:n=1000000000 --eps 1", nil, data, "too large"},
		{"tight --metric graph:file={dir}/g.txt --eps 1", f("g.txt", "n 2000000000\n0 1\n"), data, "MaxGraphVertices"},
		{"tight --metric graph:file={dir}/g.txt --eps 1", f("g.txt", "90700070 0"), data, "MaxGraphVertices"},
		{"tight --metric dist:file=/dev/zero --eps 1", nil, data, "longer than"},
		{"tight --metric graph:file=/dev/zero --eps 1", nil, data, "longer than"},
		{"tight --metric dist:file={dir}/d.csv --eps 1", f("d.csv", strings.Repeat("1,", 100000)+"0\n"), data, "limit"},
		{"audit --metric line:n=3 --eps 1 --matrix {dir}/m.csv", f("m.csv", ",\n,\n,\n"), data, "separators"},
		{"optimize --workload allrange:n=100000 --eps 1", nil, data, "memory budget"},
		{"optimize --workload allrange:n=8192 --eps 1", nil, data, "memory budget"},
		{"optimize --workload allrange:n=8192 --eps 1 --delta 1e-6", nil, data, "memory budget"},
		{"answer --workload identity:n=4 --strategy identity --eps 1 --data /dev/zero", nil, data, "longer than"},
		{"optimize --workload file:{dir}/w.csv --eps 1", f("w.csv", "0,0\n0,0\n"), data, "zero"},
		{"optimize --workload file:{dir}/w.csv --eps 1 --delta 1e-6", f("w.csv", "1e308,1e308\n1e308,0\n"), data, "Inf"},
		{"optimize --workload file:{dir}/w.csv --eps 1 --restarts 1001", f("w.csv", "1,0\n0,1\n"), usage, "restarts"},
		{"tight --metric clique:n=2147483648 --eps 1 --json", nil, []int{exitOK}, ""},
		{"threshold --metric ring:n=9 --steps 100000000", nil, usage, "steps"},
		{"threshold --metric graph:file={dir}/g.txt --steps 100000000", f("g.txt", "0 1\n1 2\n2 0\n2 3\n"), usage, "steps"},
		{"optimize --workload prefix:n=8 --eps 1 --restarts 1000000000", nil, usage, "restarts"},
		{"threshold --metric graph:file={dir}/g.txt --lo 1e-308 --hi 1e308", f("g.txt", "0 1\n1 2\n2 0\n2 3\n"), usage, ""},
		{"optimal --metric line:n=4 --eps 1e308 --prior uniform", nil, usage, "eps"},
		{"matrix --workload identity:n=2 --strategy file:{dir}/s.csv --eps 1", f("s.csv", "1e308,0\n0,1e308\n"), data, "not representable"},
		{"answer --workload identity:n=2 --strategy file:{dir}/s.csv --eps 1 --data {dir}/x.csv", map[string]string{"s.csv": "1e308,0\n0,1e308\n", "x.csv": "1 2\n"}, data, "not representable"},
		{"matrix --workload identity:n=2 --strategy file:{dir}/s.csv --eps 1", f("s.csv", "1e200,0\n0,1e200\n"), data, "not representable"},
		{"answer --workload identity:n=2 --strategy file:{dir}/s.csv --eps 1 --data {dir}/x.csv", map[string]string{"s.csv": "1e200,0\n0,1e200\n", "x.csv": "1 2\n"}, data, "not representable"},

		// --- sizes refused before they hang or allocate ---
		{"tight --metric sum:u=1000000000000,v=1000 --eps 1", nil, data, "too large"},
		{"tight --metric sum:u=100000000,v=100 --eps 1", nil, data, "too large"},
		{"threshold --metric sum:u=1000000000000,v=1000 --structured", nil, data, "too large"},
		{"tight --metric kcount:u=1000,k=5 --eps 1", nil, data, "too large"},
		{"tight --metric kcount:u=1,k=53 --eps 1", nil, data, ""},
		{"tight --metric grid:w=94906265,h=94906265 --eps 1", nil, data, "too large"},
		{"tight --metric line:n=9007199254740992 --eps 1 --out {dir}/o.csv", nil, data, "not built"},
		{"tight --metric hamming:u=53,v=2 --eps 1 --out {dir}/o.npy", nil, data, "not built"},
		{"tight --metric line:n=5 --eps 1 --out {dir}", nil, data, "directory"},
		{"tight --metric line:n=5 --eps 1 --out {dir}/no/such/dir/o.csv", nil, data, ""},
		{"compare --metric ring:n=1000000000 --eps 1", nil, data, ""},
		{"compare --metric hamming:u=53,v=2 --eps 1", nil, data, ""},
		{"optimal --metric line:n=100000 --eps 1 --prior uniform", nil, data, "budget"},
		{"optimize --workload random:n=100000,m=100000,seed=1 --eps 1", nil, data, "budget"},
		{"optimize --workload marginals:dims=1048576x1048576,k=2 --eps 1", nil, data, "budget"},
		{"optimize --workload range2d:n=100000 --eps 1", nil, usage, ""},
		{"matrix --workload allrange:n=100000 --strategy hier:b=2 --eps 1", nil, data, ""},
		{"matrix --workload width:n=1000000000,k=3 --strategy identity --eps 1", nil, data, ""},
		{"threshold --metric kcount:u=3,k=10", nil, data, "structured"},
		{"answer --workload identity:n=4 --strategy identity --eps 1 --data {dir}/x.csv", f("x.csv", "1,2\n3\n"), data, ""},

		// --- flags and command lines ---
		{"", nil, usage, ""},
		{"nosuchcommand", nil, usage, "unknown command"},
		{"help nosuchcommand", nil, usage, "unknown command"},
		{"tight", nil, usage, "--metric"},
		{"tight --metric line:n=4", nil, usage, "--eps"},
		{"tight --metric line:n=4 --eps", nil, usage, ""},
		{"tight --metric line:n=4 --eps abc", nil, usage, ""},
		{"tight --metric line:n=4 --eps NaN", nil, usage, ""},
		{"tight --metric line:n=4 --eps -1", nil, usage, ""},
		{"tight --metric line:n=4 --eps 0", nil, usage, ""},
		{"tight --metric line:n=4 --eps +Inf", nil, usage, ""},
		{"tight --metric line:n=4 --eps 1e-13", nil, usage, ""},
		{"tight --metric line:n=4 --eps 1e7", nil, usage, ""},
		{"tight --metric line:n=4 --eps 1 --bogus", nil, usage, ""},
		{"tight --metric line:n=4 --eps 1 extra", nil, usage, "unexpected"},
		{"tight --metric line:n=4 --eps 1 --solver nosuch", nil, usage, ""},
		{"tight --metric nosuch:n=4 --eps 1", nil, usage, "unknown"},
		{"tight --metric line --eps 1", nil, usage, ""},
		{"tight --metric line: --eps 1", nil, usage, ""},
		{"tight --metric line:n= --eps 1", nil, usage, ""},
		{"tight --metric line:n=x --eps 1", nil, usage, ""},
		{"tight --metric line:n=4,n=5 --eps 1", nil, usage, "twice"},
		{"tight --metric line:n=4,m=5 --eps 1", nil, usage, "unknown parameter"},
		{"tight --metric line:n=0 --eps 1", nil, spec, ""},
		{"tight --metric line:n=-5 --eps 1", nil, spec, ""},
		{"tight --metric line:n=99999999999999999999 --eps 1", nil, spec, ""},
		{"tight --metric line:n=9007199254740993 --eps 1", nil, spec, ""},
		{"tight --metric ring:n=0 --eps 1", nil, spec, ""},
		{"tight --metric clique:n=0 --eps 1", nil, spec, ""},
		{"tight --metric sum:u=0,v=1 --eps 1", nil, spec, ""},
		{"tight --metric sum:u=4294967296,v=4294967296 --eps 1", nil, spec, ""},
		{"tight --metric kcount:u=1,k=100 --eps 1", nil, spec, ""},
		{"tight --metric kcount:u=9223372036854775807,k=2 --eps 1", nil, spec, ""},
		{"tight --metric kcount:u=0,k=1 --eps 1", nil, spec, ""},
		{"tight --metric hamming:u=100,v=2 --eps 1", nil, spec, ""},
		{"tight --metric hamming:u=1,v=1 --eps 1", nil, spec, ""},
		{"tight --metric grid:w=0,h=3 --eps 1", nil, spec, ""},
		{"tight --metric grid:w=3,h=3,step=0 --eps 1", nil, spec, ""},
		{"tight --metric grid:w=3,h=3,step=-1 --eps 1", nil, spec, ""},
		{"tight --metric grid:w=3,h=3,step=NaN --eps 1", nil, spec, ""},
		{"tight --metric grid:w=3,h=3,step=Inf --eps 1", nil, spec, ""},
		{"tight --metric grid:w=3,h=3,norm=l7 --eps 1", nil, spec, ""},
		{"tight --metric grid:w=100000000,h=100000000 --eps 1", nil, spec, ""},
		{"tight --metric grid:w=4294967296,h=4294967296 --eps 1", nil, spec, ""},
		{"tight --metric hamming:u=53,v=2 --eps 1", nil, []int{exitOK}, ""}, // 2^53 answers, Kronecker: fine
		{"tight --metric line:n=100000 --eps 1 --solver dense", nil, data, "budget"},
		{"tight --metric clique:n=100000 --eps 1 --solver dense", nil, data, "budget"},
		{"threshold --metric line:n=4 --lo 2 --hi 1", nil, usage, ""},
		{"threshold --metric line:n=4 --lo 0 --hi 1", nil, usage, ""},
		{"threshold --metric line:n=4 --tol -1", nil, usage, ""},
		{"threshold --metric line:n=4 --steps 0", nil, usage, ""},
		{"threshold --metric line:n=4 --steps -5", nil, usage, ""},
		{"bound --u 0 --v 2 --eps 1", nil, usage, ""},
		{"bound --u 3 --v 2 --eps 1e308", nil, usage, ""},
		{"bound --u 3 --v 2", nil, usage, ""},
		{"bound --u 1000000000000 --v 1000000000000 --eps 1", nil, []int{exitOK, exitUsage, exitFailed}, ""},
		{"regular --metric line:n=4 --eps 1 --prior nosuch", nil, usage, ""},
		{"regular --metric line:n=4 --eps 1 --prior file:", nil, usage, ""},
		{"regular --metric line:n=4 --eps 1 --prior product:0.5,0.5", nil, usage, ""},
		{"regular --metric hamming:u=2,v=2 --eps 1 --prior product:0.5,x", nil, usage, ""},
		{"regular --metric hamming:u=2,v=2 --eps 1 --prior product:0.5,0.6", nil, spec, ""},
		{"regular --metric hamming:u=2,v=2 --eps 1 --prior product:0.5,0.25,0.25", nil, spec, ""},
		{"optimize --workload prefix:n=8 --eps 1 --restarts -1", nil, usage, ""},
		{"optimize --workload prefix:n=8 --eps 1 --max-iter 1000000000", nil, usage, ""},
		{"optimize --workload prefix:n=8 --eps 1 --delta 2", nil, usage, ""},
		{"optimize --workload prefix:n=8 --eps 1 --delta -1", nil, usage, ""},
		{"optimize --workload nosuch:n=8 --eps 1", nil, usage, ""},
		{"optimize --workload prefix:n=0 --eps 1", nil, usage, ""},
		{"optimize --workload prefix:n=-1 --eps 1", nil, usage, ""},
		{"optimize --workload prefix --eps 1", nil, usage, ""},
		{"optimize --workload identity:n=1000000000000 --eps 1", nil, data, "memory budget"},
		{"optimize --workload marginals:dims=2x0,k=1 --eps 1", nil, usage, ""},
		{"optimize --workload marginals:dims=x,k=1 --eps 1", nil, usage, ""},
		{"optimize --workload width:n=8,k=100 --eps 1", nil, usage, ""},
		{"optimize --workload random:n=8,m=-1,seed=1 --eps 1", nil, usage, ""},
		{"matrix --workload prefix:n=8 --strategy nosuch --eps 1", nil, usage, ""},
		{"matrix --workload prefix:n=8 --strategy hier:b=1 --eps 1", nil, usage, ""},
		{"matrix --workload prefix:n=8 --strategy hier:b=x --eps 1", nil, usage, ""},
		{"matrix --workload prefix:n=8 --strategy identity --eps 1 --calibration nosuch --delta 0.1", nil, usage, ""},
		{"matrix --workload prefix:n=8 --strategy identity --eps 1e-300", nil, usage, ""},
		{"matrix --workload prefix:n=8 --strategy identity", nil, usage, ""},
		{"answer --workload prefix:n=4 --strategy identity --eps 1", nil, usage, "--data"},
		{"answer --workload prefix:n=4 --strategy identity --eps 1 --data {dir}/none.csv", nil, data, ""},
		{"reproduce --only nosuch --out {dir}/out", nil, []int{exitUsage, exitFailed}, ""},

		// --- matrix files (audit, tight --out, strategies) ---
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/none.csv", nil, data, ""},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}", nil, data, ""},
		{"audit --metric line:n=2 --eps 1 --matrix /dev/zero", nil, data, "longer than"},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/m.csv", f("m.csv", ""), data, "no matrix rows"},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/m.csv", f("m.csv", "# nothing\n\n"), data, ""},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/m.csv", f("m.csv", "0.5,0.5\n0.5\n"), data, "rectangular"},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/m.csv", f("m.csv", "0.5,x\n0.5,0.5\n"), data, "not a number"},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/m.csv", f("m.csv", "NaN,1\n0.5,0.5\n"), data, ""},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/m.csv", f("m.csv", "Inf,1\n0.5,0.5\n"), data, ""},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/m.csv", f("m.csv", "-0.5,1.5\n0.5,0.5\n"), data, ""},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/m.csv", f("m.csv", "0.6,0.6\n0.5,0.5\n"), data, ""},
		{"audit --metric line:n=3 --eps 1 --matrix {dir}/m.csv", f("m.csv", stoch2), data, ""},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/m.csv", f("m.csv", "1e309,0\n0.5,0.5\n"), data, ""},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/m.csv", f("m.csv", "\x00\x01\x02"), data, ""},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/m.npy", f("m.npy", "not numpy"), data, "magic"},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/m.npy", f("m.npy", "\x93NUMPY\x01\x00\xff\xff{'descr'"), data, "truncated"},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/m.npy", f("m.npy", "\x93NUMPY\x09\x00"), data, ""},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/m.npy", f("m.npy", npyHeader("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }")), data, "float64"},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/m.npy", f("m.npy", npyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }")), data, "2-D"},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/m.npy", f("m.npy", npyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999, 99999999999), }")), data, "limit"},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/m.npy", f("m.npy", npyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }")), data, "bytes"},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/m.npy", f("m.npy", npyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (-2, 2), }")), data, ""},
		{"audit --metric line:n=2 --eps 1 --matrix {dir}/m.npy", f("m.npy", npyHeader("{'descr': '<f8', 'shape': (2, 2), }")), data, "fortran_order"},
		{"audit --metric line:n=2 --eps 1e7 --matrix {dir}/m.csv", f("m.csv", stoch2), usage, ""},
		{"matrix --workload identity:n=2 --strategy file:{dir}/s.csv --eps 1", f("s.csv", ",\n,\n"), data, ""},
		{"matrix --workload identity:n=2 --strategy file:{dir}/s.csv --eps 1", f("s.csv", "0,0\n0,0\n"), []int{exitFailed, exitUsage}, ""},
		{"matrix --workload identity:n=2 --strategy file:{dir}/s.csv --eps 1", f("s.csv", "1,0,0\n0,1,0\n"), []int{exitFailed, exitUsage}, ""},
		{"matrix --workload identity:n=2 --strategy file:/dev/zero --eps 1", nil, data, ""},
		{"matrix --workload file:{dir}/w.csv --strategy identity --eps 1", f("w.csv", "1,x\n"), data, ""},
		{"matrix --workload file:{dir}/w.json --strategy identity --eps 1", f("w.json", "{"), []int{exitFailed, exitUsage}, ""},
		{"matrix --workload file:{dir}/w.json --strategy identity --eps 1", f("w.json", `{"attributes": [{"name": "a", "size": -1}]}`), []int{exitFailed, exitUsage}, ""},
		{"answer --workload identity:n=4 --strategy identity --eps 1 --data {dir}/x.csv", f("x.csv", "1 2 3\n"), data, ""},
		{"answer --workload identity:n=4 --strategy identity --eps 1 --data {dir}/x.csv", f("x.csv", "1.5 2 3 4\n"), data, ""},
		{"answer --workload identity:n=4 --strategy identity --eps 1 --data {dir}/x.csv", f("x.csv", "1e300 2 3 4\n"), data, ""},
		{"answer --workload identity:n=4 --strategy identity --eps 1 --data {dir}/x.csv", f("x.csv", "NaN 2 3 4\n"), data, ""},
		{"answer --workload identity:n=4 --strategy identity --eps 1 --delta 1.5 --data {dir}/x.csv", f("x.csv", "1 2 3 4\n"), usage, ""},

		// --- graph and distance files ---
		{"tight --metric graph:file={dir}/none.txt --eps 1", nil, data, ""},
		{"tight --metric graph:file= --eps 1", nil, usage, ""},
		{"tight --metric graph:file={dir}/g.txt --eps 1", f("g.txt", ""), data, "no edges"},
		{"tight --metric graph:file={dir}/g.txt --eps 1", f("g.txt", "0 0\n"), data, "self loop"},
		{"tight --metric graph:file={dir}/g.txt --eps 1", f("g.txt", "0 -1\n"), data, ""},
		{"tight --metric graph:file={dir}/g.txt --eps 1", f("g.txt", "0 1 2\n"), data, ""},
		{"tight --metric graph:file={dir}/g.txt --eps 1", f("g.txt", "a b\n"), data, ""},
		{"tight --metric graph:file={dir}/g.txt --eps 1", f("g.txt", "n 2\n0 5\n"), data, ""},
		{"tight --metric graph:file={dir}/g.txt --eps 1", f("g.txt", "n 0\n"), data, ""},
		{"tight --metric graph:file={dir}/g.txt --eps 1", f("g.txt", "n x\n"), data, ""},
		{"tight --metric graph:file={dir}/g.txt --eps 1", f("g.txt", "n 3\nn 4\n0 1\n"), data, ""},
		{"tight --metric graph:file={dir}/g.txt --eps 1", f("g.txt", "99999999999999999999 1\n"), data, ""},
		{"tight --metric graph:file={dir}/g.txt --eps 1", f("g.txt", "0 1\n"+strings.Repeat("x", 70000)+"\n"), data, "longer than"},
		{"tight --metric graph:file={dir}/g.txt --eps 1", f("g.txt", "n 4194305\n0 1\n"), data, "MaxGraphVertices"},
		{"tight --metric graph:file={dir} --eps 1", nil, data, ""},
		{"tight --metric dist:file={dir}/d.csv --eps 1", f("d.csv", ""), data, "no rows"},
		{"tight --metric dist:file={dir}/d.csv --eps 1", f("d.csv", "0,1\n1,0,1\n"), data, "square"},
		{"tight --metric dist:file={dir}/d.csv --eps 1", f("d.csv", "0,1\n2,0\n"), data, "symmetric"},
		{"tight --metric dist:file={dir}/d.csv --eps 1", f("d.csv", "1,1\n1,1\n"), data, "diagonal"},
		{"tight --metric dist:file={dir}/d.csv --eps 1", f("d.csv", "0,-1\n-1,0\n"), data, "positive"},
		{"tight --metric dist:file={dir}/d.csv --eps 1", f("d.csv", "0,0\n0,0\n"), data, "positive"},
		{"tight --metric dist:file={dir}/d.csv --eps 1", f("d.csv", "0,NaN\nNaN,0\n"), data, "NaN"},
		{"tight --metric dist:file={dir}/d.csv --eps 1", f("d.csv", "0,1,9\n1,0,1\n9,1,0\n"), data, "triangle"},
		{"tight --metric dist:file={dir}/d.csv --eps 1", f("d.csv", "0,\"1\n"), data, ""},
		{"tight --metric dist:file={dir}/d.csv --eps 1", f("d.csv", ",\n,\n"), data, ""},
		{"tight --metric dist:file={dir}/d.csv --eps 1", f("d.csv", "0,1\n1,0\n1,1\n"), data, "rows"},

		// --- priors ---
		{"compare --metric line:n=3 --eps 1 --prior file:{dir}/p.txt", f("p.txt", "0.5 0.5\n"), data, "want 3"},
		{"compare --metric line:n=3 --eps 1 --prior file:{dir}/p.txt", f("p.txt", "0.5 0.5 0.5\n"), data, ""},
		{"compare --metric line:n=3 --eps 1 --prior file:{dir}/p.txt", f("p.txt", "-1 1 1\n"), data, ""},
		{"compare --metric line:n=3 --eps 1 --prior file:{dir}/p.txt", f("p.txt", "NaN 0.5 0.5\n"), data, ""},
		{"compare --metric line:n=3 --eps 1 --prior file:{dir}/p.txt", f("p.txt", "x y z\n"), data, ""},
		{"compare --metric line:n=3 --eps 1 --prior file:{dir}/p.txt", f("p.txt", strings.Repeat("0.1 ", 100000)), data, "more than"},
		{"compare --metric line:n=3 --eps 1 --prior file:/dev/zero", nil, data, ""},
		{"compare --metric line:n=3 --eps 1 --prior file:{dir}/none.txt", nil, data, ""},
		{"optimal --metric line:n=3 --eps 1 --prior file:{dir}/p.txt", f("p.txt", "1e308 1e308 1e308\n"), data, ""},
		{"optimal --metric line:n=3 --eps 1 --prior uniform --gain nosuch", nil, usage, ""},
		{"optimal --metric line:n=3 --eps 1 --prior uniform --tol -1", nil, usage, ""},
		{"optimal --metric line:n=3 --eps 1e-300 --prior uniform", nil, usage, ""},
		{"optimal --metric hamming:u=40,v=2 --eps 1 --prior uniform", nil, spec, ""},
		{"regular --metric line:n=3 --eps 1 --prior file:{dir}/p.txt", f("p.txt", ",,,\n"), data, ""},
		// --- the misuse corpus: sizes checked before allocation, counts
		// carried exactly, errors in records files are data errors ---
		{"matrix --workload random:n=10,m=1000000000000,seed=1 --strategy identity --eps 1", nil, data, "too large"},
		{"matrix --workload file:{dir}/w.csv --strategy identity --eps 1", f("w.csv", "1e300,1e300,0\n0,1e300,1e300\n"), data, "rescale the workload"},
		{"answer --workload identity:n=3 --strategy identity --eps 1 --data {dir}/x.csv", f("x.csv", "1,2,9007199254740993\n"), data, "2^53"},
		{"answer --workload identity:n=3 --strategy identity --eps 1 --data {dir}/x.csv", f("x.csv", "1,2,99999999999999999999\n"), data, "out of range"},
		{"answer --workload identity:n=3 --strategy identity --eps 1 --data {dir}/x.csv", f("x.csv", "1,-2,3\n"), data, "negative"},
		{"answer --workload identity:n=3 --strategy identity --eps 1 --data {dir}/x.csv", f("x.csv", "1,2,3,4\n"), data, "more than the n = 3"},
		{"answer --workload identity:n=3 --strategy identity --eps 1 --records {dir}/r.csv", f("r.csv", "a0,a0\n1,2\n"), data, "twice"},
		{"answer --workload identity:n=3 --strategy identity --eps 1 --records {dir}/r.csv", f("r.csv", "a0\n7\n"), data, "outside the attribute's domain [0, 3)"},
		{"answer --workload identity:n=3 --strategy identity --eps 1 --records {dir}/r.csv", f("r.csv", "b\n1\n"), data, "no column"},
		{"answer --workload identity:n=3 --strategy identity --eps 1 --records /dev/zero", nil, data, ""},
		{"matrix --workload file:{dir}/w.json --strategy identity --eps 1", f("w.json", `{"attributes":[{"name":"a","size":3}],"workload":[{"blocks":{"a":"identity"}}]} {}`), data, "trailing"},
	}
}

// npyHeader is a version-1.0 .npy file with the given header dict and no
// data.
func npyHeader(dict string) string {
	h := dict + "\n"
	return "\x93NUMPY\x01\x00" + string([]byte{byte(len(h)), byte(len(h) >> 8)}) + h
}

// TestBadInputCorpus runs the corpus through the CLI's run function.
func TestBadInputCorpus(t *testing.T) {
	cases := badInputCorpus()
	if len(cases) < 100 {
		t.Fatalf("the corpus has %d cases, want at least 100", len(cases))
	}
	for k, c := range cases {
		name := fmt.Sprintf("%03d %s", k, c.args)
		if len(name) > 100 {
			name = name[:100]
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for fn, body := range c.files {
				if err := os.WriteFile(filepath.Join(dir, fn), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var args []string
			if c.args != "" {
				for _, a := range strings.Fields(c.args) {
					args = append(args, strings.ReplaceAll(a, "{dir}", dir))
				}
			}
			code, stdout, stderr, alloc, ok := runBounded(args, badInputTimeout)
			if !ok {
				t.Fatalf("optdp %s: still running after %v", c.args, badInputTimeout)
			}
			checkBadInput(t, c, code, stderr, alloc)
			// No half-printed result before a refusal (optimal --eps 1e308
			// printed a bracket first), no NaN passed off as an answer.
			if (code == exitFailed || code == exitUsage) && stdout != "" && c.args != "" {
				t.Errorf("optdp %s: exit %d after printing to stdout:\n%s", c.args, code, stdout)
			}
			if code == exitOK && strings.Contains(stdout, "NaN") {
				t.Errorf("optdp %s: exit 0 with NaN in the output:\n%s", c.args, stdout)
			}
		})
	}
}

// runBounded runs the CLI in-process and returns its exit code, stdout, stderr,
// the bytes allocated meanwhile, and false when it did not finish in time
// (or panicked: the panic is then in stderr).
func runBounded(args []string, timeout time.Duration) (int, string, string, uint64, bool) {
	var stdout, stderr bytes.Buffer
	type result struct {
		code  int
		panic any
	}
	done := make(chan result, 1)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{code: -1, panic: p}
			}
		}()
		done <- result{code: run(args, &stdout, &stderr)}
	}()
	select {
	case r := <-done:
		runtime.ReadMemStats(&after)
		if r.panic != nil {
			return -1, "", fmt.Sprintf("panic: %v", r.panic), 0, true
		}
		return r.code, stdout.String(), stderr.String(), after.TotalAlloc - before.TotalAlloc, true
	case <-time.After(timeout):
		return -1, "", "", 0, false
	}
}

// checkBadInput applies the corpus's contract to one run.
func checkBadInput(t *testing.T, c badCase, code int, stderr string, alloc uint64) {
	t.Helper()
	okCode := false
	for _, w := range c.codes {
		okCode = okCode || code == w
	}
	if !okCode {
		t.Errorf("optdp %s: exit code %d, want one of %v; stderr:\n%s", c.args, code, c.codes, stderr)
	}
	for _, bad := range []string{"goroutine ", "panic", "runtime error", ".go:"} {
		if strings.Contains(stderr, bad) {
			t.Errorf("optdp %s: stderr holds %q (a crash):\n%s", c.args, bad, stderr)
		}
	}
	if code != exitOK {
		lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
		msg := lines[0]
		switch {
		case c.args == "" && code == exitUsage:
			// bare optdp prints the help to stderr
		case !strings.HasPrefix(msg, "optdp"):
			t.Errorf("optdp %s: message %q does not start with \"optdp\"", c.args, msg)
		case len(lines) > 2 || (len(lines) == 2 && !strings.HasPrefix(lines[1], "run `optdp help")):
			t.Errorf("optdp %s: message has %d lines, want one (and the usage hint):\n%s", c.args, len(lines), stderr)
		case len(msg) > 1000:
			t.Errorf("optdp %s: message of %d bytes", c.args, len(msg))
		}
		if c.want != "" && !strings.Contains(stderr, c.want) {
			t.Errorf("optdp %s: message %q does not mention %q", c.args, msg, c.want)
		}
	}
	if alloc > badInputAlloc {
		t.Errorf("optdp %s: allocated %d MiB (limit %d MiB)", c.args, alloc>>20, badInputAlloc>>20)
	}
}

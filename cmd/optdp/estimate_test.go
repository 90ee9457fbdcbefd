package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A dense solve of n >= 1000 answers is announced on stderr with its memory
// and a time estimate before it starts; --json keeps stderr quiet.
func TestTightAnnouncesDenseSolve(t *testing.T) {
	const n = 1200
	var b strings.Builder
	for i := 0; i+1 < n; i++ {
		fmt.Fprintf(&b, "%d %d\n", i, i+1)
	}
	fmt.Fprintf(&b, "0 %d\n", n/2) // a chord: no closed form applies
	path := filepath.Join(t.TempDir(), "g.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"tight", "--metric", "graph:file=" + path, "--eps", "1", "--no-matrix"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// Phi and its factor: 2·8·n² bytes.
	want := fmt.Sprintf("dense solve of n = %d: %.3g GB of memory, about ", n, 2*8*float64(n)*n/1e9)
	if !strings.Contains(errb.String(), want) {
		t.Errorf("stderr %q lacks %q", errb.String(), want)
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"tight", "--metric", "graph:file=" + path, "--eps", "1", "--no-matrix", "--json"}, &out, &errb); code != 0 || errb.Len() != 0 {
		t.Errorf("--json: exit %d, stderr %q", code, errb.String())
	}
}

package repro

import (
	"context"
	"os"
	"testing"
)

// runOne runs the named experiment in Quick mode into a temporary directory.
func runOne(t *testing.T, name string) (*Result, string) {
	t.Helper()
	exps, err := Select([]string{name})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if d := os.Getenv("REPRO_KEEP"); d != "" {
		dir = d
	}
	rep, err := Run(context.Background(), exps, &Config{Dir: dir, Quick: os.Getenv("REPRO_FULL") == ""}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	if r.Err != "" {
		t.Fatalf("%s failed: %s", name, r.Err)
	}
	if os.Getenv("REPRO_SHOW") != "" {
		b, _ := os.ReadFile(dir + "/REPORT.md")
		t.Logf("%s", b)
	}
	return r, dir
}

func TestShow(t *testing.T) {
	for _, n := range []string{"matrix"} {
		runOne(t, n)
	}
}

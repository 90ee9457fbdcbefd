//go:build cgo

package main

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/run"
)

// classOf names the class of an error as the C ABI reports it: an error
// outside the three sentinel classes (or a panic) fails the tests below.
func classOf(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, run.ErrBadInput):
		return "bad input"
	case errors.Is(err, run.ErrTooLarge):
		return "too large"
	case errors.Is(err, linear.ErrUnsupported):
		return "unsupported"
	}
	return "other"
}

// TestWorkloadFileDevice: a workload file node naming /dev/zero (endless)
// or a directory is refused at the command-line tool's limit, not read
// without bound.
func TestWorkloadFileDevice(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := workloadText(`{"op":"file","path":"/dev/zero"}`)
	if !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("/dev/zero: %v, want run.ErrTooLarge", err)
	}
	_, err = workloadText(`{"op":"file","path":"` + t.TempDir() + `"}`)
	if !errors.Is(err, run.ErrBadInput) {
		t.Errorf("a directory: %v, want run.ErrBadInput", err)
	}
	// Trailing data after the file's JSON object is refused (as the CLI
	// does, with the same parser).
	p := filepath.Join(t.TempDir(), "w.json")
	doc := `{"attributes":[{"name":"a","size":3}],"workload":[{"blocks":{"a":"identity"}}]}`
	if err := os.WriteFile(p, []byte(doc+` {"x":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := workloadText(`{"op":"file","path":` + quote(p) + `}`); !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), "trailing") {
		t.Errorf("trailing data: %v, want a bad-input error about it", err)
	}
	if err := os.WriteFile(p, []byte(doc+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := workloadText(`{"op":"file","path":` + quote(p) + `}`); err != nil {
		t.Errorf("a valid file: %v", err)
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestRandomRangeHuge: a random range workload of 10^12 queries is refused
// as too large before its 16 TB of intervals are allocated.
func TestRandomRangeHuge(t *testing.T) {
	_, err := workloadText(`{"op":"random_range","n":10,"m":1000000000000,"seed":1}`)
	if !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("m = 1e12: %v, want run.ErrTooLarge", err)
	}
}

// TestOperatorDepth: a deeply nested tree is refused by its depth, with a
// bad-input error; the limit itself is accepted.
func TestOperatorDepth(t *testing.T) {
	nest := func(d int) string {
		s := `{"op":"identity","n":3}`
		for i := 1; i < d; i++ {
			s = `{"op":"scale","c":1,"workload":` + s + `}`
		}
		return s
	}
	if _, err := workloadText(nest(maxOpDepth)); err != nil {
		t.Errorf("depth %d: %v", maxOpDepth, err)
	}
	if _, err := workloadText(nest(maxOpDepth + 1)); !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), "nested") {
		t.Errorf("depth %d: %v, want a bad-input error naming the nesting", maxOpDepth+1, err)
	}
	if _, err := workloadText(nest(5000)); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("depth 5000: %v", err)
	}
}

// TestOptionsRefuseNegative: negative numbers in the options of the long
// computations are refused (by the library's own validation, or the
// budget by control.start), never read as the defaults.
func TestOptionsRefuseNegative(t *testing.T) {
	var c control
	for _, b := range []run.Budget{-1, -1 << 40} {
		if _, _, err := c.start(&run.Settings{Budget: b}); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("budget %d: %v, want run.ErrBadInput", b, err)
		}
	}
	ctx, cancel, err := c.start(&run.Settings{})
	if err != nil || ctx == nil {
		t.Fatalf("budget 0: %v", err)
	}
	cancel()
	for _, s := range []string{`{"cancel":0,"timeout_s":-1}`, `{"timeout_s":1e300}`} {
		var a tightArgs
		if err := decodeText(s, &a, "options", true); err != nil {
			t.Fatal(err)
		}
		if _, _, err := a.control.start(&a.Settings); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("%s: %v, want run.ErrBadInput", s, err)
		}
	}
}

// TestArrayChecks: the checks of the array arguments (shape before any
// read, non-finite entries) and of the output allocations.
func TestArrayChecks(t *testing.T) {
	for _, rc := range [][2]int64{{0, 3}, {3, 0}, {-1, 4}, {4, -1}} {
		if err := checkShape(rc[0], rc[1], "m"); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("shape %v: %v, want run.ErrBadInput", rc, err)
		}
	}
	for _, rc := range [][2]int64{{1 << 20, 1 << 20}, {math.MaxInt64, 2}, {2, math.MaxInt64}} {
		if err := checkShape(rc[0], rc[1], "m"); !errors.Is(err, run.ErrTooLarge) {
			t.Errorf("shape %v: %v, want run.ErrTooLarge", rc, err)
		}
	}
	if _, bad := checkFloats([]float64{1, math.Inf(1), math.NaN()}, false); bad != 1 {
		t.Errorf("first non-finite entry at %d, want 1", bad)
	}
	if _, bad := checkFloats([]float64{1, math.Inf(1), math.NaN()}, true); bad != 2 {
		t.Errorf("first NaN at %d, want 2", bad)
	}
	// An output over the budget is refused before malloc is called.
	if _, err := cmalloc(1<<40, "a test output"); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("cmalloc(1 TiB): %v, want run.ErrTooLarge", err)
	}
}

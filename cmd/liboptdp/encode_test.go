//go:build cgo

package main

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/optdp/optdp/run"
)

// TestEncode checks the JSON writer against encoding/json on finite values
// and the documented tokens for non-finite ones.
func TestEncode(t *testing.T) {
	v := obj{
		{"a", 1.5}, {"b", []float64{0.1, -2, 1e300}}, {"s", "x\"y\n"}, {"ok", true}, {"n", nil},
		{"i", []int{1, -2}}, {"nested", obj{{"k", int64(-3)}, {"u", uint64(1 << 63)}}}, {"l", []any{"p", 2.0}},
	}
	got, err := encode(v)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal([]byte(got), &back); err != nil {
		t.Fatalf("%s is not JSON: %v", got, err)
	}
	if back["s"] != "x\"y\n" || back["b"].([]any)[0] != 0.1 || back["b"].([]any)[2] != 1e300 {
		t.Errorf("round trip of %s gave %v", got, back)
	}
	if !strings.HasPrefix(got, `{"a":1.5,"b":`) {
		t.Errorf("members out of order: %s", got)
	}
	nf, err := encode(obj{{"x", []float64{math.Inf(1), math.Inf(-1), math.NaN()}}})
	if err != nil || nf != `{"x":[Infinity,-Infinity,NaN]}` {
		t.Errorf("non-finite: %q, %v", nf, err)
	}
	if _, err := encode(obj{{"c", complex(1, 2)}}); err == nil {
		t.Error("a complex number was encoded")
	}
}

// TestHandles checks the handle table: handles are never 0, lookups check
// the type, and a released handle is refused with a bad-input error.
func TestHandles(t *testing.T) {
	h := register(&canceller{})
	if h == 0 {
		t.Fatal("handle 0")
	}
	if _, err := lookup[*canceller](h, "cancellation token"); err != nil {
		t.Fatal(err)
	}
	if _, err := lookup[*lockedSource](h, "random generator"); !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), "not a random generator") {
		t.Errorf("wrong type: %v", err)
	}
	optdp_release(h)
	if _, err := lookup[*canceller](h, "cancellation token"); !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), "not a live") {
		t.Errorf("released: %v", err)
	}
	optdp_release(h) // twice: nothing happens
}

// TestCode checks the classification of the sentinel errors.
func TestCode(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{badInput("x"), 1}, {run.ErrTooLarge, 2}, {run.ErrNotConverged, 3}, {errors.New("other"), 5},
	} {
		if got := int(code(c.err)); got != c.want {
			t.Errorf("code(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

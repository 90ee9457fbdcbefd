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
	type inner struct {
		K int64  `json:"k"`
		U uint64 `json:"u"`
	}
	type base struct {
		A    float64 `json:"a"`
		Gone string  `json:"-"`
		Hid  int     `json:"hid"`
	}
	type doc struct {
		base
		B      []float64   `json:"b"`
		S      string      `json:"s"`
		OK     bool        `json:"ok,omitempty"`
		N      *inner      `json:"n"`
		I      [2]int      `json:"i"`
		Nested inner       `json:"nested"`
		L      []any       `json:"l"`
		V      run.Verdict `json:"v"`
		E      []float64   `json:"e"`
		Hid    string      `json:"shown"`
		hidden int
	}
	_ = doc{}.hidden
	v := doc{
		base: base{A: 1.5, Gone: "x", Hid: 7}, B: []float64{0.1, -2, 1e300}, S: "x\"y\n",
		I: [2]int{1, -2}, Nested: inner{-3, 1 << 63}, L: []any{"p", 2.0}, V: run.Borderline, Hid: "h",
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
	want := `{"a":1.5,"b":[0.1,-2,1e+300],"s":"x\"y\n","ok":false,"n":null,"i":[1,-2],` +
		`"nested":{"k":-3,"u":9223372036854775808},"l":["p",2],"v":"borderline","e":[],"shown":"h"}`
	if got != want {
		t.Errorf("encode:\n got %s\nwant %s", got, want)
	}
	nf, err := encode(struct {
		X []float64 `json:"x"`
	}{[]float64{math.Inf(1), math.Inf(-1), math.NaN()}})
	if err != nil || nf != `{"x":[Infinity,-Infinity,NaN]}` {
		t.Errorf("non-finite: %q, %v", nf, err)
	}
	if _, err := encode(struct {
		C complex128 `json:"c"`
	}{complex(1, 2)}); err == nil {
		t.Error("a complex number was encoded")
	}
	if _, err := encode(struct{ Untagged int }{1}); err == nil {
		t.Error("a field without a JSON name was encoded")
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

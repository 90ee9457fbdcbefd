//go:build cgo

package main

import (
	"errors"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/optdp/optdp/run"
)

// TestSchema checks that every document type has a schema (every field
// named, no name twice) and that every function optdp.h declares with a
// JSON output is in results.
func TestSchema(t *testing.T) {
	s, err := schema()
	if err != nil {
		t.Fatal(err)
	}
	tr := s["optdp_tight"].(map[string]any)
	for _, k := range []string{"n", "exists", "certificate", "mix", "note", "iterations", "residual", "audit"} {
		if _, ok := tr[k]; !ok {
			t.Errorf("optdp_tight's schema lacks %q: %v", k, tr)
		}
	}
	if v := tr["audit"].(map[string]any)["violation"].(map[string]any); len(v) != 5 {
		t.Errorf("the violation's keys: %v", v)
	}
	if _, ok := tr["x"]; ok {
		t.Error("optdp_tight's schema lists the matrix x")
	}
	if _, ok := s["optdp_linear_answer"].(map[string]any)["groups"]; ok {
		t.Error("optdp_linear_answer's schema lists groups")
	}
	h, err := os.ReadFile("optdp.h")
	if err != nil {
		t.Fatal(err)
	}
	declRE := regexp.MustCompile(`(?ms)^int (optdp_\w+)\(([^;]*)\);`)
	n := 0
	for _, m := range declRE.FindAllStringSubmatch(string(h), -1) {
		if !strings.Contains(m[2], "char **json") && !strings.Contains(m[2], "char **info") {
			continue
		}
		n++
		if m[1] == "optdp_schema" || m[1] == "optdp_linear_info" {
			continue
		}
		if _, ok := results[m[1]]; !ok {
			t.Errorf("%s returns JSON but is not in results", m[1])
		}
	}
	if n < 15 {
		t.Errorf("found %d functions with a JSON output", n)
	}
}

// TestOptionKeys checks that the options arguments decode into the
// library's option types under the documented keys, with the control keys,
// and refuse unknown keys and trailing data.
func TestOptionKeys(t *testing.T) {
	want := map[reflect.Type]string{
		reflect.TypeFor[tightArgs]():        "cancel timeout_s solver max_mechanism_n no_mechanism budget",
		reflect.TypeFor[thresholdArgs]():    "cancel timeout_s lo hi tol steps budget structured",
		reflect.TypeFor[optimalArgs]():      "cancel timeout_s gain method delta tol max_iter workers budget matrix_kind partial",
		reflect.TypeFor[optimizeArgs]():     "cancel timeout_s budget eps delta restarts seed p max_iter",
		reflect.TypeFor[capacityArgs]():     "cancel timeout_s tol max_iter budget",
		reflect.TypeFor[gCapacityArgs]():    "cancel timeout_s max_strategies budget",
		reflect.TypeFor[marginalPlanArgs](): "cancel timeout_s budget eps delta loss tol max_iter attr_queries",
	}
	for ty, w := range want {
		if got := strings.Join(jsonNames(ty), " "); got != w {
			t.Errorf("%s: keys %q, want %q", ty, got, w)
		}
	}
	var o optimalArgs
	if err := decodeText(`{"method": "spanner", "delta": 1.5, "budget": 1024, "matrix_kind": "loss", "cancel": 0}`, &o, "options", false); err != nil {
		t.Fatal(err)
	}
	if o.Method != "spanner" || o.Delta != 1.5 || o.Budget != 1024 || o.MatrixKind != "loss" {
		t.Errorf("decoded %+v", o)
	}
	err := decodeText(`{"tol": 1e-6, "max_strategies": 3}`, new(capacityArgs), "options", false)
	if !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), `unknown key "max_strategies"`) ||
		!strings.Contains(err.Error(), "tol, max_iter") {
		t.Errorf("unknown key: %v", err)
	}
	if err := decodeText(`{"lo": 1} {}`, new(thresholdArgs), "options", false); err == nil || !strings.Contains(err.Error(), "trailing") {
		t.Errorf("trailing data: %v", err)
	}
}

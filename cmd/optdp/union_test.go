package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unionWorkloadFile writes the JSON workload "prefix queries on a, and
// prefix queries on b" over a 32×32 domain, where a union of two Kronecker
// strategies beats every single one (mech/linear TestOptimizeUnionDense).
func unionWorkloadFile(t *testing.T) string {
	t.Helper()
	wf := filepath.Join(t.TempDir(), "w.json")
	spec := `{"attributes": [{"name": "a", "size": 32}, {"name": "b", "size": 32}],
	  "workload": [{"blocks": {"a": "prefix"}}, {"blocks": {"b": "prefix"}}]}`
	if err := os.WriteFile(wf, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return wf
}

// TestOptimizeCLIUnion: optdp optimize reports the union (method, one
// entry per block with budget shares summing to 1, each block answering
// one of the two terms), its tse is below every baseline's including the
// single Kronecker strategy's, and the text output lists the blocks;
// optdp answer --strategy opt releases with it (one answer per query,
// 64 queries) and reports the same expected error.
func TestOptimizeCLIUnion(t *testing.T) {
	wf := unionWorkloadFile(t)
	for _, delta := range []string{"", "1e-6"} {
		args := []string{"optimize", "--workload", "file:" + wf, "--eps", "1"}
		if delta != "" {
			args = append(args, "--delta", delta)
		}
		v := matrixJSON(t, args...)
		if m := v["method"].(string); !strings.HasSuffix(m, "-union") {
			t.Fatalf("delta %q: method %v, want a union", delta, m)
		}
		blocks := v["blocks"].([]any)
		share := 0.0
		for _, b := range blocks {
			bm := b.(map[string]any)
			share += bm["share"].(float64)
			if bm["terms"].(float64) != 1 {
				t.Errorf("delta %q: block %v answers %v terms, want 1", delta, bm["strategy"], bm["terms"])
			}
		}
		if len(blocks) != 2 || math.Abs(share-1) > 1e-12 {
			t.Errorf("delta %q: %d blocks, shares sum to %v", delta, len(blocks), share)
		}
		tse := v["tse"].(float64)
		single := false
		for _, b := range v["baselines"].([]any) {
			bm := b.(map[string]any)
			single = single || strings.HasPrefix(bm["name"].(string), "single ")
			if !(tse < bm["tse"].(float64)) {
				t.Errorf("delta %q: tse %v not below %v", delta, tse, bm)
			}
		}
		if !single {
			t.Errorf("delta %q: the single Kronecker strategy is not among the baselines", delta)
		}
		code, out, errs := runMatrixCLI(args...)
		if code != 0 || !strings.Contains(out, "block 2") || !strings.Contains(out, "% of the budget") {
			t.Errorf("delta %q: text output (exit %d, %s) lacks the blocks:\n%s", delta, code, errs, out)
		}
	}
	data := filepath.Join(t.TempDir(), "x.csv")
	var sb strings.Builder
	for i := 0; i < 1024; i++ {
		sb.WriteString("3\n")
	}
	if err := os.WriteFile(data, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := matrixJSON(t, "optimize", "--workload", "file:"+wf, "--eps", "1")
	v := matrixJSON(t, "answer", "--workload", "file:"+wf, "--strategy", "opt", "--eps", "1", "--data", data, "--seed", "1")
	if n := len(v["answers"].([]any)); n != 64 {
		t.Errorf("answer: %d answers, want 64", n)
	}
	// The released strategy is the optimised one rounded to 2^-20 per
	// factor: the same expected error to about 1e-4 (1.6e-5 observed).
	if e, o := v["expected_tse"].(float64), opt["tse"].(float64); math.Abs(e-o) > 1e-4*o {
		t.Errorf("answer: expected tse %v, optimize reported %v", e, o)
	}
}

package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStreamCommand: the JSON report of optdp stream (single and fixed
// epochs) carries a certified optimum that beats the banded Toeplitz
// strategy and the baselines; --out writes C, --release releases a stream
// reproducibly with --seed; bad flags exit 2.
func TestStreamCommand(t *testing.T) {
	dir := t.TempDir()
	var dual32 float64
	for _, part := range []string{"single", "epochs:k=2,b=16"} {
		code, out, errs := cli("stream", "--workload", "prefix:n=32", "--participation", part, "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", part, code, errs)
		}
		var r streamOutput
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		s := r.Strategy
		if s.Name != "dense" || math.Abs(s.Sens2-1) > 1e-9 || s.RelGap == nil || float64(*s.RelGap) > 1e-6 {
			t.Errorf("%s: strategy %+v", part, s)
		}
		if r.Banded == nil || r.Banded.Total < float64(*s.Dual) {
			t.Errorf("%s: banded %+v below the dual bound %v", part, r.Banded, *s.Dual)
		}
		names := []string{}
		for _, b := range r.Baselines {
			names = append(names, b.Name)
			if b.Total == nil || float64(*b.Total) < float64(*s.Dual) {
				t.Errorf("%s: baseline %s total %v below the dual bound %v", part, b.Name, b.Total, *s.Dual)
			}
		}
		if strings.Join(names, ",") != "identity,binary tree,honaker,sqrt" {
			t.Errorf("%s: baselines %v", part, names)
		}
		if part == "single" {
			dual32 = float64(*s.Dual)
		}
	}
	// BLT: the coefficients are scale·Σ alpha_i lambda_i^(t-1), and the
	// total is above the certified dense dual bound.
	code, out, errs := cli("stream", "--workload", "prefix:n=32", "--family", "blt", "--buffers", "2", "--json")
	if code != 0 {
		t.Fatalf("blt: exit %d: %s", code, errs)
	}
	var rb streamOutput
	if err := json.Unmarshal([]byte(out), &rb); err != nil {
		t.Fatal(err)
	}
	if b := rb.Strategy.BLT; b == nil || len(b.Alpha) != 2 || len(rb.Strategy.Coef) != 32 || rb.Strategy.Total < dual32 {
		t.Fatalf("blt: %+v (dense dual %v)", rb.Strategy, dual32)
	}
	b := rb.Strategy.BLT
	for tt, c := range rb.Strategy.Coef {
		want := b.Scale
		if tt > 0 {
			want = b.Scale * (b.Alpha[0]*math.Pow(b.Lambda[0], float64(tt-1)) + b.Alpha[1]*math.Pow(b.Lambda[1], float64(tt-1)))
		}
		if math.Abs(c-want) > 1e-12 {
			t.Errorf("blt c_%d = %v, want %v", tt, c, want)
		}
	}
	data := filepath.Join(dir, "x.txt")
	if err := os.WriteFile(data, []byte("1\n0\n1\n1\n0\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"stream", "--workload", "prefix:n=8", "--family", "toeplitz", "--bands", "4", "--out", filepath.Join(dir, "c.npy"), "--release", data, "--eps", "1", "--delta", "1e-6", "--seed", "3", "--json"}
	code, out1, errs := cli(args...)
	if code != 0 {
		t.Fatalf("release: exit %d: %s", code, errs)
	}
	_, out2, _ := cli(args...)
	var r, r2 streamOutput
	if err := json.Unmarshal([]byte(out1), &r); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out2), &r2); err != nil {
		t.Fatal(err)
	}
	j1, _ := json.Marshal(r.Release)
	j2, _ := json.Marshal(r2.Release)
	if string(j1) != string(j2) || r.Release == nil || len(r.Release.Steps) != 6 || len(r.Strategy.Coef) != 4 {
		t.Errorf("release not reproducible or incomplete:\n%s", out1)
	}
	if _, err := os.Stat(filepath.Join(dir, "c.npy")); err != nil {
		t.Error(err)
	}
	for _, bad := range [][]string{
		{"stream", "--workload", "prefix:n=0"},
		{"stream", "--workload", "allrange:n=8"},
		{"stream", "--workload", "prefix:n=8", "--participation", "epochs:k=2"},
		{"stream", "--workload", "prefix:n=8", "--loss", "max", "--family", "dense", "--participation", "epochs:k=2,b=4"},
		{"stream", "--workload", "prefix:n=8", "--release", data},
		{"stream", "--workload", "prefix:n=8", "--family", "blt", "--buffers", "0"},
	} {
		if code, _, errs := cli(bad...); code != exitUsage {
			t.Errorf("%v: exit %d (%s), want %d", bad, code, errs, exitUsage)
		}
	}
}

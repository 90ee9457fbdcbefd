package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"
)

// TestHeaderDeclaresEveryExport checks that optdp.h declares exactly the
// functions this package exports. (The build already checks that each
// declaration agrees with its export's C types: the header is included in
// the cgo preamble.)
func TestHeaderDeclaresEveryExport(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	exportRE := regexp.MustCompile(`(?m)^//export (optdp_\w+)$`)
	exported := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range exportRE.FindAllStringSubmatch(string(b), -1) {
			exported[m[1]] = true
		}
	}
	h, err := os.ReadFile("optdp.h")
	if err != nil {
		t.Fatal(err)
	}
	declRE := regexp.MustCompile(`(?m)^(?:int|void) (optdp_\w+)\(`)
	declared := map[string]bool{}
	for _, m := range declRE.FindAllStringSubmatch(string(h), -1) {
		declared[m[1]] = true
	}
	if len(exported) < 30 {
		t.Fatalf("found only %d exports: %v", len(exported), keys(exported))
	}
	for name := range exported {
		if !declared[name] {
			t.Errorf("%s is exported but not declared in optdp.h", name)
		}
	}
	for name := range declared {
		if !exported[name] {
			t.Errorf("optdp.h declares %s, which is not exported", name)
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

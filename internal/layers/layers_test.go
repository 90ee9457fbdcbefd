package layers

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/optdp/optdp/"

// floors is the floor of every package of the module, as drawn in
// docs/ARCHITECTURE.md ("Floors"): a package may import only packages on
// lower floors, in every build (default, netlib, noasm) and in its non-test
// files. bench and the test-only helpers sit above everything they test.
var floors = map[string]int{
	"run":                0,
	"backend_pure":       0,
	"backend_netlib":     0,
	"lp/internal/kernel": 0,
	"lp/internal/mem":    0,

	"backend":            1,
	"spectrum":           1,
	"internal/readlimit": 1,
	"internal/lattice":   1,
	"internal/mmref":     1,
	"internal/stable":    1,
	"internal/layers":    1,

	"solve":       2,
	"sdp":         2,
	"lp/ldl":      2,
	"mech/metric": 2,

	"lp/internal/orbit":  3,
	"lp/internal/percol": 3,
	"lp/internal/price":  3,
	"lp/internal/schur":  3,
	"mech":               3,

	"lp":                    4,
	"mech/internal/reftest": 4,

	"mech/tight":   5,
	"mech/optimal": 5,
	"mech/linear":  5,

	"mech/stream":        6,
	"mech/linear/tables": 6,

	"repro":        7,
	"cmd/optdp":    8,
	"cmd/liboptdp": 8,
	"bench":        9,
}

// tagSets are the build configurations whose imports are checked.
var tagSets = [][]string{nil, {"netlib"}, {"noasm"}}

func TestFloors(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "python") {
			return filepath.SkipDir
		}
		if matches, _ := filepath.Glob(filepath.Join(path, "*.go")); len(matches) > 0 {
			rel, _ := filepath.Rel(root, path)
			pkgs = append(pkgs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages under %s", len(pkgs), root)
	}
	for _, p := range pkgs {
		floor, ok := floors[p]
		if !ok {
			t.Errorf("package %s has no floor: add it to floors and to docs/ARCHITECTURE.md", p)
			continue
		}
		for _, tags := range tagSets {
			ctx := build.Default
			ctx.CgoEnabled = true
			ctx.BuildTags = tags
			bp, err := ctx.ImportDir(filepath.Join(root, p), 0)
			if err != nil {
				if _, none := err.(*build.NoGoError); none {
					continue
				}
				t.Errorf("%s (tags %v): %v", p, tags, err)
				continue
			}
			for _, imp := range bp.Imports {
				dep, ours := strings.CutPrefix(imp, module)
				if !ours {
					continue
				}
				df, ok := floors[dep]
				switch {
				case (dep == "backend_pure" || dep == "backend_netlib") && p != "backend":
					t.Errorf("%s (tags %v) imports %s: only backend reaches its implementations", p, tags, dep)
				case !ok:
					t.Errorf("%s imports %s, which has no floor", p, dep)
				case df >= floor:
					t.Errorf("%s (floor %d, tags %v) imports %s (floor %d): a package imports only lower floors", p, floor, tags, dep, df)
				}
			}
		}
	}
}

// TestBackendImportsOnlyItsImplementations: backend, the one door to dense
// linear algebra, imports no package of optdp's but its two implementations.
func TestBackendImportsOnlyItsImplementations(t *testing.T) {
	for _, tags := range tagSets {
		ctx := build.Default
		ctx.CgoEnabled = true
		ctx.BuildTags = tags
		bp, err := ctx.ImportDir("../../backend", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range bp.Imports {
			if dep, ours := strings.CutPrefix(imp, module); ours && !slices.Contains([]string{"backend_pure", "backend_netlib"}, dep) {
				t.Errorf("backend (tags %v) imports %s", tags, dep)
			}
		}
	}
}

package linear_test

import (
	"errors"
	"testing"

	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// TestParseWorkloadAndStrategy: specs build the same operators as the
// constructors (compared through their dense Gram matrices), and malformed
// specs are refused with run.ErrBadInput.
func TestParseWorkloadAndStrategy(t *testing.T) {
	w, err := linear.ParseWorkload("allrange:n=5", nil)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := linear.AllRange(5)
	g1, _ := w.Gram().Dense()
	g2, _ := ref.Gram().Dense()
	if !mat.Equal(g1, g2) {
		t.Errorf("allrange:n=5 Gram differs from AllRange(5)")
	}
	s, err := linear.ParseStrategy("hier:b=2,root=false", w, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs, _ := linear.Hierarchical(5, 2, false)
	d1, _ := s.Dense()
	d2, _ := hs.Dense()
	if !mat.Equal(d1, d2) {
		t.Errorf("hier:b=2,root=false differs from Hierarchical(5, 2, false)")
	}
	loaded := false
	if _, err := linear.ParseWorkload("file:w.csv", func(path string) (linear.Workload, error) {
		loaded = path == "w.csv"
		return ref, nil
	}); err != nil || !loaded {
		t.Errorf("file: spec not passed to the loader: %v", err)
	}
	for _, bad := range []string{"allrnage:n=8", "allrange", "allrange:n=x", "allrange:n=4,k=2", "allrange:n=4,n=5", "allrange:n", "file:", "file:w.csv"} {
		if _, err := linear.ParseWorkload(bad, nil); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("workload %q: %v, want run.ErrBadInput", bad, err)
		}
	}
	for _, bad := range []string{"hier:b=x", "hier:root=maybe", "opt", "nonsense", "identity:x=1"} {
		if _, err := linear.ParseStrategy(bad, w, nil); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("strategy %q: %v, want run.ErrBadInput", bad, err)
		}
	}
}

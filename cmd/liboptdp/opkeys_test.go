//go:build cgo

package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/optdp/optdp/run"
)

// TestOpKeys: a key that another op reads is refused at every depth of a
// workload or strategy tree (the builder would ignore it), naming the key
// and the op; every documented key of every op is accepted (optdp.h).
func TestOpKeys(t *testing.T) {
	bad := []struct{ text, key string }{
		{`{"op":"identity","n":3,"m":4}`, `"m"`},
		{`{"op":"kron","factors":[{"op":"prefix","n":4},{"op":"total","n":2,"k":1}]}`, `"k"`},
		{`{"op":"scale","c":2,"workload":{"op":"allrange","n":4,"seed":3}}`, `"seed"`},
		{`{"op":"union","parts":[{"op":"identity","n":4}],"factors":[]}`, `"factors"`},
		{`{"op":"marginals","dims":[2,2],"k":1,"N":4}`, `"N"`},
	}
	for _, c := range bad {
		_, err := workloadText(c.text)
		if !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), c.key) {
			t.Errorf("workload %s: %v, want a bad input naming %s", c.text, err, c.key)
		}
	}
	for _, c := range []struct{ text, key string }{
		{`{"op":"wavelet","n":8,"b":2}`, `"b"`},
		{`{"op":"eigen","workload":{"op":"prefix","n":4,"intervals":[]}}`, `"intervals"`},
	} {
		_, err := strategyText(c.text)
		if !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), c.key) {
			t.Errorf("strategy %s: %v, want a bad input naming %s", c.text, err, c.key)
		}
	}
	for _, w := range []string{
		`{"op":"identity","n":3}`, `{"op":"width_range","n":6,"k":2}`, `{"op":"random_range","n":6,"m":4,"seed":2}`,
		`{"op":"ranges","n":4,"intervals":[[0,1],[2,3]]}`, `{"op":"marginals","dims":[2,3],"k":1}`,
		`{"op":"scale","c":2,"workload":{"op":"total","n":3}}`, `{"op":"matrix","rows":1,"cols":2,"data":[1,1]}`,
		`{"OP":"kron","factors":[{"op":"prefix","N":4},{"op":"allrange","n":2}]}`,
	} {
		if _, err := workloadText(w); err != nil {
			t.Errorf("workload %s: %v", w, err)
		}
	}
	for _, s := range []string{
		`{"op":"hierarchical","n":16,"b":4,"root":false}`, `{"op":"workload","workload":{"op":"prefix","n":4}}`,
		`{"op":"kron","factors":[{"op":"identity","n":2},{"op":"wavelet","n":4}]}`,
	} {
		if _, err := strategyText(s); err != nil {
			t.Errorf("strategy %s: %v", s, err)
		}
	}
}

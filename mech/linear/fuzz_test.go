package linear

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// FuzzReadMatrix: ReadMatrix never panics; an accepted matrix is
// non-empty with finite entries.
func FuzzReadMatrix(f *testing.F) {
	for _, s := range []string{"1,2\n3,4\n", ",\n,\n,\n", "1 2;3\t4\n", "# c\n1\n", "1,2\n3\n", "NaN\n", "1e309\n", "", "\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ReadMatrix(bytes.NewReader(data))
		if err != nil {
			return
		}
		r, c := a.Dims()
		if r < 1 || c < 1 {
			t.Fatalf("accepted a %d×%d matrix", r, c)
		}
		for _, v := range a.RawMatrix().Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("accepted the entry %v", v)
			}
		}
	})
}

// FuzzParseWorkloadJSON: ParseWorkloadJSON never panics; an accepted
// workload's domain is the product of its attributes' sizes. The loader
// serves one 2×2 matrix and refuses every other path.
func FuzzParseWorkloadJSON(f *testing.F) {
	for _, s := range []string{
		`{"attributes": [{"name": "a", "size": 3}], "workload": [{"blocks": {"a": "prefix"}}]}`,
		`{"attributes": [{"name": "a", "size": 2}, {"name": "b", "size": 3}], "workload": [{"marginals": 1, "weight": 0.5}]}`,
		`{"attributes": [{"name": "a", "size": 2}], "workload": [{"blocks": {"a": {"matrix": "m.csv"}}}]}`,
		`{"attributes": [{"name": "a", "size": 4}], "workload": [{"blocks": {"a": {"ranges": [[0, 1], [2, 3]]}}}]}`,
		`{"attributes": [{"name": "a", "size": 3}], "workload": [{"blocks": {"a": {"rows": [[1, -1, 0]]}}}]}`,
		`{"attributes": [{"name": "a", "size": -1}]}`, `{`, `{"workload": [{"builtin": "nosuch"}]}`,
		`{"attributes": [{"name": "a", "size": 3}], "workload": [{"weight": 1e308, "blocks": {"a": "width:9"}}]}`,
	} {
		f.Add([]byte(s))
	}
	load := func(path string) (*mat.Dense, error) {
		if path == "m.csv" {
			return mat.NewDense(2, 2, []float64{1, 0, 1, 1}), nil
		}
		return nil, errors.New("no such file")
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w, attrs, err := ParseWorkloadJSON(data, load)
		if err != nil {
			return
		}
		n := 1
		for _, a := range attrs {
			n *= a.Size
		}
		if _, wn := w.Dims(); wn != n {
			t.Fatalf("domain %d, attributes %+v (product %d)", wn, attrs, n)
		}
	})
}

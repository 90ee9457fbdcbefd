package linear

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/optdp/optdp/run"
)

// TestParseMarginalWorkload: the spec and file forms, the 10^100
// shorthand (C(100,3) = 161,700 marginals), weights, and the specs that
// are not marginal workloads (ok false) or are malformed (ErrBadInput) or
// too many marginals (ErrTooLarge).
func TestParseMarginalWorkload(t *testing.T) {
	files := map[string]string{
		"w.json": `{"attributes": [{"name": "a", "size": 3}, {"name": "b", "size": 2}, {"name": "c", "size": 4}],
			"workload": [{"weight": 2, "blocks": {"c": "identity", "a": "identity", "b": "total"}}, {"marginals": 1, "weight": 0.5}, {"blocks": {}}]}`,
		"r.json":   `{"attributes": [{"name": "a", "size": 3}], "workload": [{"blocks": {"a": "prefix"}}]}`,
		"bad.json": `{"attributes": [{"name": "a", "size": 3}], "workload": [{"weight": -1, "marginals": 1}]}`,
	}
	read := func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, errors.New("no such file")
	}
	attrs, ms, ok, err := ParseMarginalWorkload("marginals:dims=10^100,k=3", read)
	if err != nil || !ok || len(attrs) != 100 || len(ms) != 161700 || attrs[99].Size != 10 {
		t.Fatalf("10^100: %d attributes, %d marginals, ok %v, %v", len(attrs), len(ms), ok, err)
	}
	if got := ms[len(ms)-1].Attrs; got[0] != 97 || got[1] != 98 || got[2] != 99 {
		t.Errorf("last marginal %v", got)
	}
	attrs, ms, ok, err = ParseMarginalWorkload("marginals:dims=2x3^2x5,k=2", read)
	if err != nil || !ok || len(attrs) != 4 || attrs[2].Size != 3 || attrs[3].Size != 5 || len(ms) != 6 {
		t.Fatalf("2x3^2x5: %+v %v %v %v", attrs, ms, ok, err)
	}
	attrs, ms, ok, err = ParseMarginalWorkload("file:w.json", read)
	if err != nil || !ok || len(attrs) != 3 || len(ms) != 5 {
		t.Fatalf("w.json: %+v %+v %v %v", attrs, ms, ok, err)
	}
	if m := ms[0]; m.Weight != 2 || len(m.Attrs) != 2 || m.Attrs[0] != 0 || m.Attrs[1] != 2 {
		t.Errorf("first entry %+v, want attributes [0 2] weight 2", m)
	}
	if m := ms[4]; len(m.Attrs) != 0 || m.Weight != 1 {
		t.Errorf("empty blocks: %+v, want the total", m)
	}
	for _, spec := range []string{"file:r.json", "allrange:n=8", "census", "file:m.csv"} {
		if _, _, ok, err := ParseMarginalWorkload(spec, read); ok || err != nil {
			t.Errorf("%s: ok %v, err %v, want not a marginal workload", spec, ok, err)
		}
	}
	for _, spec := range []string{"marginals:dims=10^0,k=1", "marginals:dims=2x0,k=1", "marginals:dims=2x3,k=3", "marginals:k=1",
		"marginals:dims=2x3,k=1,x=2", "marginals:dims=2^x,k=1", "file:bad.json", "marginals:dims=2^2000000,k=1"} {
		if _, _, _, err := ParseMarginalWorkload(spec, read); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("%s: %v, want ErrBadInput", spec, err)
		}
	}
	if _, _, _, err := ParseMarginalWorkload("marginals:dims=2^1000,k=4", read); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("C(1000,4) marginals: %v, want ErrTooLarge", err)
	}
}

// TestParseMarginalWorkloadQueries: the prefix= and allrange= parameters,
// files with prefix and allrange blocks, the files with mixed types for
// one attribute (not a marginal workload: ok false), the bad lists, and
// the dense ParseWorkload of the same spec (its queries counted).
func TestParseMarginalWorkloadQueries(t *testing.T) {
	files := map[string]string{
		"t.json": `{"attributes": [{"name": "a", "size": 3}, {"name": "b", "size": 4}, {"name": "c", "size": 2}],
			"workload": [{"blocks": {"a": "prefix", "b": "allrange"}}, {"weight": 2, "blocks": {"b": "allrange", "c": "identity", "a": "total"}}]}`,
		"mixed.json": `{"attributes": [{"name": "a", "size": 3}], "workload": [{"blocks": {"a": "prefix"}}, {"blocks": {"a": "identity"}}]}`,
		"k.json":     `{"attributes": [{"name": "a", "size": 3}], "workload": [{"blocks": {"a": "prefix"}}, {"marginals": 1}]}`,
	}
	read := func(p string) ([]byte, error) { return []byte(files[p]), nil }
	attrs, ms, queries, ok, err := ParseMarginalWorkloadQueries("marginals:dims=3x4x5,k=2,prefix=0+2,allrange=1", read)
	if err != nil || !ok || len(attrs) != 3 || len(ms) != 3 || len(queries) != 3 ||
		queries[0] != QueryPrefix || queries[1] != QueryAllRange || queries[2] != QueryPrefix {
		t.Fatalf("spec: %v %v %v %v %v", attrs, ms, queries, ok, err)
	}
	attrs, ms, queries, ok, err = ParseMarginalWorkloadQueries("file:t.json", read)
	if err != nil || !ok || len(attrs) != 3 || len(ms) != 2 || queries[0] != QueryPrefix || queries[1] != QueryAllRange || queries[2] != "" {
		t.Fatalf("t.json: %v %v %v %v %v", attrs, ms, queries, ok, err)
	}
	if m := ms[1]; m.Weight != 2 || len(m.Attrs) != 2 || m.Attrs[0] != 1 || m.Attrs[1] != 2 {
		t.Errorf("second entry %+v, want attributes [1 2] weight 2", m)
	}
	for _, spec := range []string{"file:mixed.json", "file:k.json"} {
		if _, _, _, ok, err := ParseMarginalWorkloadQueries(spec, read); ok || err != nil {
			t.Errorf("%s: ok %v, err %v, want not a marginal workload", spec, ok, err)
		}
	}
	// The identity-only parser leaves typed workloads to ParseWorkload.
	if _, _, ok, err := ParseMarginalWorkload("file:t.json", read); ok || err != nil {
		t.Errorf("ParseMarginalWorkload of prefix blocks: ok %v, err %v", ok, err)
	}
	for _, spec := range []string{"marginals:dims=3x4,k=1,prefix=2", "marginals:dims=3x4,k=1,prefix=0,allrange=0",
		"marginals:dims=3x4,k=1,prefix=0+0", "marginals:dims=3x4,k=1,allrange=x", "marginals:dims=3x4,k=1,prefix=-1"} {
		if _, _, _, _, err := ParseMarginalWorkloadQueries(spec, read); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("%s: %v, want ErrBadInput", spec, err)
		}
	}
	// The dense form: 2-way marginals of 3x4x5 with prefix on 0 and 2 and
	// all ranges on 1: (3·10) + (3·5) + (10·5) = 95 queries over 60 cells.
	w, err := ParseWorkload("marginals:dims=3x4x5,k=2,prefix=0+2,allrange=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if m, n := w.Dims(); m != 95 || n != 60 {
		t.Errorf("dense workload %d x %d, want 95 x 60", m, n)
	}
}

// TestReadMarginalRecords: columns by header name, values checked against
// the domain, blank and comment lines skipped.
func TestReadMarginalRecords(t *testing.T) {
	attrs := []Attribute{{"x", 3}, {"y", 2}}
	d, err := ReadMarginalRecords(attrs, strings.NewReader("y,z,x\n# c\n1,9,2\n\n0,9,0\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Columns[0]) != 2 || d.Columns[0][0] != 2 || d.Columns[1][0] != 1 || d.Columns[0][1] != 0 {
		t.Errorf("columns %v", d.Columns)
	}
	for _, s := range []string{", ;\n", "x,y\n3,0\n", "x,y\n0\n", "z,y\n0,0\n", "x,x\n0,0\n", "", "x,y\n-1,0\n"} {
		if _, err := ReadMarginalRecords(attrs, strings.NewReader(s), 0); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("%q: %v, want ErrBadInput", s, err)
		}
	}
	// A line of separators only (found by FuzzReadMarginalRecords; Histogram
	// shares the parsing).
	if _, err := Histogram(attrs, strings.NewReader(",\n"), 0); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("histogram of a separator line: %v, want ErrBadInput", err)
	}
	if _, err := ReadMarginalRecords(attrs, strings.NewReader("0,0\n1,1\n2,0\n"), 16); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("16-byte budget: %v, want ErrTooLarge", err)
	}
}

// FuzzParseMarginalWorkload: never panics; an accepted workload has
// attributes of sizes >= 1, marginals over distinct valid attributes with
// finite positive weights, and query types (when given) one per attribute,
// each prefix or allrange or "".
func FuzzParseMarginalWorkload(f *testing.F) {
	for _, s := range []string{"marginals:dims=2x3,k=1", "marginals:dims=10^5,k=2", "marginals:dims=2^x", "file:w.json",
		`{"attributes": [{"name": "a", "size": 3}], "workload": [{"blocks": {"a": "identity"}, "weight": 3}]}`,
		`{"attributes": [{"name": "a", "size": 2}, {"name": "b", "size": 2}], "workload": [{"marginals": 2}]}`,
		"marginals:dims=3x4x5,k=2,prefix=0+2,allrange=1",
		`{"attributes": [{"name": "a", "size": 3}, {"name": "b", "size": 4}], "workload": [{"blocks": {"a": "prefix", "b": "allrange"}}, {"blocks": {"b": "allrange"}}]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var attrs []Attribute
		var ms []WeightedMarginal
		var queries []string
		var ok bool
		var err error
		if strings.HasPrefix(s, "{") {
			attrs, ms, queries, ok, err = ParseMarginalWorkloadJSONQueries([]byte(s))
		} else {
			attrs, ms, queries, ok, err = ParseMarginalWorkloadQueries(s, func(string) ([]byte, error) { return nil, errors.New("none") })
		}
		if err != nil || !ok {
			return
		}
		if queries != nil && len(queries) != len(attrs) {
			t.Fatalf("%d query types for %d attributes", len(queries), len(attrs))
		}
		for _, q := range queries {
			if q != "" && q != QueryPrefix && q != QueryAllRange {
				t.Fatalf("query type %q", q)
			}
		}
		for _, a := range attrs {
			if a.Size < 1 {
				t.Fatalf("attribute %+v", a)
			}
		}
		for _, m := range ms {
			if !(m.Weight > 0) {
				t.Fatalf("weight %v", m.Weight)
			}
			for k, a := range m.Attrs {
				if a < 0 || a >= len(attrs) || (k > 0 && m.Attrs[k-1] >= a) {
					t.Fatalf("marginal %v over %d attributes", m.Attrs, len(attrs))
				}
			}
		}
	})
}

// FuzzReadMarginalRecords: never panics; accepted records lie in the
// domain.
func FuzzReadMarginalRecords(f *testing.F) {
	for _, s := range []string{"a,b\n0,1\n2,0\n", "0 1\n1 1\n", "b,a\n1,2\n", "#\n\n", "a,b\n3,0\n"} {
		f.Add([]byte(s))
	}
	attrs := []Attribute{{"a", 3}, {"b", 2}}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ReadMarginalRecords(attrs, bytes.NewReader(data), 1<<20)
		if err != nil {
			return
		}
		for f, col := range d.Columns {
			for _, v := range col {
				if v < 0 || int(v) >= attrs[f].Size {
					t.Fatalf("value %d of attribute %d", v, f)
				}
			}
		}
	})
}

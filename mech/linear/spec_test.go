package linear

import (
	"errors"
	"strings"
	"testing"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// TestParseWorkloadJSON: a workload file gives the same queries as the
// workload built directly (dense W equal entry by entry, weights
// multiplying the rows), omitted attributes are totalled, and the census
// builtin has the census's 4151 queries.
func TestParseWorkloadJSON(t *testing.T) {
	mw := mwf(t)
	file := `{
	  "attributes": [{"name": "a", "size": 3}, {"name": "b", "size": 4}],
	  "workload": [
	    {"blocks": {"a": "identity", "b": "prefix"}},
	    {"weight": 2, "blocks": {"b": {"ranges": [[0, 1], [2, 3]]}}},
	    {"blocks": {"a": {"rows": [[1, -1, 0]]}, "b": "width:3"}},
	    {"blocks": {"a": {"matrix": "m.csv"}, "b": "identity+total"}},
	    {"marginals": 1, "weight": 0.5}
	  ]
	}`
	load := func(path string) (*mat.Dense, error) {
		if path != "m.csv" {
			t.Fatalf("loader asked for %q", path)
		}
		return mat.NewDense(2, 3, []float64{1, 1, 0, 0, 0, 1}), nil
	}
	w, attrs, err := ParseWorkloadJSON([]byte(file), load)
	if err != nil {
		t.Fatal(err)
	}
	if len(attrs) != 2 || attrs[1].Name != "b" || attrs[1].Size != 4 {
		t.Fatalf("attributes %+v", attrs)
	}
	ranges := mw(Ranges(4, []Interval{{0, 1}, {2, 3}}))
	want := mw(Union(
		mw(Kron(mw(Identity(3)), mw(Prefix(4)))),
		mw(Scale(mw(Kron(mw(Total(3)), ranges)), 2)),
		mw(Kron(mw(FromMatrix(mat.NewDense(1, 3, []float64{1, -1, 0}))), mw(WidthRange(4, 3)))),
		mw(Kron(mw(FromMatrix(mat.NewDense(2, 3, []float64{1, 1, 0, 0, 0, 1}))), mw(IdentityTotal(4)))),
		mw(Scale(mw(Marginals([]int{3, 4}, 1)), 0.5)),
	))
	got, _ := w.Dense()
	exp, _ := want.Dense()
	if !mat.Equal(got, exp) {
		t.Fatalf("parsed workload differs from the direct construction:\n%v\n%v", mat.Formatted(got), mat.Formatted(exp))
	}
	// Row 0 of the weighted entry (2·[1 1 0 0] on each value of a).
	if r, _ := mw(Kron(mw(Identity(3)), mw(Prefix(4)))).Dims(); got.At(r, 0) != 2 || got.At(r, 1) != 2 || got.At(r, 2) != 0 {
		t.Errorf("weighted row %v", got.RawRowView(r))
	}
	cw, cattrs, err := ParseWorkloadJSON([]byte(`{"workload": [{"builtin": "census-sf1-persons"}]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if m, n := cw.Dims(); m != 4151 || n != 500480 || len(cattrs) != 5 || cattrs[4].Name != "age" {
		t.Errorf("census builtin: %d×%d, attributes %+v", m, n, cattrs)
	}
}

func TestParseWorkloadJSONErrors(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{`{"workload": []}`, "no \"workload\""},
		{`{"attributes": [{"name": "a", "size": 2}], "workload": [{"blocks": {"z": "identity"}}]}`, "unknown attribute"},
		{`{"attributes": [{"name": "a", "size": 2}, {"name": "a", "size": 3}], "workload": [{"marginals": 1}]}`, "named twice"},
		{`{"attributes": [{"name": "a", "size": 0}], "workload": [{"marginals": 1}]}`, "size 0"},
		{`{"attributes": [{"name": "a", "size": 2}], "workload": [{"marginals": 1, "weight": -1}]}`, "weight"},
		{`{"attributes": [{"name": "a", "size": 2}], "workload": [{"blocks": {"a": "cube"}}]}`, "unknown block"},
		{`{"attributes": [{"name": "a", "size": 2}], "workload": [{"blocks": {"a": {"rows": [[1, 2, 3]]}}}]}`, "3 entries"},
		{`{"attributes": [{"name": "a", "size": 2}], "workload": [{"blocks": {"a": {"ranges": [[1, 5]]}}}]}`, "interval"},
		{`{"attributes": [{"name": "a", "size": 2}], "workload": [{"marginals": 1, "builtin": "census-sf1-persons"}]}`, "exactly one"},
		{`{"attributes": [{"name": "a", "size": 2}], "workload": [{"builtin": "census-sf1-persons"}]}`, "needs the attributes"},
		{`{"attributes": [{"name": "a", "size": 2}], "workload": [{"marginals": 1}], "extra": 1}`, "unknown field"},
		{`{"attributes": [{"name": "a", "size": 2}], "workload": [{"blocks": {"a": {"matrix": "x.csv"}}}]}`, "no loader"},
	} {
		_, _, err := ParseWorkloadJSON([]byte(c.file), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.file, err, c.want)
		}
		if err != nil && !errors.Is(err, run.ErrBadInput) && !strings.Contains(c.want, "interval") {
			t.Errorf("%s: error %v does not wrap run.ErrBadInput", c.file, err)
		}
	}
}

// TestHistogram: records counted into the row-major cells of a 2×3 domain,
// by column position and by header name (columns in another order, an extra
// column ignored); bad values are refused with the line.
func TestHistogram(t *testing.T) {
	attrs := []Attribute{{"a", 2}, {"b", 3}}
	x, err := Histogram(attrs, strings.NewReader("0,2\n1,0\n# comment\n1,0\n\n0,0\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 0, 1, 2, 0, 0} // cell = a·3 + b
	for i := range want {
		if x[i] != want[i] {
			t.Fatalf("histogram %v, want %v", x, want)
		}
	}
	y, err := Histogram(attrs, strings.NewReader("b,extra,a\n2,9,0\n0,9,1\n0,7,1\n0,0,0\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if y[i] != want[i] {
			t.Fatalf("with a header: %v, want %v", y, want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"0,3\n", "line 1"},
		{"a,c\n0,1\n", "no column \"b\""},
		{"0\n", "1 fields"},
		{"", "no records"},
		{"0,-1\n", "not an integer"},
	} {
		if _, err := Histogram(attrs, strings.NewReader(c.in), 0); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
	if _, err := Histogram([]Attribute{{"a", 1 << 20}, {"b", 1 << 10}}, strings.NewReader("0,0\n"), 1<<20); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("8 GiB vector under a 1 MiB budget: %v", err)
	}
}

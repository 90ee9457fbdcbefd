package linear

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// labelRow reads a label back into the query it names: the weight of each
// cell of the row-major domain attrs (the grammar of Labels, parsed
// independently of how the labels are made).
func labelRow(t *testing.T, label string, attrs []Attribute) []float64 {
	t.Helper()
	c := 1.0
	if i := strings.Index(label, "*("); i > 0 && strings.HasSuffix(label, ")") {
		var err error
		if c, err = strconv.ParseFloat(label[:i], 64); err != nil {
			t.Fatalf("label %q: weight: %v", label, err)
		}
		label = label[i+2 : len(label)-1]
	}
	allowed := make([]map[int]bool, len(attrs)) // nil: every value
	if label != "total" {
		for _, term := range strings.Split(label, " & ") {
			name, spec, ok := strings.Cut(term, "=")
			if !ok {
				t.Fatalf("label %q: term %q has no '='", label, term)
			}
			a := -1
			for i := range attrs {
				if attrs[i].Name == name {
					a = i
				}
			}
			if a < 0 || allowed[a] != nil {
				t.Fatalf("label %q: unknown or repeated attribute %q", label, name)
			}
			allowed[a] = map[int]bool{}
			for _, part := range strings.Split(spec, ",") {
				lo, hi, isRange := strings.Cut(part, "..")
				l, err1 := strconv.Atoi(lo)
				r := l
				var err2 error
				if isRange {
					r, err2 = strconv.Atoi(hi)
				}
				if err1 != nil || err2 != nil || l < 0 || r >= attrs[a].Size || l > r {
					t.Fatalf("label %q: bad values %q", label, part)
				}
				for v := l; v <= r; v++ {
					allowed[a][v] = true
				}
			}
		}
	}
	n := 1
	for _, a := range attrs {
		n *= a.Size
	}
	row := make([]float64, n)
	vals := make([]int, len(attrs))
	for cell := range n {
		rem := cell
		for i := len(attrs) - 1; i >= 0; i-- {
			vals[i] = rem % attrs[i].Size
			rem /= attrs[i].Size
		}
		in := true
		for i, v := range vals {
			in = in && (allowed[i] == nil || allowed[i][v])
		}
		if in {
			row[cell] = c
		}
	}
	return row
}

func attrsOf(names string, sizes ...int) []Attribute {
	var out []Attribute
	for i, n := range strings.Split(names, ",") {
		out = append(out, Attribute{Name: n, Size: sizes[i]})
	}
	return out
}

// TestLabelsNameTheirQueries: each label, read back into the cells it
// names, is the workload's row (its dense matrix), for marginals over
// irregular sizes, Kronecker products of ranges, prefixes, identity+total
// and explicit 0/1 blocks, weighted unions, and 1-D workloads with default
// names.
func TestLabelsNameTheirQueries(t *testing.T) {
	must := func(w Workload, err error) Workload {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	rng := rand.New(rand.NewPCG(5, 36))
	var rows [][]float64
	for range 4 {
		r := make([]float64, 6)
		for v := range r {
			r[v] = float64(rng.IntN(2))
		}
		rows = append(rows, r)
	}
	rows = append(rows, []float64{1, 1, 1, 1, 1, 1})
	flat := mat.NewDense(len(rows), 6, nil)
	for i, r := range rows {
		flat.SetRow(i, r)
	}
	block := must(FromMatrix(flat))
	sex := attrsOf("sex,age,region", 3, 1, 4)
	cases := []struct {
		name  string
		w     Workload
		attrs []Attribute
	}{
		{"marginals k=2", must(Marginals([]int{3, 1, 4}, 2)), sex},
		{"marginals k=0", must(Marginals([]int{3, 1, 4}, 0)), sex},
		{"marginals k=3", must(Marginals([]int{3, 1, 4}, 3)), sex},
		{"kron", must(Kron(must(Prefix(5)), must(IdentityTotal(3)), must(Total(2)))), attrsOf("x,y,z", 5, 3, 2)},
		{"kron block", must(Kron(must(WidthRange(4, 2)), block)), attrsOf("p,q", 4, 6)},
		{"weighted union", must(Union(must(Scale(must(AllRange(6)), 2.5)), must(Identity(6)), block)), attrsOf("v", 6)},
		{"default names", must(RandomRange(9, 12, 3)), nil},
	}
	for _, c := range cases {
		labels, err := Labels(c.w, c.attrs, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		d, err := c.w.Dense()
		if err != nil {
			t.Fatal(err)
		}
		m, n := d.Dims()
		if len(labels) != m {
			t.Fatalf("%s: %d labels for %d queries", c.name, len(labels), m)
		}
		attrs := c.attrs
		if attrs == nil {
			attrs = []Attribute{{Name: "a0", Size: n}}
		}
		seen := map[string]bool{}
		for k, l := range labels {
			row := labelRow(t, l, attrs)
			for j := range n {
				if row[j] != d.At(k, j) {
					t.Fatalf("%s: query %d labelled %q: cell %d weighs %v, the workload's row has %v", c.name, k, l, j, row[j], d.At(k, j))
				}
			}
			seen[l] = true
		}
		if c.name == "marginals k=2" && len(seen) != m {
			t.Errorf("%s: %d distinct labels for %d distinct queries", c.name, len(seen), m)
		}
	}
	if l, _ := Labels(must(Marginals([]int{2, 3}, 1)), attrsOf("sex,age", 2, 3), 0); strings.Join(l, "|") != "sex=0|sex=1|age=0|age=1|age=2" {
		t.Errorf("1-way marginals: %q", l)
	}
	weighted := mat.NewDense(1, 3, []float64{1, 2, 0})
	if l, _ := Labels(must(FromMatrix(weighted)), attrsOf("b", 3), 0); l[0] != "b:matrix(1x3)[0]" {
		t.Errorf("a weighted row: %q", l)
	}
	if _, err := Labels(must(Marginals([]int{2, 3}, 1)), attrsOf("a,b", 2, 4), 0); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("mismatched sizes: %v", err)
	}
	if _, err := Labels(must(Marginals([]int{2, 3}, 1)), attrsOf("a", 6), 0); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("mismatched count: %v", err)
	}
	if _, err := Labels(must(AllRange(1<<12)), nil, 1<<20); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("8 M labels in 1 MiB: %v", err)
	}
}

// TestLabelsCensus: 60 of census's 4151 queries, drawn at random, read back
// from their labels, answer a random data vector as the workload does
// (MulVec).
func TestLabelsCensus(t *testing.T) {
	w, err := CensusSF1Persons()
	if err != nil {
		t.Fatal(err)
	}
	var attrs []Attribute
	for i, n := range CensusSF1Attributes {
		attrs = append(attrs, Attribute{Name: n, Size: CensusSF1Dims[i]})
	}
	labels, err := Labels(w, attrs, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, n := w.Dims()
	if len(labels) != m {
		t.Fatalf("%d labels for %d queries", len(labels), m)
	}
	rng := rand.New(rand.NewPCG(9, 36))
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(rng.IntN(4))
	}
	y, err := w.MulVec(x)
	if err != nil {
		t.Fatal(err)
	}
	for range 60 {
		k := rng.IntN(m)
		row := labelRow(t, labels[k], attrs)
		s := 0.0
		for j, c := range row {
			s += c * x[j]
		}
		if s != y[k] {
			t.Errorf("query %d labelled %q sums to %v, the workload answers %v", k, labels[k], s, y[k])
		}
	}
}

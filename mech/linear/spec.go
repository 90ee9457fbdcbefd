package linear

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// Attribute is one attribute of a product domain: a name and its number
// of values (a data record's value of the attribute is an integer in
// [0, Size)).
type Attribute struct {
	Name string `json:"name"`
	Size int    `json:"size"`
}

// MatrixLoader reads a matrix file named in a workload file (CSV, .npy, ...,
// as the caller supports); paths are as written in the file.
type MatrixLoader func(path string) (*mat.Dense, error)

// Limits of ParseWorkloadJSON.
const (
	maxSpecAttrs    = 64
	maxSpecProducts = 100000
	maxSpecAttrSize = 1 << 20
)

// ParseWorkloadJSON parses a workload file: a JSON object describing a
// union of weighted Kronecker products of per-attribute blocks over a
// product domain,
//
//	{
//	  "attributes": [{"name": "sex", "size": 2}, {"name": "age", "size": 115}],
//	  "workload": [
//	    {"blocks": {"sex": "identity", "age": "prefix"}},
//	    {"weight": 2, "blocks": {"age": {"ranges": [[0, 17], [18, 64], [65, 114]]}}},
//	    {"blocks": {"age": {"matrix": "age_groups.csv"}}},
//	    {"marginals": 2}
//	  ]
//	}
//
// Each entry of "workload" is one of:
//   - {"blocks": {ATTRIBUTE: BLOCK, ...}}: the Kronecker product over the
//     attributes in order, with the total (1^T) for every attribute not
//     named. A BLOCK is "identity", "total", "identity+total", "prefix",
//     "allrange", "width:K" (all ranges of K consecutive values), or an
//     object {"ranges": [[l, r], ...]} (inclusive, 0-based), {"rows":
//     [[...], ...]} (an explicit matrix with Size columns) or {"matrix":
//     PATH} (read by load);
//   - {"marginals": K}: all K-way marginals over all attributes;
//   - {"builtin": "census-sf1-persons"}: CensusSF1Persons, whose domain
//     CensusSF1Attributes × CensusSF1Dims must then be the attributes (they
//     may be omitted when the file has only this entry).
//
// "weight" (default 1, finite and > 0) multiplies the entry's queries (Scale):
// its squared errors count weight² times. Attribute names must be distinct
// and sizes in [1, 2^20]; at most 64 attributes and 100,000 entries. The
// attributes are returned with the workload (cells in row-major order, the
// first attribute slowest).
func ParseWorkloadJSON(data []byte, load MatrixLoader) (Workload, []Attribute, error) {
	spec, err := decodeWorkloadFile(data)
	if err != nil {
		return nil, nil, err
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("workload file: %w: %s", run.ErrBadInput, fmt.Sprintf(format, a...))
	}
	if len(spec.Workload) == 0 {
		return nil, nil, bad(`no "workload" entries`)
	}
	if len(spec.Workload) > maxSpecProducts {
		return nil, nil, bad("%d workload entries, the limit is %d", len(spec.Workload), maxSpecProducts)
	}
	attrs := spec.Attributes
	if len(attrs) == 0 && len(spec.Workload) == 1 && spec.Workload[0].Builtin != "" {
		for i, n := range CensusSF1Attributes {
			attrs = append(attrs, Attribute{Name: n, Size: CensusSF1Dims[i]})
		}
	}
	if len(attrs) == 0 || len(attrs) > maxSpecAttrs {
		return nil, nil, bad("%d attributes, want 1..%d", len(attrs), maxSpecAttrs)
	}
	index := map[string]int{}
	dims := make([]int, len(attrs))
	for i, a := range attrs {
		if a.Name == "" {
			return nil, nil, bad("attribute %d has no name", i)
		}
		if _, dup := index[a.Name]; dup {
			return nil, nil, bad("attribute %q named twice", a.Name)
		}
		if a.Size < 1 || a.Size > maxSpecAttrSize {
			return nil, nil, bad("attribute %q has size %d, want 1..%d", a.Name, a.Size, maxSpecAttrSize)
		}
		index[a.Name] = i
		dims[i] = a.Size
	}
	var ws []Workload
	for e, entry := range spec.Workload {
		kinds := 0
		if entry.Blocks != nil {
			kinds++
		}
		if entry.Marginals != nil {
			kinds++
		}
		if entry.Builtin != "" {
			kinds++
		}
		if kinds != 1 {
			return nil, nil, bad(`entry %d: give exactly one of "blocks", "marginals" and "builtin"`, e)
		}
		var w Workload
		var err error
		switch {
		case entry.Marginals != nil:
			w, err = Marginals(dims, *entry.Marginals)
		case entry.Builtin != "":
			if entry.Builtin != "census-sf1-persons" {
				return nil, nil, bad("entry %d: unknown builtin %q (want census-sf1-persons)", e, entry.Builtin)
			}
			same := len(dims) == len(CensusSF1Dims)
			for i := 0; same && i < len(dims); i++ {
				same = dims[i] == CensusSF1Dims[i]
			}
			if !same {
				return nil, nil, bad("entry %d: census-sf1-persons needs the attributes %v of sizes %v", e, CensusSF1Attributes, CensusSF1Dims)
			}
			w, err = CensusSF1Persons()
		default:
			fs := make([]Workload, len(dims))
			for name, raw := range entry.Blocks {
				i, ok := index[name]
				if !ok {
					return nil, nil, bad("entry %d: unknown attribute %q", e, name)
				}
				if fs[i], err = parseBlock(raw, dims[i], load); err != nil {
					return nil, nil, fmt.Errorf("workload file: entry %d, attribute %q: %w", e, name, err)
				}
			}
			for i := range fs {
				if fs[i] == nil {
					fs[i], _ = Total(dims[i])
				}
			}
			if len(fs) == 1 {
				w = fs[0]
			} else {
				w, err = Kron(fs...)
			}
		}
		if err != nil {
			return nil, nil, fmt.Errorf("workload file: entry %d: %w", e, err)
		}
		if entry.Weight != nil {
			c := *entry.Weight
			if !(c > 0) || math.IsInf(c, 0) {
				return nil, nil, bad("entry %d: weight %v, want finite > 0", e, c)
			}
			if w, err = Scale(w, c); err != nil {
				return nil, nil, err
			}
		}
		ws = append(ws, w)
	}
	if len(ws) == 1 {
		return ws[0], attrs, nil
	}
	w, err := Union(ws...)
	return w, attrs, err
}

// parseBlock parses one per-attribute block of a workload file over n
// values.
func parseBlock(raw json.RawMessage, n int, load MatrixLoader) (Workload, error) {
	var name string
	if err := json.Unmarshal(raw, &name); err == nil {
		switch {
		case name == "identity":
			return Identity(n)
		case name == "total":
			return Total(n)
		case name == "identity+total":
			return IdentityTotal(n)
		case name == "prefix":
			return Prefix(n)
		case name == "allrange":
			return AllRange(n)
		case strings.HasPrefix(name, "width:"):
			k, err := strconv.Atoi(strings.TrimPrefix(name, "width:"))
			if err != nil {
				return nil, fmt.Errorf("%w: block %q: the width is not an integer", run.ErrBadInput, name)
			}
			return WidthRange(n, k)
		}
		return nil, fmt.Errorf("%w: unknown block %q (want identity, total, identity+total, prefix, allrange, width:K, or an object with ranges, rows or matrix)", run.ErrBadInput, name)
	}
	var obj struct {
		Ranges [][2]int    `json:"ranges"`
		Rows   [][]float64 `json:"rows"`
		Matrix string      `json:"matrix"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("%w: block: %v", run.ErrBadInput, err)
	}
	given := 0
	for _, b := range []bool{obj.Ranges != nil, obj.Rows != nil, obj.Matrix != ""} {
		if b {
			given++
		}
	}
	if given != 1 {
		return nil, fmt.Errorf(`%w: a block object needs exactly one of "ranges", "rows" and "matrix"`, run.ErrBadInput)
	}
	var a *mat.Dense
	switch {
	case obj.Ranges != nil:
		iv := make([]Interval, len(obj.Ranges))
		for q, r := range obj.Ranges {
			iv[q] = Interval{r[0], r[1]}
		}
		return Ranges(n, iv)
	case obj.Rows != nil:
		if len(obj.Rows) == 0 {
			return nil, fmt.Errorf("%w: empty rows", run.ErrBadInput)
		}
		if len(obj.Rows) > mech.MaxDenseEntries/n {
			return nil, fmt.Errorf("linear: rows: %d×%d: %w", len(obj.Rows), n, run.ErrTooLarge)
		}
		a = mat.NewDense(len(obj.Rows), n, nil)
		for q, r := range obj.Rows {
			if len(r) != n {
				return nil, fmt.Errorf("%w: row %d has %d entries, the attribute has %d values", run.ErrBadInput, q, len(r), n)
			}
			a.SetRow(q, r)
		}
	default:
		if load == nil {
			return nil, fmt.Errorf("%w: matrix %q: no loader for matrix files", run.ErrBadInput, obj.Matrix)
		}
		var err error
		if a, err = load(obj.Matrix); err != nil {
			return nil, fmt.Errorf("matrix %q: %w", obj.Matrix, err)
		}
		if _, c := a.Dims(); c != n {
			return nil, fmt.Errorf("%w: matrix %q has %d columns, the attribute has %d values", run.ErrBadInput, obj.Matrix, c, n)
		}
	}
	return FromMatrix(a)
}

// workloadFile is the JSON document of a workload file (ParseWorkloadJSON).
type workloadFile struct {
	Attributes []Attribute `json:"attributes"`
	Workload   []struct {
		Weight    *float64                   `json:"weight"`
		Blocks    map[string]json.RawMessage `json:"blocks"`
		Marginals *int                       `json:"marginals"`
		Builtin   string                     `json:"builtin"`
	} `json:"workload"`
}

// decodeWorkloadFile decodes a workload file, refusing unknown keys and
// trailing data (run.ErrBadInput).
func decodeWorkloadFile(data []byte) (*workloadFile, error) {
	var spec workloadFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return nil, fmt.Errorf("linear: workload file: %w: %v", run.ErrBadInput, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("linear: workload file: %w: trailing data after the JSON object", run.ErrBadInput)
	}
	return &spec, nil
}

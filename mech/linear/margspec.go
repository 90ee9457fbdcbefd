package linear

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/optdp/optdp/run"
)

// maxSpecMarginals bounds the marginals a spec may expand to.
const maxSpecMarginals = 1 << 24

// parseDims parses "2x3x4", where a part "N^R" stands for R attributes of
// N values ("10^100" is 100 attributes of 10 values).
func parseDims(spec, ds string) ([]int, error) {
	var dims []int
	for _, s := range strings.Split(ds, "x") {
		base, rep, hasRep := strings.Cut(s, "^")
		d, err := strconv.Atoi(base)
		r := 1
		if err == nil && hasRep {
			r, err = strconv.Atoi(rep)
		}
		if err != nil || r < 1 || len(dims)+r > maxPlanAttrs {
			return nil, run.BadInputf("spec %q: dims=%q is not a list like 2x3x4 or 10^100 (at most %d attributes)", spec, ds, maxPlanAttrs)
		}
		for i := 0; i < r; i++ {
			dims = append(dims, d)
		}
	}
	return dims, nil
}

// allKWay returns every k-subset of 0..d-1 as a marginal of weight w, in
// lexicographic order; at most maxSpecMarginals of them.
func allKWay(d, k int, w float64) ([]WeightedMarginal, error) {
	if k < 0 || k > d {
		return nil, run.BadInputf("marginals: k = %d must be in [0, %d]", k, d)
	}
	count := 1.0
	for i := 0; i < k; i++ {
		count = count * float64(d-i) / float64(i+1)
	}
	if math.Round(count) > maxSpecMarginals {
		return nil, fmt.Errorf("linear: marginals: C(%d, %d) = %.4g marginals, the limit is %d: %w", d, k, count, maxSpecMarginals, run.ErrTooLarge)
	}
	ms := make([]WeightedMarginal, 0, int(math.Round(count)))
	cur := make([]int, k)
	for i := range cur {
		cur[i] = i
	}
	for {
		ms = append(ms, WeightedMarginal{Attrs: append([]int(nil), cur...), Weight: w})
		i := k - 1
		for i >= 0 && cur[i] == d-k+i {
			i--
		}
		if i < 0 {
			return ms, nil
		}
		cur[i]++
		for j := i + 1; j < k; j++ {
			cur[j] = cur[j-1] + 1
		}
	}
}

// ParseMarginalWorkload is ParseMarginalWorkloadQueries for workloads
// whose attributes are all queried by identity: ok is false (and err nil)
// for one with prefix or allrange attributes, which the caller then parses
// with ParseWorkload.
func ParseMarginalWorkload(spec string, readFile func(path string) ([]byte, error)) (attrs []Attribute, ms []WeightedMarginal, ok bool, err error) {
	attrs, ms, queries, ok, err := ParseMarginalWorkloadQueries(spec, readFile)
	if ok && err == nil && queries != nil {
		return nil, nil, false, nil
	}
	return attrs, ms, ok, err
}

// parseQueryTypes reads the parameters prefix=I+J+... and allrange=I+J+...
// of a marginals spec over d attributes (0-based attribute indices joined
// by '+') into per-attribute query types; nil when neither is given.
func parseQueryTypes(p *Spec, d int) ([]string, error) {
	var queries []string
	for _, kind := range []string{QueryPrefix, QueryAllRange} {
		p.Use(kind)
		v, has := p.Params[kind]
		if !has {
			continue
		}
		if queries == nil {
			queries = make([]string, d)
		}
		for _, part := range strings.Split(v, "+") {
			f, err := strconv.Atoi(part)
			if err != nil || f < 0 || f >= d {
				return nil, run.BadInputf("spec %q: %s=%q is not a list of attribute indices in 0..%d joined by +", p.spec, kind, v, d-1)
			}
			if queries[f] != "" {
				return nil, run.BadInputf("spec %q: attribute %d is given a query type twice", p.spec, f)
			}
			queries[f] = kind
		}
	}
	return queries, nil
}

// ParseMarginalWorkloadQueries recognises a weighted marginal workload among the
// CLI's workload specs without forming its matrix: "marginals:dims=D,k=K"
// (all K-way marginals; D as in "2x3x4" or "10^100", 100 attributes of
// 10 values; optionally prefix=I+J and allrange=K, the attributes, by
// 0-based index, queried by prefixes or all ranges) or "file:PATH.json", a
// workload file (ParseWorkloadJSON's format) every entry of which is a
// marginal: {"marginals": K} or {"blocks": ...} with only "identity",
// "total", "prefix" and "allrange" blocks (the marginal over the
// attributes not "total"), each with its "weight", every attribute given
// one query type throughout. Such a file may have up to 2^20 attributes.
// queries gives each attribute's query type (MarginalPlanOptions.AttrQueries),
// nil when all are identity. ok is false (and err nil) for any other spec
// or file: the caller parses it with ParseWorkload. readFile reads a
// workload file (bounded by the caller). The attributes are named a0, a1,
// ... for a spec. Errors match run.ErrBadInput (run.ErrTooLarge beyond
// 2^24 marginals).
func ParseMarginalWorkloadQueries(spec string, readFile func(path string) ([]byte, error)) (attrs []Attribute, ms []WeightedMarginal, queries []string, ok bool, err error) {
	p, err := SplitSpec(spec)
	if err != nil {
		return nil, nil, nil, false, err
	}
	switch {
	case p.Kind == "marginals":
		p.Use("dims")
		ds, has := p.Params["dims"]
		if !has {
			return nil, nil, nil, true, run.BadInputf("spec %q: missing dims=AxBx...", spec)
		}
		dims, err := parseDims(spec, ds)
		if err != nil {
			return nil, nil, nil, true, err
		}
		k, err := p.Int("k", true, 0)
		if err != nil {
			return nil, nil, nil, true, err
		}
		if queries, err = parseQueryTypes(p, len(dims)); err != nil {
			return nil, nil, nil, true, err
		}
		if err := p.Done(); err != nil {
			return nil, nil, nil, true, err
		}
		for i, d := range dims {
			if d < 1 || d > maxSpecAttrSize {
				return nil, nil, nil, true, run.BadInputf("spec %q: attribute %d has %d values, want 1..%d", spec, i, d, maxSpecAttrSize)
			}
			attrs = append(attrs, Attribute{Name: fmt.Sprintf("a%d", i), Size: d})
		}
		if ms, err = allKWay(len(dims), k, 1); err != nil {
			return nil, nil, nil, true, fmt.Errorf("workload %q: %w", spec, err)
		}
		return attrs, ms, queries, true, nil
	case p.Kind == "file" && strings.EqualFold(fileExt(p.Path), ".json") && readFile != nil:
		data, err := readFile(p.Path)
		if err != nil {
			return nil, nil, nil, false, err
		}
		return ParseMarginalWorkloadJSONQueries(data)
	}
	return nil, nil, nil, false, nil
}

func fileExt(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 && !strings.ContainsAny(path[i:], `/\`) {
		return path[i:]
	}
	return ""
}

// ParseMarginalWorkloadJSON is ParseMarginalWorkloadJSONQueries for files
// whose attributes are all queried by identity (ok is false otherwise).
func ParseMarginalWorkloadJSON(data []byte) (attrs []Attribute, ms []WeightedMarginal, ok bool, err error) {
	attrs, ms, queries, ok, err := ParseMarginalWorkloadJSONQueries(data)
	if ok && err == nil && queries != nil {
		return nil, nil, false, nil
	}
	return attrs, ms, ok, err
}

// ParseMarginalWorkloadJSONQueries parses a workload file
// (ParseWorkloadJSON's format) whose entries are all marginals (see
// ParseMarginalWorkloadQueries), with up to 2^20 attributes; ok is false
// when an entry is something else (a range object, a matrix, a builtin,
// "identity+total"), an attribute has two query types, or the file is not
// valid JSON of that shape (ParseWorkloadJSON then reports the error).
func ParseMarginalWorkloadJSONQueries(data []byte) (attrs []Attribute, ms []WeightedMarginal, queries []string, ok bool, err error) {
	spec, err := decodeWorkloadFile(data)
	if err != nil {
		return nil, nil, nil, false, nil // ParseWorkloadJSON reports it
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("workload file: %w: %s", run.ErrBadInput, fmt.Sprintf(format, a...))
	}
	// Each attribute's query type: the one type its non-total blocks
	// name (identity for the attributes of a {"marginals": K} entry).
	kinds := map[string]string{}
	typed := false
	for _, e := range spec.Workload {
		if e.Builtin != "" || (e.Blocks == nil) == (e.Marginals == nil) {
			return nil, nil, nil, false, nil
		}
		if e.Marginals != nil {
			for _, a := range spec.Attributes {
				if k, seen := kinds[a.Name]; seen && k != QueryIdentity {
					return nil, nil, nil, false, nil
				}
				kinds[a.Name] = QueryIdentity
			}
		}
		for attr, raw := range e.Blocks {
			var name string
			if json.Unmarshal(raw, &name) != nil {
				return nil, nil, nil, false, nil
			}
			switch name {
			case "total":
				continue
			case QueryIdentity, QueryPrefix, QueryAllRange:
			default:
				return nil, nil, nil, false, nil
			}
			if k, seen := kinds[attr]; seen && k != name {
				return nil, nil, nil, false, nil
			}
			kinds[attr] = name
			typed = typed || name != QueryIdentity
		}
	}
	if len(spec.Workload) == 0 || len(spec.Workload) > maxSpecProducts {
		return nil, nil, nil, true, bad("%d workload entries, want 1..%d", len(spec.Workload), maxSpecProducts)
	}
	attrs = spec.Attributes
	if len(attrs) == 0 || len(attrs) > maxPlanAttrs {
		return nil, nil, nil, true, bad("%d attributes, want 1..%d", len(attrs), maxPlanAttrs)
	}
	index := map[string]int{}
	for i, a := range attrs {
		if a.Name == "" {
			return nil, nil, nil, true, bad("attribute %d has no name", i)
		}
		if _, dup := index[a.Name]; dup {
			return nil, nil, nil, true, bad("attribute %q named twice", a.Name)
		}
		if a.Size < 1 || a.Size > maxSpecAttrSize {
			return nil, nil, nil, true, bad("attribute %q has size %d, want 1..%d", a.Name, a.Size, maxSpecAttrSize)
		}
		index[a.Name] = i
	}
	for e, entry := range spec.Workload {
		w := 1.0
		if entry.Weight != nil {
			w = *entry.Weight
			if !(w > 0) || math.IsInf(w, 0) {
				return nil, nil, nil, true, bad("entry %d: weight %v, want finite > 0", e, w)
			}
		}
		if entry.Marginals != nil {
			kw, err := allKWay(len(attrs), *entry.Marginals, w)
			if err != nil {
				return nil, nil, nil, true, fmt.Errorf("workload file: entry %d: %w", e, err)
			}
			if len(ms)+len(kw) > maxSpecMarginals {
				return nil, nil, nil, true, fmt.Errorf("linear: workload file: more than %d marginals: %w", maxSpecMarginals, run.ErrTooLarge)
			}
			ms = append(ms, kw...)
			continue
		}
		var s []int
		for name, raw := range entry.Blocks {
			i, known := index[name]
			if !known {
				return nil, nil, nil, true, bad("entry %d: unknown attribute %q", e, name)
			}
			var b string
			_ = json.Unmarshal(raw, &b)
			if b != "total" {
				s = append(s, i)
			}
		}
		if len(ms)+1 > maxSpecMarginals {
			return nil, nil, nil, true, fmt.Errorf("linear: workload file: more than %d marginals: %w", maxSpecMarginals, run.ErrTooLarge)
		}
		ms = append(ms, WeightedMarginal{Attrs: sortedInts(s), Weight: w})
	}
	if typed {
		queries = make([]string, len(attrs))
		for i, a := range attrs {
			if k := kinds[a.Name]; k != "" && k != QueryIdentity {
				queries[i] = k
			}
		}
	}
	return attrs, ms, queries, true, nil
}

func sortedInts(s []int) []int {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	if s == nil {
		s = []int{}
	}
	return s
}

// typedMarginals returns the explicit workload of all k-way marginals over
// dims with per-attribute query types: the union over the k-sets S of
// ⊗_f (Identity, Prefix or AllRange for f ∈ S, Total for f ∉ S).
func typedMarginals(dims []int, k int, queries []string) (Workload, error) {
	cells := 1.0
	for i, d := range dims {
		if d < 1 {
			return nil, run.BadInputf("marginals: attribute %d has %d values, must be >= 1", i, d)
		}
		cells *= float64(d)
	}
	if cells > 1<<40 {
		return nil, fmt.Errorf("linear: marginals: domain of %g cells is too large: %w", cells, run.ErrTooLarge)
	}
	ms, err := allKWay(len(dims), k, 1)
	if err != nil {
		return nil, err
	}
	parts := make([]Workload, 0, len(ms))
	for _, m := range ms {
		fs := make([]Workload, len(dims))
		for f, d := range dims {
			if fs[f], err = Total(d); err != nil {
				return nil, err
			}
		}
		for _, f := range m.Attrs {
			switch queries[f] {
			case QueryPrefix:
				fs[f], err = Prefix(dims[f])
			case QueryAllRange:
				fs[f], err = AllRange(dims[f])
			default:
				fs[f], err = Identity(dims[f])
			}
			if err != nil {
				return nil, err
			}
		}
		w, err := Kron(fs...)
		if err != nil {
			return nil, err
		}
		parts = append(parts, w)
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return Union(parts...)
}

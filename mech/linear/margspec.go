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

// ParseMarginalWorkload recognises a weighted marginal workload among the
// CLI's workload specs without forming its matrix: "marginals:dims=D,k=K"
// (all K-way marginals; D as in "2x3x4" or "10^100", 100 attributes of
// 10 values) or "file:PATH.json", a workload file (ParseWorkloadJSON's
// format) every entry of which is a marginal: {"marginals": K} or
// {"blocks": ...} with only "identity" and "total" blocks (the marginal
// over the identity attributes), each with its "weight". Such a file may
// have up to 2^20 attributes. ok is false (and err nil) for any other
// spec or file: the caller parses it with ParseWorkload. readFile reads a
// workload file (bounded by the caller). The attributes are named a0, a1,
// ... for a spec. Errors match run.ErrBadInput (run.ErrTooLarge beyond
// 2^24 marginals).
func ParseMarginalWorkload(spec string, readFile func(path string) ([]byte, error)) (attrs []Attribute, ms []WeightedMarginal, ok bool, err error) {
	p, err := SplitSpec(spec)
	if err != nil {
		return nil, nil, false, err
	}
	switch {
	case p.Kind == "marginals":
		p.Use("dims")
		ds, has := p.Params["dims"]
		if !has {
			return nil, nil, true, run.BadInputf("spec %q: missing dims=AxBx...", spec)
		}
		dims, err := parseDims(spec, ds)
		if err != nil {
			return nil, nil, true, err
		}
		k, err := p.Int("k", true, 0)
		if err != nil {
			return nil, nil, true, err
		}
		if err := p.Done(); err != nil {
			return nil, nil, true, err
		}
		for i, d := range dims {
			if d < 1 || d > maxSpecAttrSize {
				return nil, nil, true, run.BadInputf("spec %q: attribute %d has %d values, want 1..%d", spec, i, d, maxSpecAttrSize)
			}
			attrs = append(attrs, Attribute{Name: fmt.Sprintf("a%d", i), Size: d})
		}
		if ms, err = allKWay(len(dims), k, 1); err != nil {
			return nil, nil, true, fmt.Errorf("workload %q: %w", spec, err)
		}
		return attrs, ms, true, nil
	case p.Kind == "file" && strings.EqualFold(fileExt(p.Path), ".json") && readFile != nil:
		data, err := readFile(p.Path)
		if err != nil {
			return nil, nil, false, err
		}
		return ParseMarginalWorkloadJSON(data)
	}
	return nil, nil, false, nil
}

func fileExt(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 && !strings.ContainsAny(path[i:], `/\`) {
		return path[i:]
	}
	return ""
}

// ParseMarginalWorkloadJSON parses a workload file (ParseWorkloadJSON's
// format) whose entries are all marginals (see ParseMarginalWorkload),
// with up to 2^20 attributes; ok is false when an entry is something else
// (a range block, a matrix, a builtin) or the file is not valid JSON of
// that shape (ParseWorkloadJSON then reports the error).
func ParseMarginalWorkloadJSON(data []byte) (attrs []Attribute, ms []WeightedMarginal, ok bool, err error) {
	spec, err := decodeWorkloadFile(data)
	if err != nil {
		return nil, nil, false, nil // ParseWorkloadJSON reports it
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("workload file: %w: %s", run.ErrBadInput, fmt.Sprintf(format, a...))
	}
	for _, e := range spec.Workload {
		if e.Builtin != "" || (e.Blocks == nil) == (e.Marginals == nil) {
			return nil, nil, false, nil
		}
		for _, raw := range e.Blocks {
			var name string
			if json.Unmarshal(raw, &name) != nil || (name != "identity" && name != "total") {
				return nil, nil, false, nil
			}
		}
	}
	if len(spec.Workload) == 0 || len(spec.Workload) > maxSpecProducts {
		return nil, nil, true, bad("%d workload entries, want 1..%d", len(spec.Workload), maxSpecProducts)
	}
	attrs = spec.Attributes
	if len(attrs) == 0 || len(attrs) > maxPlanAttrs {
		return nil, nil, true, bad("%d attributes, want 1..%d", len(attrs), maxPlanAttrs)
	}
	index := map[string]int{}
	for i, a := range attrs {
		if a.Name == "" {
			return nil, nil, true, bad("attribute %d has no name", i)
		}
		if _, dup := index[a.Name]; dup {
			return nil, nil, true, bad("attribute %q named twice", a.Name)
		}
		if a.Size < 1 || a.Size > maxSpecAttrSize {
			return nil, nil, true, bad("attribute %q has size %d, want 1..%d", a.Name, a.Size, maxSpecAttrSize)
		}
		index[a.Name] = i
	}
	for e, entry := range spec.Workload {
		w := 1.0
		if entry.Weight != nil {
			w = *entry.Weight
			if !(w > 0) || math.IsInf(w, 0) {
				return nil, nil, true, bad("entry %d: weight %v, want finite > 0", e, w)
			}
		}
		if entry.Marginals != nil {
			kw, err := allKWay(len(attrs), *entry.Marginals, w)
			if err != nil {
				return nil, nil, true, fmt.Errorf("workload file: entry %d: %w", e, err)
			}
			if len(ms)+len(kw) > maxSpecMarginals {
				return nil, nil, true, fmt.Errorf("linear: workload file: more than %d marginals: %w", maxSpecMarginals, run.ErrTooLarge)
			}
			ms = append(ms, kw...)
			continue
		}
		var s []int
		for name, raw := range entry.Blocks {
			i, known := index[name]
			if !known {
				return nil, nil, true, bad("entry %d: unknown attribute %q", e, name)
			}
			var b string
			_ = json.Unmarshal(raw, &b)
			if b == "identity" {
				s = append(s, i)
			}
		}
		if len(ms)+1 > maxSpecMarginals {
			return nil, nil, true, fmt.Errorf("linear: workload file: more than %d marginals: %w", maxSpecMarginals, run.ErrTooLarge)
		}
		ms = append(ms, WeightedMarginal{Attrs: sortedInts(s), Weight: w})
	}
	return attrs, ms, true, nil
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

package linear

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/optdp/optdp/run"
)

// Labels returns, for every query of w in order (the rows of W), a label
// saying which counts it sums: the conditions on the attributes, joined by
// " & ", each
//
//	NAME=V          one value,
//	NAME=L..R       a range of values (inclusive),
//	NAME=1,4..6,9   a set of values (a 0/1 row of an explicit block),
//	NAME:BLOCK[K]   row K of an explicit block BLOCK with other weights,
//
// an attribute summed over entirely named by no condition, and "total" for
// the sum of all counts. A weighted query c·q reads "c*(q)". So all 2-way
// marginals over (sex, age) label their cells "sex=1 & age=30", a prefix
// workload "a0=0..7", census's tables "hispanic=1 & race=1 & age=18..114".
//
// attrs names the domain's attributes; nil names them a0, a1, ... after
// Shape(w). Given, they must match Shape(w) (count and sizes). The labels
// take about 48 bytes a query, checked against budget first. Errors: attrs
// that do not match (run.ErrBadInput), too many queries (run.ErrTooLarge).
func Labels(w Workload, attrs []Attribute, budget run.Budget) ([]string, error) {
	shape := Shape(w)
	if attrs == nil {
		for i, d := range shape {
			attrs = append(attrs, Attribute{Name: "a" + strconv.Itoa(i), Size: d})
		}
	}
	if len(attrs) != len(shape) {
		return nil, fmt.Errorf("linear: labels: %w: %d attributes for a workload over %d", run.ErrBadInput, len(attrs), len(shape))
	}
	for i, a := range attrs {
		if a.Size != shape[i] {
			return nil, fmt.Errorf("linear: labels: %w: attribute %q has %d values, the workload's dimension %d has %d", run.ErrBadInput, a.Name, a.Size, i, shape[i])
		}
	}
	m, _ := w.Dims()
	if err := budget.Check(fmt.Sprintf("linear: labels of %d queries", m), 48*float64(m), ""); err != nil {
		return nil, err
	}
	terms, err := labelTerms(w, attrs)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(terms))
	for k, t := range terms {
		if t == "" {
			t = "total"
		}
		out[k] = t
	}
	return out, nil
}

// labelTerms returns the conditions of each query of w over attrs ("" for
// no condition).
func labelTerms(w Workload, attrs []Attribute) ([]string, error) {
	switch v := w.(type) {
	case *kronWorkload:
		var out []string
		pos := 0
		for i, f := range v.fs {
			d := len(Shape(f))
			if pos+d > len(attrs) {
				return nil, fmt.Errorf("linear: labels: %w: the factors' shapes exceed the %d attributes", run.ErrBadInput, len(attrs))
			}
			ts, err := labelTerms(f, attrs[pos:pos+d])
			if err != nil {
				return nil, err
			}
			pos += d
			if i == 0 {
				out = ts
				continue
			}
			next := make([]string, 0, len(out)*len(ts))
			for _, a := range out {
				for _, b := range ts {
					next = append(next, joinTerms(a, b))
				}
			}
			out = next
		}
		return out, nil
	case *marginalWorkload:
		var out []string
		for _, s := range v.subsets {
			cells := 1
			for _, i := range s {
				cells *= v.dims[i]
			}
			vals := make([]int, len(s))
			for c := 0; c < cells; c++ {
				rem := c
				for j := len(s) - 1; j >= 0; j-- {
					vals[j] = rem % v.dims[s[j]]
					rem /= v.dims[s[j]]
				}
				t := ""
				for j, i := range s {
					t = joinTerms(t, attrs[i].Name+"="+strconv.Itoa(vals[j]))
				}
				out = append(out, t)
			}
		}
		return out, nil
	case *unionWorkload:
		var out []string
		for _, u := range v.ws {
			sub := attrs
			if sh := Shape(u); len(sh) != len(attrs) {
				// The members' shapes differ (the union's is the flat
				// domain): each member's own dimensions, named d0, d1, ...
				sub = nil
				for i, d := range sh {
					sub = append(sub, Attribute{Name: "d" + strconv.Itoa(i), Size: d})
				}
			}
			ts, err := labelTerms(u, sub)
			if err != nil {
				return nil, err
			}
			out = append(out, ts...)
		}
		return out, nil
	case *scaledWorkload:
		ts, err := labelTerms(v.w, attrs)
		if err != nil {
			return nil, err
		}
		c := strconv.FormatFloat(v.c, 'g', -1, 64)
		for k, t := range ts {
			if t == "" {
				t = "total"
			}
			ts[k] = c + "*(" + t + ")"
		}
		return ts, nil
	case *rangeWorkload:
		name := flatName(attrs)
		out := make([]string, 0, v.m)
		v.each(func(l, r int) { out = append(out, rangeTerm(name, l, r, v.n)) })
		return out, nil
	case *matrixWorkload:
		name := flatName(attrs)
		m, n := v.a.Dims()
		out := make([]string, m)
		for k := 0; k < m; k++ {
			out[k] = matrixRowTerm(name, v.name, k, v.a.RawRowView(k), n)
		}
		return out, nil
	}
	m, _ := w.Dims()
	out := make([]string, m)
	for k := range out {
		out[k] = fmt.Sprintf("%v[%d]", w, k)
	}
	return out, nil
}

// flatName names a 1-D block's attribute (the attributes joined by "*"
// when a 1-D block spans several).
func flatName(attrs []Attribute) string {
	names := make([]string, len(attrs))
	for i, a := range attrs {
		names[i] = a.Name
	}
	return strings.Join(names, "*")
}

// joinTerms joins two conditions with " & ", skipping empty ones.
func joinTerms(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " & " + b
}

// rangeTerm is the condition of the range [l, r] over n values: none for
// all of them.
func rangeTerm(name string, l, r, n int) string {
	switch {
	case l == 0 && r == n-1:
		return ""
	case l == r:
		return name + "=" + strconv.Itoa(l)
	}
	return name + "=" + strconv.Itoa(l) + ".." + strconv.Itoa(r)
}

// matrixRowTerm describes row k of an explicit block: a 0/1 row as the
// set of its values (in ranges), any other row by its index.
func matrixRowTerm(name, block string, k int, row []float64, n int) string {
	var parts []string
	ones := 0
	for v := 0; v < n; v++ {
		switch row[v] {
		case 0:
			continue
		case 1:
		default:
			return name + ":" + block + "[" + strconv.Itoa(k) + "]"
		}
		ones++
		if v > 0 && row[v-1] == 1 {
			continue
		}
		end := v
		for end+1 < n && row[end+1] == 1 {
			end++
		}
		if end == v {
			parts = append(parts, strconv.Itoa(v))
		} else {
			parts = append(parts, strconv.Itoa(v)+".."+strconv.Itoa(end))
		}
	}
	switch ones {
	case n:
		return ""
	case 0:
		return name + ":" + block + "[" + strconv.Itoa(k) + "] (empty)"
	}
	return name + "=" + strings.Join(parts, ",")
}

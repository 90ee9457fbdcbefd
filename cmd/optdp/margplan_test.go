package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/linear"
)

// TestOptimizeMarginalPlan: 3-way marginals over 100 attributes of 10
// values (beyond the dense path's 64 attributes and 2^40 cells) are
// planned in the residual basis. The max-variance objective is the
// symmetric closed form (Σ_j C(100,j) sqrt(C(100-j,3-j)) 9^j)²/(C(100,3)
// 10^6) with gap 0, and the sum plan's TSE is σ² (Σ_j C(100,j)
// sqrt(C(100-j,3-j)) 9^j)²/10^3 with σ the analytic Gaussian's.
func TestOptimizeMarginalPlan(t *testing.T) {
	binom := func(a, b int) float64 {
		r := 1.0
		for i := 0; i < b; i++ {
			r = r * float64(a-i) / float64(i+1)
		}
		return r
	}
	phi := 0.0
	for j := 0; j <= 3; j++ {
		phi += binom(100, j) * math.Sqrt(binom(100-j, 3-j)) * math.Pow(9, float64(j))
	}
	sigma, _ := linear.AnalyticGaussianSigma(1, 1, 1e-6)
	v := matrixJSON(t, "optimize", "--workload", "marginals:dims=10^100,k=3", "--eps", "1", "--delta", "1e-6", "--loss", "max")
	if want := phi * phi / (binom(100, 3) * 1e6); !relClose(v["objective"].(float64), want, 1e-11) || v["rel_gap"].(float64) > 1e-11 {
		t.Errorf("max objective %v (gap %v), closed form %v", v["objective"], v["rel_gap"], want)
	}
	if v["marginals"].(float64) != 161700 || v["method"] != "residual-planner" {
		t.Errorf("marginals %v method %v", v["marginals"], v["method"])
	}
	out := filepath.Join(t.TempDir(), "plan.json")
	v = matrixJSON(t, "optimize", "--workload", "marginals:dims=10^100,k=3", "--eps", "1", "--delta", "1e-6", "--out", out)
	if want := sigma * sigma * phi * phi / 1e3; !relClose(v["tse"].(float64), want, 1e-11) || v["loss"] != "sum" {
		t.Errorf("sum TSE %v, closed form %v", v["tse"], want)
	}
	// The plan file: one share per subspace, summing to 1 (the sensitivity)
	// up to rounding.
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var plan linear.MarginalPlan
	if err := json.Unmarshal(raw, &plan); err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, u := range plan.Share {
		total += u
	}
	if len(plan.Share) != 166751 || len(plan.Subspaces) != 166751 || math.Abs(total-1) > 1e-10 {
		t.Errorf("plan file: %d shares summing to %v, %d subspaces; want 166,751 summing to 1", len(plan.Share), total, len(plan.Subspaces))
	}
}

// TestOptimizeMarginalFile: a weighted workload file of marginals over 70
// attributes of mixed sizes goes to the residual planner; its TSE equals
// linear.OptimalGaussianMarginals' closed form (a separate
// implementation), and the max plan's max variance is below the sum plan's.
func TestOptimizeMarginalFile(t *testing.T) {
	var attrs []string
	dims := make([]int, 70)
	for i := range dims {
		dims[i] = 2 + i%9
		attrs = append(attrs, fmt.Sprintf(`{"name": "x%d", "size": %d}`, i, dims[i]))
	}
	ms := []linear.WeightedMarginal{{Attrs: []int{0, 5, 69}, Weight: 2.5}, {Attrs: []int{3}, Weight: 0.1}, {Attrs: []int{5, 7}, Weight: 1}, {Attrs: []int{}, Weight: 4}}
	var entries []string
	for _, m := range ms {
		var b []string
		for _, a := range m.Attrs {
			b = append(b, fmt.Sprintf(`"x%d": "identity"`, a))
		}
		b = append(b, `"x1": "total"`)
		entries = append(entries, fmt.Sprintf(`{"weight": %v, "blocks": {%s}}`, m.Weight, strings.Join(b, ", ")))
	}
	path := filepath.Join(t.TempDir(), "w.json")
	if err := os.WriteFile(path, []byte(fmt.Sprintf(`{"attributes": [%s], "workload": [%s]}`, strings.Join(attrs, ","), strings.Join(entries, ","))), 0o600); err != nil {
		t.Fatal(err)
	}
	cf, err := linear.OptimalGaussianMarginals(dims, ms, 0.5, 1e-8)
	if err != nil {
		t.Fatal(err)
	}
	sum := matrixJSON(t, "optimize", "--workload", "file:"+path, "--eps", "0.5", "--delta", "1e-8")
	if !relClose(sum["tse"].(float64), cf.TSE, 1e-12) {
		t.Errorf("sum TSE %v, closed form %v", sum["tse"], cf.TSE)
	}
	mx := matrixJSON(t, "optimize", "--workload", "file:"+path, "--eps", "0.5", "--delta", "1e-8", "--loss", "max")
	if mx["max_variance"].(float64) > sum["max_variance"].(float64) || mx["rel_gap"].(float64) > 1e-6 {
		t.Errorf("max plan: max variance %v (gap %v), sum plan %v", mx["max_variance"], mx["rel_gap"], sum["max_variance"])
	}
}

// TestMarginalCLIErrors: --loss max without --delta or on a non-marginal
// workload, an unknown loss, and residual answering without records are
// command-line errors (exit 2); a record outside the domain is a data
// error (exit 1).
func TestMarginalCLIErrors(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "r.csv")
	if err := os.WriteFile(rec, []byte("a0,a1\n0,1\n2,0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("a0,a1\n0,1\n3,0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		code int
		args []string
	}{
		{2, []string{"optimize", "--workload", "marginals:dims=3x2,k=1", "--eps", "1", "--loss", "max"}},
		{2, []string{"optimize", "--workload", "allrange:n=8", "--eps", "1", "--delta", "1e-6", "--loss", "max"}},
		{2, []string{"optimize", "--workload", "marginals:dims=3x2,k=1", "--eps", "1", "--delta", "1e-6", "--loss", "median"}},
		{2, []string{"optimize", "--workload", "marginals:dims=3^x,k=1", "--eps", "1", "--delta", "1e-6", "--loss", "max"}},
		{2, []string{"answer", "--workload", "marginals:dims=3x2,k=1", "--strategy", "residual", "--eps", "1", "--data", rec}},
		{2, []string{"answer", "--workload", "allrange:n=8", "--strategy", "residual", "--eps", "1", "--delta", "1e-6", "--records", rec}},
		{2, []string{"answer", "--workload", "marginals:dims=3x2,k=1", "--strategy", "residual:loss=x", "--eps", "1", "--delta", "1e-6", "--records", rec}},
		{1, []string{"answer", "--workload", "marginals:dims=3x2,k=1", "--strategy", "residual", "--eps", "1", "--delta", "1e-6", "--records", bad}},
	} {
		if code, _, errs := runCLI(c.args...); code != c.code {
			t.Errorf("optdp %v: exit %d, want %d (%s)", c.args, code, c.code, errs)
		}
	}
}

// TestAnswerResidualCLI: at eps = 1e6 the released marginals are the true
// counts of the records file (counted here) to within 6 reported standard
// deviations, a small variance, for every 2-way marginal over 4 attributes.
func TestAnswerResidualCLI(t *testing.T) {
	dims := []int{3, 2, 4, 2}
	var b strings.Builder
	b.WriteString("a0,a1,a2,a3\n")
	var recs [][]int
	for r := 0; r < 200; r++ {
		row := []int{r % 3, (r / 3) % 2, (r * r) % 4, (r / 7) % 2}
		recs = append(recs, row)
		fmt.Fprintf(&b, "%d,%d,%d,%d\n", row[0], row[1], row[2], row[3])
	}
	path := filepath.Join(t.TempDir(), "r.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	v := matrixJSON(t, "answer", "--workload", "marginals:dims=3x2x4x2,k=2", "--strategy", "residual", "--eps", "1e6", "--delta", "1e-6", "--records", path, "--seed", "1")
	if at := v["attributes"].([]any); len(at) != 4 || at[3].(map[string]any)["name"] != "a3" {
		t.Errorf("attributes %v", at)
	}
	ms := v["marginals"].([]any)
	if len(ms) != 6 {
		t.Fatalf("%d marginals, want 6", len(ms))
	}
	for _, mv := range ms {
		m := mv.(map[string]any)
		at := m["attrs"].([]any)
		f, g := int(at[0].(float64)), int(at[1].(float64))
		want := make([]float64, dims[f]*dims[g])
		for _, r := range recs {
			want[r[f]*dims[g]+r[g]]++
		}
		sd := math.Sqrt(m["variance"].(float64))
		if !(sd < 0.01) {
			t.Fatalf("standard deviation %v at eps = 1e6", sd)
		}
		for q, a := range m["answers"].([]any) {
			if math.Abs(a.(float64)-want[q]) > 6*sd {
				t.Errorf("marginal %d,%d cell %d: %v, want %v", f, g, q, a, want[q])
			}
		}
	}
}

// TestResidualPrefixRangeCLI: a marginals spec with prefix and allrange
// attributes is planned by the residual planner under --loss max (its
// query count Σ_S Π q_f = 3·10 + 3·4 + 10·4 = 82 from the definitions), and
// answered at eps = 1e6: every answer within 6 standard deviations of the
// count of the records in its ranges, and the text output labels the
// queries as linear.Labels does ("a1=0..2").
func TestResidualPrefixRangeCLI(t *testing.T) {
	spec := "marginals:dims=3x4x4,k=2,allrange=1,prefix=2"
	v := matrixJSON(t, "optimize", "--workload", spec, "--eps", "1", "--delta", "1e-6", "--loss", "max")
	if v["queries"].(float64) != 82 || !(v["dual"].(float64) > 0 && v["dual"].(float64) <= v["objective"].(float64)) {
		t.Errorf("queries %v, dual %v, objective %v", v["queries"], v["dual"], v["objective"])
	}
	if q := v["attr_queries"].([]any); len(q) != 3 || q[1] != "allrange" || q[2] != "prefix" {
		t.Errorf("attr_queries %v", q)
	}
	var b strings.Builder
	b.WriteString("a0,a1,a2\n")
	var recs [][3]int
	for r := 0; r < 150; r++ {
		row := [3]int{r % 3, (r / 3) % 4, (r * r) % 4}
		recs = append(recs, row)
		fmt.Fprintf(&b, "%d,%d,%d\n", row[0], row[1], row[2])
	}
	path := filepath.Join(t.TempDir(), "r.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	// The queries along each attribute: values, ranges (l then r), prefixes.
	ivs := [][][2]int{{{0, 0}, {1, 1}, {2, 2}}, nil, {{0, 0}, {0, 1}, {0, 2}, {0, 3}}}
	for l := 0; l < 4; l++ {
		for r := l; r < 4; r++ {
			ivs[1] = append(ivs[1], [2]int{l, r})
		}
	}
	v = matrixJSON(t, "answer", "--workload", spec, "--strategy", "residual", "--eps", "1e6", "--delta", "1e-6", "--records", path, "--seed", "1")
	for _, mv := range v["marginals"].([]any) {
		m := mv.(map[string]any)
		at := m["attrs"].([]any)
		f, g := int(at[0].(float64)), int(at[1].(float64))
		vs := m["variances"].([]any)
		for q, a := range m["answers"].([]any) {
			iv, jv := ivs[f][q/len(ivs[g])], ivs[g][q%len(ivs[g])]
			want := 0
			for _, r := range recs {
				if r[f] >= iv[0] && r[f] <= iv[1] && r[g] >= jv[0] && r[g] <= jv[1] {
					want++
				}
			}
			sd := math.Sqrt(vs[q].(float64))
			if !(sd < 0.01) || math.Abs(a.(float64)-float64(want)) > 6*sd {
				t.Errorf("marginal %d,%d query %d: %v (sd %v), want %d", f, g, q, a, sd, want)
			}
		}
	}
	code, out, errOut := runCLI("answer", "--workload", spec, "--strategy", "residual", "--eps", "1", "--delta", "1e-6", "--records", path, "--seed", "1")
	if code != 0 || !strings.Contains(out, "\na0=2 & a1=0..2 ") || !strings.Contains(out, "\na1=3 & a2=0..1 ") {
		t.Errorf("text output (code %d, %s):\n%s", code, errOut, out)
	}
}

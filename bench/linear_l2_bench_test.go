package bench

import (
	"context"
	"testing"

	"github.com/optdp/optdp/mech/linear"
)

// benchL2Optimize is the L2 optimisation end to end: linear.Optimize on all
// ranges over n cells, eps = 1, delta = 1e-6 (analytic Gaussian): the dense
// Gram, sdp.OptimizeL2's structured dual Newton (docs/MATH.md §15.7), the
// baselines' errors (sdp.L2Error, structured) and the matrix mechanism's
// recomputation of the returned strategy's error (ProfileTrace), within the
// default 4 GiB budget.
func benchL2Optimize(b *testing.B, n int) {
	w, err := linear.AllRange(n)
	if err != nil {
		b.Fatal(err)
	}
	var r *linear.OptimizeResult
	c0, ops := cpuSeconds(), 0
	for b.Loop() {
		r, err = linear.Optimize(context.Background(), w, &linear.OptimizeOptions{Eps: 1, Delta: 1e-6})
		if err != nil {
			b.Fatal(err)
		}
		ops++
	}
	cpu := (cpuSeconds() - c0) / float64(ops)
	if r.Method != "l2-dense" || r.Baseline != "" {
		b.Fatalf("method %q, baseline %q", r.Method, r.Baseline)
	}
	for _, bl := range r.Baselines {
		if r.TSE > bl.TSE*(1+1e-12) {
			b.Errorf("TSE %v worse than baseline %s (%v)", r.TSE, bl.Name, bl.TSE)
		}
	}
	b.Logf("trace %.12g, relative gap %.2g, TSE %.6g", r.Objective, r.RelGap, r.TSE)
	b.ReportMetric(r.Objective, "trace")
	b.ReportMetric(r.RelGap, "relgap")
	b.ReportMetric(cpu, "cpu_s/op")
}

func BenchmarkL2OptimizeAllRange1024(b *testing.B) { benchL2Optimize(b, 1024) }
func BenchmarkL2OptimizeAllRange4096(b *testing.B) { benchL2Optimize(b, 4096) }

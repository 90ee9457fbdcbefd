//go:build !(386 || arm || mips || mipsle)

// Tests of sizes beyond 32-bit ints: built where int has 64 bits.

package tight

import (
	"context"
	"math"
	"testing"

	"github.com/optdp/optdp/mech/metric"
)

// TestFreeAuditBounded: the tight-constraints mechanism of clique:n=2^31
// (closed form z = 1/(1 + (n-1)e^{-eps})) is built and spot-audited with
// sampled outputs instead of scanning 2^31 outputs per pair; its measured
// level on a clique is exactly eps (every pair of distinct outputs has
// d(h,k) - d(i,k) = 1 at k = i).
func TestFreeAuditBounded(t *testing.T) {
	m, _ := metric.Clique(1 << 31)
	r, err := Solve(context.Background(), m, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Exists != Yes || !r.Audit.Private || r.Audit.Eps != 1 {
		t.Fatalf("clique:n=2^31 at eps 1: exists %v, audit %+v; want exists, private at level 1", r.Exists, r.Audit)
	}
	want := 1 / (1 + float64(1<<31-1)*math.Exp(-1))
	if math.Abs(r.MinZ-want) > 1e-12*want {
		t.Errorf("min z = %v, want 1/(1+(n-1)/e) = %v", r.MinZ, want)
	}
}

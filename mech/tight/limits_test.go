package tight

import (
	"testing"

	"github.com/optdp/optdp/mech/metric"
)

// TestBandedAppliesBounded: a graph above MaxVectorN answers is never
// banded (the edge scan of ring:n=1e9 took 16 s before the check), while
// a sum query below it, whose bandwidth v is far below n/8, is.
func TestBandedAppliesBounded(t *testing.T) {
	big, _ := metric.Ring(1e9)
	if bandedApplies(big) {
		t.Errorf("ring:n=1e9 is banded")
	}
	huge, _ := metric.Sum(MaxVectorN, 1) // n = 2^24+1, bandwidth 1
	if bandedApplies(huge) {
		t.Errorf("sum with n = 2^24+1 is banded")
	}
	small, _ := metric.Sum(1000, 2) // n = 2001, bandwidth 2
	if !bandedApplies(small) {
		t.Errorf("sum:u=1000,v=2 (bandwidth 2 <= n/8) is not banded")
	}
}

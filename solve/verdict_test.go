package solve

import (
	"testing"

	"github.com/optdp/optdp/run"
)

func TestCertificateVerdict(t *testing.T) {
	// An uncertified certificate never decides.
	if v := (Certificate{ErrBound: 0.1}).Verdict(5); v != run.Borderline {
		t.Errorf("uncertified: %v", v)
	}
	if v := (Certificate{ErrBound: 0.1, Certified: true}).Verdict(-5); v != run.No {
		t.Errorf("certified negative: %v", v)
	}
}

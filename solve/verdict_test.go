package solve

import "testing"

func TestSignVerdict(t *testing.T) {
	for _, c := range []struct {
		min, err float64
		want     Verdict
	}{
		{0.5, 0.1, Yes}, {-0.5, 0.1, No}, {0.05, 0.1, Borderline}, {-0.05, 0.1, Borderline},
		{0.1, 0.1, Borderline}, {1e-300, 0, Yes}, {0, 0, Borderline},
	} {
		if got := SignVerdict(c.min, c.err); got != c.want {
			t.Errorf("SignVerdict(%v, %v) = %v, want %v", c.min, c.err, got, c.want)
		}
	}
	// An uncertified certificate never decides.
	if v := (Certificate{ErrBound: 0.1}).Verdict(5); v != Borderline {
		t.Errorf("uncertified: %v", v)
	}
	if v := (Certificate{ErrBound: 0.1, Certified: true}).Verdict(-5); v != No {
		t.Errorf("certified negative: %v", v)
	}
}

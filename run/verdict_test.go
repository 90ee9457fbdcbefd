package run

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestSignVerdict(t *testing.T) {
	for _, c := range []struct {
		min, err float64
		want     Verdict
	}{
		{0.5, 0.1, Yes}, {-0.5, 0.1, No}, {0.05, 0.1, Borderline}, {-0.05, 0.1, Borderline},
		{0.1, 0.1, Borderline}, {1e-300, 0, Yes}, {0, 0, Borderline},
	} {
		t.Run(fmt.Sprint(c.min, "±", c.err), func(t *testing.T) {
			if got := SignVerdict(c.min, c.err); got != c.want {
				t.Errorf("SignVerdict(%v, %v) = %v, want %v", c.min, c.err, got, c.want)
			}
		})
	}
}

func TestVerdictJSON(t *testing.T) {
	b, err := json.Marshal([]Verdict{Yes, No, Borderline})
	if err != nil || string(b) != `[true,false,"borderline"]` {
		t.Errorf("%s %v", b, err)
	}
	var v []Verdict
	if err := json.Unmarshal(b, &v); err != nil || v[0] != Yes || v[1] != No || v[2] != Borderline {
		t.Errorf("%v %v", v, err)
	}
	if _, err := json.Marshal(Verdict("maybe")); err == nil {
		t.Error("bad verdict marshalled")
	}
	var x Verdict
	if err := json.Unmarshal([]byte(`"maybe"`), &x); err == nil {
		t.Error("bad verdict unmarshalled")
	}
}

func TestVerdictString(t *testing.T) {
	for v, want := range map[Verdict]string{Yes: "yes", No: "no", Borderline: "borderline"} {
		if v.String() != want {
			t.Errorf("%q.String() = %q", string(v), v.String())
		}
	}
}

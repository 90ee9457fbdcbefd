package run

import (
	"encoding/json"
	"fmt"
)

// Verdict is a three-way answer to "does a non-negative solution exist?".
// It marshals to JSON as true, false or "borderline".
type Verdict string

// The verdicts.
const (
	// Yes: a non-negative solution exists (every component's sign is
	// certain given the error bound, or a certificate shows it).
	Yes Verdict = "yes"
	// No: no non-negative solution exists (a component is certainly
	// negative and the solution is unique, or a Farkas certificate).
	No Verdict = "no"
	// Borderline: rounding could flip the answer; see the error bound.
	Borderline Verdict = "borderline"
)

// SignVerdict is the verdict on "min z >= 0" for a computed minimum min
// whose error is at most err: Yes when min > err, No when min < -err,
// Borderline when rounding could flip the sign.
func SignVerdict(min, err float64) Verdict {
	switch {
	case min > err:
		return Yes
	case min < -err:
		return No
	}
	return Borderline
}

// MarshalJSON writes true, false or "borderline".
func (v Verdict) MarshalJSON() ([]byte, error) {
	switch v {
	case Yes:
		return []byte("true"), nil
	case No:
		return []byte("false"), nil
	case Borderline:
		return []byte(`"borderline"`), nil
	}
	return nil, fmt.Errorf("run: unknown verdict %q", string(v))
}

// UnmarshalJSON reads true, false or "borderline".
func (v *Verdict) UnmarshalJSON(b []byte) error {
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	switch x {
	case true:
		*v = Yes
	case false:
		*v = No
	case "borderline":
		*v = Borderline
	default:
		return fmt.Errorf("run: bad verdict %s (want true, false or \"borderline\")", b)
	}
	return nil
}

// String returns "yes", "no" or "borderline".
func (v Verdict) String() string { return string(v) }

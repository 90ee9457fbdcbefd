package stream

import (
	"errors"
	"testing"

	"github.com/optdp/optdp/run"
)

// FuzzParseSchema: a spec is either refused as bad input or parsed into a
// schema with k, b >= 1 whose String parses back to the same schema.
func FuzzParseSchema(f *testing.F) {
	for _, s := range []string{"single", "epochs:k=4,b=512", "minsep:k=2,b=64", "epochs:k=0,b=1", "minsep:b=3", "single:k=1",
		"epochs:k=1,b=1,c=2", "epochs:k=99999999999999999999,b=1", " epochs : k = 2 , b = 3 ", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		s, err := ParseSchema(spec)
		if err != nil {
			if !errors.Is(err, run.ErrBadInput) {
				t.Fatalf("%q: error %v is not bad input", spec, err)
			}
			return
		}
		if s.K < 1 || s.B < 1 {
			t.Fatalf("%q: accepted k = %d, b = %d", spec, s.K, s.B)
		}
		back, err := ParseSchema(s.String())
		if err != nil || back != s {
			t.Fatalf("%q -> %v -> %q -> %v (%v)", spec, s, s.String(), back, err)
		}
	})
}

// FuzzParseLoss: a loss name is refused as bad input or parsed into a
// Loss whose String parses back to it.
func FuzzParseLoss(f *testing.F) {
	for _, s := range []string{"", "total", "max", "Max", "total ", "mean", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLoss(s)
		if err != nil {
			if !errors.Is(err, run.ErrBadInput) {
				t.Fatalf("%q: error %v is not bad input", s, err)
			}
			return
		}
		if back, err := ParseLoss(l.String()); err != nil || back != l {
			t.Fatalf("%q -> %v -> %v (%v)", s, l, back, err)
		}
	})
}

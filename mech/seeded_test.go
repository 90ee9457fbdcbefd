package mech

import "testing"

// Seeded recognises exactly the sources SeededSource returns: not
// CryptoSource, not a wrapper around a seeded source, not nil; and the
// marker keeps SeededSource's stream (two sources with one seed agree,
// different seeds differ).
func TestSeeded(t *testing.T) {
	type wrapped struct{ Source }
	if !Seeded(SeededSource(1)) {
		t.Error("SeededSource(1) not seeded")
	}
	for _, s := range []Source{CryptoSource(), wrapped{SeededSource(1)}, nil} {
		if Seeded(s) {
			t.Errorf("%T reported seeded", s)
		}
	}
	a, b, c := SeededSource(5), SeededSource(5), SeededSource(6)
	same, diff := true, false
	for range 8 {
		x, y, z := a.Uint64(), b.Uint64(), c.Uint64()
		same = same && x == y
		diff = diff || x != z
	}
	if !same || !diff {
		t.Errorf("seeded streams: same seed equal %v, different seeds differ %v", same, diff)
	}
}

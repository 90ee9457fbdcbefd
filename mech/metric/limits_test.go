package metric

import (
	"errors"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/optdp/optdp/run"
)

// TestCheckEpsRange checks the documented range [MinEps, MaxEps] and the
// reasons given for it: at MinEps, e^{-eps} still differs from 1 in float64;
// just below 2^-53 it does not; at 745 (a hop metric) e^{-eps} underflows.
func TestCheckEpsRange(t *testing.T) {
	for _, eps := range []float64{MinEps, 1e-6, 0.5, 1, 745, 7.45e5, MaxEps} {
		if err := CheckEps(eps); err != nil {
			t.Errorf("CheckEps(%v) = %v, want nil", eps, err)
		}
	}
	for _, eps := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1), 1e-308, 5e-324,
		math.Nextafter(MinEps, 0), math.Nextafter(MaxEps, math.Inf(1)), 1e299, 1e308} {
		err := CheckEps(eps)
		if err == nil {
			t.Errorf("CheckEps(%v) accepted", eps)
			continue
		}
		if !errors.Is(err, run.ErrBadInput) {
			t.Errorf("CheckEps(%v) = %v, want run.ErrBadInput", eps, err)
		}
	}
	// The reasons in MinEps's doc comment.
	if math.Exp(-MinEps) == 1 {
		t.Errorf("exp(-MinEps) rounds to 1")
	}
	if math.Exp(-0x1p-54) != 1 {
		t.Errorf("exp(-2^-54) does not round to 1")
	}
	if math.Exp(-745.2) != 0 || math.Exp(-744) == 0 {
		t.Errorf("underflow of exp(-eps) is not at eps ~ 745")
	}
}

// repeatReader yields the byte b forever (like /dev/zero).
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// allocDuring is the number of bytes allocated while f runs.
func allocDuring(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestEdgeListBounded: inputs that would cost gigabytes are
// refused with a message naming the limit, allocating little; inputs
// within the limits still give the right distances (a 5-cycle read from a
// file has the ring's distances, computed here by min(|i-j|, 5-|i-j|)).
func TestEdgeListBounded(t *testing.T) {
	cases := []struct {
		name string
		r    io.Reader
		want string
	}{
		{"declared n 2e9", strings.NewReader("n 2000000000\n0 1\n"), "MaxGraphVertices"},
		{"20-byte index", strings.NewReader("90700070 0\n"), "MaxGraphVertices"},
		{"index 2^62", strings.NewReader("4611686018427387904 1\n"), "MaxGraphVertices"},
		{"index overflows int", strings.NewReader("99999999999999999999 1\n"), "integers >= 0"},
		{"dev zero", repeatReader(0), "MaxEdgeListLine"},
		{"long comment", io.MultiReader(strings.NewReader("# "), repeatReader('x')), "MaxEdgeListLine"},
		{"two declarations", strings.NewReader("n 3\nn 4\n0 1\n"), "earlier line declared"},
		{"declared too small", strings.NewReader("n 2\n0 2\n"), "declares n=2"},
		{"self loop", strings.NewReader("0 0\n"), "self loop"},
		{"three fields", strings.NewReader("0 1 2\n"), "two vertex indices"},
		{"empty", strings.NewReader("# nothing\n"), "no edges"},
	}
	for _, c := range cases {
		var err error
		alloc := allocDuring(func() { _, err = ReadEdgeList(c.r) })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one mentioning %q", c.name, err, c.want)
		}
		if alloc > 1<<20 {
			t.Errorf("%s: allocated %d bytes before refusing", c.name, alloc)
		}
	}
	if _, err := NewGraph(MaxGraphVertices+1, nil); err == nil {
		t.Errorf("NewGraph above MaxGraphVertices accepted")
	}
	g, err := ReadEdgeList(strings.NewReader("# a 5-cycle\nn=5\n0 1\n1,2\n2\t3\n3 4\n4 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		for j := 0; j < 5; j++ {
			d := i - j
			if d < 0 {
				d = -d
			}
			if want := float64(min(d, 5-d)); g.Dist(i, j) != want {
				t.Errorf("5-cycle d(%d,%d) = %v, want %v", i, j, g.Dist(i, j), want)
			}
		}
	}
}

// commentLines yields the line "# xxx...x\n" (1 KiB) forever.
type commentLines struct{ k int }

func (c *commentLines) Read(p []byte) (int, error) {
	for i := range p {
		switch c.k % 1024 {
		case 0:
			p[i] = '#'
		case 1023:
			p[i] = '\n'
		default:
			p[i] = 'x'
		}
		c.k++
	}
	return len(p), nil
}

// TestEdgeListByteLimit: an endless stream of comment lines stops at
// MaxEdgeListBytes.
func TestEdgeListByteLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 256 MiB")
	}
	var err error
	alloc := allocDuring(func() { _, err = ReadEdgeList(&commentLines{}) })
	if err == nil || !strings.Contains(err.Error(), "MaxEdgeListBytes") {
		t.Errorf("endless comment lines: err = %v, want the byte limit", err)
	}
	if alloc > 1<<20 {
		t.Errorf("endless comment lines: allocated %d bytes", alloc)
	}
}

// TestDistCSVBounded: /dev/zero, a 10^5-column row and non-square inputs
// are refused as soon as the offending line is read, allocating little;
// a valid file still gives its distances (the 3-point path written out).
func TestDistCSVBounded(t *testing.T) {
	wide := strings.Repeat("1,", 100000) + "0\n"
	cases := []struct {
		name  string
		r     io.Reader
		want  string
		alloc uint64
	}{
		{"dev zero", repeatReader(0), "longer than", 32 << 20},
		{"10^5 columns", strings.NewReader(wide), "limit of the (cubic) validation", 32 << 20},
		{"10^5 columns, many rows", io.MultiReader(strings.NewReader(wide), strings.NewReader(wide), repeatReader('1')), "limit of the (cubic) validation", 32 << 20},
		{"ragged", strings.NewReader("0,1\n1,0,3\n"), "must be square", 1 << 20},
		{"too many rows", strings.NewReader("0,1\n1,0\n1,1\n"), "more than 2 rows", 1 << 20},
		{"too few rows", strings.NewReader("0,1,2\n1,0,1\n"), "2 rows of 3", 1 << 20},
		{"not a number", strings.NewReader("0,x\nx,0\n"), "is not a number", 1 << 20},
		{"separators only", strings.NewReader(",\n,\n,\n"), "is not a number", 1 << 20},
		{"empty", strings.NewReader("# nothing\n"), "no rows", 1 << 20},
		{"bad quote", strings.NewReader("0,\"1\n"), "distance CSV", 1 << 20},
		{"NaN", strings.NewReader("0,NaN\nNaN,0\n"), "NaN", 1 << 20},
		{"triangle", strings.NewReader("0,1,5\n1,0,1\n5,1,0\n"), "triangle", 1 << 20},
	}
	for _, c := range cases {
		var err error
		alloc := allocDuring(func() { _, err = ReadDistCSV(c.r) })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one mentioning %q", c.name, err, c.want)
		}
		if alloc > c.alloc {
			t.Errorf("%s: allocated %d bytes before refusing", c.name, alloc)
		}
	}
	m, err := ReadDistCSV(strings.NewReader("# path\n0, 1, 2\n1,0,1\n2,1,0\n"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			if want := math.Abs(float64(i - j)); m.Dist(i, j) != want {
				t.Errorf("d(%d,%d) = %v, want %v", i, j, m.Dist(i, j), want)
			}
		}
	}
}

// TestDistCSVByteLimit: an endless stream of comment lines stops at
// MaxDistCSVBytes.
func TestDistCSVByteLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 512 MiB")
	}
	_, err := ReadDistCSV(&commentLines{})
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("endless comment lines: err = %v, want the byte limit", err)
	}
}

// TestKCountEdgesLazy: KCount's edges are exactly the pairs i < j whose
// base-(u+1) digits differ by at most 1 everywhere (brute force over all
// pairs, here), in increasing order; and taking the first edges of
// kcount:u=1,k=40 (n = 2^40) allocates almost nothing.
func TestKCountEdgesLazy(t *testing.T) {
	for _, c := range [][2]int{{1, 1}, {2, 1}, {1, 4}, {2, 3}, {3, 2}} {
		m, _ := KCount(c[0], c[1])
		side, n := c[0]+1, m.Len()
		var want [][2]int
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				a, b, ok := i, j, true
				for range c[1] {
					if d := a%side - b%side; d > 1 || d < -1 {
						ok = false
					}
					a, b = a/side, b/side
				}
				if ok {
					want = append(want, [2]int{i, j})
				}
			}
		}
		var got [][2]int
		for i, j := range m.Edges() {
			got = append(got, [2]int{i, j})
		}
		if len(got) != len(want) {
			t.Fatalf("kcount u=%d k=%d: %d edges, want %d", c[0], c[1], len(got), len(want))
		}
		for e := range got {
			if got[e] != want[e] {
				t.Fatalf("kcount u=%d k=%d: edge %d = %v, want %v", c[0], c[1], e, got[e], want[e])
			}
		}
	}
	m, _ := KCount(1, 40)
	alloc := allocDuring(func() {
		k := 0
		for range m.Edges() {
			if k++; k == 100 {
				break
			}
		}
	})
	if alloc > 1<<16 {
		t.Errorf("first 100 edges of kcount:u=1,k=40 allocated %d bytes", alloc)
	}
}

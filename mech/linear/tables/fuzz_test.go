package tables

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/run"
)

var fuzzAttrs = []linear.Attribute{{Name: "a", Size: 2}, {Name: "b", Size: 3}, {Name: "c", Size: 5}}

// checkFuzz: a count either fails with ErrBadInput or returns a histogram
// whose cells are integers in [0, 2^53] summing to its total.
func checkFuzz(t *testing.T, res *Result, err error) {
	if err != nil {
		if !errors.Is(err, run.ErrBadInput) {
			t.Fatalf("error outside the classes: %v", err)
		}
		return
	}
	sum := 0.0
	for _, v := range res.X {
		if v < 0 || v > maxCount || v != float64(int64(v)) {
			t.Fatalf("cell %v", v)
		}
		sum += v
	}
	if sum != res.Total || res.Rows <= 0 {
		t.Fatalf("total %v rows %d, cells sum to %v", res.Total, res.Rows, sum)
	}
}

// FuzzCountCSV: any bytes, as records and as a histogram.
func FuzzCountCSV(f *testing.F) {
	f.Add([]byte("a,b,c,count\n0,1,2,3\n1,2,4,9007199254740992\n"), true)
	f.Add([]byte("c;b;a\n4;2;1\n\n# x\n0;0;0\n"), false)
	f.Add([]byte("0 1 2\n1 2 4.0\n"), false)
	f.Add([]byte("\"a\",\"b\",\"c\"\n\"1\",\"2\",\"3\"\r\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, hist bool) {
		kind := Records
		if hist {
			kind = Histogram
		}
		res, err := CountCSV(context.Background(), fuzzAttrs, bytes.NewReader(data), &Options{Kind: kind})
		checkFuzz(t, res, err)
	})
}

// FuzzCountParquet: valid files written by the Parquet library, then
// mutated (truncated, bytes changed) by the fuzzer.
func FuzzCountParquet(f *testing.F) {
	rng := rand.New(rand.NewPCG(1, 2))
	var rs []pqHist
	for range 50 {
		rs = append(rs, pqHist{A: rng.Int64N(2), B: rng.Int64N(3), C: int32(rng.IntN(5)), Count: float64(rng.IntN(9))})
	}
	f.Add(writeParquet(f, rs, 20), true)
	f.Add(writeParquet(f, rs[:3], 20), false)
	f.Fuzz(func(t *testing.T, data []byte, hist bool) {
		kind := Records
		if hist {
			kind = Histogram
		}
		res, err := CountParquet(context.Background(), fuzzAttrs, bytes.NewReader(data), int64(len(data)), &Options{Kind: kind})
		checkFuzz(t, res, err)
	})
}

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

// checkFuzzMarginal: ReadMarginal* agrees with Count*: both refuse a table
// (ReadMarginal also one whose counts total more than 2^53; a corrupt one
// may be over its budget), or the rows
// it keeps, counted here cell by cell, make Count's histogram.
func checkFuzzMarginal(t *testing.T, res *Result, err error, m *MarginalResult, merr error) {
	if err != nil || merr != nil {
		if merr == nil || !errors.Is(merr, run.ErrBadInput) && !(err != nil && errors.Is(merr, run.ErrTooLarge)) {
			t.Fatalf("Count: %v; ReadMarginal: %v", err, merr)
		}
		if err == nil {
			var total uint64 // exact: 30 cells of at most 2^53
			for _, v := range res.X {
				total += uint64(v)
			}
			if total <= maxCount {
				t.Fatalf("Count accepts a total of %d, ReadMarginal refuses: %v", total, merr)
			}
		}
		return
	}
	x := make([]float64, len(res.X))
	for r := range m.Rows {
		cell := 0
		for i, a := range fuzzAttrs {
			cell = cell*a.Size + int(m.Data.Columns[i][r])
		}
		if m.Data.Counts == nil {
			x[cell]++
		} else {
			x[cell] += float64(m.Data.Counts[r])
		}
	}
	for k := range x {
		if x[k] != res.X[k] {
			t.Fatalf("cell %d: the rows kept count %v, Count %v", k, x[k], res.X[k])
		}
	}
	if m.Rows != res.Rows || m.Total != res.Total {
		t.Fatalf("rows %d total %v, Count %d %v", m.Rows, m.Total, res.Rows, res.Total)
	}
}

// FuzzCountCSV: any bytes, as records and as a histogram.
func FuzzCountCSV(f *testing.F) {
	f.Add([]byte("a,b,c,count\n0,1,2,3\n1,2,4,9007199254740992\n"), true)
	f.Add([]byte("c;b;a\n4;2;1\n\n# x\n0;0;0\n"), false)
	f.Add([]byte("0 1 2\n1 2 4.0\n"), false)
	f.Add([]byte("a,b,c,count\n0,1,2,9007199254740992\n1,1,1,1\n"), true) // a total above 2^53 over two cells
	f.Add([]byte("\"a\",\"b\",\"c\"\n\"1\",\"2\",\"3\"\r\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, hist bool) {
		kind := Records
		if hist {
			kind = Histogram
		}
		res, err := CountCSV(context.Background(), fuzzAttrs, bytes.NewReader(data), &Options{Kind: kind})
		checkFuzz(t, res, err)
		m, merr := ReadMarginalCSV(context.Background(), fuzzAttrs, bytes.NewReader(data), &Options{Kind: kind})
		checkFuzzMarginal(t, res, err, m, merr)
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
		m, merr := ReadMarginalParquet(context.Background(), fuzzAttrs, bytes.NewReader(data), int64(len(data)), &Options{Kind: kind, Settings: run.Settings{Budget: 1 << 26}})
		checkFuzzMarginal(t, res, err, m, merr)
	})
}

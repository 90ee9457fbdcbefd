//go:build cgo

package main

import (
	"encoding/binary"
	"math"
	"testing"
)

// The fuzz targets of the C ABI's decoders. Their seed corpora run in every
// `go test`; `go test -fuzz=FuzzXxx ./cmd/liboptdp` explores further. Each
// input must give a result or an error of a documented class (bad input,
// too large, unsupported), never a panic or an unclassified error.

// FuzzOptions decodes an options argument into every long computation's
// options type and starts its control (cancel token, timeout, budget).
func FuzzOptions(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `{"budget":-1}`, `{"budget":1e300}`, `{"timeout_s":-1}`, `{"timeout_s":"x"}`,
		`{"cancel":12345}`, `{"max_mechanism_n":-5,"solver":"nope"}`, `{"tol":-1,"max_iter":-1,"workers":-1}`,
		`{"eps":1}{"eps":2}`, `{"eps":1} x`, `{"unknown":1}`, `[1,2]`, `null`, `{"restarts":1e20}`,
		`{"matrix_kind":"loss","gain":"distance"}`, "{\"solver\":\"dense\u0000\"}", `{"budget":9223372036854775807}`, `{"loss":"max","family":"toeplitz","bands":-1}`, `{"loss":3}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, dst := range []bounded{&tightArgs{}, &thresholdArgs{}, &optimalArgs{}, &optimizeArgs{}, &capacityArgs{}, &gCapacityArgs{}, &streamArgs{}, &metricArgs{}} {
			err := decodeText(s, dst, "options", true)
			if err == nil {
				c, set := dst.bounds()
				var cancel func()
				_, cancel, err = c.start(set)
				if err == nil {
					cancel()
					if set.Budget < 0 {
						t.Fatalf("%q: a negative budget %d was accepted", s, set.Budget)
					}
				}
			}
			if cl := classOf(err); cl != "ok" && cl != "bad input" {
				t.Fatalf("%q into %T: %v (class %s)", s, dst, err, cl)
			}
		}
	})
}

// FuzzOperator decodes and builds a workload and a strategy from an
// operator tree (file nodes are left out: the fuzzer must not read files).
func FuzzOperator(f *testing.F) {
	for _, s := range []string{
		`{"op":"identity","n":4}`, `{"op":"allrange","n":0}`, `{"op":"random_range","n":10,"m":1000000000000,"seed":1}`,
		`{"op":"marginals","dims":[2,3],"k":3}`, `{"op":"kron","factors":[{"op":"prefix","n":3},{"op":"total","n":2}]}`,
		`{"op":"union","parts":[{"op":"identity","n":3},{"op":"identity","n":4}]}`, `{"op":"scale","c":1e300,"workload":{"op":"identity","n":2}}`,
		`{"op":"matrix","rows":2,"cols":2,"data":[1,0,0,1]}`, `{"op":"matrix","rows":2,"cols":2,"data":[1]}`,
		`{"op":"matrix","rows":1048576,"cols":1048576,"data":[]}`, `{"op":"ranges","n":3,"intervals":[[2,1]]}`,
		`{"op":"hierarchical","n":8,"b":2,"root":false}`, `{"op":"wavelet","n":6}`, `{"op":"eigen","workload":{"op":"prefix","n":4}}`,
		`{"op":"kron","factors":[]}`, `{"op":"identity","n":3} {}`, `{"op":"scale","workload":null}`, `{"op":"width_range","n":5,"k":9}`,
		`{"op":"workload","workload":{"op":"kron","factors":[{"op":"identity","n":2},{"op":"allrange","n":3}]}}`, `{"op":"nope"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var o opNode
		if decodeText(s, &o, "workload", false) == nil && (hasFile(&o, 0) || big(&o, 0)) {
			return
		}
		if _, err := workloadText(s); classOf(err) == "other" {
			t.Fatalf("workload %q: unclassified error %v", s, err)
		}
		if _, err := strategyText(s); classOf(err) == "other" {
			t.Fatalf("strategy %q: unclassified error %v", s, err)
		}
	})
}

// hasFile reports whether the tree has a file node; big whether it asks
// for a domain or query count that would take the fuzzer long to build.
func hasFile(o *opNode, d int) bool {
	if o == nil || d > maxOpDepth {
		return false
	}
	if o.Op == "file" {
		return true
	}
	for _, k := range append(append([]*opNode{o.Workload}, o.Factors...), o.Parts...) {
		if hasFile(k, d+1) {
			return true
		}
	}
	return false
}

func big(o *opNode, d int) bool {
	if o == nil || d > maxOpDepth {
		return false
	}
	if o.N > 256 || (o.M > 1<<16 && o.M < 1<<40) || o.B > 256 || len(o.Dims) > 6 || len(o.Factors) > 6 ||
		len(o.Parts) > 8 || len(o.Intervals) > 1<<12 {
		return true
	}
	cells := 1
	for _, n := range o.Dims {
		if n > 16 {
			return true
		}
		cells *= max(n, 1)
	}
	for _, f := range o.Factors {
		if f != nil {
			cells *= max(f.N, 1)
		}
		if cells > 1<<12 {
			return true
		}
	}
	if cells > 1<<12 {
		return true
	}
	for _, k := range append(append([]*opNode{o.Workload}, o.Factors...), o.Parts...) {
		if big(k, d+1) {
			return true
		}
	}
	return false
}

// FuzzArrays checks the array readers' checks: the shape (before anything
// is read) and the first non-finite entry.
func FuzzArrays(f *testing.F) {
	nan := make([]byte, 8)
	binary.LittleEndian.PutUint64(nan, math.Float64bits(math.NaN()))
	f.Add(int64(1), int64(1), nan, false)
	f.Add(int64(0), int64(5), []byte{}, true)
	f.Add(int64(-3), int64(5), []byte{1, 2, 3}, false)
	f.Add(int64(math.MaxInt64), int64(3), []byte{}, false)
	f.Add(int64(2), int64(2), make([]byte, 32), false)
	f.Fuzz(func(t *testing.T, r, c int64, raw []byte, allowInf bool) {
		err := checkShape(r, c, "matrix")
		switch cl := classOf(err); {
		case cl == "ok" && (r <= 0 || c <= 0 || r*c > maxMatrixEntries || r > maxMatrixEntries):
			t.Fatalf("shape %d x %d accepted", r, c)
		case cl != "ok" && cl != "bad input" && cl != "too large":
			t.Fatalf("shape %d x %d: %v", r, c, err)
		}
		vals := make([]float64, len(raw)/8)
		for i := range vals {
			vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
		}
		out, bad := checkFloats(vals, allowInf)
		want := -1
		for i, v := range vals {
			if math.IsNaN(v) || (!allowInf && math.IsInf(v, 0)) {
				want = i
				break
			}
		}
		if bad != want || len(out) != len(vals) {
			t.Fatalf("checkFloats: first bad entry %d, want %d", bad, want)
		}
	})
}

package linear

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// TestCountMarginals: the grouped counting (compact uint8 and uint16
// columns, pair tables, four tables per pass, row counts) against counting
// record by record (naiveMarginal), on random data over attributes of 2 to
// 300 values, for 1-, 2-, 3- and 4-way marginals (every subset of some
// attributes, so groups share prefixes and pair adjacent last attributes),
// with and without counts, and for 0, 1, 37, 5000 and 40,000 rows.
func TestCountMarginals(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 300))
	dims := []int{2, 300, 3, 7, 257, 5, 11, 4, 256, 2}
	var ms []WeightedMarginal
	// All 1-, 2- and 3-way marginals of attributes 0..7 and the 4-way ones
	// of the small attributes 0, 2, 3, 5, 6, 7, 9 (increasing, as a plan
	// stores them), and a few with the large attributes 4, 8 adjacent.
	for a := 0; a < 8; a++ {
		ms = append(ms, WeightedMarginal{Attrs: []int{a}, Weight: 1})
		for b := a + 1; b < 8; b++ {
			ms = append(ms, WeightedMarginal{Attrs: []int{a, b}, Weight: 1})
			for c := b + 1; c < 8; c++ {
				ms = append(ms, WeightedMarginal{Attrs: []int{a, b, c}, Weight: 1})
			}
		}
	}
	small := []int{0, 2, 3, 5, 6, 7, 9}
	for i := 0; i < len(small); i++ {
		for j := i + 1; j < len(small); j++ {
			for k := j + 1; k < len(small); k++ {
				for l := k + 1; l < len(small); l++ {
					ms = append(ms, WeightedMarginal{Attrs: []int{small[i], small[j], small[k], small[l]}, Weight: 1})
				}
			}
		}
	}
	ms = append(ms, WeightedMarginal{Attrs: []int{0, 7}}, WeightedMarginal{Attrs: []int{0, 8}}, WeightedMarginal{Attrs: []int{0, 9}},
		WeightedMarginal{Attrs: []int{8}}, WeightedMarginal{Attrs: []int{9}}, WeightedMarginal{Attrs: []int{2, 8, 9}})
	jobs := make([]int, len(ms))
	for i := range jobs {
		jobs[i] = i
	}
	groups := groupMarginals(ms, jobs)
	pairsSeen, u16Seen := 0, 0
	for _, rows := range []int{0, 1, 37, 5000, 40000} {
		for _, counted := range []bool{false, true} {
			data := randomData(r, dims, rows, counted)
			if rows > 0 { // the largest values occur
				data.Columns[1][0], data.Columns[4][rows-1], data.Columns[8][rows/2] = 299, 256, 255
			}
			cols := compactColumns(dims, data.Columns, 2)
			for f, c := range cols {
				if want := map[bool]int{true: 0, false: 1}[dims[f] <= 256]; c.kind() != want {
					t.Fatalf("attribute %d of %d values: column kind %d", f, dims[f], c.kind())
				}
			}
			var pairs []column
			if !counted {
				pairs = pairColumns(dims, ms, groups, cols, rows, 2)
			}
			cnt := &counter{ctx: context.Background(), dims: dims, cols: cols, pairs: pairs, w: data.Counts, pre: make([]uint32, countBlock)}
			for _, g := range groups {
				preCells := 1
				for _, f := range g.prefix {
					preCells *= dims[f]
				}
				if !counted {
					pairsSeen += len(memberPairs(dims, ms, g, preCells, rows))
				}
				tabs := cnt.count(ms, g)
				for j, i := range g.members {
					if cols[lastAttr(ms, i)].kind() == 1 {
						u16Seen++
					}
					want := naiveMarginal(dims, ms[i].Attrs, data)
					if len(tabs[j]) != len(want) {
						t.Fatalf("rows %d counted %v: marginal %v: %d cells, want %d", rows, counted, ms[i].Attrs, len(tabs[j]), len(want))
					}
					for q, v := range tabs[j] {
						if float64(v) != want[q] {
							t.Fatalf("rows %d counted %v: marginal %v cell %d: %d, want %v", rows, counted, ms[i].Attrs, q, v, want[q])
						}
					}
				}
			}
		}
	}
	if pairsSeen == 0 || u16Seen == 0 {
		t.Errorf("%d pair tables and %d uint16 last columns exercised", pairsSeen, u16Seen)
	}
}

// TestAnswerMarginalsFewRecords: zero and one record (and one counted row
// of count 2^40) through the whole release, noiseless: every marginal
// exact to a relative 1e-9 of the total (the float64 reconstruction).
func TestAnswerMarginalsFewRecords(t *testing.T) {
	dims := []int{3, 2, 300, 4}
	ms := []WeightedMarginal{{[]int{0, 1, 2}, 1}, {[]int{1, 3}, 2}, {[]int{0, 1, 2, 3}, 1}, {[]int{}, 1}}
	p, err := PlanGaussianMarginals(context.Background(), dims, ms, &MarginalPlanOptions{Eps: 1, Delta: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range []*MarginalData{
		{Columns: [][]int32{{}, {}, {}, {}}},
		{Columns: [][]int32{{2}, {1}, {299}, {0}}},
		{Columns: [][]int32{{1}, {0}, {7}, {3}}, Counts: []int64{1 << 40}},
	} {
		rel, err := answerMarginals(context.Background(), p, data, SeededSource(1), 0, true)
		if err != nil {
			t.Fatal(err)
		}
		total := naiveMarginal(dims, nil, data)[0]
		for i, m := range rel.Marginals {
			want := naiveMarginal(dims, p.Marginals[i].Attrs, data)
			for q, v := range m.Answers {
				if math.Abs(v-want[q]) > 1e-9*(1+total) {
					t.Fatalf("%d rows: marginal %v cell %d: %v, want %v", len(data.Columns[0]), m.Attrs, q, v, want[q])
				}
			}
		}
	}
}

// plainSource is a Source that is neither CryptoSource nor SeededSource.
type plainSource struct{ r *rand.PCG }

func (s plainSource) Uint64() uint64 { return s.r.Uint64() }

// TestAnswerMarginalsStreams: a seed gives the same release whatever
// GOMAXPROCS (the per-subspace streams), as does a caller's own source
// (read by one goroutine); different seeds differ; CryptoSource releases
// are within 8 standard deviations of the true counts in every cell.
func TestAnswerMarginalsStreams(t *testing.T) {
	ctx := context.Background()
	dims := []int{3, 20, 4, 2, 5}
	ms := []WeightedMarginal{{[]int{0, 1, 2}, 1}, {[]int{0, 1, 3}, 1}, {[]int{0, 1, 4}, 1}, {[]int{2, 3}, 1}, {[]int{}, 1}}
	p, err := PlanGaussianMarginals(ctx, dims, ms, &MarginalPlanOptions{Eps: 1, Delta: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	data := randomData(rand.New(rand.NewPCG(4, 4)), dims, 20000, false)
	release := func(procs int, src Source) *MarginalRelease {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		rel, err := AnswerGaussianMarginals(ctx, p, data, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		return rel
	}
	same := func(a, b *MarginalRelease) bool {
		for i := range a.Marginals {
			for q, v := range a.Marginals[i].Answers {
				if b.Marginals[i].Answers[q] != v {
					return false
				}
			}
		}
		return true
	}
	if !same(release(1, SeededSource(5)), release(4, SeededSource(5))) {
		t.Error("seed 5: GOMAXPROCS 1 and 4 differ")
	}
	if same(release(2, SeededSource(5)), release(2, SeededSource(6))) {
		t.Error("seeds 5 and 6 give the same release")
	}
	if !same(release(1, plainSource{rand.NewPCG(1, 2)}), release(4, plainSource{rand.NewPCG(1, 2)})) {
		t.Error("a caller's source: GOMAXPROCS 1 and 4 differ")
	}
	rel := release(2, CryptoSource())
	for i, m := range rel.Marginals {
		want := naiveMarginal(dims, p.Marginals[i].Attrs, data)
		for q, v := range m.Answers {
			if math.Abs(v-want[q]) > 8*math.Sqrt(m.Variance) {
				t.Fatalf("crypto: marginal %v cell %d: %v, true %v, sd %.3g", m.Attrs, q, v, want[q], math.Sqrt(m.Variance))
			}
		}
	}
}

// TestAnswerMarginalsCancel: a context cancelled during the counting (a
// 1 ms deadline on all 3-way marginals of 30 attributes, 200,000 records:
// about 10^9 increments) stops the release with the context's error.
func TestAnswerMarginalsCancel(t *testing.T) {
	dims := make([]int, 30)
	for i := range dims {
		dims[i] = 10
	}
	var ms []WeightedMarginal
	for a := 0; a < 30; a++ {
		for b := a + 1; b < 30; b++ {
			for c := b + 1; c < 30; c++ {
				ms = append(ms, WeightedMarginal{Attrs: []int{a, b, c}, Weight: 1})
			}
		}
	}
	p, err := PlanGaussianMarginals(context.Background(), dims, ms, &MarginalPlanOptions{Eps: 1, Delta: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	data := randomData(rand.New(rand.NewPCG(9, 9)), dims, 200000, false)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if _, err := AnswerGaussianMarginals(ctx, p, data, SeededSource(1), 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want the deadline", err)
	}
}

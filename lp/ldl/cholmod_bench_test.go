package ldl

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/optdp/optdp/lp/internal/kernel"
	"github.com/optdp/optdp/lp/internal/mem"
	"github.com/optdp/optdp/run"
)

// Per-column benchmarks of the sparse factorisation in each fill-reducing
// order of the build: the order and symbolic factorisation (once per
// solve), the numeric LDLᵀ of one H_o (per column and iteration) and
// Takahashi's assembly of H_o⁻¹ into the Schur complement (per column and
// iteration). The whole interior-point method is in
// bench/lp_cholmod_bench_test.go.
//
//	go test -run XXX -bench ColumnOrder -benchtime 1x ./lp/ldl/
//	CGO_ENABLED=1 go test -tags netlib -run XXX -bench 'Column(Order|Cholmod)' -benchtime 1x ./lp/ldl/

// columnCase is a pair graph of the benchmarks: Manhattan grids (4-neighbour
// edges) and the greedy 1.2-spanners of the 20×20 and 50×50 Euclidean
// grids' pairs, eps 0.5.
type columnCase struct {
	name string
	p    *Graph
}

func columnCases(tb testing.TB, ws []int, euclid bool) []columnCase {
	var cs []columnCase
	for _, w := range ws {
		n := w * w
		cs = append(cs, columnCase{fmt.Sprintf("manhattan%dx%d", w, w), &Graph{N: n, Pairs: gridEdgePairs(w, math.Exp(0.5))}})
	}
	if euclid {
		for _, w := range []int{20, 50} {
			pts := gridPts(w, w)
			sp, _, err := Spanner(context.Background(), w*w, metricPairs(pts, l2, 0.5), 1.2, &SpannerOptions{Settings: run.Settings{Budget: run.Unlimited}})
			if err != nil {
				tb.Fatal(err)
			}
			cs = append(cs, columnCase{fmt.Sprintf("euclid%dx%d-spanner1.2", w, w), &Graph{N: w * w, Pairs: sp}})
		}
	}
	return cs
}

// randomColumn draws the diagonal diag(z/x) and pair weights lambda/s of
// one H_o, log-uniform over two decades.
func randomColumn(rng *rand.Rand, n, np int) (diag, wt []float64) {
	diag, wt = make([]float64, n), make([]float64, np)
	for i := range diag {
		diag[i] = math.Pow(10, 2*rng.Float64()-1)
	}
	for k := range wt {
		wt[k] = math.Pow(10, 2*rng.Float64()-1)
	}
	return diag, wt
}

// BenchmarkColumnOrder: for each case and order, "order" is the ordering
// plus symbolic factorisation, "factor" one numeric LDLᵀ, "assembly" one
// Takahashi inverse added to the Schur accumulator; each reports nnz(L)
// (strictly lower) and the estimated multiply-adds per column
// (symbolic.flops: factor + assembly).
func BenchmarkColumnOrder(b *testing.B) {
	for _, c := range columnCases(b, []int{20, 30, 50}, true) {
		p := c.p
		n := p.N
		for _, name := range Orders() {
			perm, sym, err := OrderByName(name, p)
			if err != nil {
				b.Fatal(err)
			}
			q := permuted(p, perm)
			sym.SetPairs(q)
			report := func(b *testing.B) {
				b.ReportMetric(float64(sym.NNZ()), "nnzL")
				b.ReportMetric(sym.Flops(), "flops/col")
			}
			b.Run(c.name+"/"+name+"/order", func(b *testing.B) {
				cpu0 := cpuSeconds()
				for b.Loop() {
					if _, _, err := OrderByName(name, p); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N)*1e6, "cpu-us/op")
				report(b)
			})
			diag, wt := randomColumn(rand.New(rand.NewPCG(1, 2)), n, len(q.Pairs))
			f := LDL{Sym: sym, D: make([]float64, n), L: make([]float64, sym.NNZ())}
			work := make([]float64, sym.FactorWork())
			b.Run(c.name+"/"+name+"/factor", func(b *testing.B) {
				cpu0 := cpuSeconds()
				for b.Loop() {
					if r := f.Factor(diag, q.Pairs, wt, work); !(r > 0) {
						b.Fatal("breakdown")
					}
				}
				b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N)*1e6, "cpu-us/op")
				report(b)
			})
			acc, z := make([]float64, n*n), make([]float64, n*n)
			b.Run(c.name+"/"+name+"/assembly", func(b *testing.B) {
				cpu0 := cpuSeconds()
				for b.Loop() {
					f.AddInverse(acc, z)
				}
				b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N)*1e6, "cpu-us/op")
				report(b)
			})
		}
	}
}

// manhattanFactors returns cols LDLᵀ factors of 50×50 Manhattan columns
// (eps 0.5) in the minimum-degree order, with random diagonals and pair
// weights: one draw for all when same, else one per factor.
func manhattanFactors(cols int, same bool) []LDL {
	const w = 50
	p := &Graph{N: w * w, Pairs: gridEdgePairs(w, math.Exp(0.5))}
	perm, sym := MinimumDegree(p)
	q := permuted(p, perm)
	sym.SetPairs(q)
	n := p.N
	rng := rand.New(rand.NewPCG(1, 2))
	diag, wt := randomColumn(rng, n, len(q.Pairs))
	fs := make([]LDL, cols)
	work := make([]float64, sym.FactorWork())
	for k := range fs {
		if !same && k > 0 {
			diag, wt = randomColumn(rng, n, len(q.Pairs))
		}
		fs[k] = LDL{Sym: sym, D: make([]float64, n), L: make([]float64, sym.NNZ())}
		fs[k].Factor(diag, q.Pairs, wt, work)
	}
	return fs
}

// BenchmarkAddInverse: Takahashi's full inverse of one 50×50 Manhattan
// column's factor (minimum-degree order) added to the Schur accumulator,
// with the two n×n buffers from make ("make") and from mem.Alloc
// ("hugeAlloc": transparent huge pages on Linux).
//
//	go test -run XXX -bench AddInverse -count 5 ./lp/ldl/
func BenchmarkAddInverse(b *testing.B) {
	f := manhattanFactors(1, true)[0]
	n := f.Sym.N
	for _, c := range []struct {
		name  string
		alloc func(int) []float64
	}{{"make", func(k int) []float64 { return make([]float64, k) }}, {"hugeAlloc", mem.Alloc}} {
		b.Run(c.name, func(b *testing.B) {
			acc, z := c.alloc(n*n), c.alloc(n*n)
			for b.Loop() {
				f.AddInverse(acc, z)
			}
		})
	}
}

// BenchmarkAddInverse32: Takahashi's assembly of one column's H_o⁻¹ into
// the Schur accumulator in double precision (AddInverse) and in single
// precision (AddInverse32, the lazy path's preconditioner), on the
// 1.2-spanner of the 50×50 Euclidean grid (minimum-degree order), the
// buffers on huge pages as in the solver (docs/MATH.md §11.8).
//
//	go test -run XXX -bench AddInverse32 -benchtime 40x ./lp/ldl/
func BenchmarkAddInverse32(b *testing.B) {
	c := columnCases(b, nil, true)[1]
	f := &columnFactors(c.p, 1)[0]
	n := c.p.N
	b.Run("double", func(b *testing.B) {
		acc, z := mem.Alloc(n*n), mem.Alloc(n*n)
		for b.Loop() {
			f.AddInverse(acc, z)
		}
	})
	b.Run("single", func(b *testing.B) {
		buf := mem.Alloc(n * n)
		all := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(buf))), 2*n*n)
		z, acc := all[:n*n], all[n*n:]
		for b.Loop() {
			if !f.AddInverse32(acc, z) {
				b.Fatal("refused")
			}
		}
	})
}

// BenchmarkFactor4: the numeric LDLᵀ of the four columns of an
// interleaved block, one column at a time (factor, computed contiguous and
// spread to the block) and the four at once (Factor4), on the 1.2-spanner of the 50×50 Euclidean grid and
// on Manhattan 50×50 (minimum-degree order), 500 distinct blocks from
// memory; ns/op is one block of four columns.
//
//	go test -run XXX -bench Factor4 -benchtime 2000x ./lp/ldl/
func BenchmarkFactor4(b *testing.B) {
	cases := columnCases(b, []int{50}, true)
	for _, c := range []columnCase{cases[2], cases[0]} {
		perm, sym := MinimumDegree(c.p)
		q := permuted(c.p, perm)
		sym.SetPairs(q)
		n, nz := c.p.N, sym.NNZ()
		const blocks = 500
		rng := rand.New(rand.NewPCG(1, 2))
		var diag, wt [4][]float64
		for k := range 4 {
			diag[k], wt[k] = randomColumn(rng, n, len(q.Pairs))
		}
		fq := make([][4]*LDL, blocks)
		for k := range fq {
			blk := make([]float64, 4*(n+nz))
			for c := range 4 {
				fq[k][c] = &LDL{Sym: sym, D: blk[c*n : (c+1)*n], L: blk[4*n+c:], St: 4}
			}
		}
		b.Run(c.name+"/factor", func(b *testing.B) {
			work := make([]float64, sym.QuadWork())
			k := 0
			for b.Loop() {
				for c := range 4 {
					fq[k%blocks][c].Factor(diag[c], q.Pairs, wt[c], work)
				}
				k++
			}
		})
		b.Run(c.name+"/factor4", func(b *testing.B) {
			work := make([]float64, sym.Factor4Work())
			k := 0
			for b.Loop() {
				Factor4(&fq[k%blocks], &diag, &wt, q.Pairs, work)
				k++
			}
		})
	}
}

// BenchmarkColumnSolve: one solve H_o⁻¹ v with a 50×50 Manhattan column's
// factor (minimum-degree order), cycling through 2500 distinct factors as
// the conjugate-gradient product S v does, so that each comes from memory.
//
//	go test -run XXX -bench ColumnSolve -benchtime 20000x ./lp/ldl/
func BenchmarkColumnSolve(b *testing.B) {
	const cols = 2500
	fs := manhattanFactors(cols, true)
	r := make([]float64, fs[0].Sym.N)
	k := 0
	for b.Loop() {
		for i := range r {
			r[i] = 1
		}
		fs[k%cols].Solve(r)
		k++
	}
}

// BenchmarkColumnSolve4: the product of four columns' H_o⁻¹ with one
// vector, summed, as in S v, cycling through 2000 distinct factors of 50×50
// Manhattan columns and of the 1.2-spanner of the 50×50 Euclidean grid
// (minimum-degree order): four solves with factors of their own ("solve"),
// and one Solve4 of the four columns of an interleaved block ("Solve4", the
// interior-point method's storage; the AVX2/FMA passes where there are),
// with the broadcast of v, the pivots' divisions and the sum of the four
// columns in Go loops ("Solve4-scalar") or in the
// AVX kernels kernel.Bcast4, kernel.Div4 and kernel.Sum4 ("Solve4").
// "cols/s" counts columns per second of one core.
//
//	go test -run XXX -bench ColumnSolve4 -benchtime 4000x ./lp/ldl/
func BenchmarkColumnSolve4(b *testing.B) {
	const cols = 2000
	cases := columnCases(b, []int{50}, true)
	for _, c := range []columnCase{cases[0], cases[2]} {
		fs := columnFactors(c.p, cols)
		n, nz := c.p.N, fs[0].Sym.NNZ()
		// The same factors in interleaved blocks of four.
		blocks := make([][4]*LDL, cols/4)
		for k := range blocks {
			blk := make([]float64, 4*(n+nz))
			for c := range 4 {
				f := &fs[4*k+c]
				copy(blk[c*n:], f.D)
				for q, v := range f.L {
					blk[4*n+4*q+c] = v
				}
				blocks[k][c] = &LDL{Sym: f.Sym, D: blk[c*n : (c+1)*n], L: blk[4*n+c:], St: 4}
			}
		}
		// Their values in single precision (Solve4F32).
		l32 := make([][]float32, len(blocks))
		for k := range blocks {
			l32[k] = make([]float32, 4*nz)
			BlockTo32(&blocks[k], l32[k])
		}
		v, u, acc, r4 := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, 4*n)
		for i := range v {
			v[i] = 1
		}
		for _, variant := range []string{"solve", "Solve4-scalar", "Solve4", "Solve4-f32"} {
			b.Run(c.name+"/"+variant, func(b *testing.B) {
				k := 0
				for b.Loop() {
					switch variant {
					case "solve":
						for c := range 4 {
							copy(u, v)
							fs[(k+c)%cols].Solve(u)
							for i, x := range u {
								acc[i] += x
							}
						}
					case "Solve4-scalar":
						f := &blocks[(k/4)%len(blocks)]
						s := f[0].Sym
						kernel.Bcast4Go(r4, v)
						kernel.Fwd4(n, s.colPtr, s.idx32, f[0].L[:4*nz], r4)
						kernel.Div4Go(r4, f[0].D[:n], f[1].D[:n], f[2].D[:n], f[3].D[:n])
						kernel.Bwd4(n, s.colPtr, s.idx32, f[0].L[:4*nz], r4)
						kernel.Sum4Go(acc, r4)
					case "Solve4-f32":
						kernel.Bcast4(r4, v)
						Solve4F32(&blocks[(k/4)%len(blocks)], l32[(k/4)%len(blocks)], r4)
						kernel.Sum4(acc, r4)
					default:
						kernel.Bcast4(r4, v)
						Solve4(&blocks[(k/4)%len(blocks)], r4)
						kernel.Sum4(acc, r4)
					}
					k += 4
				}
				b.ReportMetric(4*float64(b.N)/b.Elapsed().Seconds(), "cols/s")
			})
		}
	}
}

// columnFactors returns cols LDLᵀ factors of p's pair graph (minimum-degree
// order), each with its own random diagonal and pair weights.
func columnFactors(p *Graph, cols int) []LDL {
	perm, sym := MinimumDegree(p)
	q := permuted(p, perm)
	sym.SetPairs(q)
	rng := rand.New(rand.NewPCG(1, 2))
	fs := make([]LDL, cols)
	work := make([]float64, sym.FactorWork())
	for k := range fs {
		diag, wt := randomColumn(rng, p.N, len(q.Pairs))
		fs[k] = LDL{Sym: sym, D: make([]float64, p.N), L: make([]float64, sym.NNZ())}
		fs[k].Factor(diag, q.Pairs, wt, work)
	}
	return fs
}

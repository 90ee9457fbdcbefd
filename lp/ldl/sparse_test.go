package ldl

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/optdp/optdp/lp/internal/kernel"
	"gonum.org/v1/gonum/mat"
)

// randomGraphPairs are both orientations of a random connected graph on n
// rows: a path plus extra random edges, ratios in (1.2, 3).
func randomGraphPairs(rng *rand.Rand, n, extra int) []Pair {
	var ps []Pair
	add := func(i, h int) {
		w := 1.2 + 1.8*rng.Float64()
		ps = append(ps, Pair{I: i, H: h, W: w}, Pair{I: h, H: i, W: w})
	}
	for i := 0; i+1 < n; i++ {
		add(i, i+1)
	}
	for range extra {
		i, h := rng.IntN(n), rng.IntN(n)
		if i != h {
			add(i, h)
		}
	}
	return ps
}

// TestSparseLDL factors H = diag + G^T diag(wt) G for random graphs and 2-D
// grids in the minimum-degree order and checks the solve and Takahashi's
// full inverse against gonum's dense Cholesky inverse of H formed
// explicitly; and that the symbolic structure is a valid elimination
// (each column's structure below row j lies in column j's).
func TestSparseLDL(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	grid := func(w int) []Pair {
		var ps []Pair
		for y := 0; y < w; y++ {
			for x := 0; x < w; x++ {
				i := y*w + x
				if x+1 < w {
					ps = append(ps, Pair{I: i, H: i + 1, W: 1.5}, Pair{I: i + 1, H: i, W: 1.5})
				}
				if y+1 < w {
					ps = append(ps, Pair{I: i, H: i + w, W: 2}, Pair{I: i + w, H: i, W: 2})
				}
			}
		}
		return ps
	}
	for _, c := range []struct {
		n     int
		pairs []Pair
	}{{5, randomGraphPairs(rng, 5, 3)}, {30, randomGraphPairs(rng, 30, 40)}, {49, grid(7)}, {100, grid(10)}} {
		p := &Graph{N: c.n, Pairs: c.pairs}
		perm, sym := MinimumDegree(p)
		q := permuted(p, perm)
		sym.SetPairs(q)
		for j := 0; j < c.n; j++ {
			col := sym.rowIdx[sym.colPtr[j]:sym.colPtr[j+1]]
			for _, k := range col {
				if k <= j {
					t.Fatalf("n=%d: column %d has row %d", c.n, j, k)
				}
				// Column j's rows after k must lie in column k's (fill).
				colK := sym.rowIdx[sym.colPtr[k]:sym.colPtr[k+1]]
				for _, r := range col {
					if r > k {
						if _, ok := slices.BinarySearch(colK, r); !ok {
							t.Fatalf("n=%d: row %d of column %d missing from column %d", c.n, r, j, k)
						}
					}
				}
			}
		}
		diag := make([]float64, c.n)
		wt := make([]float64, len(q.Pairs))
		h := mat.NewSymDense(c.n, nil)
		for i := range diag {
			diag[i] = math.Pow(10, 2*rng.Float64()-1)
			h.SetSym(i, i, diag[i])
		}
		for k, pr := range q.Pairs {
			wt[k] = math.Pow(10, 2*rng.Float64()-1)
			h.SetSym(pr.I, pr.I, h.At(pr.I, pr.I)+wt[k])
			h.SetSym(pr.H, pr.H, h.At(pr.H, pr.H)+wt[k]*pr.W*pr.W)
			h.SetSym(pr.I, pr.H, h.At(pr.I, pr.H)-wt[k]*pr.W)
		}
		f := LDL{Sym: sym, D: make([]float64, c.n), L: make([]float64, sym.NNZ())}
		work := make([]float64, sym.FactorWork())
		if r := f.Factor(diag, q.Pairs, wt, work); !(r > 1e-4) {
			t.Errorf("n=%d: pivot ratio %v", c.n, r)
		}
		var ch mat.Cholesky
		if !ch.Factorize(h) {
			t.Fatal("not positive definite")
		}
		var inv mat.SymDense
		if err := ch.InverseTo(&inv); err != nil {
			t.Fatal(err)
		}
		r := make([]float64, c.n)
		for i := range r {
			r[i] = rng.Float64() - 0.5
		}
		want := mat.NewVecDense(c.n, nil)
		want.MulVec(&inv, mat.NewVecDense(c.n, slices.Clone(r)))
		f.Solve(r)
		for i := range r {
			if math.Abs(r[i]-want.AtVec(i)) > 1e-10*mat.Norm(want, math.Inf(1)) {
				t.Errorf("n=%d: solve[%d] = %v, want %v", c.n, i, r[i], want.AtVec(i))
			}
		}
		acc := make([]float64, c.n*c.n)
		for i := range acc {
			acc[i] = 1
		}
		f.AddInverse(acc, make([]float64, c.n*c.n))
		for i := 0; i < c.n; i++ {
			for j := i; j < c.n; j++ {
				if got, want := acc[i*c.n+j], 1+inv.At(i, j); math.Abs(got-want) > 1e-10*(1+math.Abs(inv.At(i, i))) {
					t.Errorf("n=%d: inverse[%d][%d] = %v, want %v", c.n, i, j, got, want)
				}
			}
		}
		t.Logf("n=%d: %d pairs, nnz(L) = %d", c.n, len(c.pairs)/2, sym.NNZ())
	}
}

// TestSolve4: the four factors of an interleaved block solved together
// (Solve4, the kernel of the CG products) agree with four separate solves
// with factors of their own, which TestSparseLDL checks against a dense
// inverse; with zero right-hand sides in some of the four (the skipped
// columns of the forward pass). Each structure is factored twice: into
// four arrays of their own, and into one interleaved block (st = 4, the
// interior-point method's storage), whose pivots and entries must be the
// same to the bit. Solve4 runs the vector kernels where there are (and the
// Go passes kernel.Fwd4Go/kernel.Bwd4Go, also run directly here, elsewhere and with
// -tags noasm); the single solve reads the block at stride 4.
func TestSolve4(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, c := range []struct{ n, extra int }{{1, 0}, {2, 0}, {7, 3}, {60, 40}, {300, 500}} {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			q, sym := randomStructure(rng, c.n, c.extra)
			nz := sym.NNZ()
			var fs, fq [4]*LDL
			blk := make([]float64, 4*(c.n+nz))
			for i := range blk {
				blk[i] = math.NaN() // every value must be written by factor
			}
			work := make([]float64, sym.QuadWork())
			for k := range fs {
				diag, wt := randomColumn(rng, c.n, len(q.Pairs))
				fs[k] = &LDL{Sym: sym, D: make([]float64, c.n), L: make([]float64, nz)}
				fs[k].Factor(diag, q.Pairs, wt, work[:sym.FactorWork()])
				fq[k] = &LDL{Sym: sym, D: blk[k*c.n : (k+1)*c.n], L: blk[min(4*c.n+k, len(blk)):], St: 4}
				fq[k].Factor(diag, q.Pairs, wt, work)
				for j, v := range fs[k].D {
					if fq[k].D[j] != v {
						t.Fatalf("n=%d column %d: interleaved pivot %d = %v, contiguous %v", c.n, k, j, fq[k].D[j], v)
					}
				}
				for e, v := range fs[k].L {
					if got := blk[4*c.n+4*e+k]; got != v {
						t.Fatalf("n=%d column %d: interleaved L entry %d = %v, contiguous %v", c.n, k, e, got, v)
					}
				}
			}
			if _, ok := Interleaved(&fq); !ok && nz > 0 {
				t.Fatalf("n=%d: the block's four columns not recognised as interleaved", c.n)
			}
			if _, ok := Interleaved(&[4]*LDL{fq[1], fq[0], fq[2], fq[3]}); ok {
				t.Fatalf("n=%d: four columns out of order taken as a block", c.n)
			}
			for _, zeros := range []bool{false, true} {
				r4 := make([]float64, 4*c.n)
				want := make([][]float64, 4)
				for k := range fs {
					want[k] = make([]float64, c.n)
					for i := range want[k] {
						if !zeros || k%2 == 0 || i%3 == 0 {
							want[k][i] = rng.Float64() - 0.5
						}
						r4[4*i+k] = want[k][i]
					}
				}
				b4 := slices.Clone(r4)
				for k := range fs {
					fs[k].Solve(want[k])
				}
				check := func(name string, got []float64) {
					t.Helper()
					for k := range fs {
						scale := 0.0
						for _, v := range want[k] {
							scale = max(scale, math.Abs(v))
						}
						for i, w := range want[k] {
							if math.Abs(got[4*i+k]-w) > 1e-12*scale {
								t.Fatalf("n=%d zeros=%v %s: column %d entry %d: %v, solve %v", c.n, zeros, name, k, i, got[4*i+k], w)
							}
						}
					}
				}
				got := slices.Clone(b4)
				Solve4(&fq, got)
				check("Solve4 (interleaved)", got)
				if nz > 0 {
					// The Go passes on the block, whatever the build.
					got = slices.Clone(b4)
					kernel.Fwd4Go(c.n, sym.colPtr, sym.idx32, blk[4*c.n:], got)
					for j := 0; j < c.n; j++ {
						for k := range fq {
							got[4*j+k] /= fq[k].D[j]
						}
					}
					kernel.Bwd4Go(c.n, sym.colPtr, sym.idx32, blk[4*c.n:], got)
					check("kernel.Fwd4Go/kernel.Bwd4Go", got)
				}
				// The single solve reads the interleaved L too.
				for k := range fq {
					u := make([]float64, c.n)
					for i := range u {
						u[i] = b4[4*i+k]
					}
					fq[k].Solve(u)
					for i := range u {
						got[4*i+k] = u[i]
					}
				}
				check("solve (interleaved)", got)
			}
		})
	}
}

// TestSolve4F32: Solve4F32 with the block's L rounded to single precision
// (BlockTo32) is, to the bit, Solve4 on a block whose L values are those
// rounded values in double precision, pivots unrounded (the widening is
// exact and the passes are the same, vector kernels or Go alike), and the
// Go passes on single-precision values agree with them to the bit too. The
// result is within 1e-5 of the exact solve on these well-conditioned
// columns, and differs from it: the copy was read, not the block.
func TestSolve4F32(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for _, c := range []struct{ n, extra int }{{1, 0}, {2, 0}, {7, 3}, {60, 40}, {300, 500}} {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			q, sym := randomStructure(rng, c.n, c.extra)
			nz := sym.NNZ()
			blk, blkR := make([]float64, 4*(c.n+nz)), make([]float64, 4*(c.n+nz))
			var fq, fr [4]*LDL
			work := make([]float64, sym.QuadWork())
			for k := range fq {
				diag, wt := randomColumn(rng, c.n, len(q.Pairs))
				fq[k] = &LDL{Sym: sym, D: blk[k*c.n : (k+1)*c.n], L: blk[min(4*c.n+k, len(blk)):], St: 4}
				fq[k].Factor(diag, q.Pairs, wt, work)
				fr[k] = &LDL{Sym: sym, D: blkR[k*c.n : (k+1)*c.n], L: blkR[min(4*c.n+k, len(blkR)):], St: 4}
			}
			copy(blkR, blk)
			for e := 4 * c.n; e < len(blkR); e++ {
				blkR[e] = float64(float32(blkR[e]))
			}
			l32 := make([]float32, 4*nz)
			BlockTo32(&fq, l32) // nothing to copy at n = 1 (no entries)
			b4 := make([]float64, 4*c.n)
			for i := range b4 {
				b4[i] = rng.Float64() - 0.5
			}
			got, want, exact := slices.Clone(b4), slices.Clone(b4), slices.Clone(b4)
			Solve4F32(&fq, l32, got)
			Solve4(&fr, want)
			Solve4(&fq, exact)
			differs := false
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("n=%d: Solve4F32 entry %d = %v, Solve4 on the rounded block %v", c.n, i, got[i], want[i])
				}
				if math.Abs(got[i]-exact[i]) > 1e-5*(1+math.Abs(exact[i])) {
					t.Fatalf("n=%d: Solve4F32 entry %d = %v, exact solve %v", c.n, i, got[i], exact[i])
				}
				differs = differs || got[i] != exact[i]
			}
			if nz > 0 && !differs {
				t.Fatalf("n=%d: Solve4F32 equals the exact solve to the bit: not read from the copy?", c.n)
			}
			if nz == 0 {
				return
			}
			// The Go passes on single-precision values against the same on
			// the rounded doubles.
			g32, g64 := slices.Clone(b4), slices.Clone(b4)
			kernel.Fwd4Go(c.n, sym.colPtr, sym.idx32, l32, g32)
			kernel.Fwd4Go(c.n, sym.colPtr, sym.idx32, blkR[4*c.n:], g64)
			kernel.Bwd4Go(c.n, sym.colPtr, sym.idx32, l32, g32)
			kernel.Bwd4Go(c.n, sym.colPtr, sym.idx32, blkR[4*c.n:], g64)
			for i := range g32 {
				if g32[i] != g64[i] {
					t.Fatalf("n=%d: kernel.Fwd4Go/kernel.Bwd4Go in single precision entry %d = %v, on the rounded doubles %v", c.n, i, g32[i], g64[i])
				}
			}
		})
	}
}

// randomStructure is a random connected graph of n rows with extra pairs
// beyond a spanning tree (randomGraphPairs), as a one-column problem
// renumbered into its minimum-degree order, and its symbolic factor.
func randomStructure(rng *rand.Rand, n, extra int) (*Graph, *Symbolic) {
	p := &Graph{N: n, Pairs: randomGraphPairs(rng, n, extra)}
	perm, sym := MinimumDegree(p)
	q := permuted(p, perm)
	sym.SetPairs(q)
	return q, sym
}

package sdp

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// pidentityFast holds the extra workspaces of evalFast.
type pidentityFast struct {
	kinvS     mat.SymDense
	kinv, e   *mat.Dense // p×p
	xt        []float64  // p×p, a transposed factor
	ct        []float64  // p×p, Cᵀ
	nt        []float64  // n×p, a transposed p×n matrix
	colPtr    []int      // CSC of Θ: column j is rowIdx/val[colPtr[j]:colPtr[j+1]]
	cur       []int      // buildCSC's cursors
	bt, bqT   *mat.Dense // n×p: (B D)ᵀ and (B Q)ᵀ (sparse path)
	rowIdx    []int
	val       []float64
	sparseMax float64 // largest nonzero fraction of Θ for the sparse products
}

// sparseThetaMax is the nonzero fraction of Θ below which evalFast forms
// the products with Θ from its nonzeros (optimised p-Identity strategies
// on ranges keep about 6% of Θ's entries).
const sparseThetaMax = 0.25

// evalFastMaxCond is the condition number of K = I + ΘΘᵀ above which
// evalFast hands over to eval (Cholesky solves instead of the explicit
// inverse, whose error grows like cond(K) u): Θ with large entries, as
// when a factor tends to the total query, made the block coordinate
// descent on the census workload stall 7% higher.
const evalFastMaxCond = 1e6

func (w *pidentity) fastSpace() *pidentityFast {
	if w.fast == nil {
		p, n := w.p, w.n
		w.fast = &pidentityFast{
			kinv: mat.NewDense(p, p, nil), e: mat.NewDense(p, p, nil),
			xt: make([]float64, p*p), ct: make([]float64, p*p), nt: make([]float64, n*p),
			colPtr: make([]int, n+1), sparseMax: sparseThetaMax,
		}
	}
	return w.fast
}

// evalFast returns the same F(Θ) and gradient as eval (docs/MATH.md §15.3)
// with fewer operations: K⁻¹ is formed explicitly (K = I + ΘΘᵀ has
// eigenvalues >= 1, so the inverse is as accurate as the solves), B = K⁻¹Θ
// and C B = (C K⁻¹) Θ, C = (BQ)Θᵀ, are products with Θ, and when at most
// sparseMax of Θ's entries are nonzero every product with Θ (and ΘΘᵀ)
// runs over its nonzeros: O(nnz(Θ) p + p³ + cost of G on p rows) instead
// of O(p² n).
func (w *pidentity) evalFast(theta *mat.Dense, grad *mat.Dense) (float64, bool) {
	n, p := w.n, w.p
	fs := w.fastSpace()
	td := theta.RawMatrix().Data
	for j := range w.d {
		w.d[j] = 1
	}
	nnz := 0
	for i := 0; i < p; i++ {
		row := td[i*n : (i+1)*n]
		for j, v := range row {
			if v != 0 {
				nnz++
				w.d[j] += v
			}
		}
	}
	sparse := float64(nnz) <= fs.sparseMax*float64(p*n)
	if sparse {
		fs.buildCSC(td, p, n, nnz)
		// K = I + ΘΘᵀ from the columns' nonzeros.
		kd := w.k.RawSymmetric()
		for k := range kd.Data {
			kd.Data[k] = 0
		}
		for j := 0; j < n; j++ {
			rs, vs := fs.rowIdx[fs.colPtr[j]:fs.colPtr[j+1]], fs.val[fs.colPtr[j]:fs.colPtr[j+1]]
			for x, a := range rs {
				va := vs[x]
				row := kd.Data[a*kd.Stride:]
				for y := x; y < len(rs); y++ {
					row[rs[y]] += va * vs[y] // rows ascending: upper triangle
				}
			}
		}
	} else {
		w.k.SymOuterK(1, theta)
	}
	for i := 0; i < p; i++ {
		w.k.SetSym(i, i, w.k.At(i, i)+1)
	}
	if !w.ch.Factorize(w.k) {
		return math.Inf(1), false
	}
	if w.ch.Cond() > evalFastMaxCond {
		return w.eval(theta, grad)
	}
	if err := w.ch.InverseTo(&fs.kinvS); err != nil {
		return math.Inf(1), false
	}
	ks, kd := fs.kinvS.RawSymmetric(), fs.kinv.RawMatrix()
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			v := ks.Data[i*ks.Stride+j]
			kd.Data[i*kd.Stride+j], kd.Data[j*kd.Stride+i] = v, v
		}
	}
	if sparse {
		return w.evalSparse(grad)
	}
	// B = K⁻¹ Θ.
	w.b.Mul(fs.kinv, theta)
	w.bQ(p)
	f := 0.0
	for j := 0; j < n; j++ {
		f += w.d[j] * w.d[j] * w.gd[j]
	}
	f -= dot(w.bq, theta)
	if grad == nil {
		return f, true
	}
	// C = (B Q) Θᵀ, then C B = (C K⁻¹) Θ.
	w.bqt.Mul(w.bq, theta.T())
	fs.e.Mul(w.bqt, fs.kinv)
	w.tmp.Mul(fs.e, theta)
	w.gr.Sub(w.bq, w.tmp)
	h := w.h
	for j := 0; j < n; j++ {
		h[j] = w.gd[j] * w.d[j]
	}
	for i := 0; i < p; i++ {
		tr, bqr := td[i*n:(i+1)*n], w.bq.RawRowView(i)
		for j, v := range tr {
			if v != 0 {
				h[j] -= v * bqr[j] / w.d[j]
			}
		}
	}
	for j := range h {
		h[j] *= 2
	}
	for i := 0; i < p; i++ {
		gr, out := w.gr.RawRowView(i), grad.RawRowView(i)
		for j := range out {
			out[j] = -2*gr[j] + h[j]
		}
	}
	return f, true
}

// buildCSC stores Θ (row-major td, p×n, nnz nonzeros) by columns, rows
// ascending within a column.
func (fs *pidentityFast) buildCSC(td []float64, p, n, nnz int) {
	if cap(fs.rowIdx) < nnz {
		fs.rowIdx, fs.val = make([]int, nnz), make([]float64, nnz)
	}
	fs.rowIdx, fs.val = fs.rowIdx[:nnz], fs.val[:nnz]
	cp := fs.colPtr
	for j := range cp {
		cp[j] = 0
	}
	for i := 0; i < p; i++ {
		for j, v := range td[i*n : (i+1)*n] {
			if v != 0 {
				cp[j+1]++
			}
		}
	}
	for j := 0; j < n; j++ {
		cp[j+1] += cp[j]
	}
	if len(fs.cur) < n {
		fs.cur = make([]int, n)
	}
	cur := fs.cur[:n]
	copy(cur, cp[:n])
	for i := 0; i < p; i++ {
		for j, v := range td[i*n : (i+1)*n] {
			if v != 0 {
				fs.rowIdx[cur[j]] = i
				fs.val[cur[j]] = v
				cur[j]++
			}
		}
	}
}

// evalSparse finishes evalFast for a sparse Θ (in CSC form, with d and
// K⁻¹ formed), in the transposed layout: Bᵀ, (BQ)ᵀ and (CB)ᵀ are n×p, so
// every product with Θ is a sum of p-vectors over Θ's nonzeros, G acts on
// the columns of (B D)ᵀ, and only the gradient is transposed (tiled) at
// the end.
func (w *pidentity) evalSparse(grad *mat.Dense) (float64, bool) {
	n, p := w.n, w.p
	fs := w.fast
	if fs.bt == nil {
		fs.bt, fs.bqT = mat.NewDense(n, p, nil), mat.NewDense(n, p, nil)
	}
	kd := fs.kinv.RawMatrix()
	// Bᵀ row j = Σ_b Θ_bj K⁻¹[b, :] (K⁻¹ symmetric), times d_j: (B D)ᵀ.
	bt := fs.bt.RawMatrix().Data
	for j := 0; j < n; j++ {
		out := bt[j*p : (j+1)*p]
		for k := range out {
			out[k] = 0
		}
		for q := fs.colPtr[j]; q < fs.colPtr[j+1]; q++ {
			v, row := fs.val[q], kd.Data[fs.rowIdx[q]*kd.Stride:fs.rowIdx[q]*kd.Stride+p]
			for k, c := range row {
				out[k] += v * c
			}
		}
		dj := w.d[j]
		for k := range out {
			out[k] *= dj
		}
	}
	// (BQ)ᵀ = D G (B D)ᵀ.
	w.g.mulCols(fs.bqT, fs.bt)
	bq := fs.bqT.RawMatrix().Data
	f := 0.0
	for j := 0; j < n; j++ {
		dj := w.d[j]
		f += dj * dj * w.gd[j]
		row := bq[j*p : (j+1)*p]
		for k := range row {
			row[k] *= dj
		}
	}
	for j := 0; j < n; j++ {
		row := bq[j*p : (j+1)*p]
		for q := fs.colPtr[j]; q < fs.colPtr[j+1]; q++ {
			f -= fs.val[q] * row[fs.rowIdx[q]]
		}
	}
	if grad == nil {
		return f, true
	}
	// Cᵀ row b = Σ_j Θ_bj (BQ)ᵀ[j, :];  Eᵀ = (C K⁻¹)ᵀ = K⁻¹ Cᵀ.
	ct := fs.ct
	for k := range ct {
		ct[k] = 0
	}
	for j := 0; j < n; j++ {
		yj := bq[j*p : (j+1)*p]
		for q := fs.colPtr[j]; q < fs.colPtr[j+1]; q++ {
			v, out := fs.val[q], ct[fs.rowIdx[q]*p:(fs.rowIdx[q]+1)*p]
			for k, c := range yj {
				out[k] += v * c
			}
		}
	}
	fs.e.Mul(fs.kinv, mat.NewDense(p, p, ct)) // Eᵀ
	ed := fs.e.RawMatrix()
	// (CB)ᵀ row j = Σ_b Θ_bj Eᵀ[b, :]; gradient row j of the transpose:
	// −2((BQ)ᵀ[j] − (CB)ᵀ[j]) + h_j,  h_j = 2(G_jj d_j − Σ_b Θ_bj (BQ)_bj / d_j).
	nt := fs.nt
	for j := 0; j < n; j++ {
		out := nt[j*p : (j+1)*p]
		bqr := bq[j*p : (j+1)*p]
		copy(out, bqr)
		hj := w.gd[j] * w.d[j]
		for q := fs.colPtr[j]; q < fs.colPtr[j+1]; q++ {
			b, v := fs.rowIdx[q], fs.val[q]
			hj -= v * bqr[b] / w.d[j]
			row := ed.Data[b*ed.Stride : b*ed.Stride+p]
			for k, c := range row {
				out[k] -= v * c
			}
		}
		hj *= 2
		for k := range out {
			out[k] = -2*out[k] + hj
		}
	}
	gm := grad.RawMatrix()
	transposeTo(gm.Data, gm.Stride, nt, p, n, p)
	return f, true
}

// transposeTo writes the transpose of the r×c row-major src (row stride
// ss) into dst (c×r, row stride ds), in 32×32 tiles so that neither side
// is read or written with a cache miss per element.
func transposeTo(dst []float64, ds int, src []float64, ss, r, c int) {
	const tile = 32
	for i0 := 0; i0 < r; i0 += tile {
		i1 := min(i0+tile, r)
		for j0 := 0; j0 < c; j0 += tile {
			j1 := min(j0+tile, c)
			for i := i0; i < i1; i++ {
				srow := src[i*ss : i*ss+c]
				for j := j0; j < j1; j++ {
					dst[j*ds+i] = srow[j]
				}
			}
		}
	}
}

package sdp

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// gramOp is a symmetric n×n Gram matrix G = WᵀW seen through the three
// operations the L1 optimiser and the structured error evaluations need
// (docs/MATH.md §15.3): an entry, the diagonal, and the product with a
// block of rows. gramDense stores G; gramSemisep stores the two generators
// of a semiseparable G (all ranges, prefixes) and multiplies in O(n) per
// row instead of O(n²).
type gramOp interface {
	// dim returns n.
	dim() int
	// at returns G_ij.
	at(i, j int) float64
	// diagTo sets dst[i] = G_ii (len(dst) = n).
	diagTo(dst []float64)
	// mulRows sets dst = x G for x, dst of size p×n (distinct).
	mulRows(dst, x *mat.Dense)
	// mulCols sets dst = G x for x, dst of size n×p (distinct).
	mulCols(dst, x *mat.Dense)
	// mulFlops is the number of multiply-adds of mulRows on p rows.
	mulFlops(p int) float64
}

var (
	_ gramOp = gramDense{}
	_ gramOp = (*gramSemisep)(nil)
)

// gramDense is G stored densely (a *mat.Dense or *mat.SymDense); mulRows
// is one matrix product.
type gramDense struct{ g mat.Matrix }

func (d gramDense) dim() int            { r, _ := d.g.Dims(); return r }
func (d gramDense) at(i, j int) float64 { return d.g.At(i, j) }
func (d gramDense) diagTo(dst []float64) {
	for i := range dst {
		dst[i] = d.g.At(i, i)
	}
}
func (d gramDense) mulRows(dst, x *mat.Dense) { dst.Mul(x, d.g) }
func (d gramDense) mulCols(dst, x *mat.Dense) { dst.Mul(d.g, x) }
func (d gramDense) mulFlops(p int) float64 {
	n := float64(d.dim())
	return float64(p) * n * n
}

// gramSemisep is a symmetric diagonal-plus-semiseparable Gram matrix of
// generator rank one, G_ij = u_min(i,j) v_max(i,j) for i != j and
// G_ii = diag_i (0-based). All ranges on n cells (G_ij =
// min(i,j)(n+1-max(i,j)) 1-based) is u_i = i+1, v_j = n-j, diag_i = u_i v_i;
// prefixes (G_ij = n+1-max(i,j) 1-based) is u_i = 1, v_j = n-j; a coarsened
// matrix Pᵀ G P (coarsen) has its own diagonal. Then
//
//	(G x)_i = v_i Σ_{j<i} u_j x_j + u_i Σ_{j>i} v_j x_j + diag_i x_i,
//
// two running sums: O(n) per vector, with the rounding of an ordinary dot
// product of the same terms.
type gramSemisep struct{ u, v, diag []float64 }

func (s *gramSemisep) dim() int { return len(s.u) }
func (s *gramSemisep) at(i, j int) float64 {
	if i == j {
		return s.diag[i]
	}
	if i > j {
		i, j = j, i
	}
	return s.u[i] * s.v[j]
}
func (s *gramSemisep) diagTo(dst []float64) {
	copy(dst, s.diag)
}

// mulVec sets dst = G x (dst and x of length n, may not alias).
func (s *gramSemisep) mulVec(dst, x []float64) {
	n := len(s.u)
	u, v, d := s.u[:n], s.v[:n], s.diag[:n]
	x, dst = x[:n], dst[:n]
	t := 0.0 // Σ_{j>i} v_j x_j
	for i := n - 1; i >= 0; i-- {
		dst[i] = t
		t += v[i] * x[i]
	}
	f := 0.0 // Σ_{j<i} u_j x_j
	for i := 0; i < n; i++ {
		dst[i] = v[i]*f + u[i]*dst[i] + d[i]*x[i]
		f += u[i] * x[i]
	}
}

func (s *gramSemisep) mulRows(dst, x *mat.Dense) {
	p, _ := x.Dims()
	for r := 0; r < p; r++ {
		s.mulVec(dst.RawRowView(r), x.RawRowView(r))
	}
}

// mulCols is mulVec on every column of x (n×p), the running sums kept as
// p-vectors so that x and dst are read and written row by row.
func (s *gramSemisep) mulCols(dst, x *mat.Dense) {
	n, p := x.Dims()
	t := make([]float64, 2*p)
	f, t := t[:p], t[p:]
	for j := n - 1; j >= 0; j-- {
		xr, dr := x.RawRowView(j), dst.RawRowView(j)
		copy(dr, t)
		vj := s.v[j]
		for k, xv := range xr {
			t[k] += vj * xv
		}
	}
	for j := 0; j < n; j++ {
		xr, dr := x.RawRowView(j), dst.RawRowView(j)
		uj, vj, dj := s.u[j], s.v[j], s.diag[j]
		for k, xv := range xr {
			dr[k] = vj*f[k] + uj*dr[k] + dj*xv
			f[k] += uj * xv
		}
	}
}

func (s *gramSemisep) mulFlops(p int) float64 { return 2 * float64(p) * float64(len(s.u)) }

// semisepTol is the relative difference, in units of 2⁻⁵², allowed between
// an entry of G and u_i v_j for G to be taken as semiseparable: G's
// entries are then reproduced to a few roundings (integer Gram matrices
// such as all ranges and prefixes exactly).
const semisepTol = 8

// detectSemisep returns the generators u, v with G_ij = u_min(i,j) v_max(i,j)
// (to semisepTol roundings, every entry checked) or ok = false. With
// v_{n-1} = 1 they are read off the last column (u_i = G_{i,n-1}) and the
// first row (v_j = G_{0j}/u_0); a G with G_{0,n-1} = 0 is not detected.
// Cost O(n²) time, O(n) memory.
func detectSemisep(g mat.Symmetric) (u, v []float64, ok bool) {
	n := g.SymmetricDim()
	u, v = make([]float64, n), make([]float64, n)
	for i := range u {
		u[i] = g.At(i, n-1)
	}
	if u[0] == 0 || math.IsNaN(u[0]) || math.IsInf(u[0], 0) {
		return nil, nil, false
	}
	for j := range v {
		v[j] = g.At(0, j) / u[0]
	}
	v[n-1] = 1
	tol := semisepTol * 0x1p-52
	if sg, dense := g.(*mat.SymDense); dense {
		raw := sg.RawSymmetric()
		for i := 0; i < n; i++ {
			row := raw.Data[i*raw.Stride+i : i*raw.Stride+n]
			ui := u[i]
			for k, gij := range row {
				w := ui * v[i+k]
				if !(math.Abs(gij-w) <= tol*math.Max(math.Abs(gij), math.Abs(w))) {
					return nil, nil, false
				}
			}
		}
		return u, v, true
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			gij, w := g.At(i, j), u[i]*v[j]
			if !(math.Abs(gij-w) <= tol*math.Max(math.Abs(gij), math.Abs(w))) {
				return nil, nil, false
			}
		}
	}
	return u, v, true
}

// newSemisep returns G as a gramSemisep, or nil when detectSemisep does
// not recognise it.
func newSemisep(g mat.Symmetric) *gramSemisep {
	u, v, ok := detectSemisep(g)
	if !ok {
		return nil
	}
	d := make([]float64, len(u))
	for i := range d {
		d[i] = g.At(i, i)
	}
	return &gramSemisep{u: u, v: v, diag: d}
}

// newGramOp returns G as a gramSemisep when detectSemisep recognises it,
// else as dense: a general copy when copyDense (the fastest operand for
// repeated products), else g itself.
func newGramOp(g *mat.SymDense, copyDense bool) gramOp {
	if s := newSemisep(g); s != nil {
		return s
	}
	if copyDense {
		return gramDense{g: mat.DenseCopyOf(g)}
	}
	return gramDense{g: g}
}

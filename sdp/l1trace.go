package sdp

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// traceStructured returns t = tr(G (AᵀA)⁻¹) for a strategy A whose rows
// have one of three structures, in O(n²) or O(k² n) instead of the O(n³)
// of the dense path (docs/MATH.md §15.3, "L1 optimiser at n = 4096"):
//
//   - diagonal plus k other rows (identity, p-Identity [I; Θ]D⁻¹): rows
//     with one nonzero cover every column, AᵀA = D₀ + VᵀV, and by Woodbury
//     with Z = V D₀⁻¹, K = I_k + V D₀⁻¹ Vᵀ,
//     t = Σ_j G_jj / (D₀)_jj − tr(K⁻¹ Z G Zᵀ)   (traceWoodbury);
//   - laminar supports (hierarchical trees, whose leaves are single cells):
//     rows sorted by support size, each row's support a union of earlier
//     blocks, (AᵀA)⁻¹ is built block by block with Sherman–Morrison in
//     Σ_rows |support|² operations (traceLaminar);
//   - square with mutually orthogonal rows (Haar wavelet):
//     (AᵀA)⁻¹ = Σ_r a_r a_rᵀ / ‖a_r‖⁴ (traceOrthogonal).
//
// It returns ok = false (and the caller uses the dense path) when no
// structure applies, when AᵀA is singular, when the structured path would
// cost more than max(n³/4, 10⁶) operations, or when its own accuracy
// checks fail (the
// laminar inverse must solve AᵀA y = z to a relative residual of 1e-9, no
// Sherman–Morrison update may cancel a diagonal entry of the inverse to
// below laminarMinKeep of itself, the
// Woodbury difference, whose error is about u·cond(K)·base, must keep
// cond(K)·base/t <= 1e5, a relative error of about 1e-11).
func traceStructured(g gramOp, a *mat.Dense) (t float64, ok bool) {
	rows, n := a.Dims()
	if n != g.dim() || n == 0 {
		return 0, false
	}
	nnz := make([]int, rows)
	singleCover := make([]bool, n)
	covered := 0
	var others []int
	nonzero := 0
	lamCost, orthCost := 0.0, 0.0
	colCount := make([]int, n)
	for r := 0; r < rows; r++ {
		row := a.RawRowView(r)
		c, last := 0, -1
		for j, v := range row {
			if v != 0 {
				c++
				last = j
				colCount[j]++
			}
		}
		nnz[r] = c
		switch {
		case c == 0:
			continue
		case c == 1:
			if !singleCover[last] {
				singleCover[last] = true
				covered++
			}
		default:
			others = append(others, r)
		}
		nonzero++
		lamCost += 3 * float64(c) * float64(c)
		orthCost += float64(c) * float64(c)
	}
	for _, c := range colCount {
		orthCost += float64(c) * float64(c)
	}
	nf := float64(n)
	limit := max(nf*nf*nf/4, 1e6) // small problems: every path is exact anyway
	k := float64(len(others))
	woodCost := math.Inf(1)
	if covered == n {
		woodCost = k*k*nf + k*k*k/3 + g.mulFlops(len(others)) + k*nf
	}
	if nonzero != n {
		orthCost = math.Inf(1)
	}
	type path struct {
		cost float64
		f    func() (float64, bool)
	}
	paths := []path{
		{woodCost, func() (float64, bool) { return traceWoodbury(g, a, nnz, others) }},
		{lamCost, func() (float64, bool) { return traceLaminar(g, a, nnz) }},
		{orthCost, func() (float64, bool) { return traceOrthogonal(g, a, nnz) }},
	}
	slices.SortStableFunc(paths, func(x, y path) int {
		switch {
		case x.cost < y.cost:
			return -1
		case x.cost > y.cost:
			return 1
		}
		return 0
	})
	for _, p := range paths {
		if !(p.cost <= limit) {
			break
		}
		if t, ok := p.f(); ok {
			return t, true
		}
	}
	return 0, false
}

// traceWoodbury is the diagonal-plus-k-rows path of traceStructured:
// nnz[r] is the number of nonzeros of row r, others the rows with more
// than one (every column has a one-nonzero row).
func traceWoodbury(g gramOp, a *mat.Dense, nnz []int, others []int) (float64, bool) {
	rows, n := a.Dims()
	d0 := make([]float64, n)
	for r := 0; r < rows; r++ {
		if nnz[r] != 1 {
			continue
		}
		for j, v := range a.RawRowView(r) {
			if v != 0 {
				d0[j] += v * v
			}
		}
	}
	gd := make([]float64, n)
	g.diagTo(gd)
	base := 0.0
	for j := range d0 {
		base += gd[j] / d0[j]
	}
	k := len(others)
	if k == 0 {
		return base, base >= 0 && !math.IsInf(base, 0) && !math.IsNaN(base)
	}
	z := mat.NewDense(k, n, nil)  // V D₀⁻¹
	vh := mat.NewDense(k, n, nil) // V D₀^{-1/2}
	for q, r := range others {
		row, zr, hr := a.RawRowView(r), z.RawRowView(q), vh.RawRowView(q)
		for j, v := range row {
			zr[j] = v / d0[j]
			hr[j] = v / math.Sqrt(d0[j])
		}
	}
	kk := mat.NewSymDense(k, nil)
	kk.SymOuterK(1, vh)
	for i := 0; i < k; i++ {
		kk.SetSym(i, i, kk.At(i, i)+1)
	}
	var ch mat.Cholesky
	if !ch.Factorize(kk) {
		return 0, false
	}
	y := mat.NewDense(k, n, nil)
	g.mulRows(y, z)
	s := mat.NewDense(k, k, nil)
	s.Mul(y, z.T())
	var x mat.Dense
	if err := ch.SolveTo(&x, s); err != nil {
		return 0, false
	}
	t := base - mat.Trace(&x)
	// The subtracted trace carries a relative error of about u·cond(K);
	// the difference keeps 1e-11 of it when cond(K)·base/t <= 1e5.
	if !(t > 0) || math.IsInf(t, 0) || ch.Cond()*base > 1e5*t {
		return 0, false
	}
	return t, true
}

// laminarMinKeep is the smallest fraction of a diagonal entry of the
// inverse that a Sherman–Morrison update of traceLaminar may leave.
const laminarMinKeep = 1e-5

// laminarBlock is a set of columns (sorted) and (AᵀA)⁻¹ restricted to it,
// row-major m×m, for the rows seen so far whose supports lie in it.
type laminarBlock struct {
	cols []int
	inv  []float64
}

// traceLaminar is the laminar path of traceStructured.
func traceLaminar(g gramOp, a *mat.Dense, nnz []int) (float64, bool) {
	rows, n := a.Dims()
	order := make([]int, 0, rows)
	for r := 0; r < rows; r++ {
		if nnz[r] > 0 {
			order = append(order, r)
		}
	}
	slices.SortStableFunc(order, func(x, y int) int { return nnz[x] - nnz[y] })
	blk := make([]int, n) // block index of each column, -1 if none yet
	for j := range blk {
		blk[j] = -1
	}
	pos := make([]int, n) // position of a column in the block being built
	var blocks []*laminarBlock
	var touched []int
	idx := make([]int, 0, n)
	val := make([]float64, 0, n)
	u := make([]float64, n)
	for _, r := range order {
		idx, val = idx[:0], val[:0]
		for j, v := range a.RawRowView(r) {
			if v != 0 {
				idx = append(idx, j)
				val = append(val, v)
			}
		}
		m := len(idx)
		touched = touched[:0]
		size, uncovered := 0, 0
		for _, j := range idx {
			b := blk[j]
			if b < 0 {
				uncovered++
				continue
			}
			if !slices.Contains(touched, b) {
				touched = append(touched, b)
				size += len(blocks[b].cols)
			}
		}
		if size+uncovered != m {
			return 0, false // not laminar
		}
		var nb *laminarBlock
		switch {
		case uncovered > 0 && m > 1:
			return 0, false // singular so far: Sherman–Morrison needs B > 0
		case uncovered > 0: // a first row on one column
			nb = &laminarBlock{cols: []int{idx[0]}, inv: []float64{1 / (val[0] * val[0])}}
			blk[idx[0]] = len(blocks)
			blocks = append(blocks, nb)
			continue
		case len(touched) == 1:
			nb = blocks[touched[0]]
		default:
			nb = &laminarBlock{cols: slices.Clone(idx), inv: make([]float64, m*m)}
			for p, j := range idx {
				pos[j] = p
			}
			for _, b := range touched {
				ob := blocks[b]
				for x, cx := range ob.cols {
					px := pos[cx] * m
					orow := ob.inv[x*len(ob.cols) : (x+1)*len(ob.cols)]
					for y, cy := range ob.cols {
						nb.inv[px+pos[cy]] = orow[y]
					}
				}
				blocks[b] = nil
			}
			id := len(blocks)
			blocks = append(blocks, nb)
			for _, j := range idx {
				blk[j] = id
			}
		}
		// Sherman–Morrison: (B + a aᵀ)⁻¹ = B⁻¹ − u uᵀ / (1 + aᵀu), u = B⁻¹a.
		uu := u[:m]
		den := 1.0
		for x := 0; x < m; x++ {
			row := nb.inv[x*m : (x+1)*m]
			s := 0.0
			for y, v := range val {
				s += row[y] * v
			}
			uu[x] = s
			den += val[x] * s
		}
		if !(den >= 1) || math.IsInf(den, 0) {
			return 0, false
		}
		for x := 0; x < m; x++ {
			row := nb.inv[x*m : (x+1)*m]
			f := uu[x] / den
			old := row[x]
			for y := range row {
				row[y] -= f * uu[y]
			}
			// A diagonal entry of the inverse that cancels to below 1e-5
			// of itself has lost five digits: the update is then
			// ill-conditioned (a row nearly the sum of the block, as in
			// a p-Identity tending to the total) and the forward error,
			// which the residual check below does not see, can exceed
			// 1e-11; the dense QR path is used instead.
			if !(row[x] > laminarMinKeep*old) {
				return 0, false
			}
		}
	}
	for _, b := range blk {
		if b < 0 {
			return 0, false // AᵀA singular
		}
	}
	// Accuracy: AᵀA y = z for y = (AᵀA)⁻¹ z, z_j = 1 + (j mod 3).
	y := make([]float64, n)
	for _, b := range blocks {
		if b == nil {
			continue
		}
		m := len(b.cols)
		for x, cx := range b.cols {
			s := 0.0
			row := b.inv[x*m : (x+1)*m]
			for q, cy := range b.cols {
				s += row[q] * float64(1+cy%3)
			}
			y[cx] = s
		}
	}
	res := make([]float64, n)
	colAbs := make([]float64, n)
	for _, r := range order {
		row := a.RawRowView(r)
		s, l1 := 0.0, 0.0
		for j, v := range row {
			if v != 0 {
				s += v * y[j]
				l1 += math.Abs(v)
			}
		}
		for j, v := range row {
			if v != 0 {
				res[j] += v * s
				colAbs[j] += math.Abs(v) * l1
			}
		}
	}
	normM, normY, worst := 0.0, 0.0, 0.0
	for j := range res {
		normM = math.Max(normM, colAbs[j])
		normY = math.Max(normY, math.Abs(y[j]))
		worst = math.Max(worst, math.Abs(res[j]-float64(1+j%3)))
	}
	if !(worst <= 1e-9*normM*normY) {
		return 0, false
	}
	t, scale := 0.0, 0.0
	for _, b := range blocks {
		if b == nil {
			continue
		}
		m := len(b.cols)
		for x, cx := range b.cols {
			row := b.inv[x*m : (x+1)*m]
			gxx := g.at(cx, cx)
			s := row[x] * gxx
			for q := x + 1; q < m; q++ {
				s += 2 * row[q] * g.at(cx, b.cols[q])
			}
			t += s
			scale += math.Sqrt(math.Max(gxx*row[x], 0))
		}
	}
	// Forward accuracy: the entries of M = (AᵀA)⁻¹ carry errors of about
	// u·sqrt(M_ii M_jj) and |G_ij| <= sqrt(G_ii G_jj), so t is accurate to
	// about u·(Σ_i sqrt(G_ii M_ii))²; refuse when that exceeds 1e-11·t
	// (a p-Identity tending to the total on G = 11ᵀ cancels 14 digits
	// here while every residual is small).
	if !(t > 0) || math.IsInf(t, 0) || scale*scale > structuredMaxLoss*t {
		return 0, false
	}
	return t, true
}

// structuredMaxLoss bounds (Σ_i sqrt(G_ii M_ii))²/t for the laminar path
// of traceStructured: at 1e5 its relative error stays about 1e-11.
const structuredMaxLoss = 1e5

// traceOrthogonal is the orthogonal-rows path of traceStructured: A has n
// nonzero rows; if they are mutually orthogonal (|⟨a_r, a_s⟩| <= 1e-12
// ‖a_r‖‖a_s‖) the trace is Σ_r a_rᵀ G a_r / ‖a_r‖⁴.
func traceOrthogonal(g gramOp, a *mat.Dense, nnz []int) (float64, bool) {
	rows, n := a.Dims()
	// Column lists (row, value) and row norms.
	type ent struct {
		r int
		v float64
	}
	cols := make([][]ent, n)
	norm2 := make([]float64, rows)
	for r := 0; r < rows; r++ {
		if nnz[r] == 0 {
			continue
		}
		for j, v := range a.RawRowView(r) {
			if v != 0 {
				cols[j] = append(cols[j], ent{r, v})
				norm2[r] += v * v
			}
		}
	}
	acc := make([]float64, rows)
	var hit []int
	for r := 0; r < rows; r++ {
		if nnz[r] == 0 {
			continue
		}
		hit = hit[:0]
		for j, v := range a.RawRowView(r) {
			if v == 0 {
				continue
			}
			for _, e := range cols[j] {
				if e.r > r {
					if acc[e.r] == 0 {
						hit = append(hit, e.r)
					}
					acc[e.r] += v * e.v
				}
			}
		}
		for _, s := range hit {
			if !(math.Abs(acc[s]) <= 1e-12*math.Sqrt(norm2[r]*norm2[s])) {
				return 0, false
			}
			acc[s] = 0
		}
	}
	t := 0.0
	idx := make([]int, 0, n)
	val := make([]float64, 0, n)
	for r := 0; r < rows; r++ {
		if nnz[r] == 0 {
			continue
		}
		idx, val = idx[:0], val[:0]
		for j, v := range a.RawRowView(r) {
			if v != 0 {
				idx = append(idx, j)
				val = append(val, v)
			}
		}
		q := 0.0
		for x, cx := range idx {
			s := val[x] * g.at(cx, cx)
			for y := x + 1; y < len(idx); y++ {
				s += 2 * val[y] * g.at(cx, idx[y])
			}
			q += val[x] * s
		}
		t += q / (norm2[r] * norm2[r])
	}
	if !(t > 0) || math.IsInf(t, 0) {
		return 0, false
	}
	return t, true
}

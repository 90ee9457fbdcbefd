package linear

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// Workload is an m×n matrix W of linear queries over a domain of n counts,
// kept as an operator: it need not be stored densely.
type Workload interface {
	// Dims returns the number of queries m and the domain size n.
	Dims() (m, n int)
	// Gram returns W^T W, in Kronecker or sum-of-Kronecker form when the
	// workload has one (error depends on W only through it).
	Gram() Gram
	// Dense returns W as a dense m×n matrix, or an error wrapping
	// run.ErrTooLarge, before allocating, when m·n exceeds mech.MaxDenseEntries.
	Dense() (*mat.Dense, error)
	// MulVec returns W x for x of length n without forming W when the
	// structure allows it.
	MulVec(x []float64) ([]float64, error)
	// String names the workload, e.g. "allrange(n=256)".
	String() string
}

var (
	_ Workload = (*rangeWorkload)(nil)
	_ Workload = (*kronWorkload)(nil)
	_ Workload = (*marginalWorkload)(nil)
	_ Workload = (*unionWorkload)(nil)
	_ Workload = (*matrixWorkload)(nil)
)

func checkN(n int) error {
	if n <= 0 {
		return run.BadInputf("domain size n = %d: must be >= 1", n)
	}
	return nil
}

func checkLen(w Workload, x []float64) error {
	if _, n := w.Dims(); len(x) != n {
		return run.BadInputf("%v: vector has %d entries, want n = %d", w, len(x), n)
	}
	return nil
}

// Interval is the range query x[L] + ... + x[R] (0-based, inclusive).
type Interval struct{ L, R int }

// rangeWorkload is a 1-D workload of interval queries, enumerated lazily.
type rangeWorkload struct {
	n, m int
	name string
	// each enumerates the intervals in row order.
	each func(yield func(l, r int))
	// gram, when set, is a closed form of W^T W; otherwise it is counted.
	gram func(i, j int) float64
	// tridiagInverse marks a Gram whose inverse is tridiagonal (all ranges,
	// prefixes), which sdp.OptimizeL2 solves in a few n×n matrices
	// (docs/MATH.md §15.7); OptimizeBytes counts that.
	tridiagInverse bool
}

// Identity returns the n×n identity workload (every single count).
func Identity(n int) (Workload, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	return &rangeWorkload{n: n, m: n, name: fmt.Sprintf("identity(n=%d)", n),
		each: func(y func(l, r int)) {
			for i := 0; i < n; i++ {
				y(i, i)
			}
		},
		gram: func(i, j int) float64 { return b2f(i == j) }}, nil
}

// Total returns the 1×n workload asking for the sum of all counts.
func Total(n int) (Workload, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	return &rangeWorkload{n: n, m: 1, name: fmt.Sprintf("total(n=%d)", n),
		each: func(y func(l, r int)) { y(0, n-1) },
		gram: func(i, j int) float64 { return 1 }}, nil
}

// AllRange returns all n(n+1)/2 range queries [l, r], 0 <= l <= r < n, in
// order of l then r. Its Gram has the closed form
// (W^T W)[i][j] = (min(i,j)+1)·(n-max(i,j)) (0-based): the number of
// intervals containing both i and j.
func AllRange(n int) (Workload, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	if n > 1<<20 {
		return nil, fmt.Errorf("linear: allrange: n = %d gives %d queries; the limit is n <= 2^20: %w", n, n*(n+1)/2, run.ErrTooLarge)
	}
	return &rangeWorkload{n: n, m: n * (n + 1) / 2, name: fmt.Sprintf("allrange(n=%d)", n),
		each: func(y func(l, r int)) {
			for l := 0; l < n; l++ {
				for r := l; r < n; r++ {
					y(l, r)
				}
			}
		},
		gram:           func(i, j int) float64 { return float64((min(i, j) + 1) * (n - max(i, j))) },
		tridiagInverse: true}, nil
}

// Prefix returns the n prefix (CDF) queries [0, r], r = 0..n-1. Its Gram is
// (W^T W)[i][j] = n - max(i,j) (0-based).
func Prefix(n int) (Workload, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	return &rangeWorkload{n: n, m: n, name: fmt.Sprintf("prefix(n=%d)", n),
		each: func(y func(l, r int)) {
			for r := 0; r < n; r++ {
				y(0, r)
			}
		},
		gram:           func(i, j int) float64 { return float64(n - max(i, j)) },
		tridiagInverse: true}, nil
}

// WidthRange returns the n-k+1 range queries of width k: [l, l+k-1].
func WidthRange(n, k int) (Workload, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	if k < 1 || k > n {
		return nil, run.BadInputf("width range: width k = %d must be in [1, n = %d]", k, n)
	}
	return &rangeWorkload{n: n, m: n - k + 1, name: fmt.Sprintf("width(n=%d,k=%d)", n, k),
		each: func(y func(l, r int)) {
			for l := 0; l+k <= n; l++ {
				y(l, l+k-1)
			}
		}}, nil
}

// RandomRange returns m range queries with endpoints drawn uniformly (the
// pair sorted) from a generator seeded with seed: the same seed gives the same
// workload.
func RandomRange(n, m int, seed uint64) (Workload, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	if m < 1 {
		return nil, run.BadInputf("random range: m = %d queries, must be >= 1", m)
	}
	// The m intervals are held (16 bytes each): checked against the
	// default budget before they are drawn, so that a huge m is refused
	// instead of exhausting memory.
	if err := run.DefaultBudget.Check(fmt.Sprintf("random range: the %d intervals of m = %d queries", m, m), 16*float64(m),
		"use fewer queries, or state the workload by its structure (allrange, prefix, width)"); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x6c696e656172))
	iv := make([]Interval, m)
	for q := range iv {
		a, b := rng.IntN(n), rng.IntN(n)
		iv[q] = Interval{min(a, b), max(a, b)}
	}
	w, err := Ranges(n, iv)
	if err != nil {
		return nil, err
	}
	w.(*rangeWorkload).name = fmt.Sprintf("random(n=%d,m=%d,seed=%d)", n, m, seed)
	return w, nil
}

// Ranges returns the workload of the given intervals over a domain of n
// counts, in the given order.
func Ranges(n int, iv []Interval) (Workload, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	if len(iv) == 0 {
		return nil, run.BadInputf("ranges: no intervals")
	}
	for q, v := range iv {
		if v.L < 0 || v.R >= n || v.L > v.R {
			return nil, run.BadInputf("ranges: interval %d = [%d, %d] is not within [0, %d] with L <= R", q, v.L, v.R, n-1)
		}
	}
	iv = append([]Interval(nil), iv...)
	return &rangeWorkload{n: n, m: len(iv), name: fmt.Sprintf("ranges(n=%d,m=%d)", n, len(iv)),
		each: func(y func(l, r int)) {
			for _, v := range iv {
				y(v.L, v.R)
			}
		}}, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func (w *rangeWorkload) Dims() (int, int) { return w.m, w.n }
func (w *rangeWorkload) String() string   { return w.name }

// Gram returns W^T W: the closed form when there is one; otherwise
// G[i][j] = #{intervals with l <= min(i,j) and r >= max(i,j)}, counted with a
// 2-D suffix/prefix sum over the interval endpoints in O(m + n²).
func (w *rangeWorkload) Gram() Gram {
	n := w.n
	g := mat.NewSymDense(n, nil)
	if w.gram != nil {
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				g.SetSym(i, j, w.gram(i, j))
			}
		}
		return DenseGram(g)
	}
	// c[l][r] = number of intervals [l, r]; then C[i][j] = Σ_{l<=i, r>=j} c[l][r].
	c := make([]float64, n*n)
	w.each(func(l, r int) { c[l*n+r]++ })
	for l := 0; l < n; l++ { // suffix sums over r
		for r := n - 2; r >= 0; r-- {
			c[l*n+r] += c[l*n+r+1]
		}
	}
	for l := 1; l < n; l++ { // prefix sums over l
		for r := 0; r < n; r++ {
			c[l*n+r] += c[(l-1)*n+r]
		}
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			g.SetSym(i, j, c[i*n+j])
		}
	}
	return DenseGram(g)
}

func (w *rangeWorkload) Dense() (*mat.Dense, error) {
	if err := checkDense(w.name, w.m, w.n); err != nil {
		return nil, err
	}
	d := mat.NewDense(w.m, w.n, nil)
	q := 0
	w.each(func(l, r int) {
		for j := l; j <= r; j++ {
			d.Set(q, j, 1)
		}
		q++
	})
	return d, nil
}

// MulVec answers every interval from the prefix sums of x in O(m + n).
func (w *rangeWorkload) MulVec(x []float64) ([]float64, error) {
	if err := checkLen(w, x); err != nil {
		return nil, err
	}
	s := make([]float64, w.n+1)
	for i, v := range x {
		s[i+1] = s[i] + v
	}
	out := make([]float64, 0, w.m)
	w.each(func(l, r int) { out = append(out, s[r+1]-s[l]) })
	return out, nil
}

// kronWorkload is W_1 ⊗ W_2 ⊗ ... over a product domain (row-major cells).
type kronWorkload struct{ fs []Workload }

// Kron returns the Kronecker product W_1 ⊗ W_2 ⊗ ... of workloads: over the
// product domain (cells in row-major order, the last factor fastest), query
// (q_1, ..., q_d) is the product of the factors' queries, e.g. a 2-D range is
// the product of two 1-D ranges. Its Gram is the product of the factors'.
func Kron(ws ...Workload) (Workload, error) {
	if len(ws) == 0 {
		return nil, run.BadInputf("kron: no factors")
	}
	m, n := 1.0, 1.0
	for _, w := range ws {
		a, b := w.Dims()
		m *= float64(a)
		n *= float64(b)
	}
	if m > math.MaxInt32*float64(1<<20) || n > 1<<40 {
		return nil, run.BadInputf("kron: %g queries over %g cells is too large to index", m, n)
	}
	return &kronWorkload{fs: append([]Workload(nil), ws...)}, nil
}

// Range2D returns all 2-D range queries over an n×n grid:
// Kron(AllRange(n), AllRange(n)), (n(n+1)/2)² queries.
func Range2D(n int) (Workload, error) {
	a, err := AllRange(n)
	if err != nil {
		return nil, err
	}
	w, err := Kron(a, a)
	if err != nil {
		return nil, err
	}
	return w, nil
}

// Factors returns the Kronecker factors of w (w itself when it is not a
// Kronecker product).
func Factors(w Workload) []Workload {
	if k, ok := w.(*kronWorkload); ok {
		return append([]Workload(nil), k.fs...)
	}
	return []Workload{w}
}

func (w *kronWorkload) Dims() (int, int) {
	m, n := 1, 1
	for _, f := range w.fs {
		a, b := f.Dims()
		m *= a
		n *= b
	}
	return m, n
}

func (w *kronWorkload) String() string {
	s := make([]string, len(w.fs))
	for i, f := range w.fs {
		s[i] = f.String()
	}
	return "kron(" + strings.Join(s, ", ") + ")"
}

func (w *kronWorkload) Gram() Gram {
	gs := make([]Gram, len(w.fs))
	for i, f := range w.fs {
		gs[i] = f.Gram()
	}
	return KronGram(gs...)
}

func (w *kronWorkload) Dense() (*mat.Dense, error) {
	m, n := w.Dims()
	if err := checkDense(w.String(), m, n); err != nil {
		return nil, err
	}
	ms := make([]mat.Matrix, len(w.fs))
	for i, f := range w.fs {
		d, err := f.Dense()
		if err != nil {
			return nil, err
		}
		ms[i] = d
	}
	return kronDense(ms), nil
}

// MulVec applies each factor along its mode (never forming the product).
func (w *kronWorkload) MulVec(x []float64) ([]float64, error) {
	if err := checkLen(w, x); err != nil {
		return nil, err
	}
	in, out := make([]int, len(w.fs)), make([]int, len(w.fs))
	ops := make([]func(dst, src []float64), len(w.fs))
	var ferr error
	for i, f := range w.fs {
		out[i], in[i] = f.Dims()
		ops[i] = func(dst, src []float64) {
			y, err := f.MulVec(src)
			if err != nil {
				ferr = err
				return
			}
			copy(dst, y)
		}
	}
	y := kronApply(x, in, out, ops)
	if ferr != nil {
		return nil, ferr
	}
	return y, nil
}

// marginalWorkload is every k-way marginal of a product domain.
type marginalWorkload struct {
	dims    []int
	k       int
	subsets [][]int // attribute subsets of size k, in lexicographic order
}

// Marginals returns all k-way marginals over the product domain
// dims[0] × dims[1] × ... (cells in row-major order): for each set S of k
// attributes (lexicographic order), one query per cell of the S-table,
// summing the counts that agree with it on S. Its Gram is
// Σ_{|S| = k} ⊗_i (I if i ∈ S else 1 1^T), so tr(W^T W) = C(d,k)·N.
func Marginals(dims []int, k int) (Workload, error) {
	if len(dims) == 0 {
		return nil, run.BadInputf("marginals: no attributes")
	}
	cells := 1.0
	for i, d := range dims {
		if d < 1 {
			return nil, run.BadInputf("marginals: attribute %d has %d values, must be >= 1", i, d)
		}
		cells *= float64(d)
	}
	if cells > 1<<40 {
		return nil, fmt.Errorf("linear: marginals: domain of %g cells is too large: %w", cells, run.ErrTooLarge)
	}
	if k < 0 || k > len(dims) {
		return nil, run.BadInputf("marginals: k = %d must be in [0, %d]", k, len(dims))
	}
	w := &marginalWorkload{dims: append([]int(nil), dims...), k: k}
	var rec func(start int, cur []int)
	rec = func(start int, cur []int) {
		if len(cur) == k {
			w.subsets = append(w.subsets, append([]int(nil), cur...))
			return
		}
		for i := start; i < len(dims); i++ {
			rec(i+1, append(cur, i))
		}
	}
	rec(0, nil)
	return w, nil
}

func (w *marginalWorkload) Dims() (int, int) {
	m := 0
	for _, s := range w.subsets {
		c := 1
		for _, i := range s {
			c *= w.dims[i]
		}
		m += c
	}
	n := 1
	for _, d := range w.dims {
		n *= d
	}
	return m, n
}

func (w *marginalWorkload) String() string {
	s := make([]string, len(w.dims))
	for i, d := range w.dims {
		s[i] = strconv.Itoa(d)
	}
	return fmt.Sprintf("marginals(dims=%s,k=%d)", strings.Join(s, "x"), w.k)
}

func (w *marginalWorkload) Gram() Gram {
	ident := make([]*mat.SymDense, len(w.dims))
	ones := make([]*mat.SymDense, len(w.dims))
	for i, d := range w.dims {
		ident[i] = mat.NewSymDense(d, nil)
		ones[i] = mat.NewSymDense(d, nil)
		for a := 0; a < d; a++ {
			ident[i].SetSym(a, a, 1)
			for b := a; b < d; b++ {
				ones[i].SetSym(a, b, 1)
			}
		}
	}
	var g Gram
	for _, s := range w.subsets {
		term := append([]*mat.SymDense(nil), ones...)
		for _, i := range s {
			term[i] = ident[i]
		}
		g.Terms = append(g.Terms, term)
	}
	return g
}

// cellIndex returns, for cell c of the full domain, its index in the table
// of subset s.
func (w *marginalWorkload) cellIndex(c int, s []int) int {
	// Decompose c into coordinates (row-major, last attribute fastest).
	coords := make([]int, len(w.dims))
	for i := len(w.dims) - 1; i >= 0; i-- {
		coords[i] = c % w.dims[i]
		c /= w.dims[i]
	}
	idx := 0
	for _, i := range s {
		idx = idx*w.dims[i] + coords[i]
	}
	return idx
}

func (w *marginalWorkload) Dense() (*mat.Dense, error) {
	m, n := w.Dims()
	if err := checkDense(w.String(), m, n); err != nil {
		return nil, err
	}
	d := mat.NewDense(m, n, nil)
	off := 0
	for _, s := range w.subsets {
		size := 1
		for _, i := range s {
			size *= w.dims[i]
		}
		for c := 0; c < n; c++ {
			d.Set(off+w.cellIndex(c, s), c, 1)
		}
		off += size
	}
	return d, nil
}

func (w *marginalWorkload) MulVec(x []float64) ([]float64, error) {
	if err := checkLen(w, x); err != nil {
		return nil, err
	}
	m, _ := w.Dims()
	out := make([]float64, m)
	off := 0
	for _, s := range w.subsets {
		size := 1
		for _, i := range s {
			size *= w.dims[i]
		}
		for c, v := range x {
			out[off+w.cellIndex(c, s)] += v
		}
		off += size
	}
	return out, nil
}

// unionWorkload stacks workloads over the same domain.
type unionWorkload struct {
	ws   []Workload
	name string // "" = union(...) of the members' names
}

// Union returns the workloads stacked vertically (their queries in order);
// they must share the domain size n. Its Gram is the sum of their Grams.
func Union(ws ...Workload) (Workload, error) {
	if len(ws) == 0 {
		return nil, run.BadInputf("union: no workloads")
	}
	_, n := ws[0].Dims()
	for _, w := range ws[1:] {
		if _, m := w.Dims(); m != n {
			return nil, run.BadInputf("union: %v has domain size %d, %v has %d", ws[0], n, w, m)
		}
	}
	return &unionWorkload{ws: append([]Workload(nil), ws...)}, nil
}

func (w *unionWorkload) Dims() (int, int) {
	m := 0
	for _, v := range w.ws {
		a, _ := v.Dims()
		m += a
	}
	_, n := w.ws[0].Dims()
	return m, n
}

func (w *unionWorkload) String() string {
	if w.name != "" {
		return w.name
	}
	s := make([]string, len(w.ws))
	for i, v := range w.ws {
		s[i] = v.String()
	}
	return "union(" + strings.Join(s, ", ") + ")"
}

func (w *unionWorkload) Gram() Gram {
	gs := make([]Gram, len(w.ws))
	for i, v := range w.ws {
		gs[i] = v.Gram()
	}
	return SumGram(gs...)
}

func (w *unionWorkload) Dense() (*mat.Dense, error) {
	m, n := w.Dims()
	if err := checkDense(w.String(), m, n); err != nil {
		return nil, err
	}
	d := mat.NewDense(m, n, nil)
	off := 0
	for _, v := range w.ws {
		p, err := v.Dense()
		if err != nil {
			return nil, err
		}
		r, _ := p.Dims()
		d.Slice(off, off+r, 0, n).(*mat.Dense).Copy(p)
		off += r
	}
	return d, nil
}

func (w *unionWorkload) MulVec(x []float64) ([]float64, error) {
	if err := checkLen(w, x); err != nil {
		return nil, err
	}
	var out []float64
	for _, v := range w.ws {
		y, err := v.MulVec(x)
		if err != nil {
			return nil, err
		}
		out = append(out, y...)
	}
	return out, nil
}

// matrixWorkload is an explicit dense workload.
type matrixWorkload struct {
	a    *mat.Dense
	name string
}

// FromMatrix returns the explicit workload a (copied). Entries must be finite.
func FromMatrix(a *mat.Dense) (Workload, error) {
	if a == nil || a.IsEmpty() {
		return nil, run.BadInputf("workload matrix is empty")
	}
	if err := finiteDense(a); err != nil {
		return nil, fmt.Errorf("workload matrix: %w", err)
	}
	m, n := a.Dims()
	return &matrixWorkload{a: mat.DenseCopyOf(a), name: fmt.Sprintf("matrix(%dx%d)", m, n)}, nil
}

func finiteDense(a mat.Matrix) error {
	r, c := a.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := a.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return run.BadInputf("entry (%d,%d) = %v is not finite", i, j, v)
			}
		}
	}
	return nil
}

func (w *matrixWorkload) Dims() (int, int) { return w.a.Dims() }
func (w *matrixWorkload) String() string   { return w.name }

func (w *matrixWorkload) Gram() Gram {
	_, n := w.a.Dims()
	g := mat.NewSymDense(n, nil)
	g.SymOuterK(1, w.a.T())
	return DenseGram(g)
}

func (w *matrixWorkload) Dense() (*mat.Dense, error) { return mat.DenseCopyOf(w.a), nil }

func (w *matrixWorkload) MulVec(x []float64) ([]float64, error) {
	if err := checkLen(w, x); err != nil {
		return nil, err
	}
	m, _ := w.a.Dims()
	y := mat.NewVecDense(m, nil)
	y.MulVec(w.a, mat.NewVecDense(len(x), append([]float64(nil), x...)))
	return y.RawVector().Data, nil
}

// errMatrixBytes is returned by boundedReader past MaxMatrixBytes.
var errMatrixBytes = fmt.Errorf("linear: more than %d bytes (MaxMatrixBytes): %w", MaxMatrixBytes, run.ErrTooLarge)

// boundedReader reads at most left-1 bytes of r and then fails with
// errMatrixBytes (left starts at the limit + 1, so input of exactly the
// limit ends with r's io.EOF).
type boundedReader struct {
	r    io.Reader
	left int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errMatrixBytes
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

// ReadMatrix reads a dense matrix in CSV form: one row per line, entries
// separated by commas and/or blanks; blank lines and lines starting with '#'
// are skipped. Every row must have the same number of finite entries.
// Entries are decoded as the lines are read; a line longer than
// MaxMatrixLine, input longer than MaxMatrixBytes or more than
// mech.MaxDenseEntries entries is refused with an error wrapping run.ErrTooLarge.
func ReadMatrix(r io.Reader) (*mat.Dense, error) {
	sc := bufio.NewScanner(&boundedReader{r: r, left: MaxMatrixBytes + 1})
	sc.Buffer(make([]byte, 64<<10), MaxMatrixLine)
	var data []float64
	cols, rows, line := -1, 0, 0
	isSep := func(c byte) bool { return c == ',' || c == ' ' || c == '\t' || c == ';' }
	for sc.Scan() {
		line++
		t := bytes.TrimSpace(sc.Bytes())
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		k := 0
		for i := 0; i < len(t); {
			if isSep(t[i]) {
				i++
				continue
			}
			j := i
			for j < len(t) && !isSep(t[j]) {
				j++
			}
			f := string(t[i:j])
			i = j
			k++
			if cols >= 0 && k > cols {
				return nil, run.BadInputf("line %d: more than %d entries, previous rows have %d", line, cols, cols)
			}
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return nil, run.BadInputf("line %d, entry %d: %q is not a number", line, k, f)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, run.BadInputf("line %d, entry %d: %v is not finite", line, k, v)
			}
			if len(data) >= mech.MaxDenseEntries {
				return nil, fmt.Errorf("linear: line %d: more than %d entries: %w", line, mech.MaxDenseEntries, run.ErrTooLarge)
			}
			data = append(data, v)
		}
		if cols >= 0 && k != cols {
			return nil, run.BadInputf("line %d: %d entries, previous rows have %d", line, k, cols)
		}
		cols = k
		rows++
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("linear: reading matrix: line %d is longer than %d bytes (MaxMatrixLine): %w", line+1, MaxMatrixLine, run.ErrTooLarge)
		}
		return nil, fmt.Errorf("reading matrix: %w", err)
	}
	if rows == 0 || cols <= 0 {
		return nil, run.BadInputf("reading matrix: no rows")
	}
	return mat.NewDense(rows, cols, data), nil
}

// Shape returns the domain's dimensions: the factors' domain sizes for a
// Kronecker workload, the attribute sizes for marginals, the members' common
// shape for a union whose members agree (and for c·W), and [n] otherwise.
// Per-dimension strategies (e.g. a hierarchy on each axis) are built over it
// and combined with KronStrategy.
func Shape(w Workload) []int {
	switch v := w.(type) {
	case *kronWorkload:
		var s []int
		for _, f := range v.fs {
			s = append(s, Shape(f)...)
		}
		return s
	case *marginalWorkload:
		return append([]int(nil), v.dims...)
	case *scaledWorkload:
		return Shape(v.w)
	case *unionWorkload:
		// The members' common shape, when they agree.
		s := Shape(v.ws[0])
		for _, u := range v.ws[1:] {
			t := Shape(u)
			same := len(t) == len(s)
			for i := 0; same && i < len(s); i++ {
				same = s[i] == t[i]
			}
			if !same {
				_, n := w.Dims()
				return []int{n}
			}
		}
		return s
	}
	_, n := w.Dims()
	return []int{n}
}

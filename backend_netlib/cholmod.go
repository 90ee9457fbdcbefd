//go:build netlib && cgo

package backend_netlib

/*
#cgo CFLAGS: -I/usr/include/suitesparse
#cgo LDFLAGS: -lcholmod -lsuitesparseconfig
#include <stdlib.h>
#include <cholmod.h>

// optdp_cm_new allocates and starts a CHOLMOD workspace for one ordering
// method (ordering < 0: CHOLMOD's default strategy, AMD and then METIS when
// AMD's fill is high), simplicial/supernodal mode and postordering, with
// printing and the error handler off (errors are read from status).
static cholmod_common *optdp_cm_new(int ordering, int mode, int postorder) {
	cholmod_common *c = malloc(sizeof(cholmod_common));
	if (c == NULL) return NULL;
	if (!cholmod_start(c)) { free(c); return NULL; }
	c->print = 0;
	c->error_handler = NULL;
	if (ordering >= 0) {
		c->nmethods = 1;
		c->method[0].ordering = ordering;
	}
	c->postorder = postorder;
	c->supernodal = mode;
	c->final_ll = 0;
	return c;
}

static void optdp_cm_free(cholmod_common *c) {
	cholmod_finish(c);
	free(c);
}

// optdp_lower allocates an n×n symmetric matrix with nnz entries, stored by
// its lower triangle (stype -1), sorted and packed.
static cholmod_sparse *optdp_lower(int n, int nnz, cholmod_common *c) {
	return cholmod_allocate_sparse(n, n, nnz, 1, 1, -1, CHOLMOD_REAL, c);
}

static int optdp_solve(cholmod_factor *L, double *b, int n, cholmod_common *c) {
	cholmod_dense *B = cholmod_allocate_dense(n, 1, n, CHOLMOD_REAL, c);
	if (B == NULL) return 0;
	double *bx = B->x;
	for (int k = 0; k < n; k++) bx[k] = b[k];
	cholmod_dense *X = cholmod_solve(CHOLMOD_A, L, B, c);
	cholmod_free_dense(&B, c);
	if (X == NULL) return 0;
	double *xx = X->x;
	for (int k = 0; k < n; k++) b[k] = xx[k];
	cholmod_free_dense(&X, c);
	return 1;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"unsafe"
)

// CholmodOrdering selects the fill-reducing ordering of a Cholmod analysis.
type CholmodOrdering int

const (
	// CholmodDefault is CHOLMOD's own strategy: AMD, then METIS when AMD's
	// factor has nnz(L) >= 5 nnz(A) and >= 500 nnz(L) flops, the one of
	// fewer nonzeros kept.
	CholmodDefault CholmodOrdering = iota
	// CholmodAMD is approximate minimum degree.
	CholmodAMD
	// CholmodMETIS is METIS's nested dissection (METIS_NodeND).
	CholmodMETIS
	// CholmodNESDIS is CHOLMOD's nested dissection: METIS edge separators
	// turned into node separators, leaves by constrained minimum degree.
	CholmodNESDIS
	// CholmodNatural keeps the given order (no permutation, no
	// postordering).
	CholmodNatural
)

// String names the ordering as CHOLMOD does.
func (o CholmodOrdering) String() string {
	switch o {
	case CholmodDefault:
		return "default"
	case CholmodAMD:
		return "amd"
	case CholmodMETIS:
		return "metis"
	case CholmodNESDIS:
		return "nesdis"
	case CholmodNatural:
		return "natural"
	}
	return fmt.Sprintf("CholmodOrdering(%d)", int(o))
}

func (o CholmodOrdering) cholmod() (C.int, error) {
	switch o {
	case CholmodDefault:
		return -1, nil
	case CholmodAMD:
		return C.CHOLMOD_AMD, nil
	case CholmodMETIS:
		return C.CHOLMOD_METIS, nil
	case CholmodNESDIS:
		return C.CHOLMOD_NESDIS, nil
	case CholmodNatural:
		return C.CHOLMOD_NATURAL, nil
	}
	return 0, fmt.Errorf("backend_netlib: unknown CHOLMOD ordering %d", int(o))
}

// ErrNotPosDef reports that CHOLMOD met a pivot that is not positive.
var ErrNotPosDef = errors.New("backend_netlib: CHOLMOD: matrix not positive definite")

// Cholmod is a sparse symmetric positive-definite matrix A analysed by
// SuiteSparse's CHOLMOD: a fill-reducing permutation P, the symbolic
// factorisation of P A Pᵀ and, after Factor, its numeric factorisation
// P A Pᵀ = L D Lᵀ (simplicial) or L Lᵀ (supernodal). The pattern of A is
// fixed at NewCholmod; Factor takes new values on it. A Cholmod holds C
// memory: Close releases it. It is not safe for concurrent use; give each
// goroutine its own.
type Cholmod struct {
	n      int
	cm     *C.cholmod_common
	a      *C.cholmod_sparse
	l      *C.cholmod_factor
	nnzA   int
	factor bool // a numeric factorisation is present
}

// NewCholmod analyses the n×n symmetric matrix whose lower triangle has the
// pattern colPtr (n+1 column starts), rowIdx (row indices, ascending in
// each column, all >= the column: the diagonal must be present). It orders
// the rows by ord, postordered by the elimination tree unless ord is
// CholmodNatural, and prepares a supernodal (supernodal true) or simplicial
// LDLᵀ numeric factorisation. The memory is CHOLMOD's, about
// 8·(nnz(A) + nnz(L)) bytes plus O(n) integers.
func NewCholmod(n int, colPtr, rowIdx []int, ord CholmodOrdering, supernodal bool) (*Cholmod, error) {
	if err := checkLower(n, colPtr, rowIdx); err != nil {
		return nil, err
	}
	co, err := ord.cholmod()
	if err != nil {
		return nil, err
	}
	mode, post := C.int(C.CHOLMOD_SIMPLICIAL), C.int(1)
	if supernodal {
		mode = C.CHOLMOD_SUPERNODAL
	}
	if ord == CholmodNatural {
		post = 0
	}
	f := &Cholmod{n: n, nnzA: len(rowIdx)}
	f.cm = C.optdp_cm_new(co, mode, post)
	if f.cm == nil {
		return nil, errors.New("backend_netlib: CHOLMOD: cannot start")
	}
	f.a = C.optdp_lower(C.int(n), C.int(len(rowIdx)), f.cm)
	if f.a == nil {
		f.Close()
		return nil, f.status("allocate")
	}
	ap := unsafe.Slice((*C.int)(f.a.p), n+1)
	for k, v := range colPtr {
		ap[k] = C.int(v)
	}
	ai := unsafe.Slice((*C.int)(f.a.i), len(rowIdx))
	for k, v := range rowIdx {
		ai[k] = C.int(v)
	}
	f.l = C.cholmod_analyze(f.a, f.cm)
	if f.l == nil || f.cm.status < 0 {
		err := f.status("analyze")
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkLower validates a lower-triangle CSC pattern with the diagonal.
func checkLower(n int, colPtr, rowIdx []int) error {
	if n <= 0 || n > math.MaxInt32/2 {
		return fmt.Errorf("backend_netlib: CHOLMOD: order %d out of range", n)
	}
	if len(colPtr) != n+1 || colPtr[0] != 0 || colPtr[n] != len(rowIdx) || len(rowIdx) > math.MaxInt32 {
		return errors.New("backend_netlib: CHOLMOD: column pointers do not match the row indices")
	}
	for j := 0; j < n; j++ {
		lo, hi := colPtr[j], colPtr[j+1]
		if lo >= hi || lo < 0 || hi > len(rowIdx) || rowIdx[lo] != j {
			return fmt.Errorf("backend_netlib: CHOLMOD: column %d lacks its diagonal entry first", j)
		}
		for q := lo + 1; q < hi; q++ {
			if rowIdx[q] <= rowIdx[q-1] || rowIdx[q] >= n {
				return fmt.Errorf("backend_netlib: CHOLMOD: rows of column %d not ascending in [%d, %d)", j, j, n)
			}
		}
	}
	return nil
}

func (f *Cholmod) status(what string) error {
	return fmt.Errorf("backend_netlib: CHOLMOD %s failed (status %d)", what, int(f.cm.status))
}

// Close releases the C memory. The Cholmod must not be used afterwards.
func (f *Cholmod) Close() {
	if f.cm == nil {
		return
	}
	if f.l != nil {
		C.cholmod_free_factor(&f.l, f.cm)
	}
	if f.a != nil {
		C.cholmod_free_sparse(&f.a, f.cm)
	}
	C.optdp_cm_free(f.cm)
	f.cm = nil
}

// N is the order of A.
func (f *Cholmod) N() int { return f.n }

// Perm returns the permutation P of the analysis as perm[new] = old: row
// new of P A Pᵀ is row perm[new] of A.
func (f *Cholmod) Perm() []int {
	p := unsafe.Slice((*C.int)(f.l.Perm), f.n)
	perm := make([]int, f.n)
	for k, v := range p {
		perm[k] = int(v)
	}
	return perm
}

// NnzL is the number of entries of L, diagonal included, predicted by the
// analysis (CHOLMOD's Common->lnz: without the explicit zeros that
// supernodal amalgamation adds).
func (f *Cholmod) NnzL() int { return int(f.cm.lnz) }

// Supernodal reports whether the factorisation is supernodal.
func (f *Cholmod) Supernodal() bool { return f.l.is_super != 0 }

// Factor computes the numeric factorisation for the values vals of A's
// lower triangle, aligned with NewCholmod's rowIdx. It returns an error
// wrapping ErrNotPosDef, with the failing column of P A Pᵀ, when a pivot
// is not positive.
func (f *Cholmod) Factor(vals []float64) error {
	if f.cm == nil {
		return errors.New("backend_netlib: CHOLMOD: use after Close")
	}
	if len(vals) != f.nnzA {
		return fmt.Errorf("backend_netlib: CHOLMOD: %d values for %d pattern entries", len(vals), f.nnzA)
	}
	copy(unsafe.Slice((*float64)(f.a.x), f.nnzA), vals)
	f.factor = false
	ok := C.cholmod_factorize(f.a, f.l, f.cm)
	if ok == 0 || f.cm.status < 0 {
		return f.status("factorize")
	}
	if f.cm.status == C.CHOLMOD_NOT_POSDEF {
		return fmt.Errorf("%w (column %d)", ErrNotPosDef, int(f.l.minor))
	}
	if f.l.is_super == 0 && f.l.is_ll == 0 {
		// A simplicial LDLᵀ goes through negative pivots: refuse them.
		lp := unsafe.Slice((*C.int)(f.l.p), f.n+1)
		lx := unsafe.Slice((*float64)(f.l.x), int(f.l.nzmax))
		for j := 0; j < f.n; j++ {
			if !(lx[lp[j]] > 0) {
				return fmt.Errorf("%w (pivot %g in column %d)", ErrNotPosDef, lx[lp[j]], j)
			}
		}
	}
	f.factor = true
	return nil
}

// Solve overwrites b with A⁻¹ b, using the factorisation of the last
// successful Factor.
func (f *Cholmod) Solve(b []float64) error {
	if f.cm == nil || !f.factor {
		return errors.New("backend_netlib: CHOLMOD: Solve without a factorisation")
	}
	if len(b) != f.n {
		return fmt.Errorf("backend_netlib: CHOLMOD: right-hand side of length %d for order %d", len(b), f.n)
	}
	if C.optdp_solve(f.l, (*C.double)(unsafe.Pointer(&b[0])), C.int(f.n), f.cm) == 0 {
		return f.status("solve")
	}
	return nil
}

// LDL writes the factorisation as P A Pᵀ = L D Lᵀ with unit lower
// triangular L into d (the n pivots D) and l, the strictly lower entries
// of L on the caller's pattern colPtr, rowIdx (CSC in the permuted
// numbering, rows ascending and > the column). A supernodal L Lᵀ factor is
// converted (d_j = L_jj², L_ij / L_jj). Every nonzero of CHOLMOD's factor
// must fall on the pattern (the exact symbolic factorisation of P A Pᵀ
// contains it; supernodal padding is exactly zero); otherwise LDL returns
// an error. work is scratch of n values, zero on entry and on return.
func (f *Cholmod) LDL(d []float64, colPtr, rowIdx []int, l, work []float64) error {
	n := f.n
	if f.cm == nil || !f.factor {
		return errors.New("backend_netlib: CHOLMOD: LDL without a factorisation")
	}
	if len(d) != n || len(colPtr) != n+1 || len(l) != len(rowIdx) || colPtr[n] != len(rowIdx) || len(work) != n {
		return errors.New("backend_netlib: CHOLMOD: LDL buffers do not match the order")
	}
	L := f.l
	var lost float64 // |entries| off the caller's pattern
	gather := func(j int, diag float64) {
		lo, hi := colPtr[j], colPtr[j+1]
		for q := lo; q < hi; q++ {
			r := rowIdx[q]
			l[q] = work[r]
			work[r] = 0
		}
		d[j] = diag
	}
	if L.is_super == 0 {
		lp := unsafe.Slice((*C.int)(L.p), n+1)
		lnz := unsafe.Slice((*C.int)(L.nz), n)
		li := unsafe.Slice((*C.int)(L.i), int(L.nzmax))
		lx := unsafe.Slice((*float64)(L.x), int(L.nzmax))
		ll := L.is_ll != 0
		for j := 0; j < n; j++ {
			p0, cnt := int(lp[j]), int(lnz[j])
			dj := lx[p0] // the diagonal comes first
			scale := 1.0
			if ll {
				scale, dj = 1/dj, dj*dj
			}
			for q := p0 + 1; q < p0+cnt; q++ {
				work[li[q]] = lx[q] * scale
			}
			gather(j, dj)
			for q := p0 + 1; q < p0+cnt; q++ {
				if v := work[li[q]]; v != 0 {
					lost += math.Abs(v)
					work[li[q]] = 0
				}
			}
		}
	} else {
		ns := int(L.nsuper)
		super := unsafe.Slice((*C.int)(L.super), ns+1)
		pi := unsafe.Slice((*C.int)(L.pi), ns+1)
		px := unsafe.Slice((*C.int)(L.px), ns+1)
		ss := unsafe.Slice((*C.int)(L.s), int(L.ssize))
		lx := unsafe.Slice((*float64)(L.x), int(L.xsize))
		for s := 0; s < ns; s++ {
			k1, k2 := int(super[s]), int(super[s+1])
			rows := ss[pi[s]:pi[s+1]]
			nsrow := len(rows)
			for k := k1; k < k2; k++ {
				col := lx[int(px[s])+(k-k1)*nsrow:]
				c := k - k1 // the diagonal's position in the column
				ljj := col[c]
				inv := 1 / ljj
				for t := c + 1; t < nsrow; t++ {
					work[rows[t]] = col[t] * inv
				}
				gather(k, ljj*ljj)
				for t := c + 1; t < nsrow; t++ {
					if v := work[rows[t]]; v != 0 {
						lost += math.Abs(v)
						work[rows[t]] = 0
					}
				}
			}
		}
	}
	if lost != 0 {
		return fmt.Errorf("backend_netlib: CHOLMOD: factor entries (sum |.| = %g) outside the given pattern", lost)
	}
	return nil
}

// CholmodOrder returns CHOLMOD's fill-reducing permutation (perm[new] =
// old) of the n×n symmetric pattern given by its lower triangle (see
// NewCholmod) for the ordering ord, and the predicted nnz(L) including the
// diagonal. It runs the analysis only.
func CholmodOrder(n int, colPtr, rowIdx []int, ord CholmodOrdering) ([]int, int, error) {
	f, err := NewCholmod(n, colPtr, rowIdx, ord, false)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	perm := f.Perm()
	if !isPerm(perm) {
		return nil, 0, errors.New("backend_netlib: CHOLMOD returned an invalid permutation")
	}
	return perm, f.NnzL(), nil
}

func isPerm(p []int) bool {
	s := slices.Clone(p)
	slices.Sort(s)
	for k, v := range s {
		if v != k {
			return false
		}
	}
	return true
}

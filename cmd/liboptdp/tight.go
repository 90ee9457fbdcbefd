package main

// The tight-constraints mechanism, thresholds, regular priors (package
// mech/tight) and the LP-optimal mechanism (package mech/optimal).

/*
#include <stdlib.h>
#include "optdp.h"
*/
import "C"

import (
	"unsafe"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/optimal"
	"github.com/optdp/optdp/mech/tight"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// sampler is what optdp_sample draws from: a *mech.Sampler or the
// matrix-free *tight.FreeMechanism.
type sampler interface {
	Sample(trueAnswer int, src mech.Source) (int, error)
}

var (
	_ sampler = (*mech.Sampler)(nil)
	_ sampler = (*tight.FreeMechanism)(nil)
)

// emptyMatrix marks an absent matrix output.
func emptyMatrix(out *C.optdp_matrix) {
	if out != nil {
		out.data, out.rows, out.cols = nil, 0, 0
	}
}

// tightOptions is the options argument of optdp_tight and optdp_regular.
type tightOptions struct {
	control
	Solver        string `json:"solver"`
	MaxMechanismN int    `json:"max_mechanism_n"`
	NoMechanism   bool   `json:"no_mechanism"`
	Budget        int64  `json:"budget"`
}

func (o tightOptions) options(set run.Settings) *tight.Options {
	return &tight.Options{Solver: tight.Solver(o.Solver), MaxMechanismN: o.MaxMechanismN, NoMechanism: o.NoMechanism, Settings: set}
}

//export optdp_tight
func optdp_tight(h C.optdp_handle, eps C.double, op *C.optdp_cchar, out **C.char, x, z *C.optdp_matrix,
	mechanism *C.optdp_handle, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	m, err := metricOf(h)
	if err != nil {
		return fail(errOut, err)
	}
	if err := checkEps(float64(eps)); err != nil {
		return fail(errOut, err)
	}
	var o tightOptions
	if err := decodeJSON(op, &o, "options", true); err != nil {
		return fail(errOut, err)
	}
	if out == nil || x == nil || z == nil || mechanism == nil {
		return fail(errOut, badInput("an output pointer is NULL"))
	}
	ctx, cancel, set, err := o.start(o.Budget)
	if err != nil {
		return fail(errOut, err)
	}
	defer cancel()
	r, err := tight.Solve(ctx, m, float64(eps), o.options(set))
	if err != nil {
		return fail(errOut, err)
	}
	err = putJSON(out, obj{
		{"n", r.N}, {"eps", r.Eps}, {"exists", string(r.Exists)}, {"constant_z", r.ConstantZ},
		{"min_z", r.MinZ}, {"z_err", r.ZErr}, {"unique", r.Unique}, {"solver", string(r.Solver)},
		{"backend", r.Backend}, {"rcond", r.RCond}, {"certificate", r.Certificate},
		{"utility", r.Utility}, {"mix", r.Mix}, {"audit", auditObj(r.Audit)}, {"note", r.Note},
		{"iterations", r.Iterations}, {"residual", r.Residual},
	})
	if err != nil {
		return fail(errOut, err)
	}
	emptyMatrix(x)
	emptyMatrix(z)
	if r.X != nil {
		err = putDense(x, r.X)
	}
	if err == nil && r.Z != nil {
		err = putMatrix(z, r.Z, 1, len(r.Z))
	}
	if err != nil {
		C.free(unsafe.Pointer(*out))
		C.free(unsafe.Pointer(x.data))
		emptyMatrix(x)
		return fail(errOut, err)
	}
	*mechanism = 0
	if r.Free != nil {
		*mechanism = register(r.Free)
	}
	return C.OPTDP_OK
}

// thresholdOptions is the options argument of optdp_threshold.
type thresholdOptions struct {
	control
	Lo         float64 `json:"lo"`
	Hi         float64 `json:"hi"`
	Tol        float64 `json:"tol"`
	Steps      int     `json:"steps"`
	Budget     int64   `json:"budget"`
	Structured bool    `json:"structured"`
}

//export optdp_threshold
func optdp_threshold(h C.optdp_handle, op *C.optdp_cchar, out **C.char, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	m, err := metricOf(h)
	if err != nil {
		return fail(errOut, err)
	}
	var o thresholdOptions
	if err := decodeJSON(op, &o, "options", true); err != nil {
		return fail(errOut, err)
	}
	ctx, cancel, set, err := o.start(o.Budget)
	if err != nil {
		return fail(errOut, err)
	}
	defer cancel()
	r, err := tight.Threshold(ctx, m, &tight.ThresholdOptions{
		Lo: o.Lo, Hi: o.Hi, Tol: o.Tol, Steps: o.Steps, Structured: o.Structured,
		Settings: set,
	})
	if err != nil {
		return fail(errOut, err)
	}
	cr := make([]any, len(r.Crossings))
	for i, c := range r.Crossings {
		cr[i] = obj{{"lo", c.Lo}, {"hi", c.Hi}, {"up", c.Up}}
	}
	err = putJSON(out, obj{
		{"eps_star", r.EpsStar}, {"lo", r.Lo}, {"hi", r.Hi}, {"status", r.Status}, {"bracketed", r.Bracketed},
		{"reason", r.Reason}, {"evaluations", r.Evaluations}, {"crossings", cr},
		{"scan_eps", r.ScanEps}, {"scan_min_z", r.ScanMinZ}, {"min_z", r.MinZ},
		{"exists", string(r.Verdict)}, {"solver", string(r.Solver)},
	})
	if err != nil {
		return fail(errOut, err)
	}
	return C.OPTDP_OK
}

//export optdp_regular
func optdp_regular(h C.optdp_handle, eps C.double, prior *C.optdp_cdouble, n C.int64_t, op *C.optdp_cchar,
	out **C.char, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	m, err := metricOf(h)
	if err != nil {
		return fail(errOut, err)
	}
	if err := checkEps(float64(eps)); err != nil {
		return fail(errOut, err)
	}
	p, err := floats(prior, int64(n), "prior", false)
	if err != nil {
		return fail(errOut, err)
	}
	var o tightOptions
	if err := decodeJSON(op, &o, "options", true); err != nil {
		return fail(errOut, err)
	}
	ctx, cancel, set, err := o.start(o.Budget)
	if err != nil {
		return fail(errOut, err)
	}
	defer cancel()
	r, err := tight.Regular(ctx, m, float64(eps), p, o.options(set))
	if err != nil {
		return fail(errOut, err)
	}
	err = putJSON(out, obj{
		{"n", r.N}, {"eps", r.Eps}, {"regular", string(r.Regular)}, {"y", r.Y}, {"min_y", r.MinY},
		{"y_err", r.YErr}, {"unique", r.Unique}, {"sum_y", r.SumY}, {"utility_bound", r.UtilityBound},
		{"leakage_bound_bits", r.LeakageBoundBits}, {"solver", string(r.Solver)}, {"rcond", r.RCond},
		{"certificate", r.Certificate},
	})
	if err != nil {
		return fail(errOut, err)
	}
	return C.OPTDP_OK
}

// optimalOptions is the options argument of optdp_optimal.
type optimalOptions struct {
	control
	Gain string `json:"gain"`
	// MatrixKind says what the matrix argument is: "gain" (default) or
	// "loss" (the gain is its negation).
	MatrixKind string  `json:"matrix_kind"`
	Method     string  `json:"method"`
	Delta      float64 `json:"delta"`
	Tol        float64 `json:"tol"`
	MaxIter    int     `json:"max_iter"`
	Workers    int     `json:"workers"`
	Budget     int64   `json:"budget"`
}

//export optdp_optimal
func optdp_optimal(h C.optdp_handle, eps C.double, prior *C.optdp_cdouble, n C.int64_t,
	gain *C.optdp_cdouble, gr, gc C.int64_t, op *C.optdp_cchar, out **C.char, x *C.optdp_matrix,
	errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	m, err := metricOf(h)
	if err != nil {
		return fail(errOut, err)
	}
	if err := checkEps(float64(eps)); err != nil {
		return fail(errOut, err)
	}
	p, err := floats(prior, int64(n), "prior", false)
	if err != nil {
		return fail(errOut, err)
	}
	var o optimalOptions
	if err := decodeJSON(op, &o, "options", true); err != nil {
		return fail(errOut, err)
	}
	var g, l *mat.Dense
	if gain != nil {
		var mx *mat.Dense
		if mx, err = dense(gain, gr, gc, "gain (or loss) matrix"); err != nil {
			return fail(errOut, err)
		}
		switch o.MatrixKind {
		case "", "gain":
			g = mx
		case "loss":
			l = mx
		default:
			return fail(errOut, badInput("matrix_kind %q (want gain or loss)", o.MatrixKind))
		}
	} else if o.MatrixKind != "" {
		return fail(errOut, badInput("matrix_kind %q without a matrix", o.MatrixKind))
	}
	if out == nil || x == nil {
		return fail(errOut, badInput("an output pointer is NULL"))
	}
	ctx, cancel, set, err := o.start(o.Budget)
	if err != nil {
		return fail(errOut, err)
	}
	defer cancel()
	r, err := optimal.Solve(ctx, m, float64(eps), p, &optimal.Options{
		Gain: optimal.Gain(o.Gain), GainMatrix: g, LossMatrix: l, Method: optimal.Method(o.Method), Delta: o.Delta,
		Tol: o.Tol, MaxIter: o.MaxIter, Workers: o.Workers,
		Settings: set,
	})
	if err != nil {
		return fail(errOut, err)
	}
	if err := putDense(x, r.X); err != nil {
		return fail(errOut, err)
	}
	err = putJSON(out, obj{
		{"utility", r.Utility}, {"primal", r.Primal}, {"dual", r.Dual}, {"gap", r.Gap},
		{"audit_eps", r.AuditEps}, {"iterations", r.Iterations}, {"symmetry", r.Symmetry}, {"method", string(r.Method)},
		{"pairs", r.Pairs}, {"rounds", r.Rounds}, {"delta", r.Delta}, {"mix", r.Mix}, {"time_s", r.TimeS},
	})
	if err != nil {
		C.free(unsafe.Pointer(x.data))
		emptyMatrix(x)
		return fail(errOut, err)
	}
	return C.OPTDP_OK
}

//export optdp_prior_bounds
func optdp_prior_bounds(h C.optdp_handle, eps C.double, out *C.optdp_matrix, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	m, err := metricOf(h)
	if err == nil {
		err = checkEps(float64(eps))
	}
	if err != nil {
		return fail(errOut, err)
	}
	lo, hi, err := tight.PriorBounds(m, float64(eps))
	if err == nil {
		err = putMatrix(out, append(append(make([]float64, 0, 2*len(lo)), lo...), hi...), 2, len(lo))
	}
	if err != nil {
		return fail(errOut, err)
	}
	return C.OPTDP_OK
}

//export optdp_corner
func optdp_corner(h C.optdp_handle, eps C.double, i C.int64_t, out *C.double, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	m, err := metricOf(h)
	if err == nil {
		err = checkEps(float64(eps))
	}
	if err != nil {
		return fail(errOut, err)
	}
	if i < 0 || int64(i) >= int64(m.Len()) {
		return fail(errOut, badInput("corner %d outside 0..%d", int64(i), m.Len()-1))
	}
	if out == nil {
		return fail(errOut, badInput("the output array is NULL"))
	}
	c, err := tight.Corner(m, float64(eps), int(i))
	if err != nil {
		return fail(errOut, err)
	}
	copy(unsafe.Slice((*float64)(unsafe.Pointer(out)), len(c)), c)
	return C.OPTDP_OK
}

//export optdp_regular_product
func optdp_regular_product(u C.int64_t, eps C.double, p *C.optdp_cdouble, v C.int64_t, out **C.char, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	a, err := intsEps([]string{"u"}, eps, u)
	if err != nil {
		return fail(errOut, err)
	}
	ps, err := floats(p, int64(v), "per-individual distribution", false)
	if err != nil {
		return fail(errOut, err)
	}
	r, err := tight.RegularProduct(a[0], float64(eps), ps)
	if err == nil {
		err = putJSON(out, obj{
			{"u", r.U}, {"v", r.V}, {"eps", r.Eps}, {"regular", string(r.Regular)}, {"y1", r.Y1},
			{"y1_err", r.Y1Err}, {"min_y1", r.MinY1}, {"min_y", r.MinY}, {"log2_abs_min_y", r.Log2AbsMinY},
			{"sum_y", r.SumY}, {"log2_sum_y", r.Log2SumY}, {"utility_bound", r.UtilityBound},
			{"leakage_bound_bits", r.LeakageBoundBits},
		})
	}
	if err != nil {
		return fail(errOut, err)
	}
	return C.OPTDP_OK
}

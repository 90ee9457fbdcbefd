package main

// Audit, measures, bounds, baselines and sampling (package mech).

/*
#include "optdp.h"
*/
import "C"

import (
	"unsafe"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/tight"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// dense copies an r x c matrix argument into a *mat.Dense.
func dense(p *C.optdp_cdouble, r, c C.int64_t, name string) (*mat.Dense, error) {
	data, nr, nc, err := matrix(p, int64(r), int64(c), name, false)
	if err != nil {
		return nil, err
	}
	return mat.NewDense(nr, nc, data), nil
}

// putDense copies x into *out.
func putDense(out *C.optdp_matrix, x *mat.Dense) error {
	r, c := x.Dims()
	data := make([]float64, 0, r*c)
	for i := 0; i < r; i++ {
		data = append(data, x.RawRowView(i)...)
	}
	return putMatrix(out, data, r, c)
}

// xAndPrior reads a noise matrix and a prior.
func xAndPrior(x *C.optdp_cdouble, rows, cols C.int64_t, prior *C.optdp_cdouble, n C.int64_t) (*mat.Dense, []float64, error) {
	xd, err := dense(x, rows, cols, "noise matrix")
	if err != nil {
		return nil, nil, err
	}
	p, err := floats(prior, int64(n), "prior", false)
	if err != nil {
		return nil, nil, err
	}
	return xd, p, nil
}

// auditObj is an audit report as JSON.
func auditObj(r mech.AuditReport) obj {
	var viol any
	if w := r.Violation; w != nil {
		viol = obj{{"i", w.I}, {"h", w.H}, {"o", w.O}, {"log_ratio", w.LogRatio}, {"dist", w.Dist}}
	}
	return obj{{"eps", r.Eps}, {"private", r.Private}, {"worst", []int{r.Worst[0], r.Worst[1], r.Worst[2]}},
		{"pairs", r.Pairs}, {"violation", viol}}
}

// auditArgs reads the arguments of the audits.
func auditArgs(x *C.optdp_cdouble, rows, cols C.int64_t, h C.optdp_handle, eps C.double) (*mat.Dense, metricType, error) {
	xd, err := dense(x, rows, cols, "noise matrix")
	if err != nil {
		return nil, nil, err
	}
	m, err := metricOf(h)
	if err != nil {
		return nil, nil, err
	}
	if err := checkEps(float64(eps)); err != nil {
		return nil, nil, err
	}
	if int64(rows) != int64(m.Len()) {
		return nil, nil, badInput("the noise matrix has %d rows, the metric %s has %d answers", int64(rows), m, m.Len())
	}
	return xd, m, nil
}

//export optdp_audit
func optdp_audit(x *C.optdp_cdouble, rows, cols C.int64_t, h C.optdp_handle, eps C.double, out **C.char, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	xd, m, err := auditArgs(x, rows, cols, h, eps)
	if err != nil {
		return fail(errOut, err)
	}
	rep, err := mech.Audit(xd, m, float64(eps))
	if err == nil {
		err = putJSON(out, auditObj(rep))
	}
	if err != nil {
		return fail(errOut, err)
	}
	return C.OPTDP_OK
}

//export optdp_utility
func optdp_utility(x *C.optdp_cdouble, rows, cols C.int64_t, prior *C.optdp_cdouble, n C.int64_t,
	remap *C.optdp_cdouble, rr, rc C.int64_t, out *C.double, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	xd, p, err := xAndPrior(x, rows, cols, prior, n)
	if err != nil {
		return fail(errOut, err)
	}
	var r *mat.Dense
	if remap != nil {
		if r, err = dense(remap, rr, rc, "remap"); err != nil {
			return fail(errOut, err)
		}
	}
	u, err := mech.Utility(xd, p, r)
	if err == nil {
		err = putFloat(out, u)
	}
	if err != nil {
		return fail(errOut, err)
	}
	return C.OPTDP_OK
}

//export optdp_optimal_remap
func optdp_optimal_remap(x *C.optdp_cdouble, rows, cols C.int64_t, prior *C.optdp_cdouble, n C.int64_t,
	remap *C.int64_t, out *C.double, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	xd, p, err := xAndPrior(x, rows, cols, prior, n)
	if err != nil {
		return fail(errOut, err)
	}
	if remap == nil || out == nil {
		return fail(errOut, badInput("the remap or utility pointer is NULL"))
	}
	rm, u, err := mech.OptimalRemap(xd, p)
	if err != nil {
		return fail(errOut, err)
	}
	dst := unsafe.Slice((*int64)(unsafe.Pointer(remap)), len(rm))
	for i, v := range rm {
		dst[i] = int64(v)
	}
	*out = C.double(u)
	return C.OPTDP_OK
}

//export optdp_min_entropy
func optdp_min_entropy(prior *C.optdp_cdouble, n C.int64_t, out *C.double, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	p, err := floats(prior, int64(n), "prior", false)
	if err != nil {
		return fail(errOut, err)
	}
	return result(errOut, out)(mech.MinEntropy(p))
}

// result returns a function storing a (value, error) pair in *out, or the
// error in *errOut, and returning the status.
func result(errOut **C.char, out *C.double) func(float64, error) C.int {
	return func(v float64, err error) C.int {
		if err == nil {
			err = putFloat(out, v)
		}
		if err != nil {
			return fail(errOut, err)
		}
		return C.OPTDP_OK
	}
}

//export optdp_cond_min_entropy
func optdp_cond_min_entropy(x *C.optdp_cdouble, rows, cols C.int64_t, prior *C.optdp_cdouble, n C.int64_t, out *C.double, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	xd, p, err := xAndPrior(x, rows, cols, prior, n)
	if err != nil {
		return fail(errOut, err)
	}
	return result(errOut, out)(mech.CondMinEntropy(xd, p))
}

//export optdp_leakage
func optdp_leakage(x *C.optdp_cdouble, rows, cols C.int64_t, prior *C.optdp_cdouble, n C.int64_t, out *C.double, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	xd, p, err := xAndPrior(x, rows, cols, prior, n)
	if err != nil {
		return fail(errOut, err)
	}
	return result(errOut, out)(mech.Leakage(xd, p))
}

//export optdp_min_capacity
func optdp_min_capacity(x *C.optdp_cdouble, rows, cols C.int64_t, out *C.double, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	xd, err := dense(x, rows, cols, "noise matrix")
	if err != nil {
		return fail(errOut, err)
	}
	return result(errOut, out)(mech.MinCapacity(xd))
}

// ints converts C integer arguments to ints (see toInt).
func ints(names []string, vals ...C.int64_t) ([]int, error) {
	out := make([]int, len(vals))
	for i, v := range vals {
		x, err := toInt(v, names[i], false)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

//export optdp_bnd
func optdp_bnd(u, v C.int64_t, eps C.double, out *C.double, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	a, err := ints([]string{"u", "v"}, u, v)
	if err == nil {
		err = checkEps(float64(eps))
	}
	if err != nil {
		return fail(errOut, err)
	}
	return result(errOut, out)(mech.Bnd(a[0], a[1], float64(eps)))
}

//export optdp_range_bound
func optdp_range_bound(u, v, r C.int64_t, eps C.double, out *C.double, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	a, err := ints([]string{"u", "v", "r"}, u, v, r)
	if err == nil {
		err = checkEps(float64(eps))
	}
	if err != nil {
		return fail(errOut, err)
	}
	return result(errOut, out)(mech.RangeBound(a[0], a[1], a[2], float64(eps)))
}

//export optdp_individual_bound
func optdp_individual_bound(v C.int64_t, eps C.double, out *C.double, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	a, err := ints([]string{"v"}, v)
	if err == nil {
		err = checkEps(float64(eps))
	}
	if err != nil {
		return fail(errOut, err)
	}
	return result(errOut, out)(mech.IndividualBound(a[0], float64(eps)))
}

// matrixResult stores a (matrix, error) pair in *out or *errOut.
func matrixResult(errOut **C.char, out *C.optdp_matrix) func(*mat.Dense, error) C.int {
	return func(x *mat.Dense, err error) C.int {
		if err == nil {
			err = putDense(out, x)
		}
		if err != nil {
			return fail(errOut, err)
		}
		return C.OPTDP_OK
	}
}

// intsEps reads integer arguments and eps (see ints, checkEps).
func intsEps(names []string, eps C.double, vals ...C.int64_t) ([]int, error) {
	a, err := ints(names, vals...)
	if err == nil {
		err = checkEps(float64(eps))
	}
	return a, err
}

//export optdp_truncated_geometric
func optdp_truncated_geometric(n C.int64_t, eps C.double, sens C.int64_t, out *C.optdp_matrix, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	a, err := intsEps([]string{"n", "sens"}, eps, n, sens)
	if err != nil {
		return fail(errOut, err)
	}
	return matrixResult(errOut, out)(mech.TruncatedGeometric(a[0], float64(eps), a[1]))
}

//export optdp_randomized_response
func optdp_randomized_response(n C.int64_t, eps C.double, out *C.optdp_matrix, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	a, err := intsEps([]string{"n"}, eps, n)
	if err != nil {
		return fail(errOut, err)
	}
	return matrixResult(errOut, out)(mech.RandomizedResponse(a[0], float64(eps)))
}

//export optdp_exponential
func optdp_exponential(h C.optdp_handle, eps C.double, out *C.optdp_matrix, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	m, err := metricOf(h)
	if err == nil {
		err = checkEps(float64(eps))
	}
	if err != nil {
		return fail(errOut, err)
	}
	return matrixResult(errOut, out)(mech.Exponential(m, float64(eps)))
}

//export optdp_geometric_per_count
func optdp_geometric_per_count(u, k C.int64_t, eps C.double, out *C.optdp_matrix, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	a, err := intsEps([]string{"u", "k"}, eps, u, k)
	if err != nil {
		return fail(errOut, err)
	}
	return matrixResult(errOut, out)(mech.GeometricPerCount(a[0], a[1], float64(eps)))
}

//export optdp_planar_laplace
func optdp_planar_laplace(w, h C.int64_t, step, eps C.double, out *C.optdp_matrix, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	a, err := intsEps([]string{"w", "h"}, eps, w, h)
	if err != nil {
		return fail(errOut, err)
	}
	return matrixResult(errOut, out)(mech.PlanarLaplace(a[0], a[1], float64(step), float64(eps)))
}

//export optdp_planar_geometric
func optdp_planar_geometric(w, h C.int64_t, step, eps C.double, out *C.optdp_matrix, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	a, err := intsEps([]string{"w", "h"}, eps, w, h)
	if err != nil {
		return fail(errOut, err)
	}
	return matrixResult(errOut, out)(mech.PlanarGeometric(a[0], a[1], float64(step), float64(eps)))
}

//export optdp_bnd_mechanism
func optdp_bnd_mechanism(u, v C.int64_t, eps C.double, out *C.optdp_matrix, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	a, err := intsEps([]string{"u", "v"}, eps, u, v)
	if err != nil {
		return fail(errOut, err)
	}
	return matrixResult(errOut, out)(mech.BndMechanism(a[0], a[1], float64(eps)))
}

// samplerOptions is the options argument of optdp_sampler_new.
type samplerOptions struct {
	Repair    bool  `json:"repair"`
	Unaudited bool  `json:"unaudited"`
	Budget    int64 `json:"budget"`
}

//export optdp_sampler_new
func optdp_sampler_new(x *C.optdp_cdouble, rows, cols C.int64_t, h C.optdp_handle, eps C.double, op *C.optdp_cchar,
	out *C.optdp_handle, info **C.char, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	if out == nil || info == nil {
		return fail(errOut, badInput("an output pointer is NULL"))
	}
	xd, err := dense(x, rows, cols, "noise matrix")
	if err != nil {
		return fail(errOut, err)
	}
	var o samplerOptions
	if err := decodeJSON(op, &o, "options", true); err != nil {
		return fail(errOut, err)
	}
	var m metricType
	switch {
	case o.Unaudited && h != 0:
		return fail(errOut, badInput("an unaudited sampler takes no metric (metric handle %d given)", uint64(h)))
	case !o.Unaudited:
		if h == 0 {
			return fail(errOut, badInput("a sampler needs the metric and eps the mechanism is released under (it proves the realised distribution private); set unaudited for experiments"))
		}
		if m, err = metricOf(h); err != nil {
			return fail(errOut, err)
		}
		if err := checkEps(float64(eps)); err != nil {
			return fail(errOut, err)
		}
	}
	s, err := mech.NewSampler(xd, m, float64(eps), &mech.SamplerOptions{
		Repair: o.Repair, Unaudited: o.Unaudited, Settings: run.Settings{Budget: run.Budget(o.Budget)}})
	if err != nil {
		return fail(errOut, err)
	}
	if err := putJSON(info, obj{{"mix", s.Mix()}, {"audit", auditObj(s.Audit())}}); err != nil {
		return fail(errOut, err)
	}
	*out = register(s)
	return C.OPTDP_OK
}

//export optdp_sample
func optdp_sample(h C.optdp_handle, trueAnswer, count C.int64_t, rng C.optdp_handle, out *C.int64_t, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	s, err := lookup[sampler](h, "sampler")
	if err != nil {
		return fail(errOut, err)
	}
	a, err := ints([]string{"true answer", "count"}, trueAnswer, count)
	if err != nil {
		return fail(errOut, err)
	}
	if a[1] < 0 || a[1] > maxInputEntries {
		return fail(errOut, badInput("count = %d (want 0..%d)", a[1], maxInputEntries))
	}
	if a[1] > 0 && out == nil {
		return fail(errOut, badInput("the output array is NULL"))
	}
	src, release, err := source(rng)
	if err != nil {
		return fail(errOut, err)
	}
	defer release()
	// Draws go straight into the caller's array (no second copy of count
	// words); on an error its contents are unspecified.
	var dst []int64
	if a[1] > 0 {
		dst = unsafe.Slice((*int64)(unsafe.Pointer(out)), a[1])
	}
	for i := range dst {
		k, err := s.Sample(a[0], src)
		if err != nil {
			return fail(errOut, err)
		}
		dst[i] = int64(k)
	}
	return C.OPTDP_OK
}

// freeMechanism resolves a mechanism handle from optdp_tight.
func freeMechanism(h C.optdp_handle) (*tight.FreeMechanism, error) {
	return lookup[*tight.FreeMechanism](h, "mechanism")
}

//export optdp_mechanism_row
func optdp_mechanism_row(h C.optdp_handle, i C.int64_t, out *C.double, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	f, err := freeMechanism(h)
	if err != nil {
		return fail(errOut, err)
	}
	n := f.Len()
	if i < 0 || int64(i) >= int64(n) {
		return fail(errOut, badInput("row %d outside 0..%d", int64(i), n-1))
	}
	if out == nil {
		return fail(errOut, badInput("the output array is NULL"))
	}
	if _, err := f.Row(int(i), unsafe.Slice((*float64)(unsafe.Pointer(out)), n)); err != nil {
		return fail(errOut, err)
	}
	return C.OPTDP_OK
}

//export optdp_mechanism_utility
func optdp_mechanism_utility(h C.optdp_handle, prior *C.optdp_cdouble, n C.int64_t, out *C.double, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	f, err := freeMechanism(h)
	if err != nil {
		return fail(errOut, err)
	}
	if prior == nil {
		return result(errOut, out)(f.UtilityUniform(), nil)
	}
	p, err := floats(prior, int64(n), "prior", false)
	if err != nil {
		return fail(errOut, err)
	}
	return result(errOut, out)(f.Utility(p))
}

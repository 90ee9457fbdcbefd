package main

// Audit, measures, bounds, baselines and sampling (package mech).

/*
#include "optdp.h"
*/
import "C"

import (
	"context"
	"unsafe"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/tight"
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
// The rows go straight into the C memory (no second copy in Go memory).
func putDense(out *C.optdp_matrix, x *mat.Dense) error {
	r, c := x.Dims()
	return putRows(out, r, c, func(dst []float64) {
		for i := 0; i < r; i++ {
			copy(dst[i*c:(i+1)*c], x.RawRowView(i))
		}
	})
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

// auditArgs reads the arguments of the audits.
func auditArgs(x *C.optdp_cdouble, rows, cols C.int64_t, h C.optdp_handle, eps C.double) (*mat.Dense, metricType, error) {
	xd, err := dense(x, rows, cols, "noise matrix")
	if err != nil {
		return nil, nil, err
	}
	m, err := metricEps(h, eps)
	if err != nil {
		return nil, nil, err
	}
	if int64(rows) != int64(m.Len()) {
		return nil, nil, badInput("the noise matrix has %d rows, the metric %s has %d answers", int64(rows), m, m.Len())
	}
	return xd, m, nil
}

//export optdp_audit
func optdp_audit(x *C.optdp_cdouble, rows, cols C.int64_t, h C.optdp_handle, eps C.double, out **C.char, errOut **C.char) C.int {
	return call(errOut, func() error {
		xd, m, err := auditArgs(x, rows, cols, h, eps)
		if err != nil {
			return err
		}
		return jsonOut(out)(mech.Audit(xd, m, float64(eps)))
	})
}

//export optdp_utility
func optdp_utility(x *C.optdp_cdouble, rows, cols C.int64_t, prior *C.optdp_cdouble, n C.int64_t,
	remap *C.optdp_cdouble, rr, rc C.int64_t, out *C.double, errOut **C.char) C.int {
	return call(errOut, func() error {
		xd, p, err := xAndPrior(x, rows, cols, prior, n)
		if err != nil {
			return err
		}
		var r *mat.Dense
		if remap != nil {
			if r, err = dense(remap, rr, rc, "remap"); err != nil {
				return err
			}
		}
		return floatOut(out)(mech.Utility(xd, p, r))
	})
}

//export optdp_optimal_remap
func optdp_optimal_remap(x *C.optdp_cdouble, rows, cols C.int64_t, prior *C.optdp_cdouble, n C.int64_t,
	remap *C.int64_t, out *C.double, errOut **C.char) C.int {
	return call(errOut, func() error {
		xd, p, err := xAndPrior(x, rows, cols, prior, n)
		if err != nil {
			return err
		}
		if remap == nil || out == nil {
			return badInput("the remap or utility pointer is NULL")
		}
		rm, u, err := mech.OptimalRemap(xd, p)
		if err != nil {
			return err
		}
		dst := unsafe.Slice((*int64)(unsafe.Pointer(remap)), len(rm))
		for i, v := range rm {
			dst[i] = int64(v)
		}
		*out = C.double(u)
		return nil
	})
}

// floatOut returns a function storing the value of a (value, error) pair
// in *out, or returning the error.
func floatOut(out *C.double) func(float64, error) error {
	return func(v float64, err error) error {
		if err != nil {
			return err
		}
		return putFloat(out, v)
	}
}

// denseOut is floatOut for a matrix.
func denseOut(out *C.optdp_matrix) func(*mat.Dense, error) error {
	return func(x *mat.Dense, err error) error {
		if err != nil {
			return err
		}
		return putDense(out, x)
	}
}

//export optdp_min_entropy
func optdp_min_entropy(prior *C.optdp_cdouble, n C.int64_t, out *C.double, errOut **C.char) C.int {
	return call(errOut, func() error {
		p, err := floats(prior, int64(n), "prior", false)
		if err != nil {
			return err
		}
		return floatOut(out)(mech.MinEntropy(p))
	})
}

// channelMeasure runs an export computing f of a noise matrix and a prior.
func channelMeasure(x *C.optdp_cdouble, rows, cols C.int64_t, prior *C.optdp_cdouble, n C.int64_t, out *C.double, errOut **C.char,
	f func(*mat.Dense, []float64) (float64, error)) C.int {
	return call(errOut, func() error {
		xd, p, err := xAndPrior(x, rows, cols, prior, n)
		if err != nil {
			return err
		}
		return floatOut(out)(f(xd, p))
	})
}

//export optdp_cond_min_entropy
func optdp_cond_min_entropy(x *C.optdp_cdouble, rows, cols C.int64_t, prior *C.optdp_cdouble, n C.int64_t, out *C.double, errOut **C.char) C.int {
	return channelMeasure(x, rows, cols, prior, n, out, errOut, mech.CondMinEntropy)
}

//export optdp_leakage
func optdp_leakage(x *C.optdp_cdouble, rows, cols C.int64_t, prior *C.optdp_cdouble, n C.int64_t, out *C.double, errOut **C.char) C.int {
	return channelMeasure(x, rows, cols, prior, n, out, errOut, mech.Leakage)
}

//export optdp_min_capacity
func optdp_min_capacity(x *C.optdp_cdouble, rows, cols C.int64_t, out *C.double, errOut **C.char) C.int {
	return call(errOut, func() error {
		xd, err := dense(x, rows, cols, "noise matrix")
		if err != nil {
			return err
		}
		return floatOut(out)(mech.MinCapacity(xd))
	})
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

// intsEps reads integer arguments and eps (see ints, checkEps).
func intsEps(names []string, eps C.double, vals ...C.int64_t) ([]int, error) {
	a, err := ints(names, vals...)
	if err == nil {
		err = checkEps(float64(eps))
	}
	return a, err
}

// bound runs an export computing f of integer arguments and eps into *out.
func bound(errOut **C.char, out *C.double, names []string, eps C.double, vals []C.int64_t, f func([]int, float64) (float64, error)) C.int {
	return call(errOut, func() error {
		a, err := intsEps(names, eps, vals...)
		if err != nil {
			return err
		}
		return floatOut(out)(f(a, float64(eps)))
	})
}

//export optdp_bnd
func optdp_bnd(u, v C.int64_t, eps C.double, out *C.double, errOut **C.char) C.int {
	return bound(errOut, out, []string{"u", "v"}, eps, []C.int64_t{u, v}, func(a []int, e float64) (float64, error) {
		return mech.Bnd(a[0], a[1], e)
	})
}

//export optdp_range_bound
func optdp_range_bound(u, v, r C.int64_t, eps C.double, out *C.double, errOut **C.char) C.int {
	return bound(errOut, out, []string{"u", "v", "r"}, eps, []C.int64_t{u, v, r}, func(a []int, e float64) (float64, error) {
		return mech.RangeBound(a[0], a[1], a[2], e)
	})
}

//export optdp_individual_bound
func optdp_individual_bound(v C.int64_t, eps C.double, out *C.double, errOut **C.char) C.int {
	return bound(errOut, out, []string{"v"}, eps, []C.int64_t{v}, func(a []int, e float64) (float64, error) {
		return mech.IndividualBound(a[0], e)
	})
}

// baseline runs an export building a mechanism from integer arguments and
// eps into *out.
func baseline(errOut **C.char, out *C.optdp_matrix, names []string, eps C.double, vals []C.int64_t, f func([]int, float64) (*mat.Dense, error)) C.int {
	return call(errOut, func() error {
		a, err := intsEps(names, eps, vals...)
		if err != nil {
			return err
		}
		return denseOut(out)(f(a, float64(eps)))
	})
}

//export optdp_truncated_geometric
func optdp_truncated_geometric(n C.int64_t, eps C.double, sens C.int64_t, out *C.optdp_matrix, errOut **C.char) C.int {
	return baseline(errOut, out, []string{"n", "sens"}, eps, []C.int64_t{n, sens}, func(a []int, e float64) (*mat.Dense, error) {
		return mech.TruncatedGeometric(a[0], e, a[1])
	})
}

//export optdp_randomized_response
func optdp_randomized_response(n C.int64_t, eps C.double, out *C.optdp_matrix, errOut **C.char) C.int {
	return baseline(errOut, out, []string{"n"}, eps, []C.int64_t{n}, func(a []int, e float64) (*mat.Dense, error) {
		return mech.RandomizedResponse(a[0], e)
	})
}

//export optdp_exponential
func optdp_exponential(h C.optdp_handle, eps C.double, out *C.optdp_matrix, errOut **C.char) C.int {
	return call(errOut, func() error {
		m, err := metricEps(h, eps)
		if err != nil {
			return err
		}
		return denseOut(out)(mech.Exponential(m, float64(eps)))
	})
}

//export optdp_geometric_per_count
func optdp_geometric_per_count(u, k C.int64_t, eps C.double, out *C.optdp_matrix, errOut **C.char) C.int {
	return baseline(errOut, out, []string{"u", "k"}, eps, []C.int64_t{u, k}, func(a []int, e float64) (*mat.Dense, error) {
		return mech.GeometricPerCount(a[0], a[1], e)
	})
}

//export optdp_planar_laplace
func optdp_planar_laplace(w, h C.int64_t, step, eps C.double, out *C.optdp_matrix, errOut **C.char) C.int {
	return baseline(errOut, out, []string{"w", "h"}, eps, []C.int64_t{w, h}, func(a []int, e float64) (*mat.Dense, error) {
		return mech.PlanarLaplace(a[0], a[1], float64(step), e)
	})
}

//export optdp_planar_laplace_points
func optdp_planar_laplace_points(h C.optdp_handle, eps C.double, op *C.optdp_cchar, out *C.optdp_matrix, errOut **C.char) C.int {
	return call(errOut, func() error {
		m, err := metricEps(h, eps)
		if err != nil {
			return err
		}
		p, ok := m.(*metric.PointsMetric)
		if !ok {
			return badInput("planar laplace on points needs a points: or latlon: metric, not %s (optdp_planar_laplace takes a grid)", m)
		}
		return long(op, true, func(ctx context.Context, _ *metricArgs) error {
			return denseOut(out)(mech.PlanarLaplacePoints(ctx, p, float64(eps)))
		})
	})
}

//export optdp_planar_geometric
func optdp_planar_geometric(w, h C.int64_t, step, eps C.double, out *C.optdp_matrix, errOut **C.char) C.int {
	return baseline(errOut, out, []string{"w", "h"}, eps, []C.int64_t{w, h}, func(a []int, e float64) (*mat.Dense, error) {
		return mech.PlanarGeometric(a[0], a[1], float64(step), e)
	})
}

//export optdp_bnd_mechanism
func optdp_bnd_mechanism(u, v C.int64_t, eps C.double, out *C.optdp_matrix, errOut **C.char) C.int {
	return baseline(errOut, out, []string{"u", "v"}, eps, []C.int64_t{u, v}, func(a []int, e float64) (*mat.Dense, error) {
		return mech.BndMechanism(a[0], a[1], e)
	})
}

// samplerInfo is the *info document of optdp_sampler_new.
type samplerInfo struct {
	Mix   float64          `json:"mix"`
	Audit mech.AuditReport `json:"audit"`
}

//export optdp_sampler_new
func optdp_sampler_new(x *C.optdp_cdouble, rows, cols C.int64_t, h C.optdp_handle, eps C.double, op *C.optdp_cchar,
	out *C.optdp_handle, info **C.char, errOut **C.char) C.int {
	return call(errOut, func() error {
		if out == nil || info == nil {
			return badInput("an output pointer is NULL")
		}
		xd, err := dense(x, rows, cols, "noise matrix")
		if err != nil {
			return err
		}
		var o mech.SamplerOptions
		if err := decodeJSON(op, &o, "options", true); err != nil {
			return err
		}
		if o.Budget < 0 {
			return badInput("budget = %d (want bytes >= 0; 0 for the default)", int64(o.Budget))
		}
		defer holdMemory(o.Budget)()
		var m metricType
		switch {
		case o.Unaudited && h != 0:
			return badInput("an unaudited sampler takes no metric (metric handle %d given)", uint64(h))
		case !o.Unaudited:
			if h == 0 {
				return badInput("a sampler needs the metric and eps the mechanism is released under (it proves the realised distribution private); set unaudited for experiments")
			}
			if m, err = metricEps(h, eps); err != nil {
				return err
			}
		}
		s, err := mech.NewSampler(xd, m, float64(eps), &o)
		if err != nil {
			return err
		}
		if err := putJSON(info, samplerInfo{s.Mix(), s.Audit()}); err != nil {
			return err
		}
		*out = register(s)
		return nil
	})
}

//export optdp_sample
func optdp_sample(h C.optdp_handle, trueAnswer, count C.int64_t, rng C.optdp_handle, out *C.int64_t, errOut **C.char) C.int {
	return call(errOut, func() error {
		s, err := lookup[sampler](h, "sampler")
		if err != nil {
			return err
		}
		a, err := ints([]string{"true answer", "count"}, trueAnswer, count)
		if err != nil {
			return err
		}
		if a[1] < 0 || a[1] > maxInputEntries {
			return badInput("count = %d (want 0..%d)", a[1], maxInputEntries)
		}
		if a[1] > 0 && out == nil {
			return badInput("the output array is NULL")
		}
		src, release, err := source(rng)
		if err != nil {
			return err
		}
		defer release()
		// Draws go straight into the caller's array (no second copy of
		// count words); on an error its contents are unspecified.
		var dst []int64
		if a[1] > 0 {
			dst = unsafe.Slice((*int64)(unsafe.Pointer(out)), a[1])
		}
		for i := range dst {
			k, err := s.Sample(a[0], src)
			if err != nil {
				return err
			}
			dst[i] = int64(k)
		}
		return nil
	})
}

// freeMechanism resolves a mechanism handle from optdp_tight.
func freeMechanism(h C.optdp_handle) (*tight.FreeMechanism, error) {
	return lookup[*tight.FreeMechanism](h, "mechanism")
}

//export optdp_mechanism_row
func optdp_mechanism_row(h C.optdp_handle, i C.int64_t, out *C.double, errOut **C.char) C.int {
	return call(errOut, func() error {
		f, err := freeMechanism(h)
		if err != nil {
			return err
		}
		n := f.Len()
		if i < 0 || int64(i) >= int64(n) {
			return badInput("row %d outside 0..%d", int64(i), n-1)
		}
		if out == nil {
			return badInput("the output array is NULL")
		}
		_, err = f.Row(int(i), unsafe.Slice((*float64)(unsafe.Pointer(out)), n))
		return err
	})
}

//export optdp_mechanism_utility
func optdp_mechanism_utility(h C.optdp_handle, prior *C.optdp_cdouble, n C.int64_t, out *C.double, errOut **C.char) C.int {
	return call(errOut, func() error {
		f, err := freeMechanism(h)
		if err != nil {
			return err
		}
		if prior == nil {
			return putFloat(out, f.UtilityUniform())
		}
		p, err := floats(prior, int64(n), "prior", false)
		if err != nil {
			return err
		}
		return floatOut(out)(f.Utility(p))
	})
}

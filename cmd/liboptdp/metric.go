package main

// Metrics (package mech/metric).

/*
#include "optdp.h"
*/
import "C"

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// metricType is the metric interface the handles hold.
type metricType = metric.Metric

// isMetric reports whether a handle's object is a metric.
func isMetric(v any) bool {
	_, ok := v.(metricType)
	return ok
}

// maxDistances bounds the distance matrix optdp_metric_distances returns.
const maxDistances = mech.MaxDenseEntries

// metricArgs is the options argument of the metric constructors: the
// control keys (cancel, timeout_s) only; a build reports no progress.
type metricArgs struct {
	control
	set run.Settings
}

func (a *metricArgs) bounds() (control, *run.Settings) { return a.control, &a.set }

//export optdp_metric_parse
func optdp_metric_parse(spec *C.optdp_cchar, op *C.optdp_cchar, out *C.optdp_handle, errOut **C.char) C.int {
	return call(errOut, func() error {
		if spec == nil || out == nil {
			return badInput("spec or handle pointer is NULL")
		}
		return long(op, true, func(ctx context.Context, _ *metricArgs) error {
			m, err := metric.ParseContext(ctx, C.GoString((*C.char)(spec)))
			if err != nil {
				return err
			}
			*out = register(m)
			return nil
		})
	})
}

//export optdp_metric_from_distances
func optdp_metric_from_distances(d *C.optdp_cdouble, n C.int64_t, op *C.optdp_cchar, out *C.optdp_handle, errOut **C.char) C.int {
	return call(errOut, func() error {
		if out == nil {
			return badInput("the handle pointer is NULL")
		}
		if n > metric.MaxMatrixAnswers {
			return badInput("a distance matrix of %d answers is over the limit of %d", int64(n), metric.MaxMatrixAnswers)
		}
		// The time limit counts from here: the copy and the entry check
		// are inside it.
		return long(op, true, func(ctx context.Context, _ *metricArgs) error {
			data, r, c, err := matrix(d, int64(n), int64(n), "distance matrix", true)
			if err != nil {
				return err
			}
			rows := make([][]float64, r)
			for i := range rows {
				rows[i] = data[i*c : (i+1)*c]
			}
			m, err := metric.NewMatrixContext(ctx, rows)
			if err != nil {
				return err
			}
			*out = register(m)
			return nil
		})
	})
}

//export optdp_metric_from_edges
func optdp_metric_from_edges(n C.int64_t, edges *C.optdp_cint64, m C.int64_t, op *C.optdp_cchar, out *C.optdp_handle, errOut **C.char) C.int {
	return call(errOut, func() error {
		if out == nil {
			return badInput("the handle pointer is NULL")
		}
		nv, err := toInt(n, "number of vertices", true)
		if err != nil {
			return err
		}
		if m < 0 || m > maxInputEntries/2 {
			return badInput("%d edges (want 0..%d)", int64(m), maxInputEntries/2)
		}
		if m > 0 && edges == nil {
			return badInput("the edge array is NULL")
		}
		var flat []int64
		if m > 0 {
			flat = unsafe.Slice((*int64)(unsafe.Pointer(edges)), 2*int64(m))
		}
		e := make([][2]int, m)
		for k := range e {
			a, b := flat[2*k], flat[2*k+1]
			if int64(int(a)) != a || int64(int(b)) != b {
				return badInput("edge %d (%d, %d) does not fit an int", k, a, b)
			}
			e[k] = [2]int{int(a), int(b)}
		}
		// NewGraph is linear in the edges (distances are computed on
		// demand): the options are read, and ctx checked, for uniformity.
		return long(op, true, func(ctx context.Context, _ *metricArgs) error {
			g, err := metric.NewGraph(nv, e)
			if err == nil {
				err = ctx.Err()
			}
			if err != nil {
				return err
			}
			*out = register(g)
			return nil
		})
	})
}

// metricOf resolves a metric handle.
func metricOf(h C.optdp_handle) (metricType, error) { return lookup[metricType](h, "metric") }

// metricEps resolves a metric handle and checks eps (checkEps).
func metricEps(h C.optdp_handle, eps C.double) (metricType, error) {
	m, err := metricOf(h)
	if err == nil {
		err = checkEps(float64(eps))
	}
	return m, err
}

// metricInfo is the document of optdp_metric_info.
type metricInfo struct {
	N    int    `json:"n"`
	Spec string `json:"spec"`
}

//export optdp_metric_info
func optdp_metric_info(h C.optdp_handle, out **C.char, errOut **C.char) C.int {
	return call(errOut, func() error {
		m, err := metricOf(h)
		if err != nil {
			return err
		}
		return putJSON(out, metricInfo{m.Len(), m.String()})
	})
}

//export optdp_metric_distances
func optdp_metric_distances(h C.optdp_handle, out *C.optdp_matrix, errOut **C.char) C.int {
	return call(errOut, func() error {
		m, err := metricOf(h)
		if err != nil {
			return err
		}
		n := m.Len()
		if n > maxDistances/n {
			return fmt.Errorf("optdp: the %d x %d distance matrix of %s is over the limit of %d entries: %w", n, n, m, maxDistances, run.ErrTooLarge)
		}
		d := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				d[i*n+j] = m.Dist(i, j)
			}
		}
		return putMatrix(out, d, n, n)
	})
}

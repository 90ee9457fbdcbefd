package main

// Metrics (package mech/metric).

/*
#include "optdp.h"
*/
import "C"

import (
	"fmt"
	"github.com/optdp/optdp/mech"
	"unsafe"

	"github.com/optdp/optdp/run"

	"github.com/optdp/optdp/mech/metric"
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

//export optdp_metric_parse
func optdp_metric_parse(spec *C.optdp_cchar, out *C.optdp_handle, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	if spec == nil || out == nil {
		return fail(errOut, badInput("spec or handle pointer is NULL"))
	}
	m, err := metric.Parse(C.GoString((*C.char)(spec)))
	if err != nil {
		return fail(errOut, err)
	}
	*out = register(m)
	return C.OPTDP_OK
}

//export optdp_metric_from_distances
func optdp_metric_from_distances(d *C.optdp_cdouble, n C.int64_t, out *C.optdp_handle, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	if out == nil {
		return fail(errOut, badInput("the handle pointer is NULL"))
	}
	if n > metric.MaxMatrixAnswers {
		return fail(errOut, badInput("a distance matrix of %d answers is over the limit of %d", int64(n), metric.MaxMatrixAnswers))
	}
	data, r, c, err := matrix(d, int64(n), int64(n), "distance matrix", true)
	if err != nil {
		return fail(errOut, err)
	}
	rows := make([][]float64, r)
	for i := range rows {
		rows[i] = data[i*c : (i+1)*c]
	}
	m, err := metric.NewMatrix(rows)
	if err != nil {
		return fail(errOut, err)
	}
	*out = register(m)
	return C.OPTDP_OK
}

//export optdp_metric_from_edges
func optdp_metric_from_edges(n C.int64_t, edges *C.optdp_cint64, m C.int64_t, out *C.optdp_handle, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	if out == nil {
		return fail(errOut, badInput("the handle pointer is NULL"))
	}
	nv, err := toInt(n, "number of vertices", true)
	if err != nil {
		return fail(errOut, err)
	}
	if m < 0 || m > maxInputEntries/2 {
		return fail(errOut, badInput("%d edges (want 0..%d)", int64(m), maxInputEntries/2))
	}
	if m > 0 && edges == nil {
		return fail(errOut, badInput("the edge array is NULL"))
	}
	var flat []int64
	if m > 0 {
		flat = unsafe.Slice((*int64)(unsafe.Pointer(edges)), 2*int64(m))
	}
	e := make([][2]int, m)
	for k := range e {
		a, b := flat[2*k], flat[2*k+1]
		if int64(int(a)) != a || int64(int(b)) != b {
			return fail(errOut, badInput("edge %d (%d, %d) does not fit an int", k, a, b))
		}
		e[k] = [2]int{int(a), int(b)}
	}
	g, err := metric.NewGraph(nv, e)
	if err != nil {
		return fail(errOut, err)
	}
	*out = register(g)
	return C.OPTDP_OK
}

// metricOf resolves a metric handle.
func metricOf(h C.optdp_handle) (metricType, error) { return lookup[metricType](h, "metric") }

//export optdp_metric_info
func optdp_metric_info(h C.optdp_handle, out **C.char, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	m, err := metricOf(h)
	if err == nil {
		err = putJSON(out, obj{{"n", m.Len()}, {"spec", m.String()}})
	}
	if err != nil {
		return fail(errOut, err)
	}
	return C.OPTDP_OK
}

//export optdp_metric_distances
func optdp_metric_distances(h C.optdp_handle, out *C.optdp_matrix, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	m, err := metricOf(h)
	if err != nil {
		return fail(errOut, err)
	}
	n := m.Len()
	if n > maxDistances/n {
		return fail(errOut, fmt.Errorf("optdp: the %d x %d distance matrix of %s is over the limit of %d entries: %w", n, n, m, maxDistances, run.ErrTooLarge))
	}
	d := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			d[i*n+j] = m.Dist(i, j)
		}
	}
	if err := putMatrix(out, d, n, n); err != nil {
		return fail(errOut, err)
	}
	return C.OPTDP_OK
}

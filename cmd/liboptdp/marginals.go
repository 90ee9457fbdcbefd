package main

// Marginal workloads planned and answered in the residual basis
// (linear.PlanGaussianMarginals, linear.AnswerGaussianMarginals).

/*
#include "optdp.h"
*/
import "C"

import (
	"context"
	"unsafe"

	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/run"
)

// marginalWorkload is the workload argument of the marginal functions.
type marginalWorkload struct {
	Dims      []int                     `json:"dims"`
	Marginals []linear.WeightedMarginal `json:"marginals"`
}

// marginalPlanArgs is their options argument.
type marginalPlanArgs struct {
	control
	linear.MarginalPlanOptions
}

func (a *marginalPlanArgs) bounds() (control, *run.Settings) { return a.control, &a.Settings }

// marginalPlanResult is the document of optdp_linear_plan_marginals.
type marginalPlanResult struct {
	*linear.MarginalPlan
	TimeS float64 `json:"time_s"`
}

// planMarginals decodes the workload and plans it under o.
func planMarginals(ctx context.Context, wp *C.optdp_cchar, o *marginalPlanArgs) (*linear.MarginalPlan, error) {
	var w marginalWorkload
	if err := decodeJSON(wp, &w, "marginal workload", false); err != nil {
		return nil, err
	}
	if err := checkEps(o.Eps); err != nil {
		return nil, err
	}
	return linear.PlanGaussianMarginals(ctx, w.Dims, w.Marginals, &o.MarginalPlanOptions)
}

//export optdp_linear_plan_marginals
func optdp_linear_plan_marginals(wp, op *C.optdp_cchar, out **C.char, errOut **C.char) C.int {
	return call(errOut, func() error {
		return long(op, false, func(ctx context.Context, o *marginalPlanArgs) error {
			p, err := planMarginals(ctx, wp, o)
			if err != nil {
				return err
			}
			return putJSON(out, marginalPlanResult{p, p.Time.Seconds()})
		})
	})
}

//export optdp_linear_answer_marginals
func optdp_linear_answer_marginals(wp, op *C.optdp_cchar, cols *C.optdp_cint32, rows C.int64_t, counts *C.optdp_cint64,
	rng C.optdp_handle, out **C.char, errOut **C.char) C.int {
	return call(errOut, func() error {
		return long(op, false, func(ctx context.Context, o *marginalPlanArgs) error {
			p, err := planMarginals(ctx, wp, o)
			if err != nil {
				return err
			}
			d := int64(len(p.Dims))
			if rows < 1 || int64(rows) > maxInputEntries/d {
				return badInput("records: %d rows of %d attributes (want 1..%d entries)", rows, d, maxInputEntries)
			}
			if cols == nil {
				return badInput("records are NULL")
			}
			n := int64(rows)
			all := unsafe.Slice((*int32)(unsafe.Pointer(cols)), n*d)
			data := &linear.MarginalData{Columns: make([][]int32, d)}
			for f := int64(0); f < d; f++ {
				data.Columns[f] = all[f*n : (f+1)*n : (f+1)*n]
			}
			if counts != nil {
				data.Counts = unsafe.Slice((*int64)(unsafe.Pointer(counts)), n)
			}
			src, unlock, err := source(rng)
			if err != nil {
				return err
			}
			rel, err := linear.AnswerGaussianMarginals(ctx, p, data, src, o.Budget)
			unlock()
			if err != nil {
				return err
			}
			return putJSON(out, rel)
		})
	})
}

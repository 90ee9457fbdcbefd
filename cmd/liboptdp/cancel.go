package main

// Cancellation of long computations: a token (a handle on a cancellable
// context) named in a call's options, cancelled from another thread.

/*
#include "optdp.h"
*/
import "C"

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/optdp/optdp/run"
)

// canceller is the object of a cancellation token; it also keeps the
// latest progress report of the calls made with it (optdp_progress).
type canceller struct {
	ctx    context.Context
	cancel context.CancelFunc

	mu   sync.Mutex
	seq  int
	last run.Progress
}

// report stores p as the latest progress report.
func (c *canceller) report(p run.Progress) {
	c.mu.Lock()
	c.seq++
	c.last = p
	c.mu.Unlock()
}

//export optdp_cancel_new
func optdp_cancel_new(out *C.optdp_handle, errOut **C.char) C.int {
	return call(errOut, func() error {
		if out == nil {
			return badInput("the handle pointer is NULL")
		}
		ctx, cancel := context.WithCancel(context.Background())
		*out = register(&canceller{ctx: ctx, cancel: cancel})
		return nil
	})
}

//export optdp_cancel
func optdp_cancel(h C.optdp_handle) {
	table.Lock()
	c, ok := table.objs[uint64(h)].(*canceller)
	table.Unlock()
	if ok {
		c.cancel()
	}
}

// control is the part of a long call's options that bounds it: a
// cancellation token from optdp_cancel_new and a time limit in seconds
// (0: none).
type control struct {
	Cancel   uint64  `json:"cancel"`
	TimeoutS float64 `json:"timeout_s"`
}

// start returns the call's context and the function releasing it, and
// completes set (whose Budget came with the options): its Progress feeds the
// token's latest report. Until the release, the budget counts in the
// process's soft memory limit (holdMemory).
//
// A negative budget is refused here, as the Go API refuses it
// (run.Budget.Validate), before any handle is looked up; budget 0 is the
// default.
func (c control) start(set *run.Settings) (context.Context, context.CancelFunc, error) {
	if set.Budget < 0 {
		return nil, nil, badInput("budget = %d (want bytes >= 0; 0 for the default %s)", int64(set.Budget), run.FormatBytes(float64(run.DefaultBudget)))
	}
	ctx := context.Background()
	if c.Cancel != 0 {
		t, err := lookup[*canceller](C.optdp_handle(c.Cancel), "cancellation token")
		if err != nil {
			return nil, nil, err
		}
		ctx = t.ctx
		set.Progress = t.report
	}
	var cancel context.CancelFunc
	switch {
	case c.TimeoutS == 0:
		ctx, cancel = context.WithCancel(ctx)
	case !(c.TimeoutS > 0) || math.IsInf(c.TimeoutS, 0) || c.TimeoutS > 1e9:
		return nil, nil, badInput("timeout_s = %v (want seconds in (0, 1e9], or 0 for none)", c.TimeoutS)
	default:
		ctx, cancel = context.WithTimeout(ctx, time.Duration(c.TimeoutS*float64(time.Second)))
	}
	release := holdMemory(set.Budget)
	return ctx, func() { cancel(); release() }, nil
}

// progressReport is the document of optdp_progress: the number of reports
// so far and the latest.
type progressReport struct {
	Seq int `json:"seq"`
	run.Progress
}

//export optdp_progress
func optdp_progress(h C.optdp_handle, out **C.char, errOut **C.char) C.int {
	return call(errOut, func() error {
		t, err := lookup[*canceller](h, "cancellation token")
		if err != nil {
			return err
		}
		t.mu.Lock()
		r := progressReport{t.seq, t.last}
		t.mu.Unlock()
		return putJSON(out, r)
	})
}

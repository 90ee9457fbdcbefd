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
func optdp_cancel_new(out *C.optdp_handle, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	if out == nil {
		return fail(errOut, badInput("the handle pointer is NULL"))
	}
	ctx, cancel := context.WithCancel(context.Background())
	*out = register(&canceller{ctx: ctx, cancel: cancel})
	return C.OPTDP_OK
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

// start returns the call's context, the function releasing it, and the
// run.Settings of a memory budget in bytes (0: the default) whose Progress
// feeds the token's latest report.
func (c control) start(budget int64) (context.Context, context.CancelFunc, run.Settings, error) {
	set := run.Settings{Budget: run.Budget(budget)}
	ctx := context.Background()
	if c.Cancel != 0 {
		t, err := lookup[*canceller](C.optdp_handle(c.Cancel), "cancellation token")
		if err != nil {
			return nil, nil, set, err
		}
		ctx = t.ctx
		set.Progress = t.report
	}
	switch {
	case c.TimeoutS == 0:
		ctx, cancel := context.WithCancel(ctx)
		return ctx, cancel, set, nil
	case !(c.TimeoutS > 0) || math.IsInf(c.TimeoutS, 0) || c.TimeoutS > 1e9:
		return nil, nil, set, badInput("timeout_s = %v (want seconds in (0, 1e9], or 0 for none)", c.TimeoutS)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(c.TimeoutS*float64(time.Second)))
	return ctx, cancel, set, nil
}

//export optdp_progress
func optdp_progress(h C.optdp_handle, out **C.char, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	t, err := lookup[*canceller](h, "cancellation token")
	if err != nil {
		return fail(errOut, err)
	}
	t.mu.Lock()
	seq, p := t.seq, t.last
	t.mu.Unlock()
	err = putJSON(out, obj{{"seq", seq}, {"stage", string(p.Stage)}, {"iter", p.Iter}, {"max_iter", p.MaxIter},
		{"frac", p.Frac}, {"gap", p.Gap}, {"value", p.Value}, {"message", p.Message}})
	if err != nil {
		return fail(errOut, err)
	}
	return C.OPTDP_OK
}

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
	"time"

	"github.com/optdp/optdp/solve/run"
)

// canceller is the object of a cancellation token.
type canceller struct {
	ctx    context.Context
	cancel context.CancelFunc
}

//export optdp_cancel_new
func optdp_cancel_new(out *C.optdp_handle, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	if out == nil {
		return fail(errOut, badInput("the handle pointer is NULL"))
	}
	ctx, cancel := context.WithCancel(context.Background())
	*out = register(&canceller{ctx, cancel})
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

// context returns the call's context and the function releasing it.
func (c control) context() (context.Context, context.CancelFunc, error) {
	ctx := context.Background()
	if c.Cancel != 0 {
		t, err := lookup[*canceller](C.optdp_handle(c.Cancel), "cancellation token")
		if err != nil {
			return nil, nil, err
		}
		ctx = t.ctx
	}
	switch {
	case c.TimeoutS == 0:
		ctx, cancel := context.WithCancel(ctx)
		return ctx, cancel, nil
	case !(c.TimeoutS > 0) || math.IsInf(c.TimeoutS, 0) || c.TimeoutS > 1e9:
		return nil, nil, badInput("timeout_s = %v (want seconds in (0, 1e9], or 0 for none)", c.TimeoutS)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(c.TimeoutS*float64(time.Second)))
	return ctx, cancel, nil
}

// settings is the run.Settings of a memory budget in bytes (0: the
// default).
func settings(budget int64) run.Settings { return run.Settings{Budget: run.Budget(budget)} }

package main

// Streams and private training (package mech/stream): the optimised
// factorisation of the prefix sums under a participation schema, and the
// online release of a stream with exact discrete Gaussian noise.

/*
#include <stdlib.h>
#include "optdp.h"
*/
import "C"

import (
	"context"
	"sync"
	"unsafe"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/stream"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// streamArgs is the options argument of optdp_stream_optimize.
type streamArgs struct {
	control
	stream.Options
}

func (a *streamArgs) bounds() (control, *run.Settings) { return a.control, &a.Settings }

// readSchema reads a participation spec (stream.ParseSchema).
func readSchema(p *C.optdp_cchar) (stream.Schema, error) {
	if p == nil {
		return stream.Schema{}, badInput("the participation spec is NULL")
	}
	return stream.ParseSchema(goString(p))
}

//export optdp_stream_optimize
func optdp_stream_optimize(n C.int64_t, part, op *C.optdp_cchar, out **C.char, c *C.optdp_matrix, errOut **C.char) C.int {
	return call(errOut, func() error {
		steps, err := toInt(n, "n", true)
		if err != nil {
			return err
		}
		s, err := readSchema(part)
		if err != nil {
			return err
		}
		if out == nil || c == nil {
			return badInput("an output pointer is NULL")
		}
		return long(op, true, func(ctx context.Context, o *streamArgs) error {
			r, err := stream.Optimize(ctx, steps, s, &o.Options)
			if err != nil {
				return err
			}
			emptyMatrix(c)
			if r.Dense != nil {
				if err := putDense(c, mat.DenseCopyOf(r.Dense.C)); err != nil {
					return err
				}
			}
			if err := putJSON(out, r); err != nil {
				C.free(unsafe.Pointer(c.data))
				emptyMatrix(c)
				return err
			}
			return nil
		})
	})
}

// proxySource draws from the source of the current call: a streamer keeps
// it for its lifetime, and each optdp_stream_next points it at the
// generator it resolved (crypto, or a seeded generator it holds locked).
type proxySource struct{ cur mech.Source }

func (p *proxySource) Uint64() uint64 { return p.cur.Uint64() }

// streamer is the object of a handle from optdp_stream_new.
type streamer struct {
	mu    sync.Mutex
	st    *stream.Streamer
	proxy *proxySource
	rng   C.optdp_handle
}

// streamInfo is the document of optdp_stream_new.
type streamInfo struct {
	N     int     `json:"n"`
	Sens2 float64 `json:"sens2"`
	Sigma float64 `json:"sigma"`
	Grid  float64 `json:"grid"`
}

//export optdp_stream_new
func optdp_stream_new(cp *C.optdp_cdouble, rows, cols, n C.int64_t, part *C.optdp_cchar, eps, delta C.double,
	rng C.optdp_handle, out *C.optdp_handle, info **C.char, errOut **C.char) C.int {
	return call(errOut, func() error {
		if out == nil || info == nil {
			return badInput("an output pointer is NULL")
		}
		steps, err := toInt(n, "n", true)
		if err != nil {
			return err
		}
		s, err := readSchema(part)
		if err != nil {
			return err
		}
		data, r, k, err := matrix(cp, int64(rows), int64(cols), "strategy", false)
		if err != nil {
			return err
		}
		var strat mat.Matrix
		switch {
		case r == 1 && k <= steps:
			strat = &stream.Toeplitz{N: steps, Coef: data}
		case r == steps && k == steps:
			strat = mat.NewDense(r, k, data)
		default:
			return badInput("the strategy is %d x %d: want the n x n lower-triangular C or the 1 x b Toeplitz coefficients (b <= n = %d)", r, k, steps)
		}
		if rng != C.OPTDP_RNG_CRYPTO {
			if _, err := lookup[*lockedSource](rng, "random generator"); err != nil {
				return err
			}
		}
		proxy := &proxySource{}
		st, err := stream.NewStreamer(context.Background(), strat, s, float64(eps), float64(delta), proxy)
		if err != nil {
			return err
		}
		o := &streamer{st: st, proxy: proxy, rng: rng}
		if err := putJSON(info, streamInfo{steps, st.Sens2, st.Sigma, st.Grid}); err != nil {
			return err
		}
		*out = register(o)
		return nil
	})
}

//export optdp_stream_next
func optdp_stream_next(h C.optdp_handle, x C.int64_t, y, estimate *C.double, errOut **C.char) C.int {
	return call(errOut, func() error {
		if y == nil || estimate == nil {
			return badInput("an output pointer is NULL")
		}
		o, err := lookup[*streamer](h, "stream release")
		if err != nil {
			return err
		}
		o.mu.Lock()
		defer o.mu.Unlock()
		src, unlock, err := source(o.rng)
		if err != nil {
			return err
		}
		o.proxy.cur = src
		step, err := o.st.Next(int64(x))
		o.proxy.cur = nil
		unlock()
		if err != nil {
			return err
		}
		*y, *estimate = C.double(step.Y), C.double(step.Estimate)
		return nil
	})
}

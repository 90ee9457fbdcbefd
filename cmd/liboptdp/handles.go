package main

// Handles: objects that outlive a call, named by integers.

/*
#include "optdp.h"
*/
import "C"

import (
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/tight"
)

// table holds the objects C refers to by handle. C only ever sees the
// integer, never a Go pointer.
var table = struct {
	sync.Mutex
	next uint64
	objs map[uint64]any
}{objs: map[uint64]any{}}

// register stores v and returns its handle (never 0).
func register(v any) C.optdp_handle {
	table.Lock()
	defer table.Unlock()
	table.next++
	table.objs[table.next] = v
	return C.optdp_handle(table.next)
}

// lookup returns the object of handle h if it has type T.
func lookup[T any](h C.optdp_handle, what string) (T, error) {
	table.Lock()
	v, ok := table.objs[uint64(h)]
	table.Unlock()
	t, isT := v.(T)
	if !ok || !isT {
		var zero T
		if !ok {
			return zero, badInput("%d is not a live %s handle (released, or never returned by the library)", uint64(h), what)
		}
		return zero, badInput("handle %d is a %s, not a %s", uint64(h), kindOf(v), what)
	}
	return t, nil
}

// kindOf names the kind of a handle's object for messages.
func kindOf(v any) string {
	switch v.(type) {
	case *lockedSource:
		return "random generator"
	case *mech.Sampler:
		return "sampler"
	case *tight.FreeMechanism:
		return "mechanism"
	case *canceller:
		return "cancellation token"
	case *streamer:
		return "stream release"
	}
	if isMetric(v) {
		return "metric"
	}
	return fmt.Sprintf("%T", v)
}

//export optdp_release
func optdp_release(h C.optdp_handle) {
	table.Lock()
	delete(table.objs, uint64(h))
	table.Unlock()
}

// lockedSource is a seeded generator, which is not safe for concurrent use
// by itself: a call holds its lock for all its draws, so that the words one
// call consumes are consecutive in the generator's stream and a sequence of
// calls from one thread is reproducible.
type lockedSource struct {
	mu  sync.Mutex
	src mech.Source
}

// source resolves an rng argument: OPTDP_RNG_CRYPTO is crypto/rand, any
// other value a handle from optdp_rng_seeded, returned locked; the caller
// calls release when its draws are done.
func source(h C.optdp_handle) (src mech.Source, release func(), err error) {
	if h == C.OPTDP_RNG_CRYPTO {
		return mech.CryptoSource(), func() {}, nil
	}
	l, err := lookup[*lockedSource](h, "random generator")
	if err != nil {
		return nil, nil, err
	}
	l.mu.Lock()
	return l.src, l.mu.Unlock, nil
}

//export optdp_rng_seeded
func optdp_rng_seeded(seed C.uint64_t, out *C.optdp_handle, errOut **C.char) C.int {
	return call(errOut, func() error {
		if out == nil {
			return badInput("the handle pointer is NULL")
		}
		*out = register(&lockedSource{src: mech.SeededSource(uint64(seed))})
		return nil
	})
}

// moduleVersion is the main module's version from the build information
// ("(devel)" for a build from a checkout).
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

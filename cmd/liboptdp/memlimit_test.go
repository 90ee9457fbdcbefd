//go:build cgo

package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/optdp/optdp/run"
)

// TestHoldMemory: the soft memory limit while calls run is the heap at the
// first call's start plus the sum of their budgets (each budget's bytes
// exactly), none while one is unlimited, and the limit before once none
// runs; a release called twice counts once; GOMEMLIMIT is left alone.
func TestHoldMemory(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	const outside int64 = 1 << 50 // the process's limit before any call
	debug.SetMemoryLimit(outside)
	t.Setenv("GOMEMLIMIT", "")
	limit := func() int64 { return debug.SetMemoryLimit(-1) }

	r1 := holdMemory(0) // the default budget
	l1 := limit()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	def := int64(run.DefaultBudget)
	if l1 < def || l1 > def+int64(ms.Sys) {
		t.Fatalf("one call of the default budget: limit %d, want %d plus the heap (at most %d)", l1, def, ms.Sys)
	}
	const gib = 1 << 30
	r2 := holdMemory(gib)
	if got := limit(); got != l1+gib {
		t.Errorf("two calls: limit %d, want %d", got, l1+gib)
	}
	r3 := holdMemory(run.Unlimited)
	if got := limit(); got != math.MaxInt64 {
		t.Errorf("with an unlimited call: limit %d, want none", got)
	}
	r3()
	r3()
	if got := limit(); got != l1+gib {
		t.Errorf("the unlimited call released (twice): limit %d, want %d", got, l1+gib)
	}
	r1()
	if got := limit(); got != l1+gib-def {
		t.Errorf("the first call released: limit %d, want %d", got, l1+gib-def)
	}
	r2()
	if got := limit(); got != outside {
		t.Errorf("no call: limit %d, want the one before, %d", got, outside)
	}

	// Through a long call's control.
	_, cancel, err := control{}.start(&run.Settings{Budget: 3 * gib})
	if err != nil {
		t.Fatal(err)
	}
	if got := limit(); got < 3*gib || got > 3*gib+int64(ms.Sys)+gib {
		t.Errorf("during a call of 3 GiB: limit %d", got)
	}
	cancel()
	if got := limit(); got != outside {
		t.Errorf("after the call: limit %d, want %d", got, outside)
	}

	t.Setenv("GOMEMLIMIT", "5GiB")
	release := holdMemory(gib)
	if got := limit(); got != outside {
		t.Errorf("with GOMEMLIMIT: limit %d, want it left at %d", got, outside)
	}
	release()
}

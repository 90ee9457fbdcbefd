package main

import (
	"io"
	"math"
	"runtime/debug"
	"testing"

	optrun "github.com/optdp/optdp/run"
)

// TestBudgetSetsMemoryLimit: a command's budget is the process's soft
// memory limit (4 GiB by default, the machine's memory with --force),
// through the command line too, and a limit set by GOMEMLIMIT is left
// alone.
func TestBudgetSetsMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "")
	if s := budget(false); debug.SetMemoryLimit(-1) != int64(optrun.DefaultBudget) || s.Budget.Bytes() != int64(optrun.DefaultBudget) {
		t.Errorf("default: limit %d, budget %d; want both %d", debug.SetMemoryLimit(-1), s.Budget.Bytes(), int64(optrun.DefaultBudget))
	}
	if s := budget(true); debug.SetMemoryLimit(-1) != forcedMaxBytes() || s.Budget.Bytes() != forcedMaxBytes() {
		t.Errorf("--force: limit %d, budget %d; want both the machine's %d", debug.SetMemoryLimit(-1), s.Budget.Bytes(), forcedMaxBytes())
	}
	debug.SetMemoryLimit(math.MaxInt64)
	if code := run([]string{"optimal", "--metric", "line:n=5", "--eps", "1", "--prior", "uniform"}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("optimal exited %d", code)
	}
	if got := debug.SetMemoryLimit(-1); got != int64(optrun.DefaultBudget) {
		t.Errorf("after optdp optimal: limit %d, want the budget %d", got, int64(optrun.DefaultBudget))
	}
	const set int64 = 3 << 30
	t.Setenv("GOMEMLIMIT", "3GiB")
	debug.SetMemoryLimit(set)
	budget(true)
	if got := debug.SetMemoryLimit(-1); got != set {
		t.Errorf("with GOMEMLIMIT: limit %d, want it kept at %d", got, set)
	}
}

//go:build cgo

package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/optdp/optdp/run"
)

// memLimit keeps the Go runtime's soft memory limit (debug.SetMemoryLimit)
// at what the calls under way were sized for, as the command line sets its
// process's limit to its budget. Without a limit the collector lets the
// heap grow to about twice the live data between collections (GOGC), so a
// call whose workspace fits its budget could take twice that of the host
// process's memory (a Python interpreter, which the operating system may
// then stop). While calls run, the limit is the heap in use when the first
// of them started (the handles' data) plus the sum of their budgets, and
// no limit while one of them has an unlimited budget; when none runs, the
// limit the process had before. GOMEMLIMIT, when set, is left to rule.
var memLimit memLimiter

// memLimiter is the state of memLimit.
type memLimiter struct {
	sync.Mutex
	calls     int     // calls under way
	unlimited int     // ... of them with an unlimited budget
	sum       float64 // their budgets' bytes
	base      float64 // the heap in use when the first started
	before    int64   // the limit before the first started
}

// holdMemory counts a call with budget b (0 for run.DefaultBudget) in the
// process's soft memory limit until the returned function is called.
func holdMemory(b run.Budget) (release func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	m := &memLimit
	m.Lock()
	defer m.Unlock()
	if m.calls == 0 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		m.base, m.before = float64(ms.HeapAlloc), debug.SetMemoryLimit(-1)
	}
	m.calls++
	unlimited := b == run.Unlimited
	if unlimited {
		m.unlimited++
	} else {
		m.sum += float64(b.Bytes())
	}
	m.set()
	var once sync.Once
	return func() {
		once.Do(func() {
			m.Lock()
			defer m.Unlock()
			m.calls--
			if unlimited {
				m.unlimited--
			} else {
				m.sum -= float64(b.Bytes())
			}
			if m.calls == 0 {
				m.sum = 0 // no rounding left over
				debug.SetMemoryLimit(m.before)
				return
			}
			m.set()
		})
	}
}

// set applies the limit of the calls under way (m locked).
func (m *memLimiter) set() {
	limit := int64(math.MaxInt64)
	if v := m.base + m.sum; m.unlimited == 0 && v < math.MaxInt64/2 {
		limit = int64(v)
	}
	debug.SetMemoryLimit(limit)
}

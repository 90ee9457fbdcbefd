package lp

import (
	"context"
	"sync"
)

// generateWith is Generate with opts' defaults applied and then the
// solver's own settings and test hooks set by set.
func generateWith(ctx context.Context, p *Problem, opts *GenerateOptions, set func(c *config)) (*GenerateResult, error) {
	c := opts.Options.withDefaults()
	set(&c)
	return generate(ctx, p, *opts, c)
}

// solveWith is Solve with opts' defaults applied and then the solver's
// own settings and test hooks set by set (config, testHooks).
func solveWith(ctx context.Context, p *Problem, opts *Options, set func(c *config)) (*Result, error) {
	c := opts.withDefaults()
	c.test.record = recordCounts
	set(&c)
	return solve(ctx, p, c)
}

// counts holds the testCounts of every Result certified by a solve through
// solveWith.
var counts struct {
	sync.Mutex
	of map[*Result]testCounts
}

func recordCounts(r *Result, c testCounts) {
	counts.Lock()
	defer counts.Unlock()
	if counts.of == nil {
		counts.of = map[*Result]testCounts{}
	}
	counts.of[r] = c
}

// countsOf returns the testCounts of a Result that solveWith returned.
func countsOf(r *Result) testCounts {
	counts.Lock()
	defer counts.Unlock()
	return counts.of[r]
}

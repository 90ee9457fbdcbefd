package lp

import "context"

// solveWith is Solve with opts' defaults applied and then the solver's
// own settings and test hooks set by set (config, testHooks).
func solveWith(ctx context.Context, p *Problem, opts *Options, set func(c *config)) (*Result, error) {
	c := opts.withDefaults()
	set(&c)
	return solve(ctx, p, c)
}

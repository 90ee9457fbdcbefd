// Package run is the vocabulary that every long computation in optdp shares,
// in the manner of gonum's optimize: one Settings embedded in every package's
// options (nil or zero value = defaults), one Progress report, one memory
// Budget in bytes that allocation-heavy paths check before they allocate, and
// one set of sentinel errors (errors.go) so that errors.Is works whichever
// package returned the error.
//
// Conventions the packages follow (docs/ARCHITECTURE.md):
//   - long work takes a context.Context first and stops with ctx.Err()
//     wrapped when it is cancelled;
//   - options are passed by pointer, nil meaning the defaults, and embed
//     Settings;
//   - errors are wrapped with %w behind the package's prefix ("tight: ...",
//     "lp: ...");
//   - the error classes live only here: no package re-exports ErrTooLarge,
//     ErrNotConverged or ErrBadInput, and callers test errors.Is(err,
//     run.ErrTooLarge) whichever package returned err. A package defines a
//     sentinel of its own only when it says more than the class
//     (solve.ErrBadKernel, solve.ErrBandedNotPD, backend.ErrSingular,
//     linear.ErrUnsupported); its message starts with the package's prefix
//     and it wraps the class that applies, if one does;
//   - an allocation whose size depends on the input is estimated first and
//     refused with ErrTooLarge, the estimate and what to do instead, when it
//     is over the Budget;
//   - a memory limit is always a Budget (0 = DefaultBudget, Unlimited = no
//     limit, negative = an error wrapping ErrBadInput, refused before any
//     work): Settings.Budget in the options of long work, a trailing
//     budget Budget parameter of a function that has no options
//     (metric.PhiLimit, linear.Histogram, linear.Sensitivity,
//     solve.SolveBanded). Fixed size limits (the Max* constants) are listed
//     in each package's limits.go, and all together below.
package run

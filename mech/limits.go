package mech

// The fixed limits of package mech, in one place (docs/ARCHITECTURE.md
// lists those of every package). Memory that depends on the problem is
// bounded by the run.Budget of the options instead.

// MaxDenseEntries is the largest number of float64 entries (1 GiB) that a
// function of this package allocates for a dense mechanism matrix; larger
// requests are refused with run.ErrTooLarge before anything is allocated.
// It is below run.DefaultBudget on purpose: it bounds the work too (the
// audit every mechanism passes costs O(n²) per constrained pair). It is also
// the largest grid (w·h cells) of a map prior (PriorFromPoints,
// PriorFromRaster), a 1 GiB vector.
const MaxDenseEntries = 1 << 27

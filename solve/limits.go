package solve

import "math"

// The fixed limits of package solve, in one place (docs/ARCHITECTURE.md
// lists those of every package). Memory that depends on the problem is
// bounded by a run.Budget where the solver takes one (SolveBanded).

// MaxNNLS is the largest number of columns NNLS accepts: each iteration
// re-solves a dense least-squares problem, O(n^3), so larger problems would
// take hours; they need a structured method.
const MaxNNLS = 2000

// MaxWorkBytes is the largest workspace, in bytes, that a structured solver's
// constructor agrees to allocate: 8 GiB (on 32-bit platforms, math.MaxInt).
const MaxWorkBytes = min(8<<30, math.MaxInt)

package linear

// The fixed limits of package linear, in one place (docs/ARCHITECTURE.md
// lists those of every package). One dense matrix is bounded by
// mech.MaxDenseEntries; whole computations by the run.Budget of their
// options (OptimizeOptions.Budget; run.DefaultBudget for Evaluate).

// MaxRestarts and MaxOptimizeIter bound OptimizeOptions.Restarts and
// MaxIter: each restart is a full L-BFGS run (seconds on a large domain)
// and each iteration a Gram-sized product, so larger values are mistakes
// that would run for days; they are refused before any work.
const (
	MaxRestarts     = 1000
	MaxOptimizeIter = 1000000
)

// MaxMatrixLine and MaxMatrixBytes bound what ReadMatrix reads: a line (one
// row) of at most 16 MiB and a file of at most 1 GiB (mech.MaxDenseEntries
// entries of 8 characters); longer input is refused with an error wrapping
// run.ErrTooLarge as soon as the limit is passed, before more is read.
const (
	MaxMatrixLine  = 16 << 20
	MaxMatrixBytes = 1 << 30
)

// MaxWorkloadFileBytes bounds a JSON workload file (ParseWorkloadJSON's
// input), read whole by the command-line tool and the C ABI alike.
const MaxWorkloadFileBytes = 64 << 20

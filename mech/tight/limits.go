package tight

// The fixed limits of package tight, in one place (docs/ARCHITECTURE.md
// lists those of every package). Memory that depends on the problem is
// bounded by Options.Budget (run.Settings) instead.

// DefaultMaxMechanismN is the largest n for which Solve builds the n×n noise
// matrix X unless Options.MaxMechanismN says otherwise.
const DefaultMaxMechanismN = 4096

// MaxVectorN is the largest n for which results carry n-vectors (Z, Y);
// symbolic metrics above it (Hamming with v^u huge) report constants only.
const MaxVectorN = 1 << 24

// MaxThresholdSteps is the largest ThresholdOptions.Steps: each step of the
// coarse scan is one solve (dense: O(n³)), and bisection needs only a
// bracket, so more than a thousand steps is a mistake (at 10^8 steps a
// dense scan would run for hours); it is refused before any work.
const MaxThresholdSteps = 1000

// MaxFreeAuditOutputs is the number of outputs per pair above which
// FreeMechanism.MeasureLevel samples the outputs instead of scanning all n.
const MaxFreeAuditOutputs = 1 << 20

package run

import "math"

// Stage names the part of a long computation that a Progress reports on.
// The stages optdp's packages report are the constants below, and for the
// restarts of an L-BFGS search (package sdp) "<what> restart r/R", e.g.
// "l1 restart 2/8".
type Stage string

// The stages reported by optdp's packages.
const (
	StageIPM           Stage = "ipm"            // lp: interior-point iterations
	StageCuts          Stage = "cuts"           // lp: one round of constraint generation
	StagePrune         Stage = "prune"          // lp: dropping the pairs implied by others
	StagePCG           Stage = "pcg"            // solve: conjugate-gradient iterations
	StageMINRES        Stage = "minres"         // solve: MINRES iterations
	StageL2Newton      Stage = "l2 newton"      // sdp: Newton steps of the L2 strategy
	StageThreshold     Stage = "threshold"      // mech/tight: the threshold scan
	StageUnionSearch   Stage = "union search"   // mech/linear: the union strategy search
	StageBlahutArimoto Stage = "blahut-arimoto" // mech: channel capacity
	StageGCapacity     Stage = "g-capacity"     // mech: g-leakage capacity
	StageReproduce     Stage = "reproduce"      // repro: an experiment of optdp reproduce
	StageMarginalPlan  Stage = "marginal plan"  // mech/linear: the max-variance marginal plan
	StageCount         Stage = "count"          // mech/linear/tables: rows counted into a histogram
	StageEstimate      Stage = "estimate"       // mech/optimal: a method's time, before it starts
)

// String returns the stage's name.
func (s Stage) String() string { return string(s) }

// Progress is one report from a long computation, the one shape every
// package's progress callback receives. Fields that do not apply are zero
// (Iter, MaxIter), NaN (Frac, Gap, Value) or empty (Stage, Message).
type Progress struct {
	// Stage names the part of the work (StageIPM, StageThreshold, ...).
	Stage Stage `json:"stage"`
	// Iter is the iteration (or step) reached within the stage, from 1;
	// MaxIter its limit (0 when unknown).
	Iter    int `json:"iter"`
	MaxIter int `json:"max_iter"`
	// Frac is the fraction of the whole work done, in [0, 1], or NaN when
	// it cannot be estimated.
	Frac float64 `json:"frac"`
	// Gap is the stage's convergence measure (relative duality gap,
	// relative residual), or NaN.
	Gap float64 `json:"gap"`
	// Value is the current objective value (StageEstimate: the upper end
	// of the estimate, in seconds), or NaN.
	Value float64 `json:"value"`
	// Message is a short human-readable status, or empty.
	Message string `json:"message"`
}

// NewProgress returns a Progress for stage with the numeric fields not
// applicable (NaN), to be filled in by the caller.
func NewProgress(stage Stage) Progress {
	return Progress{Stage: stage, Frac: math.NaN(), Gap: math.NaN(), Value: math.NaN()}
}

// Settings are the options every long computation accepts. Each package's
// options struct embeds Settings; its zero value means the defaults.
type Settings struct {
	// Budget bounds the memory of the computation (0 = DefaultBudget,
	// Unlimited = no limit; a negative budget is refused with ErrBadInput).
	// Allocation-heavy paths estimate their memory first and return
	// ErrTooLarge when it is over.
	Budget Budget `json:"budget"`
	// Progress, if not nil, receives reports during the work. It is called
	// from the goroutine that called the package's function and must not
	// block for long.
	Progress func(Progress) `json:"-"`
}

// Report sends p to s.Progress if it is set.
func (s *Settings) Report(p Progress) {
	if s != nil && s.Progress != nil {
		s.Progress(p)
	}
}

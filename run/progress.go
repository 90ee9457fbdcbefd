package run

import "math"

// Progress is one report from a long computation, the one shape every
// package's progress callback receives. Fields that do not apply are zero
// (Iter, MaxIter), NaN (Frac, Gap, Value) or empty (Stage, Message).
type Progress struct {
	// Stage names the part of the work, e.g. "ipm", "newton", "restart 3/8",
	// "threshold", or an experiment of optdp reproduce.
	Stage string `json:"stage"`
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
	// Value is the current objective value, or NaN.
	Value float64 `json:"value"`
	// Message is a short human-readable status, or empty.
	Message string `json:"message"`
}

// NewProgress returns a Progress for stage with the numeric fields not
// applicable (NaN), to be filled in by the caller.
func NewProgress(stage string) Progress {
	return Progress{Stage: stage, Frac: math.NaN(), Gap: math.NaN(), Value: math.NaN()}
}

// Settings are the options every long computation accepts. Each package's
// options struct embeds Settings; its zero value means the defaults.
type Settings struct {
	// Budget bounds the memory of the computation (0 = DefaultBudget,
	// negative = no limit). Allocation-heavy paths estimate their memory
	// first and return ErrTooLarge when it is over.
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

package run

import "fmt"

// Budget is a memory budget in bytes for one computation. The zero value
// means DefaultBudget, Unlimited means no limit, and a negative value is
// invalid: Validate and Check refuse it with ErrBadInput.
type Budget int64

// DefaultBudget is the memory budget used when none is given: 4 GiB.
const DefaultBudget Budget = 4 << 30

// Unlimited is the Budget of a caller who wants no memory limit: the
// largest Budget, 2^63 − 1 bytes, more than any machine addresses. Check
// still refuses an estimate above it, which no allocation could satisfy.
const Unlimited Budget = 1<<63 - 1

// Validate returns nil for a valid budget (0, positive or Unlimited) and an
// error wrapping ErrBadInput for a negative one. Every function taking a
// Budget (directly or in Settings) refuses a negative one this way, before
// it starts work.
func (b Budget) Validate() error {
	if b < 0 {
		return BadInputf("memory budget %d is negative (want bytes >= 0: 0 for the default %s, run.Unlimited for no limit)",
			int64(b), FormatBytes(float64(DefaultBudget)))
	}
	return nil
}

// Bytes returns the budget in bytes, resolving the zero value to
// DefaultBudget. A negative (invalid) budget gives 0, so that a caller that
// sizes its work by Bytes without validating refuses everything rather than
// lifting the limit.
func (b Budget) Bytes() int64 {
	switch {
	case b == 0:
		return int64(DefaultBudget)
	case b < 0:
		return 0
	}
	return int64(b)
}

// Fits reports whether need bytes fit in the budget: need <= b.Bytes() for a
// valid budget, false for a negative one.
func (b Budget) Fits(need float64) bool {
	return b >= 0 && need <= float64(b.Bytes())
}

// Check returns nil when need bytes fit in the budget, and otherwise an error
// wrapping ErrTooLarge that names what needs the memory, the estimate, the
// budget and the advice (what to do instead; may be empty). need is a float64
// so that estimates of huge problems do not overflow. A negative budget is
// refused with the error of Validate (wrapping ErrBadInput), whatever need.
func (b Budget) Check(what string, need float64, advice string) error {
	if err := b.Validate(); err != nil {
		if what == "" {
			return err
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	if b.Fits(need) {
		return nil
	}
	msg := fmt.Sprintf("%s needs about %s, over the memory budget of %s", what, FormatBytes(need), FormatBytes(float64(b.Bytes())))
	if advice != "" {
		msg += "; " + advice
	}
	return fmt.Errorf("%s: %w", msg, ErrTooLarge)
}

// DenseBytes is the memory of copies dense r×c float64 matrices, 8·r·c·copies
// bytes, computed in float64 so that it cannot overflow.
func DenseBytes(r, c, copies int) float64 {
	return 8 * float64(r) * float64(c) * float64(copies)
}

// FormatBytes formats a byte count with a binary unit: "512 B", "3.0 MiB",
// "1.5 GiB", ...
func FormatBytes(b float64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%.0f B", b)
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := -1
	for b >= unit && i < len(units)-1 {
		b /= unit
		i++
	}
	if b >= 1e4 {
		return fmt.Sprintf("%.3g %s", b, units[i])
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}

// CheckDense is Check for copies dense n×n float64 matrices (8·n²·copies
// bytes): the message says n, the number of matrices and their memory.
func (b Budget) CheckDense(what string, n, copies int, advice string) error {
	if err := b.Validate(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	plural := "matrix"
	if copies > 1 {
		plural = "matrices"
	}
	return b.Check(fmt.Sprintf("%s: n = %d, %d dense %d×%d %s,", what, n, copies, n, n, plural), DenseBytes(n, n, copies), advice)
}

// Less is the budget left once bytes are held: b less bytes, at least one
// byte (a budget of 0 would mean the default); Unlimited stays Unlimited,
// and a negative (invalid) budget stays as it is, for Check to refuse.
func (b Budget) Less(bytes float64) Budget {
	if b == Unlimited || b < 0 {
		return b
	}
	left := float64(b.Bytes()) - bytes
	if !(left >= 1) {
		return 1
	}
	return Budget(left)
}

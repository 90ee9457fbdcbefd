package run

import "fmt"

// Budget is a memory budget in bytes for one computation. The zero value
// means DefaultBudget; a negative value means no limit.
type Budget int64

// DefaultBudget is the memory budget used when none is given: 4 GiB.
const DefaultBudget Budget = 4 << 30

// Bytes returns the budget in bytes, resolving the zero value to
// DefaultBudget and a negative value to the largest int64.
func (b Budget) Bytes() int64 {
	switch {
	case b == 0:
		return int64(DefaultBudget)
	case b < 0:
		return 1<<63 - 1
	}
	return int64(b)
}

// Check returns nil when need bytes fit in the budget, and otherwise an error
// wrapping ErrTooLarge that names what needs the memory, the estimate, the
// budget and the advice (what to do instead; may be empty). need is a float64
// so that estimates of huge problems do not overflow.
func (b Budget) Check(what string, need float64, advice string) error {
	if b < 0 || need <= float64(b.Bytes()) {
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
	plural := "matrix"
	if copies > 1 {
		plural = "matrices"
	}
	return b.Check(fmt.Sprintf("%s: n = %d, %d dense %d×%d %s,", what, n, copies, n, n, plural), DenseBytes(n, n, copies), advice)
}

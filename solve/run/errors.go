package run

import (
	"errors"
	"fmt"
)

// The sentinel errors of optdp. Packages wrap them with %w (and may re-export
// them under their own name, e.g. lp.ErrTooLarge == run.ErrTooLarge), so
// errors.Is(err, run.ErrTooLarge) holds whichever package refused the work.
var (
	// ErrTooLarge: the estimated memory (or a size limit) of the requested
	// computation is over the Budget or a documented limit. The wrapping
	// message gives the estimate and what to do instead.
	ErrTooLarge = errors.New("problem too large")

	// ErrNotConverged: an iterative method stopped at its iteration limit
	// without reaching its tolerance. The wrapping message gives the
	// accuracy reached.
	ErrNotConverged = errors.New("did not converge")

	// ErrBadInput: an argument is outside its documented domain (eps not
	// finite and positive, a size out of range, a malformed matrix, ...).
	// The wrapping message names the argument and its valid range.
	ErrBadInput = errors.New("invalid input")
)

// badInput is an error whose message is its own text and that matches
// ErrBadInput under errors.Is (and wraps any %w argument).
type badInput struct{ err error }

func (e badInput) Error() string        { return e.err.Error() }
func (e badInput) Unwrap() error        { return e.err }
func (e badInput) Is(target error) bool { return target == ErrBadInput }

// BadInputf formats an error like fmt.Errorf that also matches ErrBadInput
// under errors.Is, without appending ErrBadInput's text to the message.
func BadInputf(format string, args ...any) error {
	return badInput{fmt.Errorf(format, args...)}
}

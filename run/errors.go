package run

import "fmt"

// The error classes, as returned by the sentinels' ErrorKind method.
const (
	KindTooLarge     = "too large"
	KindNotConverged = "not converged"
	KindBadInput     = "bad input"
)

// sentinel is one of the package's sentinel errors.
type sentinel struct{ msg, kind string }

func (e *sentinel) Error() string { return e.msg }

// ErrorKind names the sentinel's class (KindTooLarge, ...).
func (e *sentinel) ErrorKind() string { return e.kind }

// The sentinel errors of optdp. Packages wrap them with %w behind their own
// prefix, so errors.Is(err, run.ErrTooLarge) holds whichever package refused
// the work.
//
// Each sentinel names its class by an ErrorKind method ("too large", "not
// converged", "bad input"). A package below run, which imports nothing of
// optdp's (backend), joins a class without importing run by giving its own
// errors an Is method that matches any target whose ErrorKind is the same.
var (
	// ErrTooLarge: the estimated memory (or a size limit) of the requested
	// computation is over the Budget or a documented limit. The wrapping
	// message gives the estimate and what to do instead.
	ErrTooLarge error = &sentinel{"problem too large", KindTooLarge}

	// ErrNotConverged: an iterative method stopped at its iteration limit
	// without reaching its tolerance. The wrapping message gives the
	// accuracy reached.
	ErrNotConverged error = &sentinel{"did not converge", KindNotConverged}

	// ErrBadInput: an argument is outside its documented domain (eps not
	// finite and positive, a size out of range, a malformed matrix, ...).
	// The wrapping message names the argument and its valid range.
	ErrBadInput error = &sentinel{"invalid input", KindBadInput}
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

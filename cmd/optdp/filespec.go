package main

import "strings"

// fileSpecError marks err as a data error (exit code 1) when one of the
// workload or strategy specs names a file (file:PATH): an error that the
// library finds in a matrix read from a file (entries so large that the
// error is not representable, say) is the data saying no, not a
// command-line mistake, even when it wraps run.ErrBadInput. Errors of
// built-in specs are returned unchanged.
func fileSpecError(err error, specs ...string) error {
	if err == nil {
		return nil
	}
	for _, s := range specs {
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(s)), "file:") {
			return dataError{err}
		}
	}
	return err
}

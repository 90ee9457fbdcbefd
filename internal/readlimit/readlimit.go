// Package readlimit reads files whole within a size limit: the one reader of
// the command-line tool and the C ABI for the files they read whole, so
// that a device such as /dev/zero or an endless pipe is refused at the
// limit instead of exhausting memory.
package readlimit

import (
	"fmt"
	"io"
	"os"

	"github.com/optdp/optdp/run"
)

// Open opens the file at path for reading, refusing a directory and a
// regular file above max bytes (from its size, before reading it; the error
// wraps run.ErrTooLarge). A pipe or device is opened: its reader must stop
// on its own limit (ReadFile does).
func Open(path string, max int64) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s is a directory, not a file", path)
	}
	if fi.Mode().IsRegular() && fi.Size() > max {
		f.Close()
		return nil, fmt.Errorf("%s: %d bytes, larger than the limit of %d: %w", path, fi.Size(), max, run.ErrTooLarge)
	}
	return f, nil
}

// ReadFile reads the file at path if it holds at most max bytes, and
// otherwise says so (an error wrapping run.ErrTooLarge) without reading it
// (a regular file) or after max+1 bytes (a pipe or device such as
// /dev/zero).
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := Open(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, max)
}

// Read reads r to its end if it holds at most max bytes, and otherwise
// stops after max+1 bytes with an error wrapping run.ErrTooLarge; name is
// used in messages.
func Read(r io.Reader, name string, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: larger than the limit of %d bytes: %w", name, max, run.ErrTooLarge)
	}
	return data, nil
}

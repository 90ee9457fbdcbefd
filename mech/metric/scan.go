package metric

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// boundedLines returns a line scanner over at most maxBytes (+1, to detect
// more) of r with lines of at most MaxEdgeListLine bytes, and the limited
// reader that scanEnd inspects.
func boundedLines(r io.Reader, maxBytes int64) (*bufio.Scanner, *io.LimitedReader) {
	lr := &io.LimitedReader{R: r, N: maxBytes + 1}
	sc := bufio.NewScanner(lr)
	sc.Buffer(make([]byte, 4096), MaxEdgeListLine)
	return sc, lr
}

// scanEnd is the error, if any, of a scan by boundedLines of a file of the
// kind what ("edge list", "roads", "points") after line lines, whose size
// limit is the constant limitName = maxBytes.
func scanEnd(sc *bufio.Scanner, lr *io.LimitedReader, what string, line int, limitName string, maxBytes int64) error {
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s line %d: longer than %d bytes (MaxEdgeListLine)", what, line+1, MaxEdgeListLine)
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	if lr.N <= 0 {
		return fmt.Errorf("%s: larger than %d bytes (%s)", what, maxBytes, limitName)
	}
	return nil
}

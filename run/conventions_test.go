package run_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/tight"
	"github.com/optdp/optdp/run"
	"github.com/optdp/optdp/solve"
)

// TestSentinelsShared: every package's sentinel errors are (or wrap) run's,
// so one errors.Is answers whichever package refused.
func TestSentinelsShared(t *testing.T) {
	for _, c := range []struct {
		name      string
		err, want error
	}{
		{"solve.ErrBandedTooLarge", solve.ErrBandedTooLarge, run.ErrTooLarge},
		{"solve.ErrShape", solve.ErrShape, run.ErrBadInput},
		{"backend.ErrShape", backend.ErrShape, run.ErrBadInput},
		{"backend.ErrNotConverged", backend.ErrNotConverged, run.ErrNotConverged},
		{"solve.ErrBadKernel", solve.ErrBadKernel, run.ErrBadInput},
		{"solve.ErrNotFinite", solve.ErrNotFinite, run.ErrBadInput},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !errors.Is(c.err, c.want) {
				t.Errorf("%s = %q does not match %q", c.name, c.err, c.want)
			}
		})
	}
}

// TestSentinelPrefixes: a package's own sentinel names its package.
func TestSentinelPrefixes(t *testing.T) {
	for _, c := range []struct {
		prefix string
		err    error
	}{
		{"solve: ", solve.ErrBandedNotPD},
		{"solve: ", solve.ErrBandedTooLarge},
		{"solve: ", solve.ErrBadKernel},
		{"solve: ", solve.ErrBreakdown},
		{"solve: ", solve.ErrShape},
		{"linear: ", linear.ErrUnsupported},
		{"backend: ", backend.ErrSingular},
	} {
		t.Run(c.err.Error(), func(t *testing.T) {
			if !strings.HasPrefix(c.err.Error(), c.prefix) {
				t.Errorf("%q does not start with %q", c.err, c.prefix)
			}
		})
	}
}

// TestErrorsFromTheLibrary: real refusals from different packages match the
// shared sentinels and carry their package's prefix.
func TestErrorsFromTheLibrary(t *testing.T) {
	line, err := metric.Line(5)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tight.Solve(context.Background(), line, -1, nil); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("tight.Solve at eps -1: %v, want ErrBadInput", err)
	}
	big, err := metric.Ring(30000) // Phi alone is 7.2 GB
	if err != nil {
		t.Fatal(err)
	}
	if _, err := metric.PhiLimit(big, 1, 1<<30); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("PhiLimit of ring:n=30000 in 1 GiB: %v, want ErrTooLarge", err)
	}
}

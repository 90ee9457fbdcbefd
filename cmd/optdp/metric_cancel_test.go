package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMetricFlagCancelled: a --metric build stopped by its context (what
// Ctrl-C does) is a cancellation (exit 1, "cancelled"), neither a usage
// nor a data error, for a cancel and a timeout; the file is a 600-answer
// distance matrix of points on a line (|i - j|, an exact metric).
func TestMetricFlagCancelled(t *testing.T) {
	const n = 600
	var b []byte
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(max(i-j, j-i)), 10)
		}
		b = append(b, '\n')
	}
	path := filepath.Join(t.TempDir(), "line.csv")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	spec := "dist:file=" + path
	for _, mk := range []func() (context.Context, context.CancelFunc){
		func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		},
		func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), time.Nanosecond)
		},
	} {
		ctx, cancel := mk()
		<-ctx.Done()
		_, err := parseMetricFlagContext(ctx, spec, true)
		cancel()
		if !errors.Is(err, ctx.Err()) || !strings.Contains(err.Error(), "cancelled") {
			t.Fatalf("error %v, want a cancellation", err)
		}
		var u usageError
		var d dataError
		if errors.As(err, &u) || errors.As(err, &d) || exitCode(err) != exitFailed {
			t.Fatalf("error %v: exit code %d, want %d (the computation said no)", err, exitCode(err), exitFailed)
		}
	}
	// Uncancelled, the same file is the metric: d(0, n-1) = n-1.
	m, err := parseMetricFlagContext(context.Background(), spec, true)
	if err != nil {
		t.Fatal(err)
	}
	if d := m.Dist(0, n-1); d != n-1 {
		t.Fatalf("d(0, %d) = %v, want %d", n-1, d, n-1)
	}
}

package stream

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestDenseCancel: OptimizeDense's dual methods return the context's error
// when cancelled inside their order-n eigendecompositions: fixed epochs
// (k = 4, b = 256) on n = 1024, cancelled 300 ms in (its first evaluation
// is one eigendecomposition of order 1024, seconds in the pure-Go build),
// and minimum separation (k = 2, b = 150) on n = 300 under a 100 ms
// deadline. A run that does not return within two minutes of the
// cancellation is reported as a hang.
func TestDenseCancel(t *testing.T) {
	if testing.Short() {
		t.Skip("order-1024 eigendecompositions")
	}
	for _, c := range []struct {
		n     int
		s     Schema
		delay time.Duration
		want  error
	}{
		{1024, FixedEpochs(4, 256), 300 * time.Millisecond, context.Canceled},
		{300, MinSeparation(2, 150), 100 * time.Millisecond, context.DeadlineExceeded},
	} {
		var ctx context.Context
		var cancel context.CancelFunc
		if c.want == context.Canceled {
			ctx, cancel = context.WithCancel(context.Background())
			time.AfterFunc(c.delay, cancel)
		} else {
			ctx, cancel = context.WithTimeout(context.Background(), c.delay)
		}
		ch := make(chan error, 1)
		start := time.Now()
		go func() {
			_, err := OptimizeDense(ctx, c.n, c.s, nil)
			ch <- err
		}()
		select {
		case err := <-ch:
			if !errors.Is(err, c.want) {
				t.Errorf("n=%d %v: %v, want %v", c.n, c.s, err, c.want)
			}
			t.Logf("n=%d %v: returned %v after the start: %v", c.n, c.s, time.Since(start), err)
		case <-time.After(c.delay + 2*time.Minute):
			t.Fatalf("n=%d %v: no answer two minutes after the cancellation", c.n, c.s)
		}
		cancel()
	}
}

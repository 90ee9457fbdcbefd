package optimal

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

func TestZZProbe(t *testing.T) {
	m, err := metric.Parse(os.Getenv("PROBE_SPEC"))
	if err != nil {
		t.Fatal(err)
	}
	pr := make([]float64, m.Len())
	for i := range pr {
		pr[i] = 1 / float64(len(pr))
	}
	for _, ds := range strings.Split(os.Getenv("PROBE_DELAYS"), ",") {
		d, _ := strconv.ParseFloat(ds, 64)
		ctx, cancel := context.WithCancel(context.Background())
		start := time.Now()
		var at time.Time
		if d > 0 {
			time.AfterFunc(time.Duration(d*float64(time.Second)), func() { at = time.Now(); cancel() })
		}
		o := &Options{}
		if os.Getenv("PROBE_V") != "" {
			o.Progress = func(p run.Progress) {
				t.Logf("%8.3fs %s iter %d gap %g %s", time.Since(start).Seconds(), p.Stage, p.Iter, p.Gap, p.Message)
			}
		}
		_, err = Solve(ctx, m, 1, pr, o)
		lat := time.Duration(0)
		if !at.IsZero() {
			lat = time.Since(at)
		}
		t.Logf("delay %v: latency %v total %v err %v", d, lat, time.Since(start), err)
		cancel()
	}
}

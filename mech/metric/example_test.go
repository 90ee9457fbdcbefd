package metric_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/optdp/optdp/mech/metric"
)

func ExampleParse() {
	for _, spec := range []string{"sum:u=150,v=5", "grid:w=10,h=10,step=0.5", "hamming:u=20,v=4", "line:n=six"} {
		m, err := metric.Parse(spec)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(m, m.Len())
	}
	// Output:
	// sum:u=150,v=5 751
	// grid:w=10,h=10,step=0.5,norm=euclid 100
	// hamming:u=20,v=4 1099511627776
	// error: metric spec "line:n=six": n="six" is not an integer
}

// Building Phi for a large metric is long (n² exponentials); a cancelled
// context stops it with the context's error.
func ExamplePhiLimitContext() {
	m, _ := metric.Grid(60, 60, 1, metric.Euclid)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := metric.PhiLimitContext(ctx, m, 0.5, 0)
	fmt.Println(errors.Is(err, context.Canceled))
	// Output: true
}

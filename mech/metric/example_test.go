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

// ParseContext stops a long build (a distance file's cubic triangle check,
// a road graph's Dijkstras) when ctx is done; here the time limit has
// passed before the file is opened.
func ExampleParseContext() {
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	_, err := metric.ParseContext(ctx, "roads:file=roads.txt")
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	m, err := metric.ParseContext(context.Background(), "ring:n=12")
	fmt.Println(m, err)
	// Output:
	// true
	// ring:n=12 <nil>
}

// The rounding bound of planar points needs their smallest and largest
// distance, an O(n²) scan that DistRoundingContext stops on cancel.
func ExampleDistRoundingContext() {
	p, _ := metric.Points([]float64{0, 3, 0}, []float64{0, 0, 4})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := metric.DistRoundingContext(ctx, p)
	fmt.Println(errors.Is(err, context.Canceled))
	b, ok, err := metric.DistRoundingContext(context.Background(), p)
	fmt.Println(b.MinDist, ok, err)
	// Output:
	// true
	// 3 true <nil>
}

// RepairMatrixContext is RepairMatrix stopped by ctx (its Floyd–Warshall
// is cubic).
func ExampleRepairMatrixContext() {
	c, err := metric.RepairMatrixContext(context.Background(), [][]float64{
		{0, 1, 2.0000001},
		{1, 0, 1},
		{2.0000001, 1, 0},
	}, 1e-6)
	fmt.Println(c.Dist(0, 2), c.Lowered, err)
	// Output: 2 1 <nil>
}

// NewRoadsContext is NewRoads stopped by ctx (one Dijkstra per vertex).
func ExampleNewRoadsContext() {
	m, err := metric.NewRoadsContext(context.Background(), 3, []metric.WeightedEdge{{U: 0, V: 1, W: 2.5}, {U: 1, V: 2, W: 1}})
	fmt.Println(m.Dist(0, 2), err)
	// Output: 3.5 <nil>
}

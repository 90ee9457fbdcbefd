package metric_test

import (
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

package tight_test

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/tight"
)

// The counting query on 5 voters (answers 0..5) at eps = ln 2: the
// tight-constraints mechanism is the truncated geometric mechanism.
func ExampleSolve() {
	line, err := metric.Line(6)
	if err != nil {
		panic(err)
	}
	r, err := tight.Solve(context.Background(), line, math.Ln2, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("exists %v, unique %v, utility %.6f (4/9 = %.6f)\n", r.Exists, r.Unique, r.Utility, 4.0/9)
	fmt.Printf("z = %.4f\n", r.Z)
	fmt.Printf("row 0 = %.4f, audit private %v\n", r.X.RawRowView(0), r.Audit.Private)
	// Output:
	// exists yes, unique true, utility 0.444444 (4/9 = 0.444444)
	// z = [0.6667 0.3333 0.3333 0.3333 0.3333 0.6667]
	// row 0 = [0.6667 0.1667 0.0833 0.0417 0.0208 0.0208], audit private true
}

// The sum of 2 values in 0..2 (answers 0..4): the mechanism exists from
// eps* = ln((1+√5)/2) on.
func ExampleThreshold() {
	m, _ := metric.Sum(2, 2)
	r, err := tight.Threshold(context.Background(), m, &tight.ThresholdOptions{Tol: 1e-9})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: eps* = %.8f (ln φ = %.8f), %d crossing(s)\n", r.Status, r.EpsStar, math.Log((1+math.Sqrt(5))/2), len(r.Crossings))
	line, _ := metric.Line(100)
	r, _ = tight.Threshold(context.Background(), line, nil)
	fmt.Println(r.Status, r.EpsStar)
	// Output:
	// bracketed: eps* = 0.48121183 (ln φ = 0.48121183), 1 crossing(s)
	// exists-for-all-eps 0
}

// Is a prior regular, and what do the utility and leakage bounds say?
func ExampleRegular() {
	k, _ := metric.Clique(4)
	prior := []float64{0.4, 0.3, 0.2, 0.1}
	for _, eps := range []float64{0.5, 2} {
		r, err := tight.Regular(context.Background(), k, eps, prior, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		if r.Regular != tight.Yes {
			fmt.Printf("eps %v: regular %v (min y = %.4f)\n", eps, r.Regular, r.MinY)
			continue
		}
		fmt.Printf("eps %v: regular %v, utility bound %.4f, leakage bound %.4f bits\n", eps, r.Regular, r.UtilityBound, r.LeakageBoundBits)
	}
	// Output:
	// eps 0.5: regular no (min y = -0.2926)
	// eps 2: regular yes, utility bound 0.7112, leakage bound 0.8303 bits
}

// A product prior on 4^16 ≈ 4.3e9 databases, in microseconds.
func ExampleRegularProduct() {
	r, err := tight.RegularProduct(16, 1, []float64{0.3, 0.27, 0.23, 0.2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("regular %v, leakage bound %.3f bits, log2 utility bound %.3f\n", r.Regular, r.LeakageBoundBits, r.Log2SumY)
	// Output:
	// regular yes, leakage bound 10.625 bits, log2 utility bound -17.166
}

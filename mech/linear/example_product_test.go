package linear_test

import (
	"fmt"
	"math"

	"github.com/optdp/optdp/mech/linear"
)

// The 2010 Census SF1 Persons workload of the HDMM paper: 4151 queries over
// 2·2·64·17·115 = 500,480 cells. Its sensitivity (the most queries one
// person is counted in) and the identity strategy's error are computed
// factor-wise; the identity's TSE is (2/eps²)·tr(W^T W), the value HDMM's
// own code gives for the same workload.
func ExampleCensusSF1Persons() {
	w, _ := linear.CensusSF1Persons()
	m, n := w.Dims()
	d1, _ := linear.Sensitivity(w, 1, 0)
	var fs []*linear.Strategy
	for _, size := range linear.CensusSF1Dims {
		f, _ := linear.IdentityStrategy(size)
		fs = append(fs, f)
	}
	id, _ := linear.KronStrategy(fs...)
	tse, _ := linear.TSE(w, id, 1)
	fmt.Printf("%d queries over %d cells, sensitivity %g, identity TSE %.0f\n", m, n, d1, tse)
	// Output:
	// 4151 queries over 500480 cells, sensitivity 41, identity TSE 37997108
}

// A workload file: age groups and single years of age by sex, over the
// product domain sex × age.
func ExampleParseWorkloadJSON() {
	file := `{
	  "attributes": [{"name": "sex", "size": 2}, {"name": "age", "size": 100}],
	  "workload": [
	    {"blocks": {"sex": "identity", "age": {"ranges": [[0, 17], [18, 64], [65, 99]]}}},
	    {"weight": 0.5, "blocks": {"age": "identity"}}
	  ]
	}`
	w, attrs, err := linear.ParseWorkloadJSON([]byte(file), nil)
	if err != nil {
		panic(err)
	}
	m, n := w.Dims()
	fmt.Println(attrs, m, n)
	// Output:
	// [{sex 2} {age 100}] 106 200
}

// The optimal Gaussian strategy for all 3-way marginals of 20 attributes
// of 10 values (10^20 cells) in closed form: the certificate (the SVD
// bound) equals the optimum.
func ExampleOptimalGaussianMarginals() {
	dims := make([]int, 20)
	for i := range dims {
		dims[i] = 10
	}
	var ms []linear.WeightedMarginal
	for i := 0; i < 20; i++ {
		for j := i + 1; j < 20; j++ {
			for k := j + 1; k < 20; k++ {
				ms = append(ms, linear.WeightedMarginal{Attrs: []int{i, j, k}, Weight: 1})
			}
		}
	}
	r, _ := linear.OptimalGaussianMarginals(dims, ms, 1, 1e-6)
	fmt.Printf("%g queries, %d residual subspaces, relative gap below 1e-12: %v\n", r.Queries, r.Subspaces, math.Abs(r.Trace-r.Dual) < 1e-12*r.Trace)
	// Output:
	// 1.14e+06 queries, 1351 residual subspaces, relative gap below 1e-12: true
}

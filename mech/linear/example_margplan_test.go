package linear_test

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/optdp/optdp/mech/linear"
)

// A weighted workload of marginals of mixed sizes over 60 attributes
// (about 10^60 cells), planned for the largest variance of one query:
// the plan's certified relative gap meets the default tolerance, and its
// largest variance is below the sum-optimal plan's.
func ExamplePlanGaussianMarginals() {
	dims := make([]int, 60)
	for i := range dims {
		dims[i] = 2 + i%9
	}
	ms := []linear.WeightedMarginal{
		{Attrs: []int{0, 1, 2}, Weight: 1}, {Attrs: []int{3, 59}, Weight: 4},
		{Attrs: []int{10}, Weight: 0.5}, {Attrs: []int{1, 10, 20}, Weight: 2},
	}
	ctx := context.Background()
	mx, _ := linear.PlanGaussianMarginals(ctx, dims, ms, &linear.MarginalPlanOptions{Eps: 1, Delta: 1e-6, Loss: linear.LossMax})
	sum, _ := linear.PlanGaussianMarginals(ctx, dims, ms, &linear.MarginalPlanOptions{Eps: 1, Delta: 1e-6})
	fmt.Printf("%d subspaces; gap <= 1e-6: %v; max variance below the sum plan's: %v\n",
		len(mx.Subspaces), mx.RelGap <= 1e-6, mx.MaxVariance < sum.MaxVariance)
	// Output:
	// 17 subspaces; gap <= 1e-6: true; max variance below the sum plan's: true
}

// Answering 2-way marginals of three attributes from four records: each
// marginal comes back with its attributes and the exact variance of every
// cell (seeded here; use linear.CryptoSource() for a real release). The
// variances are σ² Σ_{T⊆S} (m_T/n_S)²/u_T with the sum plan's shares
// u_T ∝ sqrt(b_T): 2.453, 2.066 and 1.634 times σ² = 20.53, the discrete
// Gaussian's zCDP calibration at eps = 1, delta = 1e-6.
func ExampleAnswerGaussianMarginals() {
	attrs := []linear.Attribute{{Name: "age", Size: 3}, {Name: "sex", Size: 2}, {Name: "zone", Size: 4}}
	data, _ := linear.ReadMarginalRecords(attrs, strings.NewReader("age,sex,zone\n0,1,3\n2,0,0\n2,1,3\n1,1,2\n"), 0)
	ms := []linear.WeightedMarginal{{Attrs: []int{0, 1}, Weight: 1}, {Attrs: []int{1, 2}, Weight: 1}, {Attrs: []int{0, 2}, Weight: 1}}
	ctx := context.Background()
	p, _ := linear.PlanGaussianMarginals(ctx, []int{3, 2, 4}, ms, &linear.MarginalPlanOptions{Eps: 1, Delta: 1e-6})
	rel, _ := linear.AnswerGaussianMarginals(ctx, p, data, linear.SeededSource(1), 0)
	for _, m := range rel.Marginals {
		fmt.Printf("marginal %v: %d cells, standard deviation %.3g\n", m.Attrs, len(m.Answers), math.Sqrt(m.Variance))
	}
	// Output:
	// marginal [0 1]: 6 cells, standard deviation 7.1
	// marginal [1 2]: 8 cells, standard deviation 6.51
	// marginal [0 2]: 12 cells, standard deviation 5.79
}

// Age queried by ranges and income by prefixes (a CDF) inside 2- and
// 3-way tables: each release lists its queries in row-major order, named by
// QueryLabel; the plan's Dual is a valid lower bound on the loss of every
// Gaussian linear strategy for the same workload.
func ExampleMarginalPlan_QueryLabel() {
	attrs := []linear.Attribute{{Name: "age", Size: 4}, {Name: "sex", Size: 2}, {Name: "income", Size: 3}}
	ms := []linear.WeightedMarginal{{Attrs: []int{0, 1}, Weight: 1}, {Attrs: []int{0, 1, 2}, Weight: 1}}
	queries := []string{linear.QueryAllRange, linear.QueryIdentity, linear.QueryPrefix}
	ctx := context.Background()
	p, _ := linear.PlanGaussianMarginals(ctx, []int{4, 2, 3}, ms, &linear.MarginalPlanOptions{Eps: 1, Delta: 1e-6, AttrQueries: queries})
	fmt.Printf("%g queries; bound below the plan: %v\n", p.Queries, p.Dual <= p.Objective)
	for _, q := range []int{0, 3, 19} {
		l, _ := p.QueryLabel(attrs, 0, q)
		fmt.Println(l)
	}
	l, _ := p.QueryLabel(attrs, 1, 59)
	fmt.Println(l)
	// Output:
	// 80 queries; bound below the plan: true
	// age=0 & sex=0
	// age=0..1 & sex=1
	// age=3 & sex=1
	// age=3 & sex=1 & income=0..2
}

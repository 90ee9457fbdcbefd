package linear_test

import (
	"fmt"
	"strings"

	"github.com/optdp/optdp/mech/linear"
)

// The exact error of answering all 32,896 range queries over 256 counts with
// eps = 1: the identity strategy, and the best hierarchical strategy with a
// power-of-16 tree (H_16 without its root).
func ExampleTSE() {
	w, _ := linear.AllRange(256)
	id, _ := linear.IdentityStrategy(256)
	h, _ := linear.Hierarchical(256, 16, false)
	a, _ := linear.TSE(w, id, 1)
	b, _ := linear.TSE(w, h, 1)
	fmt.Printf("identity %.0f\nH_16     %.2f\n", a, b)
	// Output:
	// identity 5658112
	// H_16     2606200.47
}

// 2-D range queries over a 256×256 grid with a Kronecker product of
// hierarchies: no 65536² matrix is formed. TSE = 2·D1²·t², with D1 = 2·2 and
// t = 5538176/17 the 1-D trace, so RMSE = sqrt(32)·t/32896.
func ExampleEvaluate() {
	w, _ := linear.Range2D(256)
	h, _ := linear.Hierarchical(256, 16, false)
	a, _ := linear.KronStrategy(h, h)
	nz, _ := linear.LaplaceNoise(a, 1)
	r, _ := linear.Evaluate(w, a, nz)
	fmt.Printf("m = %d, D1 = %g, RMSE = %.2f\n", r.M, r.Noise.Sensitivity, r.RMSE)
	// Output:
	// m = 1082146816, D1 = 4, RMSE = 56.02
}

// Answering privately: y = A x + exact discrete Laplace noise, least squares,
// then W x_hat. Real releases use linear.CryptoSource(); the seeded source
// here only makes the example reproducible. Prefix queries over 4 counts with
// H_2: D1 = 3 and tr(W^T W (A^T A)^{-1}) = 18/7 (exact), so TSE = 2·9·18/7.
func ExampleAnswer() {
	w, _ := linear.Prefix(4)
	a, _ := linear.Hierarchical(4, 2, true)
	rel, err := linear.Answer(w, a, []float64{10, 0, 3, 7}, 1, linear.SeededSource(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d answers, noise %s with scale %g, expected TSE %.4f\n",
		len(rel.Answers), rel.Noise.Mechanism, rel.Noise.Scale, rel.Expected.TSE)
	// Output:
	// 4 answers, noise discrete-laplace with scale 3, expected TSE 46.2857
}

// The labels of all 1-way marginals and the 2-way marginal over sex and
// age group: each says which cells its answer sums.
func ExampleLabels() {
	attrs := []linear.Attribute{{Name: "sex", Size: 2}, {Name: "age", Size: 3}}
	one, _ := linear.Marginals([]int{2, 3}, 1)
	two, _ := linear.Marginals([]int{2, 3}, 2)
	w, _ := linear.Union(one, two)
	labels, err := linear.Labels(w, attrs, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Join(labels[:6], " | "))
	fmt.Println(labels[6])
	// Output:
	// sex=0 | sex=1 | age=0 | age=1 | age=2 | sex=0 & age=0
	// sex=0 & age=1
}

package run_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/lp/ldl"
	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/mech/linear/tables"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/optimal"
	"github.com/optdp/optdp/mech/stream"
	"github.com/optdp/optdp/mech/tight"
	"github.com/optdp/optdp/repro"
	"github.com/optdp/optdp/run"
	"github.com/optdp/optdp/sdp"
	"github.com/optdp/optdp/solve"
)

// TestNegativeBudgetEveryEntry: every Go entry point that takes a Budget
// (in Settings or as a parameter) refuses a negative one with
// run.ErrBadInput, never ErrTooLarge and never "no limit", on inputs that
// are otherwise valid and small.
func TestNegativeBudgetEveryEntry(t *testing.T) {
	ctx := context.Background()
	line, err := metric.Line(5)
	if err != nil {
		t.Fatal(err)
	}
	ident, err := linear.Identity(4)
	if err != nil {
		t.Fatal(err)
	}
	// A 3×3 geometric-like channel (rows sum to 1) and gain.
	ch := mat.NewDense(3, 3, []float64{0.5, 0.25, 0.25, 0.25, 0.5, 0.25, 0.25, 0.25, 0.5})
	gain := mat.NewDense(3, 3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1})
	gram := mat.NewSymDense(3, []float64{2, 1, 0, 1, 2, 1, 0, 1, 2})
	prob := &lp.Problem{N: 2, M: 2, C: []float64{1, 0, 0, 1}, Pairs: []lp.Pair{{I: 0, H: 1, W: math.E}, {I: 1, H: 0, W: math.E}}}
	uniform := []float64{0.2, 0.2, 0.2, 0.2, 0.2}
	marg := []linear.WeightedMarginal{{Attrs: []int{0, 1}, Weight: 1}}
	plan, err := linear.PlanGaussianMarginals(ctx, []int{2, 3}, marg, &linear.MarginalPlanOptions{Eps: 1, Delta: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	tattrs := []linear.Attribute{{Name: "a", Size: 2}, {Name: "b", Size: 3}}
	tfile := filepath.Join(t.TempDir(), "r.csv")
	if err := os.WriteFile(tfile, []byte("a,b\n0,2\n1,0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, b := range []run.Budget{-1, -1 << 62} {
		set := run.Settings{Budget: b}
		for name, call := range map[string]func() error{
			"optimal.Solve": func() error {
				_, err := optimal.Solve(ctx, line, 1, uniform, &optimal.Options{Settings: set})
				return err
			},
			"tight.Solve": func() error {
				_, err := tight.Solve(ctx, line, 1, &tight.Options{Settings: set})
				return err
			},
			"tight.Regular": func() error {
				_, err := tight.Regular(ctx, line, 1, uniform, &tight.Options{Settings: set})
				return err
			},
			"tight.Estimate": func() error {
				_, err := tight.Estimate(line, &tight.Options{Settings: set})
				return err
			},
			"tight.Threshold": func() error {
				_, err := tight.Threshold(ctx, line, &tight.ThresholdOptions{Settings: set})
				return err
			},
			"linear.Optimize": func() error {
				_, err := linear.Optimize(ctx, ident, &linear.OptimizeOptions{Settings: set, Eps: 1})
				return err
			},
			"linear.Histogram": func() error {
				_, err := linear.Histogram([]linear.Attribute{{Name: "a", Size: 3}}, strings.NewReader("0\n1\n"), b)
				return err
			},
			"linear.Sensitivity": func() error {
				_, err := linear.Sensitivity(ident, 1, b)
				return err
			},
			"stream.OptimizeDense": func() error {
				_, err := stream.OptimizeDense(ctx, 8, stream.SingleParticipation(), &stream.DenseOptions{Settings: set})
				return err
			},
			"stream.OptimizeToeplitz": func() error {
				_, err := stream.OptimizeToeplitz(ctx, 8, 8, stream.SingleParticipation(), &stream.ToeplitzOptions{Settings: set})
				return err
			},
			"stream.Optimize": func() error {
				_, err := stream.Optimize(ctx, 8, stream.SingleParticipation(), &stream.Options{Settings: set})
				return err
			},
			"stream.OptimizeBLT": func() error {
				_, err := stream.OptimizeBLT(ctx, 8, 2, stream.SingleParticipation(), &stream.BLTOptions{Settings: set})
				return err
			},
			"stream.OptimizeDenseMax": func() error {
				_, err := stream.OptimizeDenseMax(ctx, 8, &stream.DenseOptions{Settings: set})
				return err
			},
			"linear.PlanGaussianMarginals": func() error {
				_, err := linear.PlanGaussianMarginals(ctx, []int{2, 3}, marg, &linear.MarginalPlanOptions{Eps: 1, Delta: 1e-6, Settings: set})
				return err
			},
			"linear.AnswerGaussianMarginals": func() error {
				_, err := linear.AnswerGaussianMarginals(ctx, plan, &linear.MarginalData{Columns: [][]int32{{0, 1}, {2, 0}}}, linear.SeededSource(1), b)
				return err
			},
			"tables.Count": func() error {
				_, err := tables.Count(ctx, tattrs, tfile, &tables.Options{Settings: set})
				return err
			},
			"lp.Solve": func() error {
				_, err := lp.Solve(ctx, prob, &lp.Options{Settings: set})
				return err
			},
			"lp.Generate": func() error {
				_, err := lp.Generate(ctx, prob, &lp.GenerateOptions{Options: lp.Options{Settings: set}})
				return err
			},
			"lp.SolveSpanner": func() error {
				_, err := lp.SolveSpanner(ctx, prob, 1.5, &lp.Options{Settings: set})
				return err
			},
			"lp.Spanner": func() error {
				_, _, err := lp.Spanner(2, prob.Pairs, 1.5, b)
				return err
			},
			"ldl.Spanner": func() error {
				_, _, err := ldl.Spanner(ctx, 2, prob.Pairs, 1.5, &ldl.SpannerOptions{Settings: set})
				return err
			},
			"sdp.OptimizeL1": func() error {
				_, err := sdp.OptimizeL1(ctx, gram, &sdp.L1Options{Settings: set})
				return err
			},
			"sdp.OptimizeL2": func() error {
				_, err := sdp.OptimizeL2(ctx, gram, &sdp.L2Options{Settings: set})
				return err
			},
			"sdp.OptimizeL1Kron": func() error {
				_, err := sdp.OptimizeL1Kron(ctx, []*mat.SymDense{gram, gram}, nil, &sdp.L1Options{Settings: set})
				return err
			},
			"sdp.OptimizeL2Kron": func() error {
				_, err := sdp.OptimizeL2Kron(ctx, []*mat.SymDense{gram, gram}, &sdp.L2Options{Settings: set})
				return err
			},
			"repro.Run": func() error {
				_, err := repro.Run(ctx, nil, &repro.Config{Dir: t.TempDir(), Settings: set}, nil)
				return err
			},
			"mech.NewSampler": func() error {
				_, err := mech.NewSampler(ch, nil, 0, &mech.SamplerOptions{Settings: set, Unaudited: true})
				return err
			},
			"mech.ShannonCapacity": func() error {
				_, err := mech.ShannonCapacity(ctx, ch, &mech.CapacityOptions{Settings: set})
				return err
			},
			"mech.MulGCapacity": func() error {
				_, err := mech.MulGCapacity(ctx, ch, gain, &mech.GCapacityOptions{Settings: set})
				return err
			},
			"mech.RefinedBy": func() error {
				_, err := mech.RefinedBy(ctx, ch, ch, &mech.RefineOptions{Settings: set})
				return err
			},
			"mech.PriorFromCounts": func() error {
				_, err := mech.PriorFromCounts(strings.NewReader("1\n2\n3\n"), 3, &mech.MapPriorOptions{Settings: set})
				return err
			},
			"metric.PhiLimit": func() error {
				_, err := metric.PhiLimit(line, 1, b)
				return err
			},
			"solve.SolveBanded": func() error {
				_, err := solve.SolveBanded(2, 1, func(i, j int) float64 { return float64(1 + 3*b2i(i == j)) }, []float64{1, 1}, b)
				return err
			},
		} {
			err := call()
			if !errors.Is(err, run.ErrBadInput) || errors.Is(err, run.ErrTooLarge) {
				t.Errorf("%s with budget %d: %v, want run.ErrBadInput", name, b, err)
			} else if !strings.Contains(err.Error(), "negative") {
				t.Errorf("%s with budget %d: message %q does not say the budget is negative", name, b, err)
			}
		}
	}
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

// TestUnlimitedBudget: run.Unlimited is accepted by the optimal, tight,
// linear and stream entry points and gives the answer of the default budget
// (a budget only gates allocation), which for the identity workload is
// also the closed form: Laplace noise of scale 1/eps on each of the n
// counts, total squared error n·2/eps².
func TestUnlimitedBudget(t *testing.T) {
	ctx := context.Background()
	line, err := metric.Line(6)
	if err != nil {
		t.Fatal(err)
	}
	prior := []float64{0.1, 0.3, 0.1, 0.2, 0.2, 0.1}
	unl := run.Settings{Budget: run.Unlimited}

	ou, err := optimal.Solve(ctx, line, 0.7, prior, &optimal.Options{Settings: unl})
	if err != nil {
		t.Fatalf("optimal.Solve, Unlimited: %v", err)
	}
	od, err := optimal.Solve(ctx, line, 0.7, prior, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ou.Utility-od.Utility) > 1e-9 {
		t.Errorf("optimal utility %v with Unlimited, %v with the default budget", ou.Utility, od.Utility)
	}

	tu, err := tight.Solve(ctx, line, 0.7, &tight.Options{Settings: unl})
	if err != nil {
		t.Fatalf("tight.Solve, Unlimited: %v", err)
	}
	// The truncated geometric mechanism is the tight-constraints mechanism
	// of every line (docs/MATH.md), so one exists at every eps.
	if tu.Exists != run.Yes {
		t.Errorf("tight on %s with Unlimited: exists %v, want yes", line, tu.Exists)
	}

	ident, err := linear.Identity(4)
	if err != nil {
		t.Fatal(err)
	}
	lu, err := linear.Optimize(ctx, ident, &linear.OptimizeOptions{Settings: unl, Eps: 1})
	if err != nil {
		t.Fatalf("linear.Optimize, Unlimited: %v", err)
	}
	if want := 4 * 2.0; math.Abs(lu.TSE-want) > 1e-6*want {
		t.Errorf("identity on 4 counts at eps 1, Unlimited: TSE %v, want n·2/eps² = %v", lu.TSE, want)
	}

	su, err := stream.OptimizeDense(ctx, 8, stream.SingleParticipation(), &stream.DenseOptions{Settings: unl})
	if err != nil {
		t.Fatalf("stream.OptimizeDense, Unlimited: %v", err)
	}
	sd, err := stream.OptimizeDense(ctx, 8, stream.SingleParticipation(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(su.Primal-sd.Primal) > 1e-9*math.Abs(sd.Primal) {
		t.Errorf("stream dense optimum %v with Unlimited, %v with the default budget", su.Primal, sd.Primal)
	}
	if _, err := stream.OptimizeToeplitz(ctx, 8, 8, stream.SingleParticipation(), &stream.ToeplitzOptions{Settings: unl}); err != nil {
		t.Errorf("stream.OptimizeToeplitz, Unlimited: %v", err)
	}
}

package bench

// Matrix factorisation for streams (package mech/stream, docs/MATH.md
// §19): the certified dense optimum for prefix sums under single
// participation and fixed epochs, and the banded Toeplitz family for long
// streams, each with its exact sensitivity, RMSE and the baselines' RMSE
// as custom metrics (one run with -benchtime 1x prints the table of
// bench/README.md, "Streams and private training").

import (
	"context"
	"math"
	"testing"

	"github.com/optdp/optdp/mech/stream"
	"github.com/optdp/optdp/run"
)

// streamBaselines reports the baselines' RMSE.
func streamBaselines(b *testing.B, n int, s stream.Schema) {
	reps, err := stream.Baselines(context.Background(), n, s, &stream.BaselineOptions{DenseLimit: 2048})
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range reps {
		if !math.IsNaN(r.RMSE) {
			b.ReportMetric(r.RMSE, "rmse-"+map[string]string{"identity": "id", "binary tree": "tree", "honaker": "honaker", "sqrt": "sqrt"}[r.Name])
		}
	}
}

// epochSens2 enumerates the b patterns {j, j+b, ...} and all 2^k sign
// vectors of X directly (independently of package stream's Gray-code
// enumeration).
func epochSens2(x interface{ At(i, j int) float64 }, n, k, b int) float64 {
	best := 0.0
	for j := 0; j < b; j++ {
		for sg := 0; sg < 1<<k; sg++ {
			v := 0.0
			for e := 0; e < k && j+e*b < n; e++ {
				for f := 0; f < k && j+f*b < n; f++ {
					se, sf := 1-2*float64(sg>>e&1), 1-2*float64(sg>>f&1)
					v += se * sf * x.At(j+e*b, j+f*b)
				}
			}
			best = math.Max(best, v)
		}
	}
	return best
}

func benchStreamDense(b *testing.B, n int, s stream.Schema) {
	ctx := context.Background()
	for b.Loop() {
		cpu0 := cpuSeconds()
		r, err := stream.OptimizeDense(ctx, n, s, &stream.DenseOptions{Settings: run.Settings{Budget: run.Unlimited}})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(cpuSeconds()-cpu0, "cpu-s")
		b.ReportMetric(r.Errors.RMSE, "rmse")
		b.ReportMetric(r.RelGap, "gap")
		b.ReportMetric(r.RelGap*1e9, "gap-ppb")
		b.ReportMetric(float64(r.Iterations), "iters")
		if s.Kind == stream.Epochs {
			b.ReportMetric(epochSens2(r.X, n, s.K, s.B), "sens2-enum")
			t, err := stream.OptimizeToeplitz(ctx, n, s.B, s, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(t.Errors.RMSE, "rmse-banded")
		}
	}
	streamBaselines(b, n, s)
}

func BenchmarkStreamSingle2048(b *testing.B) { benchStreamDense(b, 2048, stream.SingleParticipation()) }
func BenchmarkStreamSingle8192(b *testing.B) { benchStreamDense(b, 8192, stream.SingleParticipation()) }
func BenchmarkStreamEpochs512(b *testing.B)  { benchStreamDense(b, 512, stream.FixedEpochs(4, 128)) }
func BenchmarkStreamEpochs2048(b *testing.B) { benchStreamDense(b, 2048, stream.FixedEpochs(4, 512)) }

// BenchmarkStreamToeplitz100k: 64 bands, n = 10^5, at most 4
// participations at least 64 apart (the banded dynamic programme gives
// the exact sensitivity).
func BenchmarkStreamToeplitz100k(b *testing.B) {
	ctx := context.Background()
	n, s := 100_000, stream.MinSeparation(4, 64)
	for b.Loop() {
		cpu0 := cpuSeconds()
		r, err := stream.OptimizeToeplitz(ctx, n, 64, s, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(cpuSeconds()-cpu0, "cpu-s")
		b.ReportMetric(r.Errors.RMSE, "rmse")
		b.ReportMetric(r.Sens.Sens2, "sens2")
		b.ReportMetric(float64(r.Iterations), "iters")
	}
	streamBaselines(b, n, s)
}

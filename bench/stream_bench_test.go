package bench

// Matrix factorisation for streams (package mech/stream, docs/MATH.md
// §19): the certified dense optimum for prefix sums under single
// participation, fixed epochs and minimum separation (total loss) and
// under single participation (max variance), and the banded Toeplitz and
// BLT families for long streams, each with its exact sensitivity, RMSE
// and the baselines' RMSE
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

// benchStreamBLT optimises a BLT with the given buffers; sens2-check is
// its sensitivity recomputed by ToeplitzSensitivity on the expanded
// coefficients when n <= 2048 (enumeration or closed form, per schema).
func benchStreamBLT(b *testing.B, n, buffers int, s stream.Schema) {
	ctx := context.Background()
	for b.Loop() {
		cpu0 := cpuSeconds()
		r, err := stream.OptimizeBLT(ctx, n, buffers, s, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(cpuSeconds()-cpu0, "cpu-s")
		b.ReportMetric(r.Errors.RMSE, "rmse")
		b.ReportMetric(math.Sqrt(r.Errors.Max), "sqrt-max")
		b.ReportMetric(r.Sens.Sens2, "sens2")
		b.ReportMetric(float64(r.Iterations), "iters")
	}
}

func BenchmarkStreamBLTSingle2048(b *testing.B) {
	benchStreamBLT(b, 2048, 4, stream.SingleParticipation())
}
func BenchmarkStreamBLTEpochs2048(b *testing.B) {
	benchStreamBLT(b, 2048, 4, stream.FixedEpochs(4, 512))
}
func BenchmarkStreamBLTMinSep100k(b *testing.B) {
	benchStreamBLT(b, 100_000, 4, stream.MinSeparation(4, 64))
}
func BenchmarkStreamBLTSingle100k(b *testing.B) {
	benchStreamBLT(b, 100_000, 4, stream.SingleParticipation())
}

// benchStreamDenseMax is the certified dense max-variance optimum
// (single participation); sqrt-max is √ of the optimum's max variance,
// next to the square root's and the lower bound's.
func benchStreamDenseMax(b *testing.B, n int) {
	ctx := context.Background()
	for b.Loop() {
		cpu0 := cpuSeconds()
		r, err := stream.OptimizeDenseMax(ctx, n, &stream.DenseOptions{Settings: run.Settings{Budget: run.Unlimited}})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(cpuSeconds()-cpu0, "cpu-s")
		b.ReportMetric(r.Errors.Max, "max")
		b.ReportMetric(r.RelGap, "gap")
		b.ReportMetric(float64(r.Iterations), "iters")
	}
	bd := stream.Bounds(n)
	b.ReportMetric(bd.SqrtMax, "max-sqrt")
	b.ReportMetric(bd.MaxLower, "max-lower")
}

func BenchmarkStreamMax128(b *testing.B) { benchStreamDenseMax(b, 128) }
func BenchmarkStreamMax256(b *testing.B) { benchStreamDenseMax(b, 256) }

// benchStreamMinSep is the certified dense optimum under minimum
// separation, with the banded (b bands) and BLT (4 buffers) strategies.
func benchStreamMinSep(b *testing.B, n int, s stream.Schema) {
	ctx := context.Background()
	for b.Loop() {
		cpu0 := cpuSeconds()
		r, err := stream.OptimizeDense(ctx, n, s, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(cpuSeconds()-cpu0, "cpu-s")
		b.ReportMetric(r.Errors.RMSE, "rmse")
		b.ReportMetric(r.RelGap, "gap")
		b.ReportMetric(float64(r.Iterations), "iters")
		b.ReportMetric(float64(len(r.Multipliers)), "constraints")
	}
	t, err := stream.OptimizeToeplitz(ctx, n, s.B, s, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(t.Errors.RMSE, "rmse-banded")
	bl, err := stream.OptimizeBLT(ctx, n, 4, s, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(bl.Errors.RMSE, "rmse-blt")
	streamBaselines(b, n, s)
}

func BenchmarkStreamMinSep16(b *testing.B) { benchStreamMinSep(b, 16, stream.MinSeparation(3, 4)) }
func BenchmarkStreamMinSep64(b *testing.B) { benchStreamMinSep(b, 64, stream.MinSeparation(2, 16)) }

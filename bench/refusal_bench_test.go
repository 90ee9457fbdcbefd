package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/optimal"
	"github.com/optdp/optdp/run"
)

// BenchmarkRefusal/SET: how long optimal.Solve takes to refuse, under the
// default 4 GiB budget (the command line's), a dense point set whose
// spanners' LPs do not fit (bench/README.md, "LP on irregular maps";
// docs/MATH.md §11.5): eps = 1 per km, the uniform prior, the distance gain,
// the default method (auto) and tolerance. Each set must be refused
// (run.ErrTooLarge) within a minute, else the benchmark fails. Sets:
//
//   - random-N: N random points in a 10 km square (randomSquare);
//   - clusters3-3000: 3,000 points about three centres 7 km apart, normal
//     with 0.8 km deviation (clustered), every pair between clusters a
//     candidate of the spanners' completion at first;
//   - clusters5-3000: five centres across the square, 0.6 km;
//   - far2-2950: two dense clusters (0.5 km) 20 km apart.
func BenchmarkRefusal(b *testing.B) {
	type set struct {
		name   string
		xs, ys []float64
	}
	var sets []set
	for _, n := range []int{2950, 3000, 3200, 4000, 4900} {
		xs, ys := randomSquare(n, uint64(n))
		sets = append(sets, set{fmt.Sprintf("random-%d", n), xs, ys})
	}
	xs, ys := clustered(3000, [][2]float64{{2, 2}, {8.5, 3}, {4.5, 8.5}}, 0.8, 3)
	sets = append(sets, set{"clusters3-3000", xs, ys})
	xs, ys = clustered(3000, [][2]float64{{1, 1}, {9, 2}, {5, 5}, {2, 9}, {8, 8}}, 0.6, 5)
	sets = append(sets, set{"clusters5-3000", xs, ys})
	xs, ys = clustered(2950, [][2]float64{{0, 0}, {20, 0}}, 0.5, 2)
	sets = append(sets, set{"far2-2950", xs, ys})
	for _, s := range sets {
		b.Run(s.name, func(b *testing.B) {
			m, err := metric.Points(s.xs, s.ys)
			if err != nil {
				b.Fatal(err)
			}
			o := &optimal.Options{Gain: optimal.GainDistance}
			prior := make([]float64, len(s.xs))
			for i := range prior {
				prior[i] = 1 / float64(len(prior))
			}
			runtime.GC() // the sets before leave their garbage
			for b.Loop() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				_, err := optimal.Solve(ctx, m, 1, prior, o)
				cancel()
				if !errors.Is(err, run.ErrTooLarge) {
					b.Fatalf("not refused for memory: %v", err)
				}
			}
		})
	}
}

// clustered returns n points, the k-th about centres[k mod len(centres)]
// with independent normal offsets of deviation sigma (km), shuffled, from
// PCG(seed, seed+3).
func clustered(n int, centres [][2]float64, sigma float64, seed uint64) (xs, ys []float64) {
	rng := rand.New(rand.NewPCG(seed, seed+3))
	xs, ys = make([]float64, n), make([]float64, n)
	for k := range xs {
		c := centres[k%len(centres)]
		xs[k], ys[k] = c[0]+sigma*rng.NormFloat64(), c[1]+sigma*rng.NormFloat64()
	}
	rng.Shuffle(n, func(i, j int) { xs[i], xs[j], ys[i], ys[j] = xs[j], xs[i], ys[j], ys[i] })
	return xs, ys
}

package mech

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Refinement's fast "no" (docs/MATH.md §18.4). The dual of the refinement
// LP is
//
//	f(G) = Σ_{x,z} G[x][z] R[x][z] - Σ_y max_z (C^T G)[y][z],   |G| <= 1,
//
// and every G in the box gives f(G) <= Distance (weak duality). So a G with
// f(G) > 0 already proves that R is not a refinement of C, and n·G is then a
// witness gain: WitnessGap = V_g[u, R] - V_g[u, C] >= f(G) under the
// uniform prior u (guessing w = z after output z of R reaches Σ G∘R). The
// search maximises the smoothed dual
//
//	f_mu(G) = Σ G∘R - Σ_y mu·log Σ_z exp((C^T G)[y][z]/mu)  <=  f(G),
//
// whose gradient is R - C·P with P the row-wise softmax of C^T G / mu, by
// accelerated projected gradient ascent on the box (step mu/colmax, colmax
// the largest column sum of C, which bounds ||C||_2^2 since C's rows sum to
// 1), with mu halved every witnessStage iterations, keeping the G of the
// largest exact f(G), and stops after the first stage that found f(G) > Tol
// (so Distance is then a bound, not the optimum). Each iteration costs two n·m·k products; the search
// needs no tableau, so it also decides channels above the dense simplex's
// size limit. It proves only "no": a search that finds nothing leaves the
// decision to the LP.

// witnessIters and witnessStage bound the search: 8 stages of 60 iterations.
const (
	witnessIters = 480
	witnessStage = 60
)

// witnessSearch returns the box point G of the largest f(G) found, f(G),
// and the best response D (row y: the z maximising (C^T G)[y][z]) at it.
// It stops at the end of the first stage whose best f(G) exceeds stop.
func witnessSearch(ctx context.Context, c, r *mat.Dense, stop float64) (*mat.Dense, float64, *mat.Dense) {
	n, m := c.Dims()
	_, k := r.Dims()
	colmax := 0.0
	for y := 0; y < m; y++ {
		s := 0.0
		for x := 0; x < n; x++ {
			s += c.At(x, y)
		}
		colmax = math.Max(colmax, s)
	}
	g := mat.NewDense(n, k, nil)
	prev := mat.NewDense(n, k, nil)
	look := mat.NewDense(n, k, nil)
	best := mat.NewDense(n, k, nil)
	bestF := math.Inf(-1)
	var ctg, cp mat.Dense
	p := mat.NewDense(m, k, nil)
	// exact returns f at ctg = C^T G.
	exact := func(gm *mat.Dense) float64 {
		f := 0.0
		for x := 0; x < n; x++ {
			for z, v := range gm.RawRowView(x) {
				f += v * r.At(x, z)
			}
		}
		for y := 0; y < m; y++ {
			mx := math.Inf(-1)
			for _, v := range ctg.RawRowView(y) {
				mx = math.Max(mx, v)
			}
			f -= mx
		}
		return f
	}
	mu := 0.5
	t := 1.0
	for it := 0; it < witnessIters && ctx.Err() == nil; it++ {
		if it > 0 && it%witnessStage == 0 {
			if bestF > stop {
				break
			}
			mu /= 4
			t = 1
			look.Copy(g)
		}
		if it == 0 {
			look.Copy(g)
		}
		ctg.Mul(c.T(), look)
		if f := exact(look); f > bestF {
			bestF = f
			best.Copy(look)
		}
		// P = softmax rows of C^T G / mu.
		for y := 0; y < m; y++ {
			row, pr := ctg.RawRowView(y), p.RawRowView(y)
			mx := math.Inf(-1)
			for _, v := range row {
				mx = math.Max(mx, v)
			}
			s := 0.0
			for z, v := range row {
				pr[z] = math.Exp((v - mx) / mu)
				s += pr[z]
			}
			for z := range pr {
				pr[z] /= s
			}
		}
		cp.Mul(c, p)
		step := mu / math.Max(colmax, 1e-300)
		prev.Copy(g)
		for x := 0; x < n; x++ {
			gr, lr, cr := g.RawRowView(x), look.RawRowView(x), cp.RawRowView(x)
			for z := range gr {
				gr[z] = math.Max(-1, math.Min(1, lr[z]+step*(r.At(x, z)-cr[z])))
			}
		}
		// Nesterov extrapolation, projected back on the box.
		tn := (1 + math.Sqrt(1+4*t*t)) / 2
		beta := (t - 1) / tn
		t = tn
		for x := 0; x < n; x++ {
			gr, pr, lr := g.RawRowView(x), prev.RawRowView(x), look.RawRowView(x)
			for z := range gr {
				lr[z] = math.Max(-1, math.Min(1, gr[z]+beta*(gr[z]-pr[z])))
			}
		}
	}
	ctg.Mul(c.T(), g)
	if f := exact(g); f > bestF {
		bestF = f
		best.Copy(g)
	}
	ctg.Mul(c.T(), best)
	d := mat.NewDense(m, k, nil)
	for y := 0; y < m; y++ {
		arg := 0
		row := ctg.RawRowView(y)
		for z, v := range row {
			if v > row[arg] {
				arg = z
			}
		}
		d.Set(y, arg, 1)
	}
	return best, bestF, d
}

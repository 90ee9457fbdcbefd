package repro

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/mech/metric"

	"github.com/optdp/optdp/mech"
)

// leakageExperiment covers §5 of the dp-qif journal: the bound Bnd on the
// min-entropy leakage about databases (Theorem 15, Fig. 8), its tightness
// (Proposition 16, Example 17), the range-restricted bound (Proposition 20)
// and the bound for one individual (Proposition 21).
func leakageExperiment() Experiment {
	return Experiment{
		Name:  "leakage",
		Title: "Leakage bounds about databases: Bnd(u, v, eps), Example 17, the range bound and the individual bound",
		Paper: "dp-qif-leakage-journal §5.2–5.3: Theorem 15, Fig. 8, Proposition 16, Example 17, Proposition 20, Proposition 21",
		Claim: "Bnd(u,v,eps) = u log2(v e^eps/(v-1+e^eps)) bounds the leakage of every eps-DP mechanism and tends to u log2 v; " +
			"\"with u = 100, v = 2, and eps = 5, the min-entropy capacity can be as high as 99.03 bits, giving a posterior vulnerability " +
			"exceeding 1/2\". The bound is reached by K[x][z] = 2^Bnd/(v^u e^(eps d)); in Example 17 (u = 2, v = 3) its largest entry is " +
			"e^(2 eps)/(2+e^eps)^2. With range size r = v the bound becomes log2(v e^(eps u)/(v-1+e^(eps u))). For one individual with " +
			"v = 3 and eps = 1.35, the usual bound log2 e^eps ≈ 1.95 is corrected by log2(v/(v-1+e^eps)) ≈ -0.97, \"approximately 50% tighter\".",
		Run: runLeakage,
	}
}

func runLeakage(ctx context.Context, cfg *Config) (*Result, error) {
	r := newResult()
	// Fig. 8: Bnd against eps for several (u, v), and against u.
	type uv struct{ u, v int }
	configs := []uv{{10, 2}, {10, 10}, {50, 2}, {100, 2}}
	var epsGrid []float64
	for e := 0.1; e <= 8+1e-9; e += 0.1 {
		epsGrid = append(epsGrid, math.Round(e*10)/10)
	}
	var rows [][]string
	var ss []series
	for _, c := range configs {
		s := series{Name: fmt.Sprintf("u=%d, v=%d (limit u·log2 v = %.0f bits)", c.u, c.v, float64(c.u)*math.Log2(float64(c.v)))}
		for _, e := range epsGrid {
			b, err := mech.Bnd(c.u, c.v, e)
			if err != nil {
				return nil, err
			}
			s.X, s.Y = append(s.X, e), append(s.Y, b)
			rows = append(rows, []string{fmt.Sprint(c.u), fmt.Sprint(c.v), ff(e), ff(b)})
		}
		ss = append(ss, s)
	}
	if err := r.writeCSV(cfg, "leakage_bnd_eps.csv", []string{"u", "v", "eps", "bnd_bits"}, rows); err != nil {
		return nil, err
	}
	if err := r.linePlot(cfg, "leakage_bnd_eps", "Fig. 8: Bnd(u, v, eps) against eps", "eps", "leakage bound Bnd (bits)", ss, plotOpts{}); err != nil {
		return nil, err
	}
	rows, ss = nil, nil
	for _, e := range []float64{0.1, 0.5, 1, 5} {
		s := series{Name: fmt.Sprintf("v=2, eps=%g", e)}
		for u := 1; u <= 100; u++ {
			b, err := mech.Bnd(u, 2, e)
			if err != nil {
				return nil, err
			}
			s.X, s.Y = append(s.X, float64(u)), append(s.Y, b)
			rows = append(rows, []string{fmt.Sprint(u), "2", ff(e), ff(b)})
		}
		ss = append(ss, s)
	}
	if err := r.writeCSV(cfg, "leakage_bnd_u.csv", []string{"u", "v", "eps", "bnd_bits"}, rows); err != nil {
		return nil, err
	}
	if err := r.linePlot(cfg, "leakage_bnd_u", "Fig. 8: Bnd(u, 2, eps) against the number of individuals u", "u (individuals)", "leakage bound Bnd (bits)", ss, plotOpts{}); err != nil {
		return nil, err
	}
	b100, err := mech.Bnd(100, 2, 5)
	if err != nil {
		return nil, err
	}
	vuln := math.Exp2(b100 - 100) // posterior vulnerability = 2^Bnd · (prior vulnerability 2^-100)
	r.Values["bnd_100_2_5"], r.Values["posterior_vulnerability_100_2_5"] = b100, vuln
	r.md("| quantity | paper | optdp |\n|---|---:|---:|")
	r.md("| Bnd(100, 2, 5) | 99.03 bits | %.4f bits |", b100)
	r.md("| posterior vulnerability 2^(Bnd - 100) (uniform prior) | > 1/2 | %.4f |", vuln)
	if math.Abs(b100-99.03) > 0.005 {
		r.differ("Bnd(100,2,5): paper 99.03, optdp %.4f", b100)
	}
	// Example 17 and Proposition 16: the mechanism reaching Bnd.
	eps := 1.0
	k, err := mech.BndMechanism(2, 3, eps)
	if err != nil {
		return nil, err
	}
	h, err := metric.Hamming(2, 3)
	if err != nil {
		return nil, err
	}
	aud, err := mech.Audit(k, h, eps)
	if err != nil {
		return nil, err
	}
	leak, err := mech.Leakage(k, uniformPrior(9))
	if err != nil {
		return nil, err
	}
	b23, err := mech.Bnd(2, 3, eps)
	if err != nil {
		return nil, err
	}
	maxM := 0.0
	for i := 0; i < 9; i++ {
		for j := 0; j < 9; j++ {
			maxM = math.Max(maxM, k.At(i, j))
		}
	}
	want := math.Exp(2*eps) / math.Pow(2+math.Exp(eps), 2)
	r.Values["ex17_leakage_uniform"], r.Values["ex17_bnd"], r.Values["ex17_maxM"] = leak, b23, maxM
	r.md("| Example 17 (u=2, v=3, eps=1): largest entry max M | e^(2eps)/(2+e^eps)^2 = %.6f | %.6f |", want, maxM)
	r.md("| Example 17: leakage of K for the uniform prior | = Bnd(2,3,1) = %.6f | %.6f (DP audit: eps %.6g) |", b23, leak, aud.Eps)
	if math.Abs(maxM-want) > 1e-12 || math.Abs(leak-b23) > 1e-9 {
		r.differ("Example 17: max M %.6g vs %.6g, leakage %.6g vs Bnd %.6g", maxM, want, leak, b23)
	}
	// Proposition 21: one individual.
	ib, err := mech.IndividualBound(3, 1.35)
	if err != nil {
		return nil, err
	}
	usual := 1.35 / math.Ln2
	r.Values["individual_bound_v3_eps1.35"], r.Values["usual_bound_eps1.35"] = ib, usual
	r.md("| one individual, v=3, eps=1.35: usual bound log2 e^eps | ≈ 1.95 | %.4f |", usual)
	r.md("| correction log2(v/(v-1+e^eps)) | ≈ -0.97 | %.4f |", ib-usual)
	r.md("| Proposition 21 bound | ≈ 50%% tighter | %.4f bits (%.0f%% of the usual bound) |", ib, 100*ib/usual)
	// Proposition 20: range-restricted bound.
	u, v := 10, 2
	rows = nil
	var rb, bb, rr []float64
	for l := 1; l <= u; l++ {
		rs := int(math.Pow(float64(v), float64(l)))
		x, err := mech.RangeBound(u, v, rs, eps)
		if err != nil {
			return nil, err
		}
		b, _ := mech.Bnd(u, v, eps)
		rows = append(rows, []string{fmt.Sprint(u), fmt.Sprint(v), ff(eps), fmt.Sprint(rs), ff(x), ff(b), ff(math.Log2(float64(rs)))})
		rr, rb, bb = append(rr, float64(rs)), append(rb, x), append(bb, b)
	}
	if err := r.writeCSV(cfg, "leakage_range_bound.csv", []string{"u", "v", "eps", "range_r", "range_bound_bits", "bnd_bits", "log2_r"}, rows); err != nil {
		return nil, err
	}
	logr := make([]float64, len(rr))
	lx := make([]float64, len(rr))
	for i := range rr {
		logr[i] = math.Log2(rr[i])
		lx[i] = logr[i]
	}
	if err := r.linePlot(cfg, "leakage_range_bound", fmt.Sprintf("Proposition 20: leakage bound with range size r (u=%d, v=%d, eps=%g)", u, v, eps),
		"log2 r (r = size of the mechanism's range)", "leakage bound (bits)",
		[]series{{Name: "range bound (Prop. 20)", X: lx, Y: rb}, {Name: "Bnd (Thm. 15)", X: lx, Y: bb, Dashed: true}, {Name: "log2 r", X: lx, Y: logr, Dashed: true}}, plotOpts{}); err != nil {
		return nil, err
	}
	// r = v: closed form of the paper.
	rv, err := mech.RangeBound(u, v, v, eps)
	if err != nil {
		return nil, err
	}
	closed := math.Log2(float64(v) * math.Exp(eps*float64(u)) / (float64(v-1) + math.Exp(eps*float64(u))))
	r.Values["range_bound_r_eq_v"], r.Values["range_bound_r_eq_v_closed_form"] = rv, closed
	r.md("| range bound with r = v (u=%d, v=%d, eps=%g) | log2(v e^(eps u)/(v-1+e^(eps u))) = %.6f | %.6f (Bnd = %.4f) |", u, v, eps, closed, rv, bb[0])
	r.md("")
	r.md("Note: Proposition 20's bound is not always below Bnd — e.g. u=5, v=3, r=27, eps=1.1 gives %s bits against Bnd = %s bits — because the proof relaxes the constraints between the retained individuals; both are valid bounds, so their minimum is too.",
		fmtBits(mech.RangeBound(5, 3, 27, 1.1)), fmtBits(mech.Bnd(5, 3, 1.1)))
	return r, nil
}

func fmtBits(v float64, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("%.4f", v)
}

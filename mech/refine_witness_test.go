package mech

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// The witness search against the LP (a second algorithm) on random
// channels: whenever it answers No, the LP (Exact) also answers No, the
// search's Distance is at most the LP optimum (weak duality), and its gain
// separates the channels when recomputed by PostGVulnerability; on the
// pairs that are refinements (R = C·D) it never answers No.
func TestRefineWitnessAgreesWithLP(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(21, 22))
	fastNo := 0
	for trial := 0; trial < 40; trial++ {
		n, m, k := 2+rng.IntN(6), 2+rng.IntN(6), 2+rng.IntN(6)
		c, d := randStochastic(rng, n, m), randStochastic(rng, m, k)
		var cd mat.Dense
		cd.Mul(c, d)
		// c ⊑ c·d holds; c·d ⊑ c (usually) does not.
		for _, pair := range [][2]*mat.Dense{{c, &cd}, {&cd, c}} {
			fast, err := RefinedBy(ctx, pair[0], pair[1], nil)
			if err != nil {
				t.Fatal(err)
			}
			lp, err := RefinedBy(ctx, pair[0], pair[1], &RefineOptions{Exact: true})
			if err != nil {
				t.Fatal(err)
			}
			if pair[0] == c && fast.Verdict == run.No {
				t.Fatalf("trial %d: c ⊑ c·d answered No (distance %v)", trial, fast.Distance)
			}
			if !fast.DistanceBound {
				continue
			}
			fastNo++
			if fast.Verdict != run.No || lp.Verdict != run.No {
				t.Fatalf("trial %d: witness verdict %s, LP verdict %s", trial, fast.Verdict, lp.Verdict)
			}
			if fast.Distance > lp.Distance+1e-9 {
				t.Errorf("trial %d: witness bound %v above the LP optimum %v", trial, fast.Distance, lp.Distance)
			}
			u := make([]float64, n)
			for i := range u {
				u[i] = 1 / float64(n)
			}
			vr, _ := PostGVulnerability(pair[1], u, fast.Gain)
			vc, _ := PostGVulnerability(pair[0], u, fast.Gain)
			if !(vr-vc > 1e-9) || vr-vc < fast.Distance-1e-9 {
				t.Errorf("trial %d: gain separates by %v, bound %v", trial, vr-vc, fast.Distance)
			}
		}
	}
	if fastNo < 10 {
		t.Errorf("the witness search decided only %d of the No cases", fastNo)
	}
}

// Above the dense simplex's limit (n·k + m > 2000 rows) a clear No is still
// decided by the witness search, while a case it cannot decide (a
// refinement whose C is not of full column rank) is refused as too large.
func TestRefineWitnessAboveLPLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 60
	c, d := randStochastic(rng, n, n), randStochastic(rng, n, n)
	var cd mat.Dense
	cd.Mul(c, d)
	ref, err := RefinedBy(context.Background(), &cd, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Verdict != run.No || !ref.DistanceBound {
		t.Fatalf("verdict %s (bound %v)", ref.Verdict, ref.DistanceBound)
	}
	u := make([]float64, n)
	for i := range u {
		u[i] = 1 / float64(n)
	}
	vr, _ := PostGVulnerability(c, u, ref.Gain)
	vc, _ := PostGVulnerability(&cd, u, ref.Gain)
	if !(vr-vc > 1e-9) {
		t.Errorf("witness does not separate: %v", vr-vc)
	}
	// C with two equal columns (rank deficient) refined by C·D: a Yes that
	// needs the LP, which is too large here.
	c2 := mat.DenseCopyOf(c)
	for x := 0; x < n; x++ {
		v := (c2.At(x, 0) + c2.At(x, 1)) / 2
		c2.Set(x, 0, v)
		c2.Set(x, 1, v)
	}
	var c2d mat.Dense
	c2d.Mul(c2, d)
	if _, err := RefinedBy(context.Background(), c2, &c2d, nil); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("rank-deficient refinement above the limit: %v, want ErrTooLarge", err)
	}
}

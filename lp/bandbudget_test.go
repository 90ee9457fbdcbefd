package lp

import (
	"errors"
	"strings"
	"testing"

	"github.com/optdp/optdp/run"
)

// TestBandBudget checks the sparse mode's memory rule for the QR
// fallback's banded factors: the reserve and the limit of bandBudget by
// hand, and that factor, with every column forced to QR, allocates no
// more bands than the limit and then stops with run.ErrTooLarge, while an
// unlimited budget lets every column have its band.
func TestBandBudget(t *testing.T) {
	const band = 1000.0
	// 36 columns: a reserve of ceil(36/16) = 3 bands.
	need, limit, _ := bandBudget(run.Budget(50000), 20000, band, 36)
	if need != 23000 || limit != 30 {
		t.Fatalf("need %g, limit %d; want 23000 and 30 = (50000-20000)/1000", need, limit)
	}
	if _, limit, _ := bandBudget(run.Unlimited, 20000, band, 36); limit < 1<<62 {
		t.Fatalf("no budget: limit %d, want unlimited", limit)
	}

	p, _ := manhattanProblem(t, 6, 0.5, 7)
	o := (&Options{}).withDefaults()
	factorQR := func(budget run.Budget) (*ipm, error) {
		perm, sym := mustFillReducing(p.graph())
		s := sparseIPM(p, perm, sym, 2)
		bytes := 8 * float64(s.n) * float64(s.rpairs.bandwidth()+1)
		_, limit, needs := bandBudget(budget, 0, bytes, s.m)
		s.bandCap.Store(limit)
		s.bandNeed = needs
		s.pcg = s.newSchurPCG(o)
		s.start()
		s.residuals()
		s.useQR = true
		return s, s.factor()
	}
	bytes := 8 * float64(p.N) * float64(rcmBandwidth(p)+1)
	s, err := factorQR(run.Budget(5.5 * bytes))
	if !errors.Is(err, run.ErrTooLarge) || !strings.Contains(err.Error(), "QR fallback of 6 of the 36 columns") {
		t.Fatalf("room for 5 bands: err = %v, want run.ErrTooLarge for the 6th", err)
	}
	if got := s.bands.Load(); got != 5 {
		t.Fatalf("room for 5 bands: %d allocated", got)
	}
	s, err = factorQR(run.Unlimited)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.bands.Load(); got != int64(p.M) {
		t.Fatalf("no budget: %d bands allocated, want one per column (%d)", got, p.M)
	}
}

// rcmBandwidth is the bandwidth of p in its reverse Cuthill–McKee order,
// the banded fallback's.
func rcmBandwidth(p *Problem) int { return permuted(p, mustRCM(p.graph())).bandwidth() }

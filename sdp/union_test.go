package sdp

import (
	"errors"
	"math"
	"testing"

	"github.com/optdp/optdp/run"
)

// TestUnionSplitBruteForce checks the closed forms of UnionSplit against a
// scan of the budget simplex: no grid point has a smaller error, and the
// best grid point is within the grid's resolution of the closed form.
func TestUnionSplitBruteForce(t *testing.T) {
	cases := [][]float64{{1, 8}, {3, 0.5, 7}, {2, 2, 2}, {100, 1, 0.01}}
	for _, errs := range cases {
		for _, p := range []int{1, 2} {
			beta, total, err := UnionSplit(errs, p)
			if err != nil {
				t.Fatal(err)
			}
			v, err := UnionError(errs, beta, p)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(v-total) > 1e-12*total {
				t.Errorf("%v p=%d: UnionError at the split %v, closed form %v", errs, p, v, total)
			}
			// Scan the shares s_g (β_g for p = 1, β_g² for p = 2) on a grid.
			const steps = 2000
			best := math.Inf(1)
			eval := func(s []float64) {
				e := 0.0
				for g, sg := range s {
					if sg <= 0 {
						return
					}
					b2 := sg * sg // β_g² for p = 1
					if p == 2 {
						b2 = sg
					}
					e += errs[g] / b2
				}
				if e < total*(1-1e-12) {
					t.Errorf("%v p=%d: shares %v give %v below the closed form %v", errs, p, s, e, total)
				}
				best = math.Min(best, e)
			}
			if len(errs) == 2 {
				for i := 1; i < steps; i++ {
					eval([]float64{float64(i) / steps, 1 - float64(i)/steps})
				}
			} else {
				for i := 1; i < steps; i++ {
					for j := 1; i+j < steps; j++ {
						eval([]float64{float64(i) / steps, float64(j) / steps, 1 - float64(i+j)/steps})
					}
				}
			}
			if rel := (best - total) / total; rel > 2e-3 {
				t.Errorf("%v p=%d: best grid point %v, closed form %v (relative %v)", errs, p, best, total, rel)
			}
		}
	}
}

// TestUnionSplitKnown checks two values by hand: errors 1 and 8 give
// (1 + 2)³ = 27 under L1 with β = (1/3, 2/3), and (1 + 2√2)² under L2.
func TestUnionSplitKnown(t *testing.T) {
	beta, total, err := UnionSplit([]float64{1, 8}, 1)
	if err != nil || math.Abs(total-27) > 1e-12 || math.Abs(beta[0]-1.0/3) > 1e-15 || math.Abs(beta[1]-2.0/3) > 1e-15 {
		t.Errorf("L1: %v %v %v, want β = (1/3, 2/3), 27", beta, total, err)
	}
	want := (1 + 2*math.Sqrt2) * (1 + 2*math.Sqrt2)
	if _, total, err = UnionSplit([]float64{1, 8}, 2); err != nil || math.Abs(total-want) > 1e-12*want {
		t.Errorf("L2: %v %v, want %v", total, err, want)
	}
}

func TestUnionSplitBadInput(t *testing.T) {
	for _, errs := range [][]float64{nil, {0, 1}, {math.Inf(1)}, {math.NaN()}, {-1}} {
		if _, _, err := UnionSplit(errs, 1); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("%v: err %v, want run.ErrBadInput", errs, err)
		}
	}
	if _, _, err := UnionSplit([]float64{1}, 3); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("p = 3: err %v", err)
	}
	if _, err := UnionError([]float64{1, 1}, []float64{0.6, 0.6}, 1); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("overspent budget: err %v", err)
	}
}

package run

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestBudgetCheck(t *testing.T) {
	var b Budget // zero: the default 4 GiB
	if b.Bytes() != 4<<30 {
		t.Fatalf("zero budget = %d bytes, want 4 GiB", b.Bytes())
	}
	if err := b.Check("phi", 4<<30, ""); err != nil {
		t.Fatalf("exactly the budget refused: %v", err)
	}
	err := b.Check("phi of line:n=30000", DenseBytes(30000, 30000, 1), "use a structured solver")
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over budget: %v, want ErrTooLarge", err)
	}
	// 8·30000² bytes = 6.7 GiB.
	for _, want := range []string{"phi of line:n=30000", "6.7 GiB", "4.0 GiB", "use a structured solver"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	// Unlimited: 2^63 − 1 bytes, so 8 EiB (2^63 > 1e18) fits and an
	// estimate no allocation could meet does not.
	if err := Unlimited.Check("x", 1e18, ""); err != nil || Unlimited.Validate() != nil {
		t.Errorf("Unlimited refused 1e18 bytes: %v", err)
	}
	if err := Unlimited.Check("x", 1e300, ""); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Unlimited.Check(1e300) = %v, want ErrTooLarge", err)
	}
	if err := Budget(100).Check("x", 101, ""); err == nil {
		t.Errorf("101 bytes fit a 100-byte budget")
	}
}

// TestNegativeBudget: a negative budget is an error wrapping ErrBadInput
// (not ErrTooLarge) from Validate, Check and CheckDense whatever the
// estimate, and Bytes gives 0 (nothing fits) rather than no limit.
// TestBudgetLess: the budget left is the bytes less those held (the
// default resolved first), at least 1 byte; Unlimited and an invalid
// budget pass through.
func TestBudgetLess(t *testing.T) {
	for _, c := range []struct {
		b    Budget
		held float64
		want Budget
	}{
		{8 << 30, 3 << 30, 5 << 30},
		{0, 1 << 30, 3 << 30},
		{1 << 20, 1 << 20, 1},
		{1 << 20, 1e30, 1},
		{1 << 20, math.NaN(), 1},
		{Unlimited, 1e18, Unlimited},
		{-5, 1, -5},
	} {
		if got := c.b.Less(c.held); got != c.want {
			t.Errorf("Budget(%d).Less(%g) = %d, want %d", c.b, c.held, got, c.want)
		}
	}
}

func TestNegativeBudget(t *testing.T) {
	for _, b := range []Budget{-1, -4 << 30, -1 << 63} {
		for name, err := range map[string]error{
			"Validate":   b.Validate(),
			"Check":      b.Check("phi", 0, ""),
			"Check 1e30": b.Check("phi", 1e30, "advice"),
			"CheckDense": b.CheckDense("phi", 1, 1, ""),
		} {
			if !errors.Is(err, ErrBadInput) || errors.Is(err, ErrTooLarge) {
				t.Errorf("Budget(%d).%s = %v, want ErrBadInput only", b, name, err)
				continue
			}
			for _, want := range []string{"negative", "run.Unlimited"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Budget(%d).%s: message %q lacks %q", b, name, err, want)
				}
			}
		}
		if b.Bytes() != 0 || b.Fits(0) {
			t.Errorf("Budget(%d): Bytes() = %d, Fits(0) = %v; want 0 and false", b, b.Bytes(), b.Fits(0))
		}
	}
	if err := Budget(0).Validate(); err != nil {
		t.Errorf("the default budget is invalid: %v", err)
	}
}

func TestFormatBytes(t *testing.T) {
	for _, c := range []struct {
		b    float64
		want string
	}{{0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {1536 << 20, "1.5 GiB"}, {math.Ldexp(1, 60), "1.0 EiB"}, {math.Ldexp(1, 70), "1024.0 EiB"}, {math.Ldexp(1, 80), "1.05e+06 EiB"}} {
		t.Run(c.want, func(t *testing.T) {
			if got := FormatBytes(c.b); got != c.want {
				t.Errorf("FormatBytes(%g) = %q, want %q", c.b, got, c.want)
			}
		})
	}
}

func TestSettingsReport(t *testing.T) {
	var nilSettings *Settings
	nilSettings.Report(NewProgress("x")) // must not panic
	var got []Progress
	s := &Settings{Progress: func(p Progress) { got = append(got, p) }}
	p := NewProgress("ipm")
	p.Iter = 3
	s.Report(p)
	if len(got) != 1 || got[0].Stage != "ipm" || got[0].Iter != 3 || !math.IsNaN(got[0].Gap) {
		t.Fatalf("reports = %+v", got)
	}
}

func TestBadInputf(t *testing.T) {
	err := BadInputf("eps must be > 0, got %v", -1.0)
	if !errors.Is(err, ErrBadInput) || err.Error() != "eps must be > 0, got -1" {
		t.Fatalf("BadInputf: %q, Is(ErrBadInput) = %v", err, errors.Is(err, ErrBadInput))
	}
	inner := errors.New("inner")
	if w := BadInputf("wrap: %w", inner); !errors.Is(w, inner) || !errors.Is(w, ErrBadInput) {
		t.Fatalf("BadInputf does not wrap its %%w argument: %v", w)
	}
}

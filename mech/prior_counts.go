package mech

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/optdp/optdp/run"
)

// PriorFromCounts builds a prior on n answers from a file of n counts (or
// weights), one per answer in answer order: finite numbers >= 0 separated
// by commas, semicolons, tabs, blanks or newlines; blank lines and #
// comments are skipped. The prior is
//
//	prior_i = (count_i + a) / (sum_i count_i + a·n),   a = opts.Pseudo,
//
// which needs a positive total. A file with more or fewer than n counts is
// an error that says how many it holds (run.ErrBadInput); the input is
// bounded (opts.MaxBytes, lines of 1 MiB) and n by MaxDenseEntries.
func PriorFromCounts(r io.Reader, n int, opts *MapPriorOptions) ([]float64, error) {
	var o MapPriorOptions
	if opts != nil {
		o = *opts
	}
	if n < 1 || n > MaxDenseEntries {
		return nil, fmt.Errorf("mech: counts prior: %d answers, want 1..%d: %w", n, MaxDenseEntries, run.ErrTooLarge)
	}
	if !finite(o.Pseudo) || o.Pseudo < 0 {
		return nil, run.BadInputf("counts prior: pseudo-count %v: want a finite number >= 0", o.Pseudo)
	}
	if o.MaxBytes < 0 {
		return nil, run.BadInputf("counts prior: MaxBytes %d: want >= 0", o.MaxBytes)
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = 256 << 20
	}
	if err := o.Budget.Check(fmt.Sprintf("a prior on %d answers", n), 16*float64(n), "use fewer locations"); err != nil {
		return nil, err
	}
	counts := make([]float64, 0, n)
	sc, lr := limitedLines(r, o.MaxBytes)
	ln, total := 0, 0
	for sc.Scan() && !lr.over {
		ln++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, s := range splitFields(line) {
			total++
			if total > n {
				return nil, run.BadInputf("counts prior: line %d: more than n = %d counts (one per answer)", ln, n)
			}
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || !finite(x) || x < 0 {
				return nil, run.BadInputf("counts prior: line %d: %.40q is not a finite count >= 0", ln, s)
			}
			counts = append(counts, x)
		}
	}
	if err := sc.Err(); err != nil || lr.over {
		return nil, fmt.Errorf("counts prior: %w", scanErr(err, lr, o.MaxBytes, ln))
	}
	if len(counts) != n {
		return nil, run.BadInputf("counts prior: %d counts, want n = %d (one per answer)", len(counts), n)
	}
	p, err := normalise(counts, o.Pseudo)
	if err != nil {
		return nil, fmt.Errorf("counts prior: %w", err)
	}
	return p, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/optdp/optdp/mech/linear"
)

func answerCommand() command {
	return command{
		name:    "answer",
		summary: "answer a workload of linear queries privately with the matrix mechanism",
		usage:   "--workload WSPEC --strategy SSPEC --eps E [--delta D] (--data FILE | --records FILE) [--seed S] [--json]",
		examples: []string{
			"optdp answer --workload allrange:n=8 --strategy hier:b=2 --eps 1 --data counts.csv",
			"optdp answer --workload prefix:n=4 --strategy wavelet --eps 0.5 --data counts.csv --seed 7 --json",
			"optdp answer --workload allrange:n=8 --strategy hier:b=2 --eps 1 --delta 1e-6 --data counts.csv",
			"optdp answer --workload file:w.json --strategy opt --eps 1 --records people.csv",
			"optdp answer --workload marginals:dims=10^20,k=3 --strategy residual:loss=max --eps 1 --delta 1e-6 --records people.csv",
		},
		run: runAnswer,
	}
}

// answerResult is the JSON output of optdp answer.
type answerResult struct {
	Workload string       `json:"workload"`
	Strategy string       `json:"strategy"`
	M        int          `json:"m"`
	N        int          `json:"n"`
	P        int          `json:"p"`
	Eps      float64      `json:"eps"`
	Noise    linear.Noise `json:"noise"`
	Grid     float64      `json:"grid"`
	Seeded   bool         `json:"seeded"`
	// ExpectedTSE and ExpectedRMSE are the exact expected errors of the
	// answers (they do not depend on the data).
	ExpectedTSE  float64   `json:"expected_tse"`
	ExpectedRMSE float64   `json:"expected_rmse"`
	Answers      []float64 `json:"answers"`
}

func runAnswer(env *runEnv, args []string) error {
	fs := newFlags(env, "answer")
	mf := addMatrixFlags(fs)
	data := fs.String("data", "", "CSV file of the n integer counts (any layout: read in order)")
	records := fs.String("records", "", "CSV file of data records, one per line, one integer value per attribute (a header line names the columns after the workload's attributes; without one the columns are the attributes in order); counted into the histogram")
	delta := fs.Float64("delta", 0, "use (eps, delta)-DP discrete Gaussian noise (zCDP calibration); delta in (0, 1)")
	seed := fs.Uint64("seed", 0, "seed a deterministic generator instead of crypto/rand (experiments only: the noise becomes predictable)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	given := flagsGiven(fs)
	if given["data"] == given["records"] {
		return usagef("give one of --data and --records")
	}
	src := linear.CryptoSource()
	seeded := given["seed"]
	if seeded {
		fmt.Fprintln(env.stderr, "optdp answer: warning: --seed makes the noise predictable; use it for experiments only, never for a real release")
		src = linear.SeededSource(*seed)
	}
	if sp, err := linear.SplitSpec(*mf.strategy); err == nil && sp.Kind == "residual" {
		return runMarginalAnswer(env, fs, mf, sp, *delta, *records, src, seeded, *asJSON)
	}
	w, a, err := mf.build(fs)
	if err != nil {
		return err
	}
	var x []float64
	_, n := w.Dims()
	if given["records"] {
		_, attrs, err := parseWorkloadAttrs(*mf.workload)
		if err != nil {
			return err
		}
		f, err := openBounded(*records, linear.MaxMatrixBytes)
		if err != nil {
			return dataError{fmt.Errorf("records file: %w", err)}
		}
		defer f.Close()
		// An error in the records is the data saying no (exit 1), not the
		// command line.
		if x, err = linear.Histogram(attrs, f, 0); err != nil {
			return dataError{fmt.Errorf("records file %s: %w", *records, err)}
		}
	} else {
		if x, err = readCounts(*data, n); err != nil {
			return dataError{fmt.Errorf("data file %s: %w", *data, err)}
		}
	}
	if len(x) != n {
		return dataError{fmt.Errorf("data file %s has %d counts, the workload's domain has n = %d", *data, len(x), n)}
	}
	var rel *linear.Release
	if flagsGiven(fs)["delta"] {
		rel, err = linear.AnswerGaussian(w, a, x, *mf.eps, *delta, src)
	} else {
		rel, err = linear.Answer(w, a, x, *mf.eps, src)
	}
	if err != nil {
		return fileSpecError(err, *mf.workload, *mf.strategy)
	}
	e := rel.Expected
	res := answerResult{Workload: e.Workload, Strategy: e.Strategy, M: e.M, N: e.N, P: e.P, Eps: *mf.eps,
		Noise: rel.Noise, Grid: rel.Grid, Seeded: seeded, ExpectedTSE: e.TSE, ExpectedRMSE: e.RMSE, Answers: rel.Answers}
	if *asJSON {
		return writeJSON(env.stdout, res)
	}
	out := env.stdout
	fmt.Fprintf(out, "# workload %s (m = %d), strategy %s (p = %d), eps = %g\n", res.Workload, res.M, res.Strategy, res.P, res.Eps)
	fmt.Fprintf(out, "# noise: exact %s, sensitivity %.6g, scale %.6g, grid %.3g; expected RMSE %.6g per query\n",
		res.Noise.Mechanism, res.Noise.Sensitivity, res.Noise.Scale, res.Grid, res.ExpectedRMSE)
	// One line per query: its index in the workload (0-based, the row of
	// W) and the private answer, in the shortest form that reads back as
	// the same float64.
	fmt.Fprintf(out, "%-7s %s\n", "# query", "answer")
	for k, v := range res.Answers {
		fmt.Fprintf(out, "%-7d %s\n", k, fmtFloat(v))
	}
	return nil
}

// maxCount is the largest count --data accepts: 2^53, the largest integer
// up to which every integer is a float64, so that each count is carried
// exactly.
const maxCount = 1 << 53

// readCounts reads the n counts of --data: integers >= 0 and <= 2^53,
// separated by commas, semicolons, blanks or newlines (lines starting with
// # are comments), parsed exactly (9007199254740993 is refused, not rounded
// to 2^53). The reader is bounded: a line over maxCSVLine bytes or a count
// beyond the n-th stops it, so a device or an endless pipe cannot grow its
// buffer.
func readCounts(path string, n int) ([]float64, error) {
	f, err := openBounded(path, linear.MaxMatrixBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	x := make([]float64, 0, min(n, 1<<20))
	var buf []byte
	for ln := 1; ; ln++ {
		raw, err := readLine(br, buf, maxCSVLine)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", ln, err)
		}
		buf = raw[:0]
		line := strings.TrimSpace(string(raw))
		if line == "" || line[0] == '#' {
			continue
		}
		for _, t := range strings.FieldsFunc(line, func(r rune) bool {
			return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\r'
		}) {
			v, err := parseCount(t)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", ln, err)
			}
			if len(x) == n {
				return nil, fmt.Errorf("line %d: more than the n = %d counts of the workload's domain", ln, n)
			}
			x = append(x, v)
		}
	}
	if len(x) == 0 {
		return nil, errors.New("no counts")
	}
	return x, nil
}

// parseCount parses one count exactly: an integer in [0, 2^53] (written as
// an integer, or as a number with an integral value below 2^53, e.g. 3.0).
func parseCount(t string) (float64, error) {
	if i, err := strconv.ParseInt(t, 10, 64); err == nil {
		if i < 0 {
			return 0, fmt.Errorf("count %s is negative (counts are >= 0)", t)
		}
		if i > maxCount {
			return 0, fmt.Errorf("count %s is above 2^53 = %d, the largest count carried exactly", t, int64(maxCount))
		}
		return float64(i), nil
	} else if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("count %s is out of range (counts are integers in [0, 2^53])", t)
	}
	v, err := strconv.ParseFloat(t, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("%q is not a number", t)
	case math.IsNaN(v) || v != math.Trunc(v):
		return 0, fmt.Errorf("count %s is not an integer", t)
	case v < 0:
		return 0, fmt.Errorf("count %s is negative (counts are >= 0)", t)
	case v >= maxCount:
		return 0, fmt.Errorf("count %s is not below 2^53 = %d: write it as an integer (counts up to 2^53 are carried exactly)", t, int64(maxCount))
	}
	return v, nil
}

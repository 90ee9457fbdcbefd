package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/mech/linear/tables"
	runpkg "github.com/optdp/optdp/run"
)

func answerCommand() command {
	return command{
		name:    "answer",
		summary: "answer a workload of linear queries privately with the matrix mechanism",
		usage:   "--workload WSPEC --strategy SSPEC --eps E [--delta D] (--data FILE | --records FILE | --histogram FILE) [--format csv|parquet] [--count-column NAME] [--seed S] [--json | --csv] [--progress]",
		examples: []string{
			"optdp answer --workload allrange:n=8 --strategy hier:b=2 --eps 1 --data counts.csv",
			"optdp answer --workload prefix:n=4 --strategy wavelet --eps 0.5 --data counts.csv --seed 7 --json",
			"optdp answer --workload allrange:n=8 --strategy hier:b=2 --eps 1 --delta 1e-6 --data counts.csv",
			"optdp answer --workload file:w.json --strategy opt --eps 1 --records people.csv",
			"optdp answer --workload marginals:dims=10^20,k=3 --strategy residual:loss=max --eps 1 --delta 1e-6 --records people.csv",
			"optdp answer --workload marginals:dims=10^20,k=3 --strategy residual --eps 1 --delta 1e-6 --histogram counts.parquet --csv",
			"optdp answer --workload file:w.json --strategy opt --eps 1 --records people.parquet",
			"optdp answer --workload file:w.json --strategy opt --eps 1 --histogram counts.parquet --count-column n",
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
	// Labels names the cells each answer sums (linear.Labels).
	Labels []string `json:"labels"`
}

func runAnswer(env *runEnv, args []string) error {
	fs := newFlags(env, "answer")
	mf := addMatrixFlags(fs)
	data := fs.String("data", "", "CSV file of the n integer counts (any layout: read in order)")
	records := fs.String("records", "", "CSV or Parquet file (or a directory of parts, summed: Spark's and BigQuery's output) of data records, one row per individual, one integer value per attribute (a CSV header or the Parquet schema names the columns after the workload's attributes; a CSV without a header has the attributes in order); counted into the histogram in one streaming pass (with --strategy residual: kept as rows, 4 bytes per attribute and row, never counted into the domain)")
	histogram := fs.String("histogram", "", "CSV or Parquet file (or a directory of parts) of a histogram: the attribute columns and a count column (the output of SELECT attrs..., count(*) AS count ... GROUP BY attrs...); rows of the same cell are summed (with --strategy residual: kept as rows with their counts, the total at most 2^53)")
	format := fs.String("format", "", "format of --records/--histogram: csv or parquet (default: from the extension, .csv/.tsv/.txt or .parquet/.pq, else from the file's first bytes)")
	countColumn := fs.String("count-column", tables.DefaultCountColumn, "name of --histogram's count column")
	progressFlag := fs.Bool("progress", false, "show the counting's progress on stderr even with --json")
	delta := fs.Float64("delta", 0, "use (eps, delta)-DP discrete Gaussian noise (zCDP calibration); delta in (0, 1)")
	seed := fs.Uint64("seed", 0, "seed a deterministic generator instead of crypto/rand (experiments only: the noise becomes predictable)")
	asJSON := fs.Bool("json", false, "print JSON")
	asCSV := fs.Bool("csv", false, "print CSV: a header, then query,label,answer per query")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	given := flagsGiven(fs)
	if n := btoi(given["data"]) + btoi(given["records"]) + btoi(given["histogram"]); n != 1 {
		return usagef("give one of --data, --records and --histogram")
	}
	fmtTable, err := tables.ParseFormat(*format)
	if err != nil {
		return usagef("--format: %v", err)
	}
	if given["data"] && (given["format"] || given["count-column"]) {
		return usagef("--format and --count-column apply to --records and --histogram")
	}
	if given["records"] && given["count-column"] {
		return usagef("--count-column applies to --histogram (records have no count)")
	}
	src := linear.CryptoSource()
	seeded := given["seed"]
	if seeded {
		fmt.Fprintln(env.stderr, "optdp answer: warning: --seed makes the noise predictable; use it for experiments only, never for a real release")
		src = linear.SeededSource(*seed)
	}
	if *asJSON && *asCSV {
		return usagef("give one of --json and --csv")
	}
	// The table of --records or --histogram and how to read it.
	tab := tableSource{path: *records, opts: &tables.Options{Kind: tables.Records, Format: fmtTable}}
	if given["histogram"] {
		tab.path, tab.opts.Kind, tab.opts.CountColumn = *histogram, tables.Histogram, *countColumn
	}
	if sp, err := linear.SplitSpec(*mf.strategy); err == nil && sp.Kind == "residual" {
		if given["data"] {
			return usagef("--strategy residual reads --records or --histogram (the marginals are counted from the rows, never the full histogram), not --data")
		}
		out := answerOutput{json: *asJSON, csv: *asCSV, progress: progressEnabled(*asJSON, *progressFlag)}
		return runMarginalAnswer(env, fs, mf, sp, *delta, tab, src, seeded, out)
	}
	w, a, err := mf.build(fs)
	if err != nil {
		return err
	}
	var x []float64
	_, n := w.Dims()
	_, attrs, err := parseWorkloadAttrs(*mf.workload)
	if err != nil {
		return err
	}
	if given["records"] || given["histogram"] {
		path, opts := tab.path, tab.opts
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		bar := newProgress(env, "answer: counting "+opts.Kind.String(), progressEnabled(*asJSON, *progressFlag))
		opts.Progress = tableProgress(bar)
		res, err := tables.Count(ctx, attrs, path, opts)
		bar.Done()
		// An error in the table is the data saying no (exit 1), not the
		// command line.
		if err != nil {
			return dataError{fmt.Errorf("%s file %s: %w", opts.Kind, path, err)}
		}
		x = res.X
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
	labels, err := linear.Labels(w, attrs, 0)
	if err != nil {
		// The file's attributes do not fit the workload's shape: name them
		// after the shape.
		if labels, err = linear.Labels(w, nil, 0); err != nil {
			return err
		}
	}
	res := answerResult{Workload: e.Workload, Strategy: e.Strategy, M: e.M, N: e.N, P: e.P, Eps: *mf.eps,
		Noise: rel.Noise, Grid: rel.Grid, Seeded: seeded, ExpectedTSE: e.TSE, ExpectedRMSE: e.RMSE, Answers: rel.Answers,
		Labels: labels}
	if *asJSON {
		return writeJSON(env.stdout, res)
	}
	if *asCSV {
		cw := csv.NewWriter(env.stdout)
		cw.Write([]string{"query", "label", "answer"})
		for k, v := range res.Answers {
			cw.Write([]string{strconv.Itoa(k), res.Labels[k], fmtFloat(v)})
		}
		cw.Flush()
		return cw.Error()
	}
	out := env.stdout
	fmt.Fprintf(out, "# workload %s (m = %d), strategy %s (p = %d), eps = %g\n", res.Workload, res.M, res.Strategy, res.P, res.Eps)
	fmt.Fprintf(out, "# noise: exact %s, sensitivity %.6g, scale %.6g, grid %.3g; expected RMSE %.6g per query\n",
		res.Noise.Mechanism, res.Noise.Sensitivity, res.Noise.Scale, res.Grid, res.ExpectedRMSE)
	// One line per query: its index in the workload (0-based, the row of
	// W), the private answer, in the shortest form that reads back as the
	// same float64, and its label (which may hold blanks: it ends the line).
	fmt.Fprintf(out, "%-7s %-24s %s\n", "# query", "answer", "label")
	for k, v := range res.Answers {
		fmt.Fprintf(out, "%-7d %-24s %s\n", k, fmtFloat(v), res.Labels[k])
	}
	return nil
}

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
			v, err := tables.ParseCount(t)
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

// tableSource is the table of --records or --histogram: its path and the
// options of package tables (kind, format, count column).
type tableSource struct {
	path string
	opts *tables.Options
}

// answerOutput holds optdp answer's output flags: --json, --csv, and
// whether progress is shown.
type answerOutput struct {
	json, csv, progress bool
}

// tableProgress reports a table's reading on bar (the fraction read, the
// rows so far).
func tableProgress(bar *progress) func(runpkg.Progress) {
	return func(p runpkg.Progress) {
		frac := -1.0
		if !math.IsNaN(p.Frac) {
			frac = p.Frac
		}
		bar.Update(frac, p.Message)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

package main

import (
	"fmt"
	"os"

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
	w, a, err := mf.build(fs)
	if err != nil {
		return err
	}
	var x []float64
	if given["records"] {
		_, attrs, err := parseWorkloadAttrs(*mf.workload)
		if err != nil {
			return err
		}
		f, err := os.Open(*records)
		if err != nil {
			return fmt.Errorf("records file: %w", err)
		}
		defer f.Close()
		if x, err = linear.Histogram(attrs, f, 0); err != nil {
			return fmt.Errorf("records file %s: %w", *records, err)
		}
	} else {
		f, err := os.Open(*data)
		if err != nil {
			return fmt.Errorf("data file: %w", err)
		}
		defer f.Close()
		xm, err := linear.ReadMatrix(f)
		if err != nil {
			return fmt.Errorf("data file %s: %w", *data, err)
		}
		x = xm.RawMatrix().Data
	}
	if _, n := w.Dims(); len(x) != n {
		return fmt.Errorf("data file %s has %d counts, the workload's domain has n = %d", *data, len(x), n)
	}
	src := linear.CryptoSource()
	seeded := flagsGiven(fs)["seed"]
	if seeded {
		fmt.Fprintln(env.stderr, "optdp answer: warning: --seed makes the noise predictable; use it for experiments only, never for a real release")
		src = linear.SeededSource(*seed)
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

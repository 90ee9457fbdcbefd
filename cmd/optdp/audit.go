package main

import (
	"fmt"

	"github.com/optdp/optdp/mech/metric"

	"github.com/optdp/optdp/mech"
	"gonum.org/v1/gonum/mat"
)

func auditCommand() command {
	return command{
		name:    "audit",
		summary: "measure the privacy level of a noise matrix (CSV or .npy) against a metric",
		usage:   "--metric SPEC --eps E --matrix FILE [--progress] [--json]   (exit code 3 when the matrix is not private)",
		examples: []string{
			"optdp tight --metric line:n=6 --eps 0.7 --out x.csv && optdp audit --metric line:n=6 --eps 0.7 --matrix x.csv",
			"optdp audit --metric grid:w=5,h=5,step=1 --eps 0.5 --matrix planar.npy --json",
		},
		fields: auditFields,
		run:    runAudit,
	}
}

// auditFields documents the JSON output of optdp audit.
var auditFields = []string{
	"metric     the metric spec, normalised",
	"n          number of true answers (rows of the matrix)",
	"outputs    number of outputs (columns)",
	"eps        the privacy level checked against (--eps)",
	"audit_eps  the measured level: max over the pairs checked and outputs of ln(X[i][o]/X[h][o]) / d(i,h)",
	"           (\"+Inf\" when some X[i][o] > 0 = X[h][o])",
	"private    the exact verdict: X[i][o] <= e^{eps·d(i,h)}·X[h][o] in real arithmetic for every pair",
	"           and output, no tolerance (decided in math/big near the boundary); when false optdp",
	"           exits with code 3",
	"worst      where audit_eps is attained; absent when nothing constrains it:",
	"  i, h     the two true answers: X[i][output] = e^{audit_eps·d(i,h)} X[h][output]",
	"  output   the output",
	"pairs      number of answer pairs checked (edges for a graph metric)",
}

// auditOutput is the JSON output of optdp audit.
type auditOutput struct {
	Metric   string  `json:"metric"`
	N        int     `json:"n"`
	Outputs  int     `json:"outputs"`
	Eps      float64 `json:"eps"`
	AuditEps num     `json:"audit_eps"`
	Private  bool    `json:"private"`
	// Worst is the pair of true answers and the output attaining audit_eps.
	Worst *worstPair `json:"worst,omitempty"`
	Pairs int        `json:"pairs"`
}

// worstPair is where an audit's level is attained: X[I][Output] is
// e^{audit_eps·d(I,H)} times X[H][Output].
type worstPair struct {
	I      int `json:"i"`
	H      int `json:"h"`
	Output int `json:"output"`
}

func runAudit(env *runEnv, args []string) error {
	fs := newFlags(env, "audit")
	metricSpec := fs.String("metric", "", metricFlagHelp)
	eps := fs.Float64("eps", 0, "privacy level eps > 0 to check against, per unit of distance (required)")
	file := fs.String("matrix", "", "noise matrix FILE: CSV (one row per true answer) or NumPy .npy float64 (required)")
	prog := fs.Bool("progress", false, "draw a progress bar on stderr even with --json")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	m, err := metricAndEps(fs, *metricSpec, *eps)
	if err != nil {
		return err
	}
	if *file == "" {
		return usagef("--matrix FILE is required")
	}
	x, err := readMatrixPath(*file)
	if err != nil {
		return dataError{fmt.Errorf("--matrix: %w", err)}
	}
	if err := checkNoiseMatrix(x, m); err != nil {
		return dataError{fmt.Errorf("--matrix %s: %w", *file, err)}
	}
	rep, err := busy(env, "audit", progressEnabled(*asJSON, *prog), func(*progress) (mech.AuditReport, error) {
		return mech.Audit(x, m, *eps)
	})
	if err != nil {
		return dataError{fmt.Errorf("--matrix %s: %w", *file, err)}
	}
	res := auditFromReport(m, x, *eps, rep)
	// A matrix that is not private is audit's "no": exit code 3, after the
	// report.
	var verdict error
	if !rep.Private {
		verdict = notPrivateError{eps: *eps, measured: rep.Eps}
	}
	if *asJSON {
		if err := writeJSON(env.stdout, res); err != nil {
			return err
		}
		return verdict
	}
	w := env.stdout
	fmt.Fprintf(w, "metric     %s (n = %d), %d outputs\n", res.Metric, res.N, res.Outputs)
	fmt.Fprintf(w, "audit eps  %.12g (checked against %s)\n", rep.Eps, fmtFloat(*eps))
	fmt.Fprintf(w, "private    %v\n", rep.Private)
	if res.Worst != nil {
		fmt.Fprintf(w, "worst      answers %d and %d, output %d\n", res.Worst.I, res.Worst.H, res.Worst.Output)
	}
	fmt.Fprintf(w, "pairs      %d checked\n", rep.Pairs)
	return verdict
}

// auditFromReport is the output of an audit of x.
func auditFromReport(m metric.Metric, x *mat.Dense, eps float64, rep mech.AuditReport) auditOutput {
	_, c := x.Dims()
	res := auditOutput{Metric: m.String(), N: m.Len(), Outputs: c, Eps: eps, AuditEps: num(rep.Eps), Private: rep.Private, Pairs: rep.Pairs}
	if rep.Worst[0] >= 0 {
		res.Worst = &worstPair{I: rep.Worst[0], H: rep.Worst[1], Output: rep.Worst[2]}
	}
	return res
}

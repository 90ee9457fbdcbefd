package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/tight"
)

func regularCommand() command {
	return command{
		name:    "regular",
		summary: "is a prior regular (pi = y Phi, y >= 0)? the utility and leakage bounds it gives",
		usage:   "--metric SPEC --eps E --prior uniform|file:PATH|product:p1,...,pv [--force] [--progress] [--json]",
		examples: []string{
			"optdp regular --metric line:n=6 --eps 0.6931471805599453 --prior uniform",
			"optdp regular --metric hamming:u=20,v=4 --eps 1 --prior product:0.3,0.27,0.23,0.2 --json",
			"optdp regular --metric sum:u=10,v=5 --eps 1 --prior file:prior.csv",
		},
		fields: regularFields,
		run:    runRegular,
	}
}

// regularFields documents the JSON output of optdp regular.
var regularFields = []string{
	"metric              the metric spec, normalised",
	"n                   number of answers",
	"eps                 privacy level per unit of distance",
	"prior               the --prior spec",
	"regular             is pi = y Phi with y >= 0? true, false or \"borderline\" (|min_y| <= its error bound)",
	"sum_y               sum of y; the utility bound when regular",
	"utility_bound       no eps-private mechanism has a higher utility for this prior (established only when regular)",
	"leakage_bound_bits  log2(sum y / max pi): no eps-private mechanism leaks more (established only when regular)",
	"min_y               min_i y_i",
	"y_err               bound on the error of each y_i (\"+Inf\" for a singular Phi); absent for product priors",
	"unique              Phi is nonsingular, so y is unique; absent for product priors",
	"solver              the method used (dense-cholesky, ..., or kronecker-product)",
	"rcond               reciprocal condition estimate of Phi; null when not computed; absent for product priors",
	"certificate         what settled the verdict; absent if none",
	"y1                  product priors: the per-individual solution (y is its u-fold Kronecker power)",
	"y1_err              product priors: bound on the error of each entry of y1",
	"min_y1              product priors: min of y1",
	"log2_sum_y          product priors: log2 of sum_y (finite when v^u is huge)",
	"log2_abs_min_y      product priors: log2 |min_y|",
	"note                caveats; absent if none",
	"time_s              wall-clock seconds",
}

// regularOutput is the JSON output of optdp regular: the fields of
// tight.RegularResult or, for a product prior, tight.ProductRegularResult,
// under the library's JSON names.
type regularOutput struct {
	Metric           string        `json:"metric"`
	N                int           `json:"n"`
	Eps              float64       `json:"eps"`
	Prior            string        `json:"prior"`
	Regular          tight.Verdict `json:"regular"`
	SumY             num           `json:"sum_y"`
	UtilityBound     num           `json:"utility_bound"`
	LeakageBoundBits num           `json:"leakage_bound_bits"`
	MinY             num           `json:"min_y"`
	YErr             *num          `json:"y_err,omitempty"`
	Unique           *bool         `json:"unique,omitempty"`
	Solver           string        `json:"solver"`
	RCond            *rcondField   `json:"rcond,omitempty"`
	Certificate      string        `json:"certificate,omitempty"`
	// Product priors (Kronecker structure): the per-individual solution y1
	// and log2 of sum_y and |min_y|, which stay finite when v^u is huge.
	Y1          []float64 `json:"y1,omitempty"`
	Y1Err       *num      `json:"y1_err,omitempty"`
	MinY1       *num      `json:"min_y1,omitempty"`
	Log2SumY    *num      `json:"log2_sum_y,omitempty"`
	Log2AbsMinY *num      `json:"log2_abs_min_y,omitempty"`
	Note        string    `json:"note,omitempty"`
	TimeS       float64   `json:"time_s"`
}

func runRegular(env *runEnv, args []string) error {
	fs := newFlags(env, "regular")
	metricSpec := fs.String("metric", "", metricFlagHelp)
	eps := fs.Float64("eps", 0, epsFlagHelp)
	prior := fs.String("prior", "uniform", priorSpecHelp)
	force := fs.Bool("force", false, "raise the dense memory limit from 4 GiB to the machine's physical memory")
	prog := fs.Bool("progress", false, "draw a progress bar on stderr even with --json")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	m, err := metricAndEps(fs, *metricSpec, *eps)
	if err != nil {
		return err
	}
	ps, err := parsePrior(*prior, m, false)
	if err != nil {
		return priorError(*prior, err)
	}
	start := time.Now()
	res := regularOutput{Metric: m.String(), N: m.Len(), Eps: *eps, Prior: *prior}
	if h, ok := m.(*metric.HammingMetric); ok && ps.product != nil {
		// Product prior on a Hamming space: y = y1 ⊗ ... ⊗ y1, exact for v^u
		// in the billions.
		r, err := tight.RegularProduct(h.U(), *eps, ps.product)
		if err != nil {
			return err
		}
		res.Regular, res.SumY, res.UtilityBound, res.LeakageBoundBits = r.Regular, num(r.SumY), num(r.UtilityBound), num(r.LeakageBoundBits)
		res.MinY, res.Y1, res.MinY1 = num(r.MinY), r.Y1, numPtr(r.MinY1)
		res.Y1Err = numPtr(r.Y1Err)
		res.Log2SumY, res.Log2AbsMinY = numPtr(r.Log2SumY), numPtr(r.Log2AbsMinY)
		res.Solver = "kronecker-product"
		res.Note = fmt.Sprintf("product prior: y is the %d-fold Kronecker power of the per-individual solution y1 on clique:n=%d", h.U(), h.V())
	} else {
		if ps.prior == nil {
			if ps, err = parsePrior(*prior, m, true); err != nil {
				return priorError(*prior, err)
			}
		}
		opts := &tight.Options{Settings: budget(*force)}
		r, err := busy(env, "regular", progressEnabled(*asJSON, *prog), func(*progress) (*tight.RegularResult, error) {
			return tight.Regular(context.Background(), m, *eps, ps.prior, opts)
		})
		if err != nil {
			hint := "product:p1,...,pv priors on hamming metrics are solved without dense matrices"
			if !*force {
				hint = "--force raises the memory budget to the machine's physical memory; " + hint
			}
			return tooLarge(err, hint)
		}
		res.Regular, res.SumY, res.UtilityBound, res.LeakageBoundBits = r.Regular, num(r.SumY), num(r.UtilityBound), num(r.LeakageBoundBits)
		res.MinY, res.YErr, res.Unique, res.Solver = num(r.MinY), numPtr(r.YErr), &r.Unique, string(r.Solver)
		res.RCond, res.Certificate = &rcondField{}, r.Certificate
		if r.RCond > 0 {
			res.RCond.v = numPtr(r.RCond)
		}
	}
	if res.Regular != tight.Yes {
		res.Note = joinNote(res.Note, "the prior is not (certainly) regular, so the utility and leakage bounds are not established for it")
	}
	res.TimeS = time.Since(start).Seconds()
	if *asJSON {
		return writeJSON(env.stdout, res)
	}
	w := env.stdout
	fmt.Fprintf(w, "metric         %s (n = %d), eps = %s, prior %s\n", res.Metric, res.N, fmtFloat(res.Eps), res.Prior)
	fmt.Fprintf(w, "regular        %s (min y = %.6g)\n", verdictText(res.Regular), float64(res.MinY))
	if res.Log2SumY != nil && math.IsInf(float64(res.SumY), 0) {
		fmt.Fprintf(w, "sum y          2^%.6g\n", float64(*res.Log2SumY))
	} else {
		fmt.Fprintf(w, "sum y          %.12g\n", float64(res.SumY))
	}
	fmt.Fprintf(w, "utility bound  %.12g\n", float64(res.UtilityBound))
	fmt.Fprintf(w, "leakage bound  %.6g bits\n", float64(res.LeakageBoundBits))
	fmt.Fprintf(w, "solver         %s\n", res.Solver)
	if res.Note != "" {
		fmt.Fprintf(w, "note           %s\n", res.Note)
	}
	return nil
}

// rcondField is an rcond that is present in the JSON (null when not
// computed) on the dense path and absent (a nil *rcondField) for product
// priors.
type rcondField struct{ v *num }

// MarshalJSON implements json.Marshaler.
func (r rcondField) MarshalJSON() ([]byte, error) {
	if r.v == nil {
		return []byte("null"), nil
	}
	return r.v.MarshalJSON()
}

// joinNote appends b to the note a.
func joinNote(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

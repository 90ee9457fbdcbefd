package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/optdp/optdp/mech"
	"gonum.org/v1/gonum/mat"
)

// compareMaxN is the largest number of answers compare accepts: every
// mechanism is a dense n×n matrix and is audited (O(n³) for non-graph
// metrics); --force raises it to compareForceMaxN.
const (
	compareMaxN      = 1024
	compareForceMaxN = 4096
)

func compareCommand() command {
	return command{
		name:    "compare",
		summary: "the tight-constraints mechanism against the baselines that apply: utility, leakage, audited eps",
		usage:   "--metric SPEC --eps E [--prior P] [--force] [--progress] [--json]",
		examples: []string{
			"optdp compare --metric line:n=6 --eps 0.6931471805599453",
			"optdp compare --metric grid:w=8,h=8,step=1,norm=euclid --eps 0.7 --json",
			"optdp compare --metric sum:u=10,v=3 --eps 1 --prior file:prior.txt",
		},
		run: runCompare,
	}
}

// compareEntry is one mechanism in the output of optdp compare. Utility is
// for the prior with the optimal remap; LeakageBits the min-entropy leakage
// for that prior; AuditEps the measured privacy level against the metric.
type compareEntry struct {
	Name        string `json:"name"`
	Utility     *num   `json:"utility"`
	LeakageBits *num   `json:"leakage_bits"`
	AuditEps    *num   `json:"audit_eps"`
	Private     *bool  `json:"private"`
	Note        string `json:"note,omitempty"`
}

// compareOutput is the JSON output of optdp compare.
type compareOutput struct {
	Metric     string         `json:"metric"`
	N          int            `json:"n"`
	Eps        float64        `json:"eps"`
	Prior      string         `json:"prior"`
	Mechanisms []compareEntry `json:"mechanisms"`
}

// candidate is a mechanism to compare: build returns its matrix, or nil and
// a note saying why there is none.
type candidate struct {
	name  string
	build func() (*mat.Dense, string, error)
}

func runCompare(env *runEnv, args []string) error {
	fs := newFlags(env, "compare")
	metric := fs.String("metric", "", metricFlagHelp)
	eps := fs.Float64("eps", 0, epsFlagHelp)
	prior := fs.String("prior", "uniform", priorSpecHelp)
	force := fs.Bool("force", false, fmt.Sprintf("accept up to %d answers instead of %d", compareForceMaxN, compareMaxN))
	prog := fs.Bool("progress", false, "draw a progress bar on stderr even with --json")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	m, err := metricAndEps(fs, *metric, *eps)
	if err != nil {
		return err
	}
	n, limit := m.Len(), compareMaxN
	if *force {
		limit = compareForceMaxN
	}
	if n > limit {
		hint := fmt.Sprintf("; --force raises the limit to %d", compareForceMaxN)
		if *force {
			hint = "; use tight, or the library, for larger metrics"
		}
		return fmt.Errorf("%s has %d answers: compare builds every mechanism as a dense %d×%d matrix and audits it, refused above %d answers%s", m, n, n, n, limit, hint)
	}
	ps, err := parsePrior(*prior, m, true)
	if err != nil {
		return err
	}
	bar := newProgress(env, "compare", progressEnabled(*asJSON, *prog))
	cands := compareCandidates(m, *eps)
	res := compareOutput{Metric: m.String(), N: n, Eps: *eps, Prior: *prior}
	for k, c := range cands {
		bar.Update(float64(k)/float64(len(cands)), c.name)
		e, err := evaluateCandidate(c, m, *eps, ps.prior)
		if err != nil {
			bar.Done()
			return err
		}
		res.Mechanisms = append(res.Mechanisms, e)
	}
	bar.Done()
	if *asJSON {
		return writeJSON(env.stdout, res)
	}
	w := env.stdout
	fmt.Fprintf(w, "metric %s (n = %d), eps = %g, prior %s\n\n", res.Metric, n, *eps, *prior)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MECHANISM\tUTILITY\tLEAKAGE (bits)\tAUDIT EPS\tPRIVATE\tNOTE")
	for _, e := range res.Mechanisms {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Name, fmtNum(e.Utility, "%.6g"), fmtNum(e.LeakageBits, "%.6g"),
			fmtNum(e.AuditEps, "%.6g"), fmtBool(e.Private), e.Note)
	}
	return tw.Flush()
}

// evaluateCandidate builds c, audits it against m at eps and measures its
// utility (optimal remap) and leakage for prior. A failed build is reported
// in the entry's note; a failed audit as private = false.
func evaluateCandidate(c candidate, m mech.Metric, eps float64, prior []float64) (compareEntry, error) {
	e := compareEntry{Name: c.name}
	x, note, err := c.build()
	if err != nil {
		e.Note = err.Error()
		return e, nil
	}
	if x == nil {
		e.Note = note
		return e, nil
	}
	e.Note = note
	rep, err := mech.Audit(x, m, eps)
	if err != nil {
		return e, fmt.Errorf("%s: %w", c.name, err)
	}
	e.AuditEps, e.Private = numPtr(rep.Eps), &rep.Private
	if !rep.Private {
		e.Note = joinNote(e.Note, fmt.Sprintf("NOT %g-private for this metric", eps))
	}
	_, u, err := mech.OptimalRemap(x, prior)
	if err != nil {
		return e, fmt.Errorf("%s: %w", c.name, err)
	}
	l, err := mech.Leakage(x, prior)
	if err != nil {
		return e, fmt.Errorf("%s: %w", c.name, err)
	}
	e.Utility, e.LeakageBits = numPtr(u), numPtr(l)
	return e, nil
}

// compareCandidates lists the tight-constraints mechanism and the baselines
// that apply to m.
func compareCandidates(m mech.Metric, eps float64) []candidate {
	n := m.Len()
	cs := []candidate{{"tight-constraints", func() (*mat.Dense, string, error) { return tightMatrix(m, eps) }}}
	switch mm := m.(type) {
	case *mech.LineMetric:
		cs = append(cs,
			candidate{"truncated-geometric", func() (*mat.Dense, string, error) {
				x, err := mech.TruncatedGeometric(n, eps, 1)
				return x, "", err
			}},
			candidate{"ring-closure", func() (*mat.Dense, string, error) {
				x, note, err := tightMatrix(mech.CloseLine(mm), eps)
				return x, joinNote("tight-constraints mechanism of the ring closing the line", note), err
			}})
	case *mech.SumMetric:
		var u, v int
		if _, err := fmt.Sscanf(mm.String(), "sum:u=%d,v=%d", &u, &v); err == nil {
			cs = append(cs, candidate{"truncated-geometric", func() (*mat.Dense, string, error) {
				x, err := mech.TruncatedGeometric(n, eps, v)
				return x, fmt.Sprintf("sensitivity %d", v), err
			}})
		}
	case *mech.KCountMetric:
		d := mm.Dims()
		cs = append(cs, candidate{"geometric-per-count", func() (*mat.Dense, string, error) {
			x, err := mech.GeometricPerCount(d[0]-1, len(d), eps)
			return x, fmt.Sprintf("eps/%d per count", len(d)), err
		}})
	case *mech.CliqueMetric:
		cs = append(cs, candidate{"randomized-response", func() (*mat.Dense, string, error) {
			x, err := mech.RandomizedResponse(n, eps)
			return x, "", err
		}})
	case *mech.GridMetric:
		if mm.Norm() == mech.Euclid {
			d := mm.Dims()
			cs = append(cs, candidate{"planar-laplace", func() (*mat.Dense, string, error) {
				x, err := mech.PlanarLaplace(d[1], d[0], mm.Step(), eps)
				return x, "continuous planar Laplace snapped to grid cells", err
			}})
		}
	}
	cs = append(cs, candidate{"exponential", func() (*mat.Dense, string, error) {
		x, err := mech.Exponential(m, eps)
		return x, "", err
	}})
	return cs
}

// tightMatrix is the tight-constraints mechanism's matrix, or nil with the
// reason it has none.
func tightMatrix(m mech.Metric, eps float64) (*mat.Dense, string, error) {
	r, err := mech.Tight(context.Background(), m, eps, &mech.TightOptions{MaxMechanismN: m.Len()})
	if err != nil {
		return nil, "", err
	}
	if r.Exists != mech.Yes {
		return nil, fmt.Sprintf("%s at eps = %g (min z = %.6g)", existsPhrase(r.Exists), eps, r.MinZ), nil
	}
	if r.X == nil {
		return nil, r.Note, nil
	}
	return r.X, "", nil
}

func fmtNum(v *num, format string) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf(format, float64(*v))
}

func fmtBool(b *bool) string {
	if b == nil {
		return "-"
	}
	return fmt.Sprint(*b)
}

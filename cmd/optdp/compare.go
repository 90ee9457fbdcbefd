package main

import (
	"context"
	"fmt"
	"math"
	"text/tabwriter"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/optimal"
	"github.com/optdp/optdp/mech/tight"

	"github.com/optdp/optdp/mech"
	"gonum.org/v1/gonum/mat"
)

// compareMaxN is the largest number of answers for which compare builds
// every mechanism as a dense n×n matrix and audits it (O(n³) for non-graph
// metrics); --force raises it to compareForceMaxN. Above the limit only grid
// metrics with the uniform prior are accepted, on a matrix-free path
// (evaluateLarge).
const (
	compareMaxN      = 1024
	compareForceMaxN = 4096
)

func compareCommand() command {
	return command{
		name:    "compare",
		summary: "the tight-constraints mechanism against the baselines that apply: utility, leakage, audited eps",
		usage:   "--metric SPEC --eps E [--prior P] [--gain binary|distance|file:G.csv | --loss file:L.csv] [--force] [--progress] [--json]",
		examples: []string{
			"optdp compare --metric line:n=6 --eps 0.6931471805599453",
			"optdp compare --metric grid:w=8,h=8,step=1,norm=euclid --eps 0.7 --json",
			"optdp compare --metric grid:w=100,h=100,step=1 --eps 1",
			"optdp compare --metric sum:u=10,v=3 --eps 1 --prior file:prior.txt",
			"optdp compare --metric latlon:file=places.csv --eps 2 --prior points:visits.csv,pseudo=1 --gain distance",
		},
		fields: compareFields,
		run:    runCompare,
	}
}

// compareFields documents the JSON output of optdp compare.
var compareFields = []string{
	"metric          the metric spec, normalised",
	"n               number of answers",
	"eps             privacy level per unit of distance",
	"prior           the --prior spec",
	"gain            binary, distance, gain:file:PATH or loss:file:PATH (--gain, --loss)",
	"unit            the unit of the distance loss: km (grids, points:, latlon:), hops, or \"\" (dist:, roads: files' own)",
	"mechanisms      one entry per mechanism, the tight-constraints mechanism first:",
	"  name          tight-constraints, truncated-geometric, ring-closure, geometric-per-count,",
	"                randomized-response, planar-laplace (Euclidean grids, points:, latlon:), exponential (those that apply to the metric),",
	"                optimal-lp (the LP optimum for the prior), spanner-1.2 (LP on a 1.2-spanner, metrics without a graph)",
	"  utility       probability of guessing the true answer for the prior, optimal remap; null if not built",
	"  leakage_bits  min-entropy leakage for the prior; null if not built",
	"  audit_eps     privacy level measured against the metric; null if not audited",
	"  private       audit_eps <= eps; null if not audited",
	"  expected_loss           expected loss (distance in the metric's unit, or --loss) with the optimal remap; absent for gains",
	"  expected_loss_reported  expected loss of the output as reported (no remap); absent for gains",
	"  expected_gain           expected gain (--gain file:) with the optimal remap; absent otherwise",
	"  expected_gain_reported  expected gain of the output as reported; absent otherwise",
	"  note          why a mechanism was not built or evaluated, how it was audited; absent if none",
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
	// The expected loss (--gain distance, --loss) or gain (--gain file:)
	// with the optimal remap and as reported (compare_loss.go).
	ExpectedLoss         *num   `json:"expected_loss,omitempty"`
	ExpectedLossReported *num   `json:"expected_loss_reported,omitempty"`
	ExpectedGain         *num   `json:"expected_gain,omitempty"`
	ExpectedGainReported *num   `json:"expected_gain_reported,omitempty"`
	Note                 string `json:"note,omitempty"`
}

// compareOutput is the JSON output of optdp compare.
type compareOutput struct {
	Metric     string         `json:"metric"`
	N          int            `json:"n"`
	Eps        float64        `json:"eps"`
	Prior      string         `json:"prior"`
	Gain       string         `json:"gain"`
	Unit       *string        `json:"unit,omitempty"`
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
	metricSpec := fs.String("metric", "", metricFlagHelp)
	eps := fs.Float64("eps", 0, epsFlagHelp)
	prior := fs.String("prior", "uniform", priorSpecHelp+", "+mapPriorHelp)
	gain := fs.String("gain", "binary", "what to compare by: binary (probability of reporting the true answer), distance (expected distance, a loss in the metric's unit), or file:PATH, an n×n gain matrix g(i,k)")
	loss := fs.String("loss", "", "file:PATH: an n×n loss matrix l(i,k) instead of --gain")
	force := fs.Bool("force", false, fmt.Sprintf("accept up to %d answers instead of %d", compareForceMaxN, compareMaxN))
	prog := fs.Bool("progress", false, "draw a progress bar on stderr even with --json")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	m, err := metricAndEps(fs, *metricSpec, *eps)
	if err != nil {
		return err
	}
	n, limit := m.Len(), compareMaxN
	if *force {
		limit = compareForceMaxN
	}
	large := n > limit
	var (
		ps    *priorSpec
		score = &compareScore{name: "binary"}
	)
	if large {
		if err := checkLargeCompare(m, limit, *force, *prior); err != nil {
			return err
		}
		if given := flagsGiven(fs); given["gain"] && *gain != "binary" || given["loss"] {
			return fmt.Errorf("%s has %d answers, above the dense limit %d: compare's matrix-free path for large grids compares by the binary gain only", m, n, limit)
		}
	} else {
		if ps, err = parsePrior(*prior, m, true); err != nil {
			return priorError(*prior, err)
		}
		if score, err = parseCompareScore(*gain, *loss, flagsGiven(fs), m); err != nil {
			return err
		}
	}
	bar := newProgress(env, "compare", progressEnabled(*asJSON, *prog))
	cands := compareCandidates(m, *eps)
	if !large {
		cands = append(cands, lpCandidates(m, *eps, ps.prior, score)...)
	}
	res := compareOutput{Metric: m.String(), N: n, Eps: *eps, Prior: *prior, Gain: score.name}
	if score.name == "distance" {
		res.Unit = &score.unit
	}
	for k, c := range cands {
		bar.Update(float64(k)/float64(len(cands)), c.name)
		var e compareEntry
		if large {
			e, err = evaluateLarge(c.name, m.(*metric.GridMetric), *eps, limit)
		} else {
			e, err = evaluateCandidate(c, m, *eps, ps.prior, score)
		}
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
	fmt.Fprintf(w, "metric %s (n = %d), eps = %s, prior %s, gain %s\n\n", res.Metric, n, fmtFloat(*eps), *prior, score.name)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MECHANISM\tUTILITY"+score.headers()+"\tLEAKAGE (bits)\tAUDIT EPS\tPRIVATE\tNOTE")
	for _, e := range res.Mechanisms {
		fmt.Fprintf(tw, "%s\t%s%s\t%s\t%s\t%s\t%s\n", e.Name, fmtNum(e.Utility, "%.6g"), score.cells(e), fmtNum(e.LeakageBits, "%.6g"),
			fmtNum(e.AuditEps, "%.6g"), fmtBool(e.Private), e.Note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if s := score.summary(res.Mechanisms); s != "" {
		fmt.Fprintf(w, "\n%s\n", s)
	}
	return nil
}

// evaluateCandidate builds c, audits it against m at eps and measures its
// utility (optimal remap) and leakage for prior. A failed build is reported
// in the entry's note; a failed audit as private = false.
func evaluateCandidate(c candidate, m metric.Metric, eps float64, prior []float64, score *compareScore) (compareEntry, error) {
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
		e.Note = joinNote(e.Note, fmt.Sprintf("NOT %s-private for this metric", fmtFloat(eps)))
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
	if err := score.evaluate(&e, x, prior); err != nil {
		return e, fmt.Errorf("%s: %w", c.name, err)
	}
	return e, nil
}

// compareCandidates lists the tight-constraints mechanism and the baselines
// that apply to m.
func compareCandidates(m metric.Metric, eps float64) []candidate {
	n := m.Len()
	cs := []candidate{{"tight-constraints", func() (*mat.Dense, string, error) { return tightMatrix(m, eps) }}}
	switch mm := m.(type) {
	case *metric.LineMetric:
		cs = append(cs,
			candidate{"truncated-geometric", func() (*mat.Dense, string, error) {
				x, err := mech.TruncatedGeometric(n, eps, 1)
				return x, "", err
			}},
			candidate{"ring-closure", func() (*mat.Dense, string, error) {
				x, note, err := tightMatrix(metric.CloseLine(mm), eps)
				return x, joinNote("tight-constraints mechanism of the ring closing the line", note), err
			}})
	case *metric.SumMetric:
		// The sensitivity of the sum is v: the answers within distance 1
		// of answer 0 are 1..v (d(i,j) = ceil(|i-j|/v)).
		v := 0
		for k := 1; k < n && mm.Dist(0, k) <= 1; k++ {
			v = k
		}
		cs = append(cs, candidate{"truncated-geometric", func() (*mat.Dense, string, error) {
			x, err := mech.TruncatedGeometric(n, eps, v)
			return x, fmt.Sprintf("sensitivity %d", v), err
		}})
	case *metric.KCountMetric:
		d := mm.Dims()
		cs = append(cs, candidate{"geometric-per-count", func() (*mat.Dense, string, error) {
			x, err := mech.GeometricPerCount(d[0]-1, len(d), eps)
			return x, fmt.Sprintf("eps/%d per count", len(d)), err
		}})
	case *metric.CliqueMetric:
		cs = append(cs, candidate{"randomized-response", func() (*mat.Dense, string, error) {
			x, err := mech.RandomizedResponse(n, eps)
			return x, "", err
		}})
	case *metric.GridMetric:
		if mm.Norm() == metric.Euclid {
			d := mm.Dims()
			cs = append(cs, candidate{"planar-laplace", func() (*mat.Dense, string, error) {
				x, err := mech.PlanarLaplace(d[1], d[0], mm.Step(), eps)
				return x, "continuous planar Laplace snapped to grid cells", err
			}})
		}
	case *metric.PointsMetric:
		cs = append(cs, candidate{"planar-laplace", func() (*mat.Dense, string, error) {
			x, err := mech.PlanarLaplacePoints(context.Background(), mm, eps)
			note := "continuous planar Laplace reported as the nearest point"
			if mm.Geo() && err == nil {
				_, rho, perr := mech.PlanarProjection(context.Background(), mm)
				if perr == nil {
					note = fmt.Sprintf("continuous planar Laplace at eps/%.9g in the azimuthal equidistant plane, reported as the nearest point", rho)
				}
			}
			return x, note, err
		}})
	}
	cs = append(cs, candidate{"exponential", func() (*mat.Dense, string, error) {
		x, err := mech.Exponential(m, eps)
		note := ""
		if g, ok := m.(*metric.GridMetric); ok && g.Norm() == metric.Euclid {
			note = "on a Euclidean grid this is the planar geometric mechanism (mech.PlanarGeometric)"
		}
		return x, note, err
	}})
	return cs
}

// Sizes up to which compare solves the optimal-mechanism LP: every metric up
// to lpExactMaxN answers, a Graph metric (edges only) up to lpGraphMaxN, a
// road network (a PathGraph, constrained on its roads) up to lpRoadMaxN, and
// the spanner LP of any other metric up to lpSpannerMaxN.
const (
	lpExactMaxN   = 100
	lpGraphMaxN   = 400
	lpRoadMaxN    = 200
	lpSpannerMaxN = 400
	lpDelta       = 1.2
)

// lpCandidates are the optimal mechanism for the prior (the LP of
// optimal.Solve, for the score's gain or loss) and, for a metric without a graph, the
// mechanism on its 1.2-spanner; above the sizes where they take seconds
// they are listed with a note pointing to optdp optimal.
func lpCandidates(m metric.Metric, eps float64, prior []float64, score *compareScore) []candidate {
	n := m.Len()
	_, graph := m.(metric.Graph)
	solve := func(o *optimal.Options) (*mat.Dense, string, error) {
		o.Tol = 1e-7
		score.optimalOptions(o)
		r, err := optimal.Solve(context.Background(), m, eps, prior, o)
		if r == nil {
			return nil, "", err
		}
		note := fmt.Sprintf("LP, %d pairs, certified gap %.1g", r.Pairs, r.Gap)
		if r.Method == optimal.MethodSpanner {
			note = fmt.Sprintf("LP on a %g-spanner, %d pairs; at most %.2g%% below the optimum", r.Delta, r.Pairs, 100*r.Gap)
		}
		return r.X, note, nil
	}
	road := false
	if pg, ok := m.(metric.PathGraph); ok {
		_, road = pg.PathEdges()
	}
	cs := []candidate{{"optimal-lp", func() (*mat.Dense, string, error) {
		if n > lpExactMaxN && !(graph && n <= lpGraphMaxN) && !(road && n <= lpRoadMaxN) {
			return nil, fmt.Sprintf("not solved above %d answers here (%d for graph metrics, %d for road networks): use optdp optimal", lpExactMaxN, lpGraphMaxN, lpRoadMaxN), nil
		}
		return solve(&optimal.Options{})
	}}}
	if !graph && !road {
		cs = append(cs, candidate{fmt.Sprintf("spanner-%g", lpDelta), func() (*mat.Dense, string, error) {
			if n > lpSpannerMaxN {
				return nil, fmt.Sprintf("not solved above %d answers here: use optdp optimal --method spanner", lpSpannerMaxN), nil
			}
			return solve(&optimal.Options{Method: optimal.MethodSpanner, Delta: lpDelta})
		}})
	}
	return cs
}

// tightMatrix is the tight-constraints mechanism's matrix, or nil with the
// reason it has none.
func tightMatrix(m metric.Metric, eps float64) (*mat.Dense, string, error) {
	r, err := tight.Solve(context.Background(), m, eps, &tight.Options{MaxMechanismN: m.Len()})
	if err != nil {
		return nil, "", err
	}
	if r.Exists != tight.Yes {
		return nil, fmt.Sprintf("%s at eps = %s (min z = %.6g)", existsPhrase(r.Exists), fmtFloat(eps), r.MinZ), nil
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

// compareLargeMaxN is the largest grid the matrix-free path of compare
// accepts: the planar Laplace audit holds a few rows of n entries and
// integrates each of them cell by cell.
const compareLargeMaxN = 1 << 18

// checkLargeCompare says whether compare can take the matrix-free path for
// m, which has more than limit answers: m must be a grid (a lattice on which
// the tight-constraints mechanism and planar Laplace have matrix-free forms)
// of at most compareLargeMaxN points, and the prior uniform.
func checkLargeCompare(m metric.Metric, limit int, force bool, prior string) error {
	n := m.Len()
	if _, ok := m.(*metric.GridMetric); !ok {
		hint := fmt.Sprintf("; --force raises the limit to %d", compareForceMaxN)
		if force {
			hint = "; use tight, or the library, for larger metrics"
		}
		return fmt.Errorf("%s has %d answers: compare builds every mechanism as a dense %d×%d matrix and audits it, refused above %d answers (only grid metrics have a matrix-free path)%s", m, n, n, n, limit, hint)
	}
	if prior != "" && prior != "uniform" {
		return fmt.Errorf("--prior %s: %s has %d answers, above the dense limit %d, and compare's matrix-free path for large grids supports the uniform prior only", prior, m, n, limit)
	}
	if n > compareLargeMaxN {
		return fmt.Errorf("%s has %d answers: compare's matrix-free path is refused above %d answers; use tight, or the library, for larger grids", m, n, compareLargeMaxN)
	}
	return nil
}

// evaluateLarge evaluates the mechanism called name on the grid g for the
// uniform prior without building any n×n matrix: the tight-constraints
// mechanism (largeTight) and planar Laplace (largePlanarLaplace); every other
// mechanism is listed with a note saying it was not evaluated.
func evaluateLarge(name string, g *metric.GridMetric, eps float64, limit int) (compareEntry, error) {
	switch name {
	case "tight-constraints":
		return largeTight(g, eps), nil
	case "planar-laplace":
		return largePlanarLaplace(g, eps)
	}
	return compareEntry{Name: name, Note: fmt.Sprintf("not evaluated: above %d answers compare has no matrix-free form of it", limit)}, nil
}

// uniformLeakage is the min-entropy leakage for the uniform prior on n
// answers of a mechanism whose utility with the optimal remap is u:
// log2 Σ_k max_i X[i][k] = log2(n·u) (docs/MATH.md §6.3, §8.7).
func uniformLeakage(n int, u float64) *num {
	return numPtr(math.Log2(float64(n) * u))
}

// largeTight is the tight-constraints entry for the uniform prior from its
// matrix-free form (docs/MATH.md §3.8). The optimal remap is the identity:
// max_i X[i][k] = z_k max_i e^{-eps·d(i,k)} = z_k = X[k][k], so the utility
// is mean(z) and the leakage log2(n·mean(z)). The audit is the mechanism's
// own (tight.Result.Audit: z >= 0 certified, levels measured on sampled
// pairs).
func largeTight(m metric.Metric, eps float64) compareEntry {
	e := compareEntry{Name: "tight-constraints"}
	// MaxMechanismN 1: never build X, so Audit is the matrix-free audit.
	r, err := tight.Solve(context.Background(), m, eps, &tight.Options{MaxMechanismN: 1})
	switch {
	case err != nil:
		e.Note = err.Error()
		return e
	case r.Exists != tight.Yes:
		e.Note = fmt.Sprintf("%s at eps = %s (min z = %.6g)", existsPhrase(r.Exists), fmtFloat(eps), r.MinZ)
		return e
	case r.Free == nil:
		e.Note = r.Note
		return e
	}
	u := r.Free.UtilityUniform()
	e.Utility, e.LeakageBits = numPtr(u), uniformLeakage(m.Len(), u)
	e.AuditEps, e.Private = numPtr(r.Audit.Eps), &r.Audit.Private
	// The verdict is the matrix-free mechanism's proof (tight.FreeMechanism.Audit).
	e.Note = fmt.Sprintf("matrix-free (solver %s); proven private: z >= 0 certified, level <= %s", r.Solver, fmtFloat(r.Audit.Eps))
	if r.Free.Hardened() {
		e.Note = joinNote(e.Note, fmt.Sprintf("hardened: built at eps_b = %s", fmtFloat(r.Free.BuildEps())))
	}
	return e
}

// largePlanarLaplace is the planar Laplace entry for the uniform prior on a
// Euclidean grid: mech.PlanarLaplaceUtility (the identity remap is optimal
// there, so the leakage is log2(n·U)), and mech.Audit of the rows of
// planarAuditPoints against the grid's distances among those points, over
// all n outputs. An error of the construction (eps·diagonal too large) is
// reported in the note, as on the dense path.
func largePlanarLaplace(g *metric.GridMetric, eps float64) (compareEntry, error) {
	e := compareEntry{Name: "planar-laplace", Note: "continuous planar Laplace snapped to grid cells"}
	d := g.Dims()
	w, h, n := d[1], d[0], g.Len()
	u, err := mech.PlanarLaplaceUtility(w, h, g.Step(), eps)
	if err != nil {
		e.Note = err.Error()
		return e, nil
	}
	e.Utility, e.LeakageBits = numPtr(u), uniformLeakage(n, u)
	pts := planarAuditPoints(w, h)
	x := mat.NewDense(len(pts), n, nil)
	for k, i := range pts {
		row, err := mech.PlanarLaplaceRow(w, h, g.Step(), eps, i)
		if err != nil {
			return e, fmt.Errorf("planar-laplace: %w", err)
		}
		x.SetRow(k, row)
	}
	rep, err := mech.Audit(x, subMetric{g, pts}, eps)
	if err != nil {
		return e, fmt.Errorf("planar-laplace: %w", err)
	}
	e.AuditEps, e.Private = numPtr(rep.Eps), &rep.Private
	e.Note = joinNote(e.Note, fmt.Sprintf("matrix-free; audit: %d rows (corner, edge and centre points and their neighbours), all %d pairs among them, every output", len(pts), rep.Pairs))
	if !rep.Private {
		e.Note = joinNote(e.Note, fmt.Sprintf("NOT %s-private for this metric", fmtFloat(eps)))
	}
	return e, nil
}

// planarAuditPoints are the true points whose rows the matrix-free planar
// Laplace audit checks on a w×h grid (point x + y·w): a corner, the middle
// of the bottom edge and the centre, each with its neighbours to the right,
// above and diagonally (where the grid has them), without repeats.
func planarAuditPoints(w, h int) []int {
	var pts []int
	seen := map[int]bool{}
	for _, b := range [][2]int{{0, 0}, {w / 2, 0}, {w / 2, h / 2}} {
		for _, o := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
			x, y := b[0]+o[0], b[1]+o[1]
			if i := x + y*w; x < w && y < h && !seen[i] {
				seen[i] = true
				pts = append(pts, i)
			}
		}
	}
	return pts
}

// subMetric is the metric m restricted to the answers pts (answer k of
// subMetric is pts[k]): a metric, since m is.
type subMetric struct {
	m   metric.Metric
	pts []int
}

func (s subMetric) Len() int              { return len(s.pts) }
func (s subMetric) Dist(i, j int) float64 { return s.m.Dist(s.pts[i], s.pts[j]) }
func (s subMetric) String() string {
	return fmt.Sprintf("%s restricted to %d points", s.m, len(s.pts))
}

package main

// Shared flag handling for the mechanism commands (tight, threshold, regular,
// compare, bound, audit): metric specs, eps, priors, memory limits, matrix
// files (CSV and NumPy .npy), non-finite JSON numbers and progress.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	optrun "github.com/optdp/optdp/solve/run"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/tight"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/mech"
	"gonum.org/v1/gonum/mat"
)

// metricFlagHelp is the help text of --metric.
var metricFlagHelp = "answer metric spec (required): line:n=N, ring:n=N, clique:n=N, sum:u=U,v=V, kcount:u=U,k=K, " +
	"hamming:u=U,v=V, grid:w=W,h=H,step=S,norm=euclid|manhattan|chebyshev, graph:file=PATH (edge list), dist:file=PATH (CSV distances)"

// epsFlagHelp is the help text of the --eps flag of the mechanism commands.
const epsFlagHelp = "privacy level eps > 0 per unit of distance: per hop for graphs, per km for grids (required)"

// metricAndEps validates the --metric and --eps flags of fs, which parseFlags
// has parsed, and returns the metric: both are required, eps must be finite
// and > 0.
func metricAndEps(fs *flag.FlagSet, spec string, eps float64) (metric.Metric, error) {
	set := flagsGiven(fs)
	m, err := parseMetricFlag(spec, set["metric"])
	if err != nil {
		return nil, err
	}
	if err := checkEpsFlag("eps", eps, set["eps"]); err != nil {
		return nil, err
	}
	return m, nil
}

// flagsGiven returns the names of the flags set on the command line.
func flagsGiven(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// parseMetricFlag builds the metric of --metric. A missing flag or an
// unknown kind is a usage error (exit 2); a spec whose parameters or file are
// invalid is an input error (exit 1) with metric.Parse's message.
func parseMetricFlag(spec string, given bool) (metric.Metric, error) {
	if !given || strings.TrimSpace(spec) == "" {
		return nil, usagef("--metric is required (kinds: %s)", strings.Join(metric.Kinds(), ", "))
	}
	kind, _, _ := strings.Cut(strings.TrimSpace(spec), ":")
	if !slices.Contains(metric.Kinds(), kind) {
		return nil, usagef("--metric %q: unknown metric kind %q (want one of %s)", spec, kind, strings.Join(metric.Kinds(), ", "))
	}
	m, err := metric.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("--metric: %w", err)
	}
	return m, nil
}

// checkEpsFlag validates a required privacy parameter: given, finite, > 0.
// A bad value is a usage error.
func checkEpsFlag(name string, v float64, given bool) error {
	if !given {
		return usagef("--%s is required (a privacy level > 0, e.g. --%s 0.693)", name, name)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return usagef("--%s %v: want a finite number > 0", name, v)
	}
	return nil
}

// forcedMaxBytes is the dense memory limit under --force: the machine's
// physical memory (from /proc/meminfo), or 64 GiB when that is unknown. It
// still refuses requests that could not possibly be allocated.
func forcedMaxBytes() int64 {
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for line := range strings.SplitSeq(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				f := strings.Fields(rest)
				if len(f) >= 1 {
					if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil && kb > 0 {
						return kb * 1024
					}
				}
			}
		}
	}
	return 64 << 30
}

// budget is the memory budget of --force (the default budget without it).
func budget(force bool) optrun.Settings {
	if force {
		return optrun.Settings{Budget: optrun.Budget(forcedMaxBytes())}
	}
	return optrun.Settings{}
}

// priorSpecHelp is the help text of --prior.
const priorSpecHelp = "prior on the answers: uniform, file:PATH (one probability per line, or comma/space separated), " +
	"or product:p1,...,pv (hamming metrics: each individual's value independently distributed as p)"

// priorSpec is a parsed --prior.
type priorSpec struct {
	kind    string    // "uniform", "file" or "product"
	prior   []float64 // the prior on the n answers (nil for a product prior not materialised)
	product []float64 // the per-individual distribution of a product prior
}

// parsePrior reads --prior for the metric m. For "product:" the metric must
// be hamming with v values; the full prior is materialised only when
// materialise is true (and fits tight.MaxVectorN). Every prior is checked to
// be a probability distribution; one not summing to 1 is an error saying so.
func parsePrior(spec string, m metric.Metric, materialise bool) (*priorSpec, error) {
	n := m.Len()
	switch {
	case spec == "" || spec == "uniform":
		ps := &priorSpec{kind: "uniform"}
		if h, ok := m.(*metric.HammingMetric); ok {
			ps.product = make([]float64, h.V())
			for i := range ps.product {
				ps.product[i] = 1 / float64(h.V())
			}
		}
		if materialise {
			if n > tight.MaxVectorN {
				return nil, fmt.Errorf("--prior uniform: %s has %d answers, above the vector limit %d", m, n, tight.MaxVectorN)
			}
			ps.prior = make([]float64, n)
			for i := range ps.prior {
				ps.prior[i] = 1 / float64(n)
			}
		}
		return ps, nil
	case strings.HasPrefix(spec, "file:"):
		path := strings.TrimPrefix(spec, "file:")
		if path == "" {
			return nil, usagef("--prior %q: want file:PATH", spec)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("--prior: %w", err)
		}
		p, err := parseNumbers(string(data))
		if err != nil {
			return nil, fmt.Errorf("--prior %s: %w", path, err)
		}
		if len(p) != n {
			return nil, fmt.Errorf("--prior %s: holds %d probabilities, want %d (one per answer of %s)", path, len(p), n, m)
		}
		if err := mech.ValidateDistribution(p, n, "prior"); err != nil {
			return nil, fmt.Errorf("--prior %s: %w", path, err)
		}
		return &priorSpec{kind: "file", prior: p}, nil
	case strings.HasPrefix(spec, "product:"):
		h, ok := m.(*metric.HammingMetric)
		if !ok {
			return nil, usagef("--prior product:...: only for hamming metrics, not %s", m)
		}
		p, err := parseNumbers(strings.TrimPrefix(spec, "product:"))
		if err != nil {
			return nil, usagef("--prior %q: %v", spec, err)
		}
		if len(p) != h.V() {
			return nil, fmt.Errorf("--prior %q: %d probabilities, want v = %d (one per value of an individual)", spec, len(p), h.V())
		}
		if err := mech.ValidateDistribution(p, h.V(), "prior"); err != nil {
			return nil, fmt.Errorf("--prior %q: %w", spec, err)
		}
		ps := &priorSpec{kind: "product", product: p}
		if materialise {
			if ps.prior, err = tight.ProductPrior(h.U(), p); err != nil {
				return nil, fmt.Errorf("--prior: %w", err)
			}
		}
		return ps, nil
	}
	return nil, usagef("--prior %q: want uniform, file:PATH or product:p1,...,pv", spec)
}

// parseNumbers parses numbers separated by commas, whitespace or newlines;
// lines starting with # are comments.
func parseNumbers(s string) ([]float64, error) {
	var out []float64
	for ln, line := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		row, err := parseFields(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", ln+1, err)
		}
		out = append(out, row...)
	}
	return out, nil
}

// parseFields parses one line of numbers separated by commas or whitespace.
func parseFields(line string) ([]float64, error) {
	var out []float64
	for _, f := range strings.FieldsFunc(line, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\r' || r == ';'
	}) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// readMatrixPath reads a matrix from a CSV file (one row per line, entries
// separated by commas or whitespace) or, when path ends in .npy, a NumPy
// array of float64.
func readMatrixPath(path string) (*mat.Dense, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(strings.ToLower(path), ".npy") {
		x, err := decodeNPY(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return x, nil
	}
	x, err := decodeCSV(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return x, nil
}

// decodeCSV parses a rectangular matrix of numbers, one row per non-empty
// line (lines starting with # are comments).
func decodeCSV(data []byte) (*mat.Dense, error) {
	var rows [][]float64
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	ln := 0
	for sc.Scan() {
		ln++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		row, err := parseFields(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", ln, err)
		}
		if len(rows) > 0 && len(row) != len(rows[0]) {
			return nil, fmt.Errorf("line %d has %d entries, the first row has %d: the matrix must be rectangular", ln, len(row), len(rows[0]))
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errors.New("no matrix rows found")
	}
	x := mat.NewDense(len(rows), len(rows[0]), nil)
	for i, r := range rows {
		x.SetRow(i, r)
	}
	return x, nil
}

// encodeCSV writes x with full float64 precision, one row per line.
func encodeCSV(x *mat.Dense) []byte {
	r, _ := x.Dims()
	var b bytes.Buffer
	for i := 0; i < r; i++ {
		for k, v := range x.RawRowView(i) {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// npyMagic starts every .npy file (NumPy format specification,
// numpy.lib.format).
const npyMagic = "\x93NUMPY"

// encodeNPY writes x in NumPy format version 1.0: the magic string, version
// bytes 1 0, a little-endian uint16 header length, the ASCII header dict
// padded with spaces and ended by '\n' so that the data starts at a multiple
// of 64 bytes, then the entries as little-endian float64 ('<f8') in C order.
func encodeNPY(x *mat.Dense) []byte {
	r, c := x.Dims()
	dict := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }", r, c)
	pre := len(npyMagic) + 2 + 2
	total := pre + len(dict) + 1
	pad := (64 - total%64) % 64
	header := dict + strings.Repeat(" ", pad) + "\n"
	var b bytes.Buffer
	b.WriteString(npyMagic)
	b.Write([]byte{1, 0})
	_ = binary.Write(&b, binary.LittleEndian, uint16(len(header)))
	b.WriteString(header)
	buf := make([]byte, 8)
	for i := 0; i < r; i++ {
		for _, v := range x.RawRowView(i) {
			binary.LittleEndian.PutUint64(buf, math.Float64bits(v))
			b.Write(buf)
		}
	}
	return b.Bytes()
}

var (
	npyDescr   = regexp.MustCompile(`'descr'\s*:\s*'([^']*)'`)
	npyFortran = regexp.MustCompile(`'fortran_order'\s*:\s*(True|False)`)
	npyShape   = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)
)

// decodeNPY reads a 2-D float64 array ('<f8', or '>f8') in NumPy format
// version 1.x, 2.x or 3.x, in C or Fortran order.
func decodeNPY(data []byte) (*mat.Dense, error) {
	if len(data) < 10 || string(data[:6]) != npyMagic {
		return nil, errors.New("not a NumPy .npy file (bad magic string)")
	}
	major := data[6]
	var hlen, start int
	switch major {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(data[8:10])), 10
	case 2, 3:
		if len(data) < 12 {
			return nil, errors.New("truncated .npy header")
		}
		hlen, start = int(binary.LittleEndian.Uint32(data[8:12])), 12
	default:
		return nil, fmt.Errorf("unsupported .npy format version %d.%d", major, data[7])
	}
	if start+hlen > len(data) {
		return nil, errors.New("truncated .npy header")
	}
	header := string(data[start : start+hlen])
	body := data[start+hlen:]
	d := npyDescr.FindStringSubmatch(header)
	if d == nil {
		return nil, fmt.Errorf(".npy header %q has no descr", header)
	}
	var order binary.ByteOrder
	switch d[1] {
	case "<f8":
		order = binary.LittleEndian
	case ">f8":
		order = binary.BigEndian
	default:
		return nil, fmt.Errorf(".npy dtype %q: want float64 ('<f8'); convert with a.astype('<f8')", d[1])
	}
	fo := npyFortran.FindStringSubmatch(header)
	if fo == nil {
		return nil, fmt.Errorf(".npy header %q has no fortran_order", header)
	}
	sh := npyShape.FindStringSubmatch(header)
	if sh == nil {
		return nil, fmt.Errorf(".npy header %q has no shape", header)
	}
	var dims []int
	for _, f := range strings.Split(sh[1], ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 0 {
			return nil, fmt.Errorf(".npy shape (%s) is not a list of sizes", sh[1])
		}
		dims = append(dims, v)
	}
	if len(dims) != 2 || dims[0] == 0 || dims[1] == 0 {
		return nil, fmt.Errorf(".npy shape (%s): want a non-empty 2-D matrix", sh[1])
	}
	r, c := dims[0], dims[1]
	if r > mech.MaxDenseEntries/c {
		return nil, fmt.Errorf(".npy shape (%d, %d) exceeds the dense limit of %d entries", r, c, mech.MaxDenseEntries)
	}
	if len(body) != 8*r*c {
		return nil, fmt.Errorf(".npy data holds %d bytes, shape (%d, %d) of float64 needs %d", len(body), r, c, 8*r*c)
	}
	x := mat.NewDense(r, c, nil)
	for k := 0; k < r*c; k++ {
		v := math.Float64frombits(order.Uint64(body[8*k:]))
		if fo[1] == "True" {
			x.Set(k%r, k/r, v)
		} else {
			x.Set(k/c, k%c, v)
		}
	}
	return x, nil
}

// writeMatrixPath writes x as .npy when path ends so, else as CSV.
func writeMatrixPath(path string, x *mat.Dense) error {
	data := encodeCSV
	if strings.HasSuffix(strings.ToLower(path), ".npy") {
		data = encodeNPY
	}
	if err := os.WriteFile(path, data(x), 0o644); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// checkNoiseMatrix validates a noise matrix read from a file against the
// metric: one row per answer, and row-stochastic (mech.ValidateStochastic).
func checkNoiseMatrix(x *mat.Dense, m metric.Metric) error {
	if r, _ := x.Dims(); r != m.Len() {
		return fmt.Errorf("the matrix has %d rows but %s has %d answers (want one row per true answer)", r, m, m.Len())
	}
	return mech.ValidateStochastic(x, "noise matrix")
}

// num is a float64 that marshals to JSON as a number when finite and as the
// string "+Inf", "-Inf" or "NaN" otherwise (JSON has no such numbers).
type num float64

// MarshalJSON implements json.Marshaler.
func (v num) MarshalJSON() ([]byte, error) {
	f := float64(v)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Inf"`), nil
	}
	return json.Marshal(f)
}

// numPtr is a pointer to v as a num (for optional fields).
func numPtr(v float64) *num { n := num(v); return &n }

// busy shows a progress bar labelled label on stderr while f runs (drawn
// only after a second, see progress), redrawing it every 200 ms with the
// last status f reported through bar.Update ("working" until then), then
// ends it.
func busy[T any](env *runEnv, label string, enabled bool, f func(bar *progress) (T, error)) (T, error) {
	bar := newProgress(env, label, enabled)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				bar.Redraw()
			}
		}
	})
	v, err := f(bar)
	close(done)
	wg.Wait()
	bar.Done()
	return v, err
}

// progressEnabled is whether to draw progress: by default unless --json,
// always with --progress.
func progressEnabled(asJSON, progressFlag bool) bool { return !asJSON || progressFlag }

// announceDense prints, before a dense tight-constraints solve of n >= 1000
// answers starts, its memory and an estimate of its time on the active
// backend (tight.Estimate), so nobody waits blind. It prints nothing for the
// structured solvers, or when quiet (--json without --progress).
func announceDense(env *runEnv, m metric.Metric, opts *tight.Options, enabled bool) {
	if !enabled {
		return
	}
	p, err := tight.Estimate(m, opts)
	if err != nil || p.Solver != tight.SolverDense || p.N < 1000 {
		return
	}
	fmt.Fprintf(env.stderr, "dense solve of n = %d: %.3g GB of memory, about %s on %s (a structured solver applies only to lattice, separable or ball-symmetric metrics)\n",
		p.N, p.DenseBytes/1e9, fmtDuration(p.DenseSeconds), backend.Name())
}

// fmtDuration formats an estimate in seconds for people.
func fmtDuration(sec float64) string {
	switch {
	case sec < 1:
		return "under a second"
	case sec < 120:
		return fmt.Sprintf("%.0f s", sec)
	case sec < 7200:
		return fmt.Sprintf("%.0f min", sec/60)
	}
	return fmt.Sprintf("%.1f h", sec/3600)
}

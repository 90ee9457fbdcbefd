package main

// Decoders of the files and lists the CLI reads: priors (--prior), noise
// matrices (CSV and NumPy .npy) and their encoders for --out.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/tight"
	"gonum.org/v1/gonum/mat"
)

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

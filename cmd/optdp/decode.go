package main

// Decoders of the files and lists the CLI reads: priors (--prior), noise
// matrices (CSV and NumPy .npy) and their encoders for --out.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/optdp/optdp/internal/readlimit"
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
	if ps, ok, err := parseMapPrior(spec, m); ok { // points:, raster: (prior_map.go)
		return ps, err
	}
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
		data, err := readBounded(path, priorFileBytes(n))
		if err != nil {
			return nil, fmt.Errorf("--prior: %w", err)
		}
		p, err := parseNumbersMax(string(data), n)
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
	return nil, usagef("--prior %q: want uniform, file:PATH, product:p1,...,pv (hamming), counts:FILE, points:FILE (grid, points:, latlon:) or raster:FILE (grid), the last three with an optional ,pseudo=A", spec)
}

// parseNumbers parses numbers separated by commas, whitespace or newlines;
// lines starting with # are comments.
func parseNumbers(s string) ([]float64, error) { return parseNumbersMax(s, -1) }

// parseNumbersMax is parseNumbers refusing, as soon as it is reached, more
// than max numbers (no limit when max < 0).
func parseNumbersMax(s string, max int) ([]float64, error) {
	var out []float64
	ln := 0
	for line := range strings.SplitSeq(s, "\n") {
		ln++
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		row, err := parseFields(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", ln, err)
		}
		out = append(out, row...)
		if max >= 0 && len(out) > max {
			return nil, fmt.Errorf("line %d: more than the %d numbers wanted", ln, max)
		}
	}
	return out, nil
}

// Size limits of the files the CLI reads whole, checked before reading
// (from the file's size when it has one) and while reading (pipes,
// devices): a matrix holds at most mech.MaxDenseEntries entries, i.e. 1 GiB
// as float64 in .npy, and about as much as CSV text; a prior file of n
// probabilities at most 64 bytes per probability (plus 1 MiB of comments).
const (
	maxMatrixFileBytes = 128 + 8*mech.MaxDenseEntries
	maxPriorSlack      = 1 << 20
)

// priorFileBytes is the largest prior file read for n answers.
// A prior is a vector of at most tight.MaxVectorN entries, so the file is
// read for at most that many (1 GiB).
func priorFileBytes(n int) int64 {
	return 64*int64(min(n, tight.MaxVectorN)) + maxPriorSlack
}

// openBounded and readBounded are readlimit.Open and readlimit.ReadFile, the
// readers the C ABI uses too.
func openBounded(path string, max int64) (*os.File, error) { return readlimit.Open(path, max) }

func readBounded(path string, max int64) ([]byte, error) { return readlimit.ReadFile(path, max) }

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
// array of float64. Both are decoded as they are read (decodeCSVFrom,
// decodeNPYFrom), so memory is that of the entries, and bounded: a regular
// file above maxMatrixFileBytes is refused from its size, a device such as
// /dev/zero after one line of maxCSVLine bytes (or the .npy magic string).
func readMatrixPath(path string) (*mat.Dense, error) {
	f, err := openBounded(path, maxMatrixFileBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var x *mat.Dense
	if strings.HasSuffix(strings.ToLower(path), ".npy") {
		x, err = decodeNPYFrom(br)
	} else {
		x, err = decodeCSVFrom(br)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return x, nil
}

// maxCSVLine is the longest line of a matrix CSV (a row of about 700 000
// entries written with full precision).
const maxCSVLine = 16 << 20

// readLine returns the next line of br without its '\n' (buf is reused),
// refusing lines longer than max bytes; io.EOF when there is none.
func readLine(br *bufio.Reader, buf []byte, max int) ([]byte, error) {
	buf = buf[:0]
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > max+1 {
			return nil, fmt.Errorf("a line is longer than %d bytes", max)
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return buf[:len(buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0:
			return buf, nil
		default:
			return nil, err
		}
	}
}

// decodeCSV parses a rectangular matrix of numbers, one row per non-empty
// line (lines starting with # are comments), entries separated by commas,
// semicolons or blanks. A line without numbers (",,"), rows of different
// lengths, lines over maxCSVLine bytes and more than mech.MaxDenseEntries
// entries are errors naming the line; the matrix is stored once, as it is
// read.
func decodeCSV(data []byte) (*mat.Dense, error) {
	return decodeCSVFrom(bufio.NewReader(bytes.NewReader(data)))
}

// decodeCSVFrom is decodeCSV reading from br.
func decodeCSVFrom(br *bufio.Reader) (*mat.Dense, error) {
	var vals []float64
	var buf []byte
	cols, rows, ln := 0, 0, 0
	for {
		raw, err := readLine(br, buf, maxCSVLine)
		if err == io.EOF {
			break
		}
		ln++
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", ln, err)
		}
		buf = raw[:0]
		line := bytes.TrimSpace(raw)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		row, err := parseFields(string(line))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", ln, err)
		}
		switch {
		case len(row) == 0:
			return nil, fmt.Errorf("line %d: no numbers, only separators", ln)
		case rows == 0:
			cols = len(row)
		case len(row) != cols:
			return nil, fmt.Errorf("line %d has %d entries, the first row has %d: the matrix must be rectangular", ln, len(row), cols)
		}
		if len(vals)+len(row) > mech.MaxDenseEntries {
			return nil, fmt.Errorf("line %d: more than %d entries, the dense limit", ln, mech.MaxDenseEntries)
		}
		vals = append(vals, row...)
		rows++
	}
	if rows == 0 {
		return nil, errors.New("no matrix rows found")
	}
	return mat.NewDense(rows, cols, vals), nil
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

// maxNPYHeader is the longest .npy header accepted (NumPy writes about
// 128 bytes).
const maxNPYHeader = 1 << 16

// decodeNPY reads a 2-D float64 array ('<f8', or '>f8') in NumPy format
// version 1.x, 2.x or 3.x, in C or Fortran order.
func decodeNPY(data []byte) (*mat.Dense, error) {
	return decodeNPYFrom(bufio.NewReader(bytes.NewReader(data)))
}

// decodeNPYFrom is decodeNPY reading from r: the header (at most
// maxNPYHeader bytes) is checked, and the shape against
// mech.MaxDenseEntries, before the data is read into the matrix.
func decodeNPYFrom(r io.Reader) (*mat.Dense, error) {
	pre := make([]byte, 12)
	if _, err := io.ReadFull(r, pre[:10]); err != nil || string(pre[:6]) != npyMagic {
		return nil, errors.New("not a NumPy .npy file (bad magic string)")
	}
	major := pre[6]
	var hlen int
	switch major {
	case 1:
		hlen = int(binary.LittleEndian.Uint16(pre[8:10]))
	case 2, 3:
		if _, err := io.ReadFull(r, pre[10:12]); err != nil {
			return nil, errors.New("truncated .npy header")
		}
		hlen = int(binary.LittleEndian.Uint32(pre[8:12]))
	default:
		return nil, fmt.Errorf("unsupported .npy format version %d.%d", major, pre[7])
	}
	if hlen > maxNPYHeader {
		return nil, fmt.Errorf(".npy header of %d bytes, longer than the limit of %d", hlen, maxNPYHeader)
	}
	hb := make([]byte, hlen)
	if _, err := io.ReadFull(r, hb); err != nil {
		return nil, errors.New("truncated .npy header")
	}
	header := string(hb)
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
	rows, cols := dims[0], dims[1]
	if rows > mech.MaxDenseEntries/cols {
		return nil, fmt.Errorf(".npy shape (%d, %d) exceeds the dense limit of %d entries", rows, cols, mech.MaxDenseEntries)
	}
	n := rows * cols
	vals := make([]float64, n)
	buf := make([]byte, 8*4096)
	for k := 0; k < n; {
		chunk := buf[:8*min(4096, n-k)]
		got, err := io.ReadFull(r, chunk)
		if err != nil {
			return nil, fmt.Errorf(".npy data holds %d bytes, shape (%d, %d) of float64 needs %d", 8*k+got, rows, cols, 8*n)
		}
		for off := 0; off < len(chunk); off += 8 {
			vals[k] = math.Float64frombits(order.Uint64(chunk[off:]))
			k++
		}
	}
	if m, _ := r.Read(buf[:1]); m > 0 {
		return nil, fmt.Errorf(".npy data is longer than the %d bytes shape (%d, %d) of float64 needs", 8*n, rows, cols)
	}
	if fo[1] == "True" {
		// Column-major: vals is the transpose's row-major data.
		return mat.DenseCopyOf(mat.NewDense(cols, rows, vals).T()), nil
	}
	return mat.NewDense(rows, cols, vals), nil
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

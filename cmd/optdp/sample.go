package main

// optdp sample: obfuscated locations for a file of true locations, drawn by
// the exact audited sampler (mech.NewSampler) from a mechanism matrix.

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
)

// maxSampleInputBytes bounds the file of true locations.
const maxSampleInputBytes = 256 << 20

func sampleCommand() command {
	return command{
		name:    "sample",
		summary: "obfuscated locations for a file of true locations, drawn exactly from an audited mechanism matrix",
		usage:   "--matrix M.csv|M.npy --metric SPEC --eps E --true FILE [--seed N] [--repair] [--out FILE.csv] [--json]",
		examples: []string{
			"optdp optimal --metric latlon:file=places.csv --eps 2 --prior uniform --out mech.csv && optdp sample --matrix mech.csv --metric latlon:file=places.csv --eps 2 --true visits.csv --out reported.csv",
			"optdp sample --matrix mech.csv --metric line:n=5 --eps 0.7 --true indices.txt --seed 1",
		},
		fields: sampleFields,
		run:    runSample,
	}
}

// sampleFields documents the JSON output of optdp sample.
var sampleFields = []string{
	"metric          the metric spec, normalised",
	"n               number of answers",
	"eps             privacy level per unit of distance",
	"randomness      crypto/rand, or seeded (reproducible; NOT for releases)",
	"seed            the --seed; absent with crypto/rand",
	"audit_eps       the level the exact audit of the realised distribution measured",
	"mix             weight of the uniform row --repair mixed in (0 when none)",
	"records         number of true locations read",
	"snap_max        with coordinates: the largest distance (km) from a record to the place it was snapped to; absent for indices, and for x, y on a grid laid on a map (inside their cells)",
	"snap_max_line   the line of that record",
	"out             the --out file of the CSV; absent when the CSV went to stdout",
}

type sampleOutput struct {
	Metric     string  `json:"metric"`
	N          int     `json:"n"`
	Eps        float64 `json:"eps"`
	Randomness string  `json:"randomness"`
	Seed       *uint64 `json:"seed,omitempty"`
	AuditEps   float64 `json:"audit_eps"`
	Mix        float64 `json:"mix"`
	Records    int     `json:"records"`
	// SnapMax and SnapMaxLine: with coordinates, the farthest record from
	// the place it was snapped to (km) and its line.
	SnapMax     *float64 `json:"snap_max,omitempty"`
	SnapMaxLine int      `json:"snap_max_line,omitempty"`
	Out         string   `json:"out,omitempty"`
}

func runSample(env *runEnv, args []string) error {
	fs := newFlags(env, "sample")
	matrixPath := fs.String("matrix", "", "the mechanism: an n×n row-stochastic matrix (CSV or .npy), e.g. written by optdp optimal --out or tight --out")
	metricSpec := fs.String("metric", "", metricFlagHelp)
	eps := fs.Float64("eps", 0, epsFlagHelp)
	truePath := fs.String("true", "", "the true locations: one answer index per line, or a CSV whose header names x and y (km) or lat and lon (degrees) columns, each record snapped to its grid cell or nearest location of the metric")
	seed := fs.Uint64("seed", 0, "draw from a seeded generator (reproducible experiments; predictable, NOT for releases); default crypto/rand")
	repair := fs.Bool("repair", false, "mix the rows with a tiny uniform weight when the realised matrix fails the exact audit by rounding (mech.SamplerOptions.Repair)")
	out := fs.String("out", "", "write the CSV to FILE instead of stdout")
	asJSON := fs.Bool("json", false, "print a JSON summary (the CSV then needs --out)")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	m, err := metricAndEps(fs, *metricSpec, *eps)
	if err != nil {
		return err
	}
	given := flagsGiven(fs)
	if *matrixPath == "" {
		return usagef("--matrix is required (a mechanism written by optdp optimal --out or tight --out)")
	}
	if *truePath == "" {
		return usagef("--true is required (a file of true locations)")
	}
	if *asJSON && *out == "" {
		return usagef("--json prints a summary: give --out FILE.csv for the samples")
	}
	x, err := readMatrixPath(*matrixPath)
	if err != nil {
		return dataError{fmt.Errorf("--matrix: %w", err)}
	}
	if r, c := x.Dims(); r != m.Len() || c != m.Len() {
		return dataError{fmt.Errorf("--matrix %s: %d×%d, want %d×%d (one row and column per answer of %s)", *matrixPath, r, c, m.Len(), m.Len(), m)}
	}
	truth, snap, err := readTrueLocations(*truePath, m)
	if err != nil {
		return dataError{fmt.Errorf("--true %s: %w", *truePath, err)}
	}
	s, err := mech.NewSampler(x, m, *eps, &mech.SamplerOptions{Repair: *repair, Settings: budget(false)})
	if err != nil {
		if !*repair {
			err = fmt.Errorf("%w (if the matrix fails only by rounding, --repair mixes in a tiny uniform weight)", err)
		}
		return dataError{fmt.Errorf("--matrix %s: %w", *matrixPath, err)}
	}
	src, randomness := mech.CryptoSource(), "crypto/rand"
	res := sampleOutput{Metric: m.String(), N: m.Len(), Eps: *eps, AuditEps: s.Audit().Eps, Mix: s.Mix(), Records: len(truth), Out: *out}
	if snap.line > 0 {
		res.SnapMax, res.SnapMaxLine = &snap.dist, snap.line
		if ext := placesExtent(m); snap.dist > ext {
			fmt.Fprintf(env.stderr, "optdp sample: warning: the record on line %d is %s km from the nearest place, farther than the places are from each other (%s km at most): is it from another map?\n", snap.line, fmtKm(snap.dist), fmtKm(ext))
		}
	}
	if given["seed"] {
		src, randomness = mech.SeededSource(*seed), fmt.Sprintf("seeded with %d (reproducible; predictable, NOT for releases)", *seed)
		res.Seed = seed
		res.Randomness = "seeded"
	} else {
		res.Randomness = randomness
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	fmt.Fprintf(&buf, "# optdp sample: metric %s, eps %s, matrix %s; randomness %s; exact audit eps %.9g", m, fmtFloat(*eps), *matrixPath, randomness, s.Audit().Eps)
	if s.Mix() > 0 {
		fmt.Fprintf(&buf, ", repaired with uniform weight %g", s.Mix())
	}
	if snap.line > 0 {
		fmt.Fprintf(&buf, "; records snapped to the nearest place, the farthest %s km from it (line %d)", fmtKm(snap.dist), snap.line)
	}
	buf.WriteString("\n")
	loc, places := m.(metric.Locator)
	header := []string{"true", "reported"}
	if places {
		_, _, geo := loc.Place(0)
		a, b := "x", "y"
		if geo {
			a, b = "lat", "lon"
		}
		header = append(header, "true_"+a, "true_"+b, "reported_"+a, "reported_"+b)
	}
	if err := w.Write(header); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, i := range truth {
		o, err := s.Sample(i, src)
		if err != nil {
			return err
		}
		rec := []string{strconv.Itoa(i), strconv.Itoa(o)}
		if places {
			ta, tb, _ := loc.Place(i)
			ra, rb, _ := loc.Place(o)
			rec = append(rec, f(ta), f(tb), f(ra), f(rb))
		}
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	w.Flush()
	if *out == "" {
		_, err := env.stdout.Write(buf.Bytes())
		return err
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.stdout, res)
	}
	fmt.Fprintf(env.stdout, "%d samples written to %s (randomness %s; exact audit eps %.9g)\n", len(truth), *out, randomness, s.Audit().Eps)
	return nil
}

// snapped is the farthest record of a --true file from the place it was
// snapped to: the distance (km) and the line (0 for answer indices).
type snapped struct {
	dist float64
	line int
}

// readTrueLocations reads the --true file: answer indices, one a line, or
// a CSV whose header names x, y or lat, lon, snapped by m (a Locator), and
// the farthest record from its place. Errors name the line.
func readTrueLocations(path string, m metric.Metric) ([]int, snapped, error) {
	var far snapped
	fh, err := openBounded(path, maxSampleInputBytes)
	if err != nil {
		return nil, far, err
	}
	defer fh.Close()
	sc := bufio.NewScanner(io.LimitReader(fh, maxSampleInputBytes))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var (
		out      []int
		a, b     = -1, -1
		fields   int
		geo, hdr bool
	)
	loc, isLoc := m.(metric.Locator)
	split := func(s string) []string {
		return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == '\t' || r == ' ' })
	}
	ln := 0
	for sc.Scan() {
		ln++
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		f := split(s)
		if !hdr && len(out) == 0 {
			if _, err := strconv.Atoi(f[0]); err != nil {
				hdr, fields = true, len(f)
				for k, name := range f {
					switch strings.ToLower(strings.Trim(name, `"'`)) {
					case "x":
						a = k
					case "y":
						b = k
					case "lat", "latitude":
						a, geo = k, true
					case "lon", "lng", "long", "longitude":
						b, geo = k, true
					}
				}
				if a < 0 || b < 0 {
					return nil, far, fmt.Errorf("line %d: a header must name the columns x and y (km) or lat and lon (degrees), got %.80q", ln, s)
				}
				if !isLoc || !loc.Accepts(geo) {
					return nil, far, fmt.Errorf("line %d: %s cannot place %s coordinates (grids take x/y, grids with a bbox and latlon: take lat/lon, points: takes x/y); give answer indices instead", ln, m, map[bool]string{true: "lat/lon", false: "x/y"}[geo])
				}
				continue
			}
		}
		if len(out) >= maxSampleRecords {
			return nil, far, fmt.Errorf("line %d: more than %d records", ln, maxSampleRecords)
		}
		if !hdr {
			if len(f) != 1 {
				return nil, far, fmt.Errorf("line %d: want one answer index, got %q", ln, s)
			}
			i, err := strconv.Atoi(f[0])
			if err != nil || i < 0 || i >= m.Len() {
				return nil, far, fmt.Errorf("line %d: %q is not an answer index in 0..%d", ln, f[0], m.Len()-1)
			}
			out = append(out, i)
			continue
		}
		if len(f) != fields {
			return nil, far, fmt.Errorf("line %d has %d fields, the header %d", ln, len(f), fields)
		}
		va, err1 := strconv.ParseFloat(f[a], 64)
		vb, err2 := strconv.ParseFloat(f[b], 64)
		if err1 != nil || err2 != nil || math.IsNaN(va+vb) || math.IsInf(va+vb, 0) {
			return nil, far, fmt.Errorf("line %d: coordinates %q, %q are not finite numbers", ln, f[a], f[b])
		}
		i, ok := loc.Locate(va, vb, geo)
		if !ok {
			return nil, far, fmt.Errorf("line %d: (%v, %v) is outside %s", ln, va, vb, m)
		}
		// The distance when the record and the place are in the same
		// coordinates (a grid on a map places its cells by lat, lon but
		// also takes x, y: a record is then inside its cell).
		if pa, pb, pgeo := loc.Place(i); pgeo == geo {
			d := math.Hypot(va-pa, vb-pb)
			if geo {
				d = metric.Haversine(va, vb, pa, pb)
			}
			if far.line == 0 || d > far.dist {
				far = snapped{d, ln}
			}
		}
		out = append(out, i)
	}
	if err := sc.Err(); err != nil {
		return nil, far, err
	}
	if len(out) == 0 {
		return nil, far, fmt.Errorf("no true locations")
	}
	return out, far, nil
}

// maxSampleRecords bounds the number of true locations of one run.
const maxSampleRecords = 1 << 24

// placesExtent is the largest distance between two of m's answers (0 for
// one): how far apart the places of a map lie.
func placesExtent(m metric.Metric) float64 {
	ext := 0.0
	for i := range m.Len() {
		for j := i + 1; j < m.Len(); j++ {
			ext = max(ext, m.Dist(i, j))
		}
	}
	return ext
}

// fmtKm writes a distance in km with four significant digits, and whole
// kilometres from 1,000 on (no exponent).
func fmtKm(d float64) string {
	if d >= 1000 {
		return strconv.FormatFloat(d, 'f', 0, 64)
	}
	return strconv.FormatFloat(d, 'g', 4, 64)
}

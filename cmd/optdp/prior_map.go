package main

// Priors for maps: --prior points:FILE[,pseudo=A] and --prior
// raster:FILE[,pseudo=A] on grid metrics (mech.PriorFromPoints,
// mech.PriorFromRaster).

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
)

// mapPriorHelp documents the map priors of --prior.
const mapPriorHelp = "points:FILE[,pseudo=A] (grid metrics: a CSV of points whose header names lat and lon columns (grid with bbox) " +
	"or x and y (km), an optional weight column, other columns ignored; binned onto the grid's cells, points outside dropped, " +
	"A >= 0 added to every cell), " +
	"raster:FILE[,pseudo=A] (grid metrics: a CSV of h rows of w weights >= 0, row 0 first)"

// mapPriorInfo is what a map prior was built from, for the commands that
// report it (measure).
type mapPriorInfo struct {
	Kind    string  `json:"kind"` // "points" or "raster"
	File    string  `json:"file"`
	Pseudo  float64 `json:"pseudo"`
	Points  int     `json:"points,omitempty"`
	Inside  int     `json:"inside,omitempty"`
	Outside int     `json:"outside,omitempty"`
}

// isMapPrior is whether spec is a map prior (its file's contents are data:
// exit code 1 when invalid).
func isMapPrior(spec string) bool {
	return strings.HasPrefix(spec, "points:") || strings.HasPrefix(spec, "raster:")
}

// parseMapPrior handles the map priors of --prior: ok is false when spec is
// not one (parsePrior then goes on). The metric must be a grid; lat/lon
// points need a grid with a bbox.
func parseMapPrior(spec string, m metric.Metric) (ps *priorSpec, ok bool, err error) {
	ps, _, ok, err = readMapPrior(spec, m)
	return ps, ok, err
}

// readMapPrior is parseMapPrior that also returns what the prior was built
// from.
func readMapPrior(spec string, m metric.Metric) (*priorSpec, *mapPriorInfo, bool, error) {
	kind, rest, _ := strings.Cut(spec, ":")
	if kind != "points" && kind != "raster" {
		return nil, nil, false, nil
	}
	info := &mapPriorInfo{Kind: kind, File: rest}
	if i := strings.LastIndex(rest, ",pseudo="); i >= 0 {
		a, err := strconv.ParseFloat(rest[i+len(",pseudo="):], 64)
		if err != nil {
			return nil, nil, true, usagef("--prior %q: pseudo=%q is not a number", spec, rest[i+len(",pseudo="):])
		}
		info.File, info.Pseudo = rest[:i], a
	}
	if info.File == "" {
		return nil, nil, true, usagef("--prior %q: want %s:FILE[,pseudo=A]", spec, kind)
	}
	g, isGrid := m.(*metric.GridMetric)
	if !isGrid {
		return nil, nil, true, usagef("--prior %s:...: only for grid metrics (grid:w=W,h=H,... or grid:w=W,h=H,bbox=S,W,N,E), not %s", kind, m)
	}
	f, err := os.Open(info.File)
	if err != nil {
		return nil, nil, true, fmt.Errorf("--prior: %w", err)
	}
	defer f.Close()
	opts := &mech.MapPriorOptions{Pseudo: info.Pseudo}
	var p []float64
	if kind == "points" {
		res, err := mech.PriorFromPoints(f, g, opts)
		if err != nil {
			return nil, nil, true, fmt.Errorf("--prior %s: %w", info.File, err)
		}
		p, info.Points, info.Inside, info.Outside = res.Prior, res.Points, res.Inside, res.Outside
	} else {
		if p, err = mech.PriorFromRaster(f, g, opts); err != nil {
			return nil, nil, true, fmt.Errorf("--prior %s: %w", info.File, err)
		}
	}
	return &priorSpec{kind: kind, prior: p}, info, true, nil
}

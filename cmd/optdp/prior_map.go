package main

// Priors from data: --prior points:FILE[,pseudo=A] on grids and point
// sets, --prior raster:FILE[,pseudo=A] on grids and --prior
// counts:FILE[,pseudo=A] on any metric (mech.PriorFromPoints,
// mech.PriorFromRaster, mech.PriorFromCounts).

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
)

// mapPriorHelp documents the priors built from data, for --prior's help
// (every command that takes --prior appends it).
const mapPriorHelp = "counts:FILE[,pseudo=A] (any metric: n counts >= 0, one per answer in order, normalised; A >= 0 added to each), " +
	"points:FILE[,pseudo=A] (grid, points: and latlon: metrics: a CSV of visit records whose header names lat and lon columns " +
	"(grid with bbox, or latlon:) or x and y (km: grid, or points:), an optional weight column, other columns ignored; each record is " +
	"snapped to its grid cell or its nearest location, records outside a grid dropped, A >= 0 added to every answer), " +
	"raster:FILE[,pseudo=A] (grid metrics: a CSV of h rows of w weights >= 0, row 0 first)"

// mapPriorInfo is what a map prior was built from, for the commands that
// report it (measure).
type mapPriorInfo struct {
	Kind    string  `json:"kind"` // "points", "raster" or "counts"
	File    string  `json:"file"`
	Pseudo  float64 `json:"pseudo"`
	Points  int     `json:"points,omitempty"`
	Inside  int     `json:"inside,omitempty"`
	Outside int     `json:"outside,omitempty"`
}

// isMapPrior is whether spec is a map prior (its file's contents are data:
// exit code 1 when invalid).
func isMapPrior(spec string) bool {
	return strings.HasPrefix(spec, "points:") || strings.HasPrefix(spec, "raster:") || strings.HasPrefix(spec, "counts:")
}

// parseMapPrior handles the map priors of --prior: ok is false when spec is
// not one (parsePrior then goes on). points: needs a grid or a point set
// (lat/lon records a grid with a bbox or a latlon: metric), raster: a grid,
// counts: any metric.
func parseMapPrior(spec string, m metric.Metric) (ps *priorSpec, ok bool, err error) {
	ps, _, ok, err = readMapPrior(spec, m)
	return ps, ok, err
}

// readMapPrior is parseMapPrior that also returns what the prior was built
// from.
func readMapPrior(spec string, m metric.Metric) (*priorSpec, *mapPriorInfo, bool, error) {
	kind, rest, _ := strings.Cut(spec, ":")
	if kind != "points" && kind != "raster" && kind != "counts" {
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
	loc, isLoc := m.(metric.Locator)
	switch {
	case kind == "raster" && !isGrid:
		return nil, nil, true, usagef("--prior raster:...: only for grid metrics (grid:w=W,h=H,... or grid:w=W,h=H,bbox=S,W,N,E), not %s; use counts:FILE for one count per answer", m)
	case kind == "points" && !isLoc:
		return nil, nil, true, usagef("--prior points:...: only for metrics with places (grid:..., points:file=..., latlon:file=...), not %s; use counts:FILE for one count per answer", m)
	}
	f, err := os.Open(info.File)
	if err != nil {
		return nil, nil, true, fmt.Errorf("--prior: %w", err)
	}
	defer f.Close()
	opts := &mech.MapPriorOptions{Pseudo: info.Pseudo}
	var p []float64
	switch kind {
	case "counts":
		if p, err = mech.PriorFromCounts(f, m.Len(), opts); err != nil {
			return nil, nil, true, fmt.Errorf("--prior %s: %w", info.File, err)
		}
	case "points":
		res, err := mech.PriorFromPoints(f, loc, opts)
		if err != nil {
			return nil, nil, true, fmt.Errorf("--prior %s: %w", info.File, err)
		}
		p, info.Points, info.Inside, info.Outside = res.Prior, res.Points, res.Inside, res.Outside
	default:
		if p, err = mech.PriorFromRaster(f, g, opts); err != nil {
			return nil, nil, true, fmt.Errorf("--prior %s: %w", info.File, err)
		}
	}
	return &priorSpec{kind: kind, prior: p}, info, true, nil
}

package main

// The measures of quantitative information flow by name, channel
// composition and capacities (package mech).

/*
#include "optdp.h"
*/
import "C"

import (
	"sort"
	"strings"

	"github.com/optdp/optdp/mech"
	"gonum.org/v1/gonum/mat"
)

// measure is one entry of the measure table: which arguments it takes and
// the function computing it.
type measure struct {
	channel, prior, gain bool
	f                    func(c *mat.Dense, p []float64, g *mat.Dense) (float64, error)
}

// measures is the table of optdp_measure (optdp.h lists the names).
var measures = map[string]measure{
	"min_entropy":      {prior: true, f: func(_ *mat.Dense, p []float64, _ *mat.Dense) (float64, error) { return mech.MinEntropy(p) }},
	"shannon_entropy":  {prior: true, f: func(_ *mat.Dense, p []float64, _ *mat.Dense) (float64, error) { return mech.ShannonEntropy(p) }},
	"guessing_entropy": {prior: true, f: func(_ *mat.Dense, p []float64, _ *mat.Dense) (float64, error) { return mech.GuessingEntropy(p) }},
	"cond_min_entropy": {channel: true, prior: true, f: func(c *mat.Dense, p []float64, _ *mat.Dense) (float64, error) {
		return mech.CondMinEntropy(c, p)
	}},
	"cond_shannon_entropy": {channel: true, prior: true, f: func(c *mat.Dense, p []float64, _ *mat.Dense) (float64, error) {
		return mech.CondShannonEntropy(c, p)
	}},
	"cond_guessing_entropy": {channel: true, prior: true, f: func(c *mat.Dense, p []float64, _ *mat.Dense) (float64, error) {
		return mech.CondGuessingEntropy(c, p)
	}},
	"min_entropy_leakage": {channel: true, prior: true, f: func(c *mat.Dense, p []float64, _ *mat.Dense) (float64, error) {
		return mech.Leakage(c, p)
	}},
	"shannon_leakage": {channel: true, prior: true, f: func(c *mat.Dense, p []float64, _ *mat.Dense) (float64, error) {
		return mech.ShannonLeakage(c, p)
	}},
	"min_capacity": {channel: true, f: func(c *mat.Dense, _ []float64, _ *mat.Dense) (float64, error) { return mech.MinCapacity(c) }},
	"g_vulnerability": {prior: true, gain: true, f: func(_ *mat.Dense, p []float64, g *mat.Dense) (float64, error) {
		return mech.GVulnerability(p, g)
	}},
	"post_g_vulnerability": {channel: true, prior: true, gain: true, f: mech.PostGVulnerability},
	"add_g_leakage":        {channel: true, prior: true, gain: true, f: mech.AddGLeakage},
	"mul_g_leakage":        {channel: true, prior: true, gain: true, f: mech.MulGLeakage},
	"bayes_risk": {prior: true, gain: true, f: func(_ *mat.Dense, p []float64, l *mat.Dense) (float64, error) {
		return mech.BayesRisk(p, l)
	}},
	"post_bayes_risk": {channel: true, prior: true, gain: true, f: mech.PostBayesRisk},
}

// measureNames lists the table's names, sorted, for messages.
func measureNames() string {
	names := make([]string, 0, len(measures))
	for k := range measures {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

//export optdp_measure
func optdp_measure(name *C.optdp_cchar, c *C.optdp_cdouble, cr, cc C.int64_t, prior *C.optdp_cdouble, n C.int64_t,
	g *C.optdp_cdouble, gr, gc C.int64_t, out *C.double, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	if name == nil {
		return fail(errOut, badInput("the measure name is NULL"))
	}
	nm := C.GoString((*C.char)(name))
	ms, ok := measures[nm]
	if !ok {
		return fail(errOut, badInput("unknown measure %q (want one of %s)", nm, measureNames()))
	}
	var (
		ch, gm *mat.Dense
		p      []float64
		err    error
	)
	if ms.channel {
		if ch, err = dense(c, cr, cc, "channel"); err != nil {
			return fail(errOut, err)
		}
	}
	if ms.prior {
		if p, err = floats(prior, int64(n), "prior", false); err != nil {
			return fail(errOut, err)
		}
	}
	if ms.gain {
		if gm, err = dense(g, gr, gc, "gain (or loss) matrix"); err != nil {
			return fail(errOut, err)
		}
	}
	return result(errOut, out)(ms.f(ch, p, gm))
}

//export optdp_compose
func optdp_compose(how *C.optdp_cchar, a *C.optdp_cdouble, ar, ac C.int64_t, b *C.optdp_cdouble, br, bc C.int64_t,
	out *C.optdp_matrix, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	if how == nil {
		return fail(errOut, badInput("the composition name is NULL"))
	}
	x, err := dense(a, ar, ac, "first channel")
	if err != nil {
		return fail(errOut, err)
	}
	y, err := dense(b, br, bc, "second channel")
	if err != nil {
		return fail(errOut, err)
	}
	switch h := C.GoString((*C.char)(how)); h {
	case "cascade":
		return matrixResult(errOut, out)(mech.Cascade(x, y))
	case "parallel":
		return matrixResult(errOut, out)(mech.Parallel(x, y))
	default:
		return fail(errOut, badInput("unknown composition %q (want cascade or parallel)", h))
	}
}

// capacityOptions is the options argument of optdp_shannon_capacity and
// optdp_mul_g_capacity.
type capacityOptions struct {
	control
	Tol           float64 `json:"tol"`
	MaxIter       int     `json:"max_iter"`
	MaxStrategies int     `json:"max_strategies"`
	Budget        int64   `json:"budget"`
}

//export optdp_shannon_capacity
func optdp_shannon_capacity(c *C.optdp_cdouble, cr, cc C.int64_t, op *C.optdp_cchar, out **C.char, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	ch, err := dense(c, cr, cc, "channel")
	if err != nil {
		return fail(errOut, err)
	}
	var o capacityOptions
	if err := decodeJSON(op, &o, "options", true); err != nil {
		return fail(errOut, err)
	}
	if o.MaxStrategies != 0 {
		return fail(errOut, badInput("max_strategies is an option of optdp_mul_g_capacity"))
	}
	ctx, cancel, set, err := o.start(o.Budget)
	if err != nil {
		return fail(errOut, err)
	}
	defer cancel()
	r, err := mech.ShannonCapacity(ctx, ch, &mech.CapacityOptions{Tol: o.Tol, MaxIter: o.MaxIter,
		Settings: set})
	if err == nil {
		err = putJSON(out, obj{{"lower", r.Lower}, {"upper", r.Upper}, {"prior", r.Prior}, {"iterations", r.Iter}})
	}
	if err != nil {
		return fail(errOut, err)
	}
	return C.OPTDP_OK
}

//export optdp_mul_g_capacity
func optdp_mul_g_capacity(c *C.optdp_cdouble, cr, cc C.int64_t, g *C.optdp_cdouble, gr, gc C.int64_t, op *C.optdp_cchar,
	out **C.char, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	ch, err := dense(c, cr, cc, "channel")
	if err != nil {
		return fail(errOut, err)
	}
	gm, err := dense(g, gr, gc, "gain matrix")
	if err != nil {
		return fail(errOut, err)
	}
	var o capacityOptions
	if err := decodeJSON(op, &o, "options", true); err != nil {
		return fail(errOut, err)
	}
	if o.Tol != 0 || o.MaxIter != 0 {
		return fail(errOut, badInput("tol and max_iter are options of optdp_shannon_capacity"))
	}
	ctx, cancel, set, err := o.start(o.Budget)
	if err != nil {
		return fail(errOut, err)
	}
	defer cancel()
	r, err := mech.MulGCapacity(ctx, ch, gm, &mech.GCapacityOptions{MaxStrategies: o.MaxStrategies,
		Settings: set})
	if err == nil {
		err = putJSON(out, obj{{"lower", r.Lower}, {"upper", r.Upper}, {"prior", r.Prior}, {"exact", r.Exact}, {"lps", r.LPs}})
	}
	if err != nil {
		return fail(errOut, err)
	}
	return C.OPTDP_OK
}

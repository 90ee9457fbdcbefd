package main

// The measures of quantitative information flow by name, channel
// composition and capacities (package mech).

/*
#include "optdp.h"
*/
import "C"

import (
	"context"
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
	g *C.optdp_cdouble, gr, gc C.int64_t, out *C.double, errOut **C.char) C.int {
	return call(errOut, func() error {
		if name == nil {
			return badInput("the measure name is NULL")
		}
		nm := C.GoString((*C.char)(name))
		ms, ok := measures[nm]
		if !ok {
			return badInput("unknown measure %q (want one of %s)", nm, measureNames())
		}
		var (
			ch, gm *mat.Dense
			p      []float64
			err    error
		)
		if ms.channel {
			if ch, err = dense(c, cr, cc, "channel"); err != nil {
				return err
			}
		}
		if ms.prior {
			if p, err = floats(prior, int64(n), "prior", false); err != nil {
				return err
			}
		}
		if ms.gain {
			if gm, err = dense(g, gr, gc, "gain (or loss) matrix"); err != nil {
				return err
			}
		}
		return floatOut(out)(ms.f(ch, p, gm))
	})
}

//export optdp_compose
func optdp_compose(how *C.optdp_cchar, a *C.optdp_cdouble, ar, ac C.int64_t, b *C.optdp_cdouble, br, bc C.int64_t,
	out *C.optdp_matrix, errOut **C.char) C.int {
	return call(errOut, func() error {
		if how == nil {
			return badInput("the composition name is NULL")
		}
		x, err := dense(a, ar, ac, "first channel")
		if err != nil {
			return err
		}
		y, err := dense(b, br, bc, "second channel")
		if err != nil {
			return err
		}
		switch h := C.GoString((*C.char)(how)); h {
		case "cascade":
			return denseOut(out)(mech.Cascade(x, y))
		case "parallel":
			return denseOut(out)(mech.Parallel(x, y))
		default:
			return badInput("unknown composition %q (want cascade or parallel)", h)
		}
	})
}

//export optdp_shannon_capacity
func optdp_shannon_capacity(c *C.optdp_cdouble, cr, cc C.int64_t, op *C.optdp_cchar, out **C.char, errOut **C.char) C.int {
	return call(errOut, func() error {
		ch, err := dense(c, cr, cc, "channel")
		if err != nil {
			return err
		}
		return long(op, true, func(ctx context.Context, o *capacityArgs) error {
			return jsonOut(out)(mech.ShannonCapacity(ctx, ch, &o.CapacityOptions))
		})
	})
}

//export optdp_mul_g_capacity
func optdp_mul_g_capacity(c *C.optdp_cdouble, cr, cc C.int64_t, g *C.optdp_cdouble, gr, gc C.int64_t, op *C.optdp_cchar,
	out **C.char, errOut **C.char) C.int {
	return call(errOut, func() error {
		ch, err := dense(c, cr, cc, "channel")
		if err != nil {
			return err
		}
		gm, err := dense(g, gr, gc, "gain matrix")
		if err != nil {
			return err
		}
		return long(op, true, func(ctx context.Context, o *gCapacityArgs) error {
			return jsonOut(out)(mech.MulGCapacity(ctx, ch, gm, &o.GCapacityOptions))
		})
	})
}

package main

// The tight-constraints mechanism, thresholds, regular priors (package
// mech/tight) and the LP-optimal mechanism (package mech/optimal).

/*
#include <stdlib.h>
#include "optdp.h"
*/
import "C"

import (
	"context"
	"unsafe"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/optimal"
	"github.com/optdp/optdp/mech/tight"
)

// sampler is what optdp_sample draws from: a *mech.Sampler or the
// matrix-free *tight.FreeMechanism.
type sampler interface {
	Sample(trueAnswer int, src mech.Source) (int, error)
}

var (
	_ sampler = (*mech.Sampler)(nil)
	_ sampler = (*tight.FreeMechanism)(nil)
)

// emptyMatrix marks an absent matrix output.
func emptyMatrix(out *C.optdp_matrix) {
	if out != nil {
		out.data, out.rows, out.cols = nil, 0, 0
	}
}

//export optdp_tight
func optdp_tight(h C.optdp_handle, eps C.double, op *C.optdp_cchar, out **C.char, x, z *C.optdp_matrix,
	mechanism *C.optdp_handle, errOut **C.char) C.int {
	return call(errOut, func() error {
		m, err := metricEps(h, eps)
		if err != nil {
			return err
		}
		if out == nil || x == nil || z == nil || mechanism == nil {
			return badInput("an output pointer is NULL")
		}
		return long(op, true, func(ctx context.Context, o *tightArgs) error {
			r, err := tight.Solve(ctx, m, float64(eps), &o.Options)
			if err != nil {
				return err
			}
			if err := putJSON(out, r); err != nil {
				return err
			}
			emptyMatrix(x)
			emptyMatrix(z)
			if r.X != nil {
				err = putDense(x, r.X)
			}
			if err == nil && r.Z != nil {
				err = putMatrix(z, r.Z, 1, len(r.Z))
			}
			if err != nil {
				C.free(unsafe.Pointer(*out))
				C.free(unsafe.Pointer(x.data))
				emptyMatrix(x)
				return err
			}
			*mechanism = 0
			if r.Free != nil {
				*mechanism = register(r.Free)
			}
			return nil
		})
	})
}

//export optdp_threshold
func optdp_threshold(h C.optdp_handle, op *C.optdp_cchar, out **C.char, errOut **C.char) C.int {
	return call(errOut, func() error {
		m, err := metricOf(h)
		if err != nil {
			return err
		}
		return long(op, true, func(ctx context.Context, o *thresholdArgs) error {
			return jsonOut(out)(tight.Threshold(ctx, m, &o.ThresholdOptions))
		})
	})
}

// regularResult is the document of optdp_regular: the library's result
// with the solution y, which its own JSON leaves out.
type regularResult struct {
	*tight.RegularResult
	Y []float64 `json:"y"`
}

// metricPrior reads a metric handle, eps (metricEps) and a prior.
func metricPrior(h C.optdp_handle, eps C.double, prior *C.optdp_cdouble, n C.int64_t) (metricType, []float64, error) {
	m, err := metricEps(h, eps)
	if err != nil {
		return nil, nil, err
	}
	p, err := floats(prior, int64(n), "prior", false)
	return m, p, err
}

//export optdp_regular
func optdp_regular(h C.optdp_handle, eps C.double, prior *C.optdp_cdouble, n C.int64_t, op *C.optdp_cchar,
	out **C.char, errOut **C.char) C.int {
	return call(errOut, func() error {
		m, p, err := metricPrior(h, eps, prior, n)
		if err != nil {
			return err
		}
		return long(op, true, func(ctx context.Context, o *tightArgs) error {
			r, err := tight.Regular(ctx, m, float64(eps), p, &o.Options)
			if err != nil {
				return err
			}
			return putJSON(out, regularResult{r, r.Y})
		})
	})
}

//export optdp_optimal
func optdp_optimal(h C.optdp_handle, eps C.double, prior *C.optdp_cdouble, n C.int64_t,
	gain *C.optdp_cdouble, gr, gc C.int64_t, op *C.optdp_cchar, out **C.char, x *C.optdp_matrix,
	errOut **C.char) C.int {
	return call(errOut, func() error {
		m, p, err := metricPrior(h, eps, prior, n)
		if err != nil {
			return err
		}
		return long(op, true, func(ctx context.Context, o *optimalArgs) error {
			if gain != nil {
				mx, err := dense(gain, gr, gc, "gain (or loss) matrix")
				if err != nil {
					return err
				}
				switch o.MatrixKind {
				case "", "gain":
					o.GainMatrix = mx
				case "loss":
					o.LossMatrix = mx
				default:
					return badInput("matrix_kind %q (want gain or loss)", o.MatrixKind)
				}
			} else if o.MatrixKind != "" {
				return badInput("matrix_kind %q without a matrix", o.MatrixKind)
			}
			if out == nil || x == nil {
				return badInput("an output pointer is NULL")
			}
			r, solveErr := optimal.Solve(ctx, m, float64(eps), p, &o.Options)
			if solveErr != nil && (r == nil || !o.Partial) {
				return solveErr
			}
			// With "partial", an error that comes with a result (a gap
			// above tol, or auto's last method refused or cancelled after
			// an earlier one answered) still hands out that certified
			// answer (audited, with valid bounds), as the command-line
			// tool prints it.
			if err := putDense(x, r.X); err != nil {
				return err
			}
			if err := putJSON(out, r); err != nil {
				C.free(unsafe.Pointer(x.data))
				emptyMatrix(x)
				return err
			}
			return solveErr
		})
	})
}

//export optdp_prior_bounds
func optdp_prior_bounds(h C.optdp_handle, eps C.double, out *C.optdp_matrix, errOut **C.char) C.int {
	return call(errOut, func() error {
		m, err := metricEps(h, eps)
		if err != nil {
			return err
		}
		lo, hi, err := tight.PriorBounds(m, float64(eps))
		if err != nil {
			return err
		}
		return putMatrix(out, append(append(make([]float64, 0, 2*len(lo)), lo...), hi...), 2, len(lo))
	})
}

//export optdp_corner
func optdp_corner(h C.optdp_handle, eps C.double, i C.int64_t, out *C.double, errOut **C.char) C.int {
	return call(errOut, func() error {
		m, err := metricEps(h, eps)
		if err != nil {
			return err
		}
		if i < 0 || int64(i) >= int64(m.Len()) {
			return badInput("corner %d outside 0..%d", int64(i), m.Len()-1)
		}
		if out == nil {
			return badInput("the output array is NULL")
		}
		c, err := tight.Corner(m, float64(eps), int(i))
		if err != nil {
			return err
		}
		copy(unsafe.Slice((*float64)(unsafe.Pointer(out)), len(c)), c)
		return nil
	})
}

//export optdp_regular_product
func optdp_regular_product(u C.int64_t, eps C.double, p *C.optdp_cdouble, v C.int64_t, out **C.char, errOut **C.char) C.int {
	return call(errOut, func() error {
		a, err := intsEps([]string{"u"}, eps, u)
		if err != nil {
			return err
		}
		ps, err := floats(p, int64(v), "per-individual distribution", false)
		if err != nil {
			return err
		}
		return jsonOut(out)(tight.RegularProduct(a[0], float64(eps), ps))
	})
}

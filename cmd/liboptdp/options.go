package main

// Options: JSON arguments decoded into the library's own option types.

/*
#include "optdp.h"
*/
import "C"

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/mech/optimal"
	"github.com/optdp/optdp/mech/tight"
	"github.com/optdp/optdp/run"
)

// decodeJSON decodes a JSON argument into dst (decodeText).
func decodeJSON(p *C.optdp_cchar, dst any, what string, optional bool) error {
	return decodeText(goString(p), dst, what, optional)
}

// goString is the C string p ("" for NULL).
func goString(p *C.optdp_cchar) string {
	if p == nil {
		return ""
	}
	return C.GoString((*C.char)(p))
}

// decodeText decodes the JSON text s into dst, refusing unknown keys and
// trailing data; "" leaves dst as it is when optional.
func decodeText(s string, dst any, what string, optional bool) error {
	if s == "" {
		if optional {
			return nil
		}
		return badInput("%s is missing", what)
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		if key, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return badInput("%s: unknown key %s (want %s)", what, key, strings.Join(jsonNames(reflect.TypeOf(dst)), ", "))
		}
		return badInput("%s: %v", what, err)
	}
	// dec.More is false before a stray ']' or '}': look at the bytes left.
	if strings.TrimSpace(s[dec.InputOffset():]) != "" {
		return badInput("%s: trailing data after the JSON value", what)
	}
	return nil
}

// A long computation's options argument is the library's options type and
// the control keys (cancel, timeout_s); its budget key is the library's
// run.Settings.Budget.
type (
	tightArgs struct {
		control
		tight.Options
	}
	thresholdArgs struct {
		control
		tight.ThresholdOptions
	}
	optimalArgs struct {
		control
		optimal.Options
		// MatrixKind says what the matrix argument is: "gain" (default) or
		// "loss" (the gain is its negation).
		MatrixKind string `json:"matrix_kind"`
		// Partial asks for the best certified answer after
		// OPTDP_ERR_NOT_CONVERGED (optdp.h, optdp_optimal).
		Partial bool `json:"partial"`
	}
	optimizeArgs struct {
		control
		linear.OptimizeOptions
	}
	capacityArgs struct {
		control
		mech.CapacityOptions
	}
	gCapacityArgs struct {
		control
		mech.GCapacityOptions
	}
)

// bounded is the options argument of a long computation: its control keys
// and the run.Settings they complete.
type bounded interface {
	bounds() (control, *run.Settings)
}

func (a *tightArgs) bounds() (control, *run.Settings)     { return a.control, &a.Settings }
func (a *thresholdArgs) bounds() (control, *run.Settings) { return a.control, &a.Settings }
func (a *optimalArgs) bounds() (control, *run.Settings)   { return a.control, &a.Settings }
func (a *optimizeArgs) bounds() (control, *run.Settings)  { return a.control, &a.Settings }
func (a *capacityArgs) bounds() (control, *run.Settings)  { return a.control, &a.Settings }
func (a *gCapacityArgs) bounds() (control, *run.Settings) { return a.control, &a.Settings }

// long decodes the options argument op (NULL or "" for the defaults when
// optional) and runs f with them under the context their control keys ask
// for (see control.start), released when f returns.
func long[T any, P interface {
	*T
	bounded
}](op *C.optdp_cchar, optional bool, f func(ctx context.Context, o *T) error) error {
	o := new(T)
	if err := decodeJSON(op, o, "options", optional); err != nil {
		return err
	}
	c, set := P(o).bounds()
	ctx, cancel, err := c.start(set)
	if err != nil {
		return err
	}
	defer cancel()
	return f(ctx, o)
}

package main

// The schema of the JSON documents the functions return.

/*
#include "optdp.h"
*/
import "C"

import (
	"reflect"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/mech/optimal"
	"github.com/optdp/optdp/mech/stream"
	"github.com/optdp/optdp/mech/tight"
)

// results is the type of the JSON document of every function that returns
// one, by the function's name (optdp_linear_info by what it describes).
// optdp_schema lists their keys, which the Python package's tests compare
// with its result classes.
var results = map[string]reflect.Type{
	"optdp_version":                 reflect.TypeFor[versionInfo](),
	"optdp_metric_info":             reflect.TypeFor[metricInfo](),
	"optdp_audit":                   reflect.TypeFor[mech.AuditReport](),
	"optdp_shannon_capacity":        reflect.TypeFor[mech.CapacityResult](),
	"optdp_mul_g_capacity":          reflect.TypeFor[mech.GCapacityResult](),
	"optdp_sampler_new":             reflect.TypeFor[samplerInfo](),
	"optdp_progress":                reflect.TypeFor[progressReport](),
	"optdp_tight":                   reflect.TypeFor[tight.Result](),
	"optdp_threshold":               reflect.TypeFor[tight.ThresholdResult](),
	"optdp_regular":                 reflect.TypeFor[regularResult](),
	"optdp_regular_product":         reflect.TypeFor[tight.ProductRegularResult](),
	"optdp_optimal":                 reflect.TypeFor[optimal.Result](),
	"optdp_linear_info/workload":    reflect.TypeFor[workloadInfo](),
	"optdp_linear_info/strategy":    reflect.TypeFor[strategyInfo](),
	"optdp_linear_error":            reflect.TypeFor[linear.Report](),
	"optdp_linear_optimize":         reflect.TypeFor[optimizeResult](),
	"optdp_linear_answer":           reflect.TypeFor[release](),
	"optdp_stream_optimize":         reflect.TypeFor[stream.Result](),
	"optdp_stream_new":              reflect.TypeFor[streamInfo](),
	"optdp_linear_plan_marginals":   reflect.TypeFor[marginalPlanResult](),
	"optdp_linear_answer_marginals": reflect.TypeFor[linear.MarginalRelease](),
}

// schema is the document of optdp_schema: the schema (schemaOf) of each
// function's document, by the names of results.
func schema() (map[string]any, error) {
	out := make(map[string]any, len(results))
	for name, t := range results {
		s, err := schemaOf(t)
		if err != nil {
			return nil, err
		}
		out[name] = s
	}
	return out, nil
}

//export optdp_schema
func optdp_schema(out **C.char, errOut **C.char) C.int {
	return call(errOut, func() error {
		s, err := schema()
		if err != nil {
			return err
		}
		return putJSON(out, s)
	})
}

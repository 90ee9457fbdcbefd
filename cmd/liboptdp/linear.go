package main

// The matrix mechanism (package mech/linear): workloads and strategies as
// JSON operator trees mirroring the Go constructors.

/*
#include "optdp.h"
*/
import "C"

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/optdp/optdp/mech/linear"
	"gonum.org/v1/gonum/mat"
)

// opNode is one node of an operator tree (optdp.h lists the ops and their
// fields).
type opNode struct {
	Op        string    `json:"op"`
	N         int       `json:"n"`
	M         int       `json:"m"`
	K         int       `json:"k"`
	B         int       `json:"b"`
	Root      *bool     `json:"root"`
	Seed      uint64    `json:"seed"`
	Dims      []int     `json:"dims"`
	Intervals [][2]int  `json:"intervals"`
	Factors   []*opNode `json:"factors"`
	Parts     []*opNode `json:"parts"`
	Workload  *opNode   `json:"workload"`
	C         float64   `json:"c"`
	Path      string    `json:"path"`
	Rows      int       `json:"rows"`
	Cols      int       `json:"cols"`
	Data      []float64 `json:"data"`
}

// decodeJSON decodes a JSON argument into dst, refusing unknown fields and
// trailing data; NULL or "" leaves dst as it is when optional.
func decodeJSON(p *C.optdp_cchar, dst any, what string, optional bool) error {
	if p == nil || C.GoString((*C.char)(p)) == "" {
		if optional {
			return nil
		}
		return badInput("%s is missing", what)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(C.GoString((*C.char)(p)))))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return badInput("%s: %v", what, err)
	}
	if dec.More() {
		return badInput("%s: trailing data after the JSON value", what)
	}
	return nil
}

// denseOf builds the matrix of a "matrix" node.
func (o *opNode) denseOf() (*mat.Dense, error) {
	if o.Rows <= 0 || o.Cols <= 0 || o.Rows > maxInputEntries/o.Cols || len(o.Data) != o.Rows*o.Cols {
		return nil, badInput("matrix node: %d x %d with %d entries", o.Rows, o.Cols, len(o.Data))
	}
	return mat.NewDense(o.Rows, o.Cols, o.Data), nil
}

// workload builds the workload of an operator tree.
func (o *opNode) workload() (linear.Workload, error) {
	if o == nil {
		return nil, badInput("missing workload node")
	}
	switch o.Op {
	case "identity":
		return linear.Identity(o.N)
	case "total":
		return linear.Total(o.N)
	case "allrange":
		return linear.AllRange(o.N)
	case "prefix":
		return linear.Prefix(o.N)
	case "width_range":
		return linear.WidthRange(o.N, o.K)
	case "random_range":
		return linear.RandomRange(o.N, o.M, o.Seed)
	case "ranges":
		iv := make([]linear.Interval, len(o.Intervals))
		for i, p := range o.Intervals {
			iv[i] = linear.Interval{L: p[0], R: p[1]}
		}
		return linear.Ranges(o.N, iv)
	case "marginals":
		return linear.Marginals(o.Dims, o.K)
	case "scale":
		w, err := o.Workload.workload()
		if err != nil {
			return nil, err
		}
		return linear.Scale(w, o.C)
	case "kron", "union":
		kids := o.Factors
		if o.Op == "union" {
			kids = o.Parts
		}
		ws := make([]linear.Workload, len(kids))
		for i, k := range kids {
			w, err := k.workload()
			if err != nil {
				return nil, err
			}
			ws[i] = w
		}
		if o.Op == "kron" {
			return linear.Kron(ws...)
		}
		return linear.Union(ws...)
	case "matrix":
		a, err := o.denseOf()
		if err != nil {
			return nil, err
		}
		return linear.FromMatrix(a)
	case "file":
		return readWorkloadFile(o.Path)
	}
	return nil, badInput("unknown workload op %q (want identity, total, allrange, prefix, width_range, random_range, ranges, marginals, scale, kron, union, matrix or file)", o.Op)
}

// strategy builds the strategy of an operator tree.
func (o *opNode) strategy() (*linear.Strategy, error) {
	if o == nil {
		return nil, badInput("missing strategy node")
	}
	switch o.Op {
	case "identity":
		return linear.IdentityStrategy(o.N)
	case "hierarchical":
		root := true
		if o.Root != nil {
			root = *o.Root
		}
		return linear.Hierarchical(o.N, o.B, root)
	case "wavelet":
		return linear.Wavelet(o.N)
	case "workload", "eigen":
		w, err := o.Workload.workload()
		if err != nil {
			return nil, err
		}
		if o.Op == "eigen" {
			return linear.Eigen(w)
		}
		return linear.WorkloadStrategy(w)
	case "kron":
		ss := make([]*linear.Strategy, len(o.Factors))
		for i, k := range o.Factors {
			s, err := k.strategy()
			if err != nil {
				return nil, err
			}
			ss[i] = s
		}
		return linear.KronStrategy(ss...)
	case "matrix":
		a, err := o.denseOf()
		if err != nil {
			return nil, err
		}
		return linear.StrategyFromMatrix(a)
	}
	return nil, badInput("unknown strategy op %q (want identity, hierarchical, wavelet, workload, eigen, kron or matrix)", o.Op)
}

// readWorkload and readStrategy decode and build an operator argument.
func readWorkload(p *C.optdp_cchar) (linear.Workload, error) {
	var o opNode
	if err := decodeJSON(p, &o, "workload", false); err != nil {
		return nil, err
	}
	return o.workload()
}

func readStrategy(p *C.optdp_cchar) (*linear.Strategy, error) {
	var o opNode
	if err := decodeJSON(p, &o, "strategy", false); err != nil {
		return nil, err
	}
	return o.strategy()
}

// matrixNode is the operator tree of a dense matrix.
func matrixNode(a *mat.Dense) obj {
	r, c := a.Dims()
	data := make([]float64, 0, r*c)
	for i := 0; i < r; i++ {
		data = append(data, a.RawRowView(i)...)
	}
	return obj{{"op", "matrix"}, {"rows", r}, {"cols", c}, {"data", data}}
}

// strategyNode is the operator tree of a strategy's matrices: one matrix,
// or the Kronecker product of its factors. A strategy with no Kronecker
// factors (a union of blocks, weighted marginals) is returned as its
// explicit stacked matrix when that fits linear.MaxDenseEntries, and refused
// otherwise; read back, it is evaluated by least squares on the stack, whose
// error is at most the one Optimize reported (docs/MATH.md §15.8).
func strategyNode(s *linear.Strategy) (obj, error) {
	fs := s.Factors()
	if len(fs) == 0 {
		d, err := s.Dense()
		if err != nil {
			return nil, fmt.Errorf("the strategy %s has no Kronecker factors and is too large to return as an explicit matrix: %w", s, err)
		}
		return matrixNode(d), nil
	}
	if len(fs) == 1 {
		return matrixNode(fs[0]), nil
	}
	kids := make([]any, len(fs))
	for i, f := range fs {
		kids[i] = matrixNode(f)
	}
	return obj{{"op", "kron"}, {"factors", kids}}, nil
}

func noiseObj(n linear.Noise) obj {
	return obj{{"mechanism", n.Mechanism}, {"eps", n.Eps}, {"delta", n.Delta},
		{"sensitivity", n.Sensitivity}, {"scale", n.Scale}, {"variance", n.Variance}}
}

func reportObj(r linear.Report) obj {
	return obj{{"workload", r.Workload}, {"strategy", r.Strategy}, {"m", r.M}, {"n", r.N}, {"p", r.P},
		{"trace", r.Trace}, {"noise", noiseObj(r.Noise)}, {"tse", r.TSE}, {"rmse", r.RMSE}}
}

//export optdp_linear_info
func optdp_linear_info(op *C.optdp_cchar, what C.int, out **C.char, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	var v obj
	switch what {
	case C.OPTDP_WORKLOAD:
		w, err := readWorkload(op)
		if err != nil {
			return fail(errOut, err)
		}
		m, n := w.Dims()
		v = obj{{"m", m}, {"n", n}, {"name", w.String()}, {"shape", linear.Shape(w)}}
	case C.OPTDP_STRATEGY:
		s, err := readStrategy(op)
		if err != nil {
			return fail(errOut, err)
		}
		p, n := s.Dims()
		v = obj{{"p", p}, {"n", n}, {"name", s.String()}, {"l1", s.L1()}, {"l2", s.L2()}}
	default:
		return fail(errOut, badInput("what = %d (want OPTDP_WORKLOAD or OPTDP_STRATEGY)", int(what)))
	}
	if err := putJSON(out, v); err != nil {
		return fail(errOut, err)
	}
	return C.OPTDP_OK
}

//export optdp_linear_dense
func optdp_linear_dense(op *C.optdp_cchar, what C.int, out *C.optdp_matrix, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	var a *mat.Dense
	var err error
	switch what {
	case C.OPTDP_WORKLOAD:
		var w linear.Workload
		if w, err = readWorkload(op); err == nil {
			a, err = w.Dense()
		}
	case C.OPTDP_STRATEGY:
		var s *linear.Strategy
		if s, err = readStrategy(op); err == nil {
			a, err = s.Dense()
		}
	default:
		err = badInput("what = %d (want OPTDP_WORKLOAD or OPTDP_STRATEGY)", int(what))
	}
	if err == nil {
		err = putDense(out, a)
	}
	if err != nil {
		return fail(errOut, err)
	}
	return C.OPTDP_OK
}

// noiseOptions is the noise argument of optdp_linear_error.
type noiseOptions struct {
	Mechanism string  `json:"mechanism"`
	Eps       float64 `json:"eps"`
	Delta     float64 `json:"delta"`
}

//export optdp_linear_error
func optdp_linear_error(wp, sp, np *C.optdp_cchar, out **C.char, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	w, err := readWorkload(wp)
	if err != nil {
		return fail(errOut, err)
	}
	s, err := readStrategy(sp)
	if err != nil {
		return fail(errOut, err)
	}
	var no noiseOptions
	if err := decodeJSON(np, &no, "noise", false); err != nil {
		return fail(errOut, err)
	}
	if err := checkEps(no.Eps); err != nil {
		return fail(errOut, err)
	}
	var nz linear.Noise
	switch no.Mechanism {
	case "", "laplace":
		if no.Delta != 0 {
			return fail(errOut, badInput("laplace noise takes no delta (got %v)", no.Delta))
		}
		nz, err = linear.LaplaceNoise(s, no.Eps)
	case "gaussian":
		nz, err = linear.GaussianNoise(s, no.Eps, no.Delta)
	case "gaussian-analytic":
		nz, err = linear.AnalyticGaussianNoise(s, no.Eps, no.Delta)
	default:
		err = badInput("noise mechanism %q (want laplace, gaussian or gaussian-analytic)", no.Mechanism)
	}
	if err != nil {
		return fail(errOut, err)
	}
	rep, err := linear.Evaluate(w, s, nz)
	if err == nil {
		err = putJSON(out, reportObj(rep))
	}
	if err != nil {
		return fail(errOut, err)
	}
	return C.OPTDP_OK
}

// optimizeOptions is the options argument of optdp_linear_optimize.
type optimizeOptions struct {
	control
	Eps      float64 `json:"eps"`
	Delta    float64 `json:"delta"`
	Restarts int     `json:"restarts"`
	Seed     uint64  `json:"seed"`
	P        int     `json:"p"`
	MaxIter  int     `json:"max_iter"`
	// Budget is the memory budget in bytes (0: run.DefaultBudget).
	Budget int64 `json:"budget"`
}

//export optdp_linear_optimize
func optdp_linear_optimize(wp, op *C.optdp_cchar, out **C.char, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	w, err := readWorkload(wp)
	if err != nil {
		return fail(errOut, err)
	}
	var o optimizeOptions
	if err := decodeJSON(op, &o, "options", false); err != nil {
		return fail(errOut, err)
	}
	if err := checkEps(o.Eps); err != nil {
		return fail(errOut, err)
	}
	ctx, cancel, set, err := o.start(o.Budget)
	if err != nil {
		return fail(errOut, err)
	}
	defer cancel()
	res, err := linear.Optimize(ctx, w, &linear.OptimizeOptions{
		Settings: set,
		Eps:      o.Eps, Delta: o.Delta, Restarts: o.Restarts, Seed: o.Seed, P: o.P, MaxIter: o.MaxIter,
	})
	if err != nil {
		return fail(errOut, err)
	}
	bl := make([]any, len(res.Baselines))
	for i, b := range res.Baselines {
		bl[i] = obj{{"name", b.Name}, {"tse", b.TSE}}
	}
	node, err := strategyNode(res.Strategy)
	if err != nil {
		return fail(errOut, err)
	}
	err = putJSON(out, obj{
		{"strategy", node}, {"strategy_name", res.Strategy.String()},
		{"method", res.Method}, {"baseline", res.Baseline}, {"objective", res.Objective},
		{"noise", noiseObj(res.Noise)}, {"tse", res.TSE}, {"rmse", res.RMSE}, {"classic_tse", res.ClassicTSE},
		{"baselines", bl}, {"dual", res.Dual}, {"gap", res.Gap}, {"rel_gap", res.RelGap},
		{"iterations", res.Iterations}, {"time_s", res.Time.Seconds()},
	})
	if err != nil {
		return fail(errOut, err)
	}
	return C.OPTDP_OK
}

//export optdp_linear_answer
func optdp_linear_answer(wp, sp *C.optdp_cchar, x *C.optdp_cdouble, n C.int64_t, eps, delta C.double,
	rng C.optdp_handle, out **C.char, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	w, err := readWorkload(wp)
	if err != nil {
		return fail(errOut, err)
	}
	s, err := readStrategy(sp)
	if err != nil {
		return fail(errOut, err)
	}
	xs, err := floats(x, int64(n), "data vector", false)
	if err == nil {
		err = checkEps(float64(eps))
	}
	if err != nil {
		return fail(errOut, err)
	}
	src, release, err := source(rng)
	if err != nil {
		return fail(errOut, err)
	}
	var rel *linear.Release
	if delta == 0 {
		rel, err = linear.Answer(w, s, xs, float64(eps), src)
	} else {
		rel, err = linear.AnswerGaussian(w, s, xs, float64(eps), float64(delta), src)
	}
	release()
	if err != nil {
		return fail(errOut, err)
	}
	err = putJSON(out, obj{
		{"y", rel.Y}, {"x_hat", rel.XHat}, {"answers", rel.Answers}, {"noise", noiseObj(rel.Noise)},
		{"grid", rel.Grid}, {"strategy_name", rel.Strategy.String()}, {"expected", reportObj(rel.Expected)},
	})
	if err != nil {
		return fail(errOut, fmt.Errorf("optdp: %w", err))
	}
	return C.OPTDP_OK
}

// maxWorkloadFileBytes bounds a JSON workload file (64 MiB), as the
// command-line tool does.
const maxWorkloadFileBytes = 64 << 20

// readWorkloadFile reads a JSON workload file (linear.ParseWorkloadJSON);
// the CSV matrix files it names are read relative to its directory.
func readWorkloadFile(path string) (linear.Workload, error) {
	if path == "" {
		return nil, badInput("file node without a path")
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, badInput("workload file: %v", err)
	}
	if st.Size() > maxWorkloadFileBytes {
		return nil, badInput("workload file %s has %d bytes, the limit is %d", path, st.Size(), maxWorkloadFileBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, badInput("workload file: %v", err)
	}
	dir := filepath.Dir(path)
	load := func(p string) (*mat.Dense, error) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return linear.ReadMatrix(f)
	}
	w, _, err := linear.ParseWorkloadJSON(data, load)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return w, nil
}

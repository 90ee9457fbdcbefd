package main

// The matrix mechanism (package mech/linear): workloads and strategies as
// JSON operator trees mirroring the Go constructors.

/*
#include "optdp.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/optdp/optdp/internal/readlimit"
	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/run"
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

// maxOpDepth bounds the nesting of an operator tree (optdp.h): deeper trees
// are refused before anything is built.
const maxOpDepth = 64

// checkDepth refuses a tree nested deeper than maxOpDepth (the root is at
// depth 1); what names the argument.
func (o *opNode) checkDepth(what string) error {
	if d := o.depth(maxOpDepth + 1); d > maxOpDepth {
		return badInput("%s: the operator tree is nested more than %d levels deep", what, maxOpDepth)
	}
	return nil
}

// depth is the nesting depth of the tree, counted up to limit.
func (o *opNode) depth(limit int) int {
	if o == nil || limit <= 0 {
		return 0
	}
	d := 0
	for _, kids := range [][]*opNode{o.Factors, o.Parts, {o.Workload}} {
		for _, k := range kids {
			d = max(d, k.depth(limit-1))
		}
	}
	return d + 1
}

// denseOf builds the matrix of a "matrix" node.
func (o *opNode) denseOf() (*mat.Dense, error) {
	if err := checkShape(int64(o.Rows), int64(o.Cols), "matrix node"); err != nil {
		return nil, err
	}
	if len(o.Data) != o.Rows*o.Cols {
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
	return workloadText(goString(p))
}

func readStrategy(p *C.optdp_cchar) (*linear.Strategy, error) {
	return strategyText(goString(p))
}

// workloadText and strategyText decode and build an operator tree from
// its JSON text.
func workloadText(s string) (linear.Workload, error) {
	var o opNode
	if err := decodeText(s, &o, "workload", false); err != nil {
		return nil, err
	}
	if err := o.checkDepth("workload"); err != nil {
		return nil, err
	}
	if err := checkOpKeys(s, "workload", false); err != nil {
		return nil, err
	}
	return o.workload()
}

func strategyText(s string) (*linear.Strategy, error) {
	var o opNode
	if err := decodeText(s, &o, "strategy", false); err != nil {
		return nil, err
	}
	if err := o.checkDepth("strategy"); err != nil {
		return nil, err
	}
	if err := checkOpKeys(s, "strategy", true); err != nil {
		return nil, err
	}
	return o.strategy()
}

// readPair reads a workload and a strategy argument.
func readPair(wp, sp *C.optdp_cchar) (linear.Workload, *linear.Strategy, error) {
	w, err := readWorkload(wp)
	if err != nil {
		return nil, nil, err
	}
	s, err := readStrategy(sp)
	return w, s, err
}

// matrixNode is the operator tree of a dense matrix.
type matrixNode struct {
	Op   string    `json:"op"`
	Rows int       `json:"rows"`
	Cols int       `json:"cols"`
	Data []float64 `json:"data"`
}

// kronNode is the operator tree of a Kronecker product of matrices.
type kronNode struct {
	Op      string       `json:"op"`
	Factors []matrixNode `json:"factors"`
}

func newMatrixNode(a *mat.Dense) matrixNode {
	r, c := a.Dims()
	data := make([]float64, 0, r*c)
	for i := 0; i < r; i++ {
		data = append(data, a.RawRowView(i)...)
	}
	return matrixNode{"matrix", r, c, data}
}

// strategyNode is the operator tree of a strategy's matrices: one matrix,
// or the Kronecker product of its factors. A strategy with no Kronecker
// factors (a union of blocks, weighted marginals) is returned as its
// explicit stacked matrix when that fits linear.MaxDenseEntries, and refused
// otherwise; read back, it is evaluated by least squares on the stack, whose
// error is at most the one Optimize reported (docs/MATH.md §15.8).
func strategyNode(s *linear.Strategy) (any, error) {
	fs := s.Factors()
	if len(fs) == 0 {
		d, err := s.Dense()
		if err != nil {
			return nil, fmt.Errorf("the strategy %s has no Kronecker factors and is too large to return as an explicit matrix: %w", s, err)
		}
		return newMatrixNode(d), nil
	}
	if len(fs) == 1 {
		return newMatrixNode(fs[0]), nil
	}
	kids := make([]matrixNode, len(fs))
	for i, f := range fs {
		kids[i] = newMatrixNode(f)
	}
	return kronNode{"kron", kids}, nil
}

// workloadInfo and strategyInfo are the documents of optdp_linear_info.
type workloadInfo struct {
	M     int    `json:"m"`
	N     int    `json:"n"`
	Name  string `json:"name"`
	Shape []int  `json:"shape"`
}

type strategyInfo struct {
	P    int     `json:"p"`
	N    int     `json:"n"`
	Name string  `json:"name"`
	L1   float64 `json:"l1"`
	L2   float64 `json:"l2"`
}

// readOperator reads the operator argument of optdp_linear_info and
// optdp_linear_dense: a workload or a strategy as what says (the other nil).
func readOperator(op *C.optdp_cchar, what C.int) (w linear.Workload, s *linear.Strategy, err error) {
	switch what {
	case C.OPTDP_WORKLOAD:
		w, err = readWorkload(op)
	case C.OPTDP_STRATEGY:
		s, err = readStrategy(op)
	default:
		err = badInput("what = %d (want OPTDP_WORKLOAD or OPTDP_STRATEGY)", int(what))
	}
	return w, s, err
}

//export optdp_linear_info
func optdp_linear_info(op *C.optdp_cchar, what C.int, out **C.char, errOut **C.char) C.int {
	return call(errOut, func() error {
		w, s, err := readOperator(op, what)
		if err != nil {
			return err
		}
		if w != nil {
			m, n := w.Dims()
			return putJSON(out, workloadInfo{m, n, w.String(), linear.Shape(w)})
		}
		p, n := s.Dims()
		return putJSON(out, strategyInfo{p, n, s.String(), s.L1(), s.L2()})
	})
}

//export optdp_linear_dense
func optdp_linear_dense(op *C.optdp_cchar, what C.int, out *C.optdp_matrix, errOut **C.char) C.int {
	return call(errOut, func() error {
		w, s, err := readOperator(op, what)
		if err != nil {
			return err
		}
		if w != nil {
			return denseOut(out)(w.Dense())
		}
		return denseOut(out)(s.Dense())
	})
}

// noiseOptions is the noise argument of optdp_linear_error.
type noiseOptions struct {
	Mechanism string  `json:"mechanism"`
	Eps       float64 `json:"eps"`
	Delta     float64 `json:"delta"`
}

//export optdp_linear_error
func optdp_linear_error(wp, sp, np *C.optdp_cchar, out **C.char, errOut **C.char) C.int {
	return call(errOut, func() error {
		w, s, err := readPair(wp, sp)
		if err != nil {
			return err
		}
		var no noiseOptions
		if err := decodeJSON(np, &no, "noise", false); err != nil {
			return err
		}
		if err := checkEps(no.Eps); err != nil {
			return err
		}
		var nz linear.Noise
		switch no.Mechanism {
		case "", "laplace":
			if no.Delta != 0 {
				return badInput("laplace noise takes no delta (got %v)", no.Delta)
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
			return err
		}
		return jsonOut(out)(linear.Evaluate(w, s, nz))
	})
}

// optimizeResult is the document of optdp_linear_optimize: the library's
// result with the strategy as an operator tree, its name, and the time in
// seconds.
type optimizeResult struct {
	*linear.OptimizeResult
	Strategy     any     `json:"strategy"`
	StrategyName string  `json:"strategy_name"`
	TimeS        float64 `json:"time_s"`
}

//export optdp_linear_optimize
func optdp_linear_optimize(wp, op *C.optdp_cchar, out **C.char, errOut **C.char) C.int {
	return call(errOut, func() error {
		w, err := readWorkload(wp)
		if err != nil {
			return err
		}
		return long(op, false, func(ctx context.Context, o *optimizeArgs) error {
			if err := checkEps(o.Eps); err != nil {
				return err
			}
			res, err := linear.Optimize(ctx, w, &o.OptimizeOptions)
			if err != nil {
				return err
			}
			node, err := strategyNode(res.Strategy)
			if err != nil {
				return err
			}
			return putJSON(out, optimizeResult{res, node, res.Strategy.String(), res.Time.Seconds()})
		})
	})
}

// release is the document of optdp_linear_answer: the library's release
// with the strategy's name, without the releases of a union's groups.
type release struct {
	*linear.Release
	StrategyName string   `json:"strategy_name"`
	Groups       struct{} `json:"-"`
	// Labels names the cells each answer sums (linear.Labels), with the
	// attribute names of a workload file, a0, a1, ... otherwise.
	Labels []string `json:"labels"`
}

// workloadAttrs returns the attributes of a workload whose root is a file
// node (nil for any other, or when the file cannot be read again).
func workloadAttrs(wp *C.optdp_cchar) []linear.Attribute {
	var o opNode
	if err := decodeText(goString(wp), &o, "workload", false); err != nil || o.Op != "file" {
		return nil
	}
	_, attrs, err := readWorkloadFileAttrs(o.Path)
	if err != nil {
		return nil
	}
	return attrs
}

//export optdp_linear_answer
func optdp_linear_answer(wp, sp *C.optdp_cchar, x *C.optdp_cdouble, n C.int64_t, eps, delta C.double,
	rng C.optdp_handle, out **C.char, errOut **C.char) C.int {
	return call(errOut, func() error {
		w, s, err := readPair(wp, sp)
		if err != nil {
			return err
		}
		xs, err := floats(x, int64(n), "data vector", false)
		if err == nil {
			err = checkEps(float64(eps))
		}
		if err != nil {
			return err
		}
		src, unlock, err := source(rng)
		if err != nil {
			return err
		}
		var rel *linear.Release
		if delta == 0 {
			rel, err = linear.Answer(w, s, xs, float64(eps), src)
		} else {
			rel, err = linear.AnswerGaussian(w, s, xs, float64(eps), float64(delta), src)
		}
		unlock()
		if err != nil {
			return err
		}
		labels, err := linear.Labels(w, workloadAttrs(wp), 0)
		if err != nil {
			if labels, err = linear.Labels(w, nil, 0); err != nil {
				return err
			}
		}
		if err := putJSON(out, release{Release: rel, StrategyName: rel.Strategy.String(), Labels: labels}); err != nil {
			return fmt.Errorf("optdp: %w", err)
		}
		return nil
	})
}

// readWorkloadFile reads a JSON workload file (linear.ParseWorkloadJSON)
// with the command-line tool's reader and limit (readlimit.ReadFile,
// linear.MaxWorkloadFileBytes): a device or an endless pipe is refused at
// the limit. The CSV matrix files it names are read relative to its
// directory (linear.ReadMatrix, itself bounded).
func readWorkloadFile(path string) (linear.Workload, error) {
	w, _, err := readWorkloadFileAttrs(path)
	return w, err
}

// readWorkloadFileAttrs is readWorkloadFile with the file's attributes.
func readWorkloadFileAttrs(path string) (linear.Workload, []linear.Attribute, error) {
	if path == "" {
		return nil, nil, badInput("file node without a path")
	}
	data, err := readlimit.ReadFile(path, linear.MaxWorkloadFileBytes)
	if err != nil {
		if errors.Is(err, run.ErrTooLarge) {
			return nil, nil, fmt.Errorf("optdp: workload file: %w", err)
		}
		return nil, nil, badInput("workload file: %w", err)
	}
	dir := filepath.Dir(path)
	load := func(p string) (*mat.Dense, error) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		f, err := readlimit.Open(p, linear.MaxMatrixBytes)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return linear.ReadMatrix(f)
	}
	w, attrs, err := linear.ParseWorkloadJSON(data, load)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return w, attrs, nil
}

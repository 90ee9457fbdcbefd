package linear

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/optdp/optdp/run"
)

// WorkloadSpecHelp lists the workload specs ParseWorkload understands.
const WorkloadSpecHelp = "workload: identity:n=N, total:n=N, allrange:n=N, prefix:n=N, width:n=N,k=K, " +
	"random:n=N,m=M,seed=S, range2d:n=N, marginals:dims=2x3x4,k=K[,prefix=I+J,allrange=L] (all K-way marginals, attributes of any sizes; 10^100 = 100 attributes of 10 values; " +
	"the attributes listed by 0-based index in prefix= or allrange= are queried by prefixes or all ranges instead of values), " +
	"census (the 2010 Census SF1 Persons tables of the HDMM paper: 4151 queries over 2x2x64x17x115 cells), " +
	"file:PATH.json (a workload file: a weighted union of Kronecker products of per-attribute blocks, see linear.ParseWorkloadJSON), " +
	"file:PATH (an explicit matrix, CSV or .npy)"

// StrategySpecHelp lists the strategy specs ParseStrategy understands.
const StrategySpecHelp = "strategy: identity, hier:b=B[,root=false], wavelet, workload, eigen, file:PATH (CSV matrix), " +
	"opt[:restarts=R,seed=S] (optimised for the workload, eps and delta, as by optdp optimize; default restarts=1, seed=1), " +
	"residual[:loss=sum|max] (optdp answer with --delta and --records on a marginal workload: the residual planner's plan, answered without the full histogram); " +
	"identity, hier and wavelet are built per dimension of a multi-dimensional domain and combined by Kronecker product"

// Spec is a parsed spec "kind:k1=v1,k2=v2" of the CLI's syntax (for
// "file:PATH" the whole rest is Path). Int reads its integer parameters and
// Done refuses parameters that were never read.
type Spec struct {
	// Kind is the lower-cased text before the colon.
	Kind string
	// Params are the key=value parameters.
	Params map[string]string
	// Path is the rest of a "file:PATH" spec.
	Path string

	spec string
	used map[string]bool
}

// SplitSpec parses spec; errors match run.ErrBadInput.
func SplitSpec(spec string) (*Spec, error) {
	kind, rest, _ := strings.Cut(spec, ":")
	s := &Spec{Kind: strings.ToLower(strings.TrimSpace(kind)), Params: map[string]string{}, spec: spec, used: map[string]bool{}}
	if s.Kind == "file" {
		if rest == "" {
			return nil, run.BadInputf("spec %q: file needs a path, e.g. file:W.csv", spec)
		}
		s.Path = rest
		return s, nil
	}
	if rest == "" {
		return s, nil
	}
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return nil, run.BadInputf("spec %q: parameter %q is not key=value", spec, kv)
		}
		if _, dup := s.Params[k]; dup {
			return nil, run.BadInputf("spec %q: parameter %q given twice", spec, k)
		}
		s.Params[k] = v
	}
	return s, nil
}

// Int returns the integer parameter name, or def when it is absent and not
// required.
func (p *Spec) Int(name string, required bool, def int) (int, error) {
	p.used[name] = true
	v, ok := p.Params[name]
	if !ok {
		if required {
			return 0, run.BadInputf("spec %q: missing %s=...", p.spec, name)
		}
		return def, nil
	}
	i, err := strconv.Atoi(v)
	if err != nil {
		return 0, run.BadInputf("spec %q: %s=%q is not an integer", p.spec, name, v)
	}
	return i, nil
}

// String is the spec as given.
func (p *Spec) String() string { return p.spec }

// Use marks the parameter name as read (for parameters read directly from
// Params).
func (p *Spec) Use(name string) { p.used[name] = true }

// Done refuses a parameter that was never read.
func (p *Spec) Done() error {
	for k := range p.Params {
		if !p.used[k] {
			return run.BadInputf("spec %q: unknown parameter %q", p.spec, k)
		}
	}
	return nil
}

// ParseWorkload builds the workload of a spec in the CLI's syntax (see
// WorkloadSpecHelp). "file:PATH" is read by load (nil: such specs are
// refused), which the caller provides (the CLI reads CSV, .npy and JSON
// workload files). Spec errors match run.ErrBadInput.
func ParseWorkload(spec string, load func(path string) (Workload, error)) (Workload, error) {
	p, err := SplitSpec(spec)
	if err != nil {
		return nil, err
	}
	kind, params := p.Kind, p.Params
	var w Workload
	switch kind {
	case "file":
		if load == nil {
			return nil, run.BadInputf("workload %q: no file loader given", spec)
		}
		return load(p.Path)
	case "census", "census-sf1", "census-sf1-persons":
		if w, err = CensusSF1Persons(); err != nil {
			return nil, fmt.Errorf("workload %q: %w", spec, err)
		}
	case "identity", "total", "allrange", "prefix", "range2d", "width", "random":
		n, err := p.Int("n", true, 0)
		if err != nil {
			return nil, err
		}
		switch kind {
		case "identity":
			w, err = Identity(n)
		case "total":
			w, err = Total(n)
		case "allrange":
			w, err = AllRange(n)
		case "prefix":
			w, err = Prefix(n)
		case "range2d":
			w, err = Range2D(n)
		case "width":
			var k int
			if k, err = p.Int("k", true, 0); err == nil {
				w, err = WidthRange(n, k)
			}
		case "random":
			var m, seed int
			if m, err = p.Int("m", true, 0); err == nil {
				if seed, err = p.Int("seed", false, 1); err == nil {
					w, err = RandomRange(n, m, uint64(seed))
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("workload %q: %w", spec, err)
		}
	case "marginals":
		p.Use("dims")
		ds, ok := params["dims"]
		if !ok {
			return nil, run.BadInputf("spec %q: missing dims=AxBx...", spec)
		}
		dims, err := parseDims(spec, ds)
		if err != nil {
			return nil, err
		}
		k, err := p.Int("k", true, 0)
		if err != nil {
			return nil, err
		}
		queries, err := parseQueryTypes(p, len(dims))
		if err != nil {
			return nil, err
		}
		if queries != nil {
			w, err = typedMarginals(dims, k, queries)
		} else {
			w, err = Marginals(dims, k)
		}
		if err != nil {
			return nil, fmt.Errorf("workload %q: %w", spec, err)
		}
	default:
		return nil, run.BadInputf("unknown workload %q; want %s", spec, WorkloadSpecHelp)
	}
	if err := p.Done(); err != nil {
		return nil, err
	}
	return w, nil
}

// ParseStrategy builds the strategy named by spec for the workload w (see
// StrategySpecHelp; identity, hier and wavelet are built per dimension of
// Shape(w) and combined by Kronecker product). "file:PATH" is read by
// load (nil: refused). "opt" is not built here: it is Optimize's result.
// Spec errors match run.ErrBadInput.
func ParseStrategy(spec string, w Workload, load func(path string) (*Strategy, error)) (*Strategy, error) {
	p, err := SplitSpec(spec)
	if err != nil {
		return nil, err
	}
	kind, params := p.Kind, p.Params
	var a *Strategy
	switch kind {
	case "file":
		if load == nil {
			return nil, run.BadInputf("strategy %q: no file loader given", spec)
		}
		return load(p.Path)
	case "opt":
		return nil, run.BadInputf("strategy %q is optimised for eps (and delta): build it with Optimize", spec)
	case "residual":
		return nil, run.BadInputf("strategy %q is a marginal plan: build it with PlanGaussianMarginals and answer it with AnswerGaussianMarginals", spec)
	case "workload":
		a, err = WorkloadStrategy(w)
	case "eigen":
		a, err = Eigen(w)
	case "identity", "hier", "wavelet":
		b, root := 0, true
		if kind == "hier" {
			if b, err = p.Int("b", false, 2); err != nil {
				return nil, err
			}
			p.Use("root")
			if r, ok := params["root"]; ok {
				if root, err = strconv.ParseBool(r); err != nil {
					return nil, run.BadInputf("spec %q: root=%q is not true or false", spec, r)
				}
			}
		}
		var fs []*Strategy
		for _, n := range Shape(w) {
			var f *Strategy
			switch kind {
			case "identity":
				f, err = IdentityStrategy(n)
			case "hier":
				f, err = Hierarchical(n, b, root)
			case "wavelet":
				f, err = Wavelet(n)
			}
			if err != nil {
				return nil, fmt.Errorf("strategy %q: %w", spec, err)
			}
			fs = append(fs, f)
		}
		if len(fs) == 1 {
			a = fs[0]
		} else {
			a, err = KronStrategy(fs...)
		}
	default:
		return nil, run.BadInputf("unknown strategy %q; want %s", spec, StrategySpecHelp)
	}
	if err != nil {
		return nil, fmt.Errorf("strategy %q: %w", spec, err)
	}
	if err := p.Done(); err != nil {
		return nil, err
	}
	return a, nil
}

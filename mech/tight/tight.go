package tight

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// Verdict is a three-way answer: Yes, No or Borderline (rounding could flip
// it; the result's error bound says by how much). It marshals to JSON as
// true, false or "borderline".
type Verdict = run.Verdict

// The verdicts.
const (
	Yes        = run.Yes
	No         = run.No
	Borderline = run.Borderline
)

// Options tunes Solve. The zero value (or nil) selects the defaults.
type Options struct {
	// Solver is "auto" (default: the closed form for lines and
	// ball-symmetric metrics, else the Kronecker solver for separable
	// metrics, else the Toeplitz solver for lattice metrics with n > 2000
	// or too large for dense, else the banded solver for graphs with a
	// small bandwidth and n > 2000, else dense), "dense", "closed-form",
	// "kron", "toeplitz" or "banded"; see Solvers.
	Solver Solver `json:"solver"`
	// MaxMechanismN is the largest n for which X is built (0:
	// DefaultMaxMechanismN; negative is refused).
	MaxMechanismN int `json:"max_mechanism_n"`
	// NoMechanism skips building (and auditing) X.
	NoMechanism bool `json:"no_mechanism"`
	// Settings: Budget limits the memory of dense (and banded) matrices,
	// checked before they are allocated; Progress, when not nil, receives
	// a report after each iteration of an iterative solver (the Toeplitz
	// solver: Iter and Gap = the estimated relative residual).
	run.Settings
}

// check refuses options outside their domain (an unknown solver, a
// negative MaxMechanismN) with an error wrapping run.ErrBadInput, so that
// every door (the Go API, the command line, the C ABI and Python) refuses
// them alike instead of reading them as the defaults.
func (o *Options) check() error {
	if o == nil {
		return nil
	}
	if err := o.Budget.Validate(); err != nil {
		return err
	}
	if o.MaxMechanismN < 0 {
		return run.BadInputf("max mechanism n = %d (want >= 0; 0 for the default %d)", o.MaxMechanismN, DefaultMaxMechanismN)
	}
	if o.Solver != "" && !slices.Contains(Solvers(), o.Solver) {
		return run.BadInputf("unknown solver %q (want one of %s)", o.Solver, solverList())
	}
	return nil
}

func (o *Options) orDefault() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Solver == "" {
		r.Solver = SolverAuto
	}
	if r.MaxMechanismN <= 0 {
		r.MaxMechanismN = DefaultMaxMechanismN
	}
	return r
}

// Result is the tight-constraints mechanism of a metric at eps
// (docs/MATH.md §3): X[i][k] = Phi[i][k]·z_k where Phi z = 1, z >= 0.
type Result struct {
	// N is the number of answers and Eps the privacy level (per unit of
	// distance).
	N   int     `json:"n"`
	Eps float64 `json:"eps"`
	// Exists: Yes when some z >= 0 solves Phi z = 1 (the mechanism exists),
	// No when none does, Borderline when |MinZ| <= ZErr.
	Exists Verdict `json:"exists"`
	// Z is the diagonal of X (one solution when not Unique); nil when
	// N > MaxVectorN (then every z_k equals MinZ, see ConstantZ).
	Z []float64 `json:"-"`
	// ConstantZ reports that all z_k are equal (ball-symmetric metrics).
	ConstantZ bool `json:"constant_z"`
	// MinZ is min_k z_k and ZErr bounds the error of each computed z_k
	// (+Inf for a singular Phi, where z is not unique).
	MinZ float64 `json:"min_z"`
	ZErr float64 `json:"z_err"`
	// Unique reports that Phi is nonsingular, so the mechanism (if it
	// exists) is unique.
	Unique bool `json:"unique"`
	// Solver names the method: "dense-cholesky", "dense-bunch-kaufman",
	// "dense-lu", "dense-nnls" (singular Phi), "closed-form-line" (the
	// truncated geometric), "closed-form-ball-symmetric", "kron",
	// "toeplitz-pcg-strang", "toeplitz-pcg-tchan",
	// "toeplitz-minres-abs-tchan", "banded-cholesky", ...
	Solver Solver `json:"solver"`
	// Backend is the linear-algebra backend's name.
	Backend string `json:"backend"`
	// RCond is Phi's reciprocal condition estimate (1 for closed forms of
	// positive-definite Phi, where it is not computed; 0 when unknown).
	RCond float64 `json:"rcond"`
	// Certificate names what settled the verdict: "error-bound",
	// "error-bound/varah" (banded: a rigorous bound on Phi's inverse by
	// diagonal dominance), "diagonal-dominance", "nnls-residual", "farkas", "closed-form",
	// "kron-factor-bounds", "residual-bound/<eigenvalue bound>" (Toeplitz:
	// line-poisson, euclid-poisson, chebyshev-poisson,
	// manhattan-kms-squared, symbol, dense-eigen, or none).
	Certificate string `json:"certificate,omitempty"`
	// Utility is the utility for the uniform prior with the identity remap
	// of the mechanism whose verdict Audit reports: mean(z), the optimal
	// utility, for X (and whenever no hardening was needed); when X is nil
	// and Free is hardened, Free's mean z at its build level eps_b
	// (FreeMechanism.UtilityUniform, below the optimum by about the
	// margin eps - eps_b, and within a relative ρ, the proof's bound on
	// |row sum - 1|, of the utility of its normalised rows as sampled).
	Utility float64 `json:"utility"`
	// X is the noise matrix, when it exists and N <= MaxMechanismN and its
	// entries are representable (no exp underflow); nil otherwise, with
	// the reason in Note.
	X *mat.Dense `json:"-"`
	// Mix is the weight γ of the uniform row mixed into X by mech.Harden,
	// X = (1-γ)·exp(-eps·d(i,k))·z_k/S_i + γ/N (S_i the float64 sum of row
	// i of exp(-eps·d)·z, 1 within the error of z), so that its float64
	// entries (exactly tight at eps, so within rounding of e^{eps d}) pass
	// the exact audit; 0 when X passed as built.
	Mix float64 `json:"mix,omitempty"`
	// Audit is the DP audit of X (zero when X is nil).
	Audit mech.AuditReport `json:"audit"`
	// Note explains an omitted X or other caveats.
	Note string `json:"note,omitempty"`
	// Iterations and Residual are the iteration count and the achieved
	// relative residual ||1 - Phi z|| / ||1|| of an iterative solver
	// (zero for direct solvers).
	Iterations int     `json:"iterations,omitempty"`
	Residual   float64 `json:"residual,omitempty"`
	// Free is the matrix-free form of the mechanism (row access, utility,
	// audit, sampling without n×n storage), set whenever the mechanism
	// exists; when X is nil, Audit is Free's audit.
	Free *FreeMechanism `json:"-"`

	kron []kronFactor // the factors' z of a separable metric
}

// Tight computes the tight-constraints mechanism of m at eps (docs/MATH.md §3.2):
// it solves Phi z = 1, decides whether a solution z >= 0 exists (Exists),
// whether it is unique, and builds X[i][k] = exp(-eps·d(i,k))·z_k (each row
// divided by its float64 sum, 1 within the error of z, so that X is a
// mechanism as represented), which is audited before it is returned (a
// failed audit is an error).
//
// Verdicts are never decided by exp underflow: the dense solver bounds the
// error of each z_k including the rounding (and underflow) of Phi's entries,
// and certifies z > 0 by diagonal dominance when the off-diagonal row sums of
// Phi are below 1/2 (as they are when eps·d is large, where Phi = I to
// working precision and z = 1). A numerically singular Phi is handed to a
// feasibility test (NNLS with a Farkas certificate for infeasibility); then
// Unique is false. Errors: eps not finite and > 0, an unknown solver, or
// sizes above the memory limit (the message gives the bytes needed).
func Solve(ctx context.Context, m metric.Metric, eps float64, opts *Options) (*Result, error) {
	if err := metric.CheckEps(eps); err != nil {
		return nil, fmt.Errorf("tight: %w", err)
	}
	if err := opts.check(); err != nil {
		return nil, fmt.Errorf("tight: %w", err)
	}
	o := opts.orDefault()
	s, err := selectTightSolver(m, o.Solver, &o)
	if err != nil {
		return nil, fmt.Errorf("tight %s: %w", m, err)
	}
	r, err := s.run(ctx, m, eps, &o)
	if err != nil {
		return nil, fmt.Errorf("tight %s at eps=%v: %w", m, eps, err)
	}
	r.N, r.Eps, r.Backend = m.Len(), eps, backend.Name()
	if o.NoMechanism {
		return r, nil
	}
	if err := attachMechanism(ctx, r, m, eps, &o); err != nil {
		return nil, fmt.Errorf("tight %s at eps=%v: %w", m, eps, err)
	}
	resolve := func(e float64) (*Result, error) { return s.run(ctx, m, e, &o) }
	if err := attachFree(ctx, r, m, eps, resolve); err != nil {
		return nil, fmt.Errorf("tight %s at eps=%v: %w", m, eps, err)
	}
	return r, nil
}

// attachFree sets r.Free when the mechanism exists and its privacy is
// proven: for metrics other than paths, rings, cliques and separable
// metrics it is first hardened (FreeMechanism, docs/MATH.md §3.9), solved
// again by resolve at a build level below eps. When X was not built,
// r.Audit is Free's verdict (FreeMechanism.Audit), the one proof every
// entry point reports. When no proof is found, no Free is handed out and
// Note says why; a failed resolve or a cancelled ctx (the rounding bound's
// scan reads it) is returned as an error.
func attachFree(ctx context.Context, r *Result, m metric.Metric, eps float64, resolve func(float64) (*Result, error)) error {
	if r.Exists != Yes {
		return nil
	}
	f, err := newFreeMechanism(m, eps, r)
	if err != nil {
		r.Note = joinNote(r.Note, err.Error())
		return nil
	}
	if needsHardening(m, f.kron) {
		if err := f.harden(ctx, r, resolve); err != nil {
			if re := (*resolveError)(nil); errors.As(err, &re) || ctx.Err() != nil {
				return err
			}
			r.Note = joinNote(r.Note, "no matrix-free mechanism: its privacy is not proven: "+err.Error())
			return nil
		}
	}
	r.Free = f
	if r.X != nil {
		return nil
	}
	rep, err := f.Audit()
	if err != nil {
		return fmt.Errorf("internal error: matrix-free verdict: %w", err)
	}
	r.Audit = rep
	r.Utility = f.UtilityUniform()
	r.Note = joinNote(r.Note, f.verdictNote())
	return nil
}

// attachMechanism builds X from r.Z when the mechanism exists and fits, and
// audits it.
func attachMechanism(ctx context.Context, r *Result, m metric.Metric, eps float64, o *Options) error {
	n := m.Len()
	switch {
	case r.Exists != Yes:
		r.Note = strings.TrimPrefix(r.Note+"; no mechanism: it does not exist or its existence is borderline", "; ")
		return nil
	case n > o.MaxMechanismN:
		r.Note = fmt.Sprintf("X not built: n = %d > MaxMechanismN = %d; row i is exp(-eps·d(i,k))·z_k", n, o.MaxMechanismN)
		return nil
	case r.Z == nil:
		r.Note = "X not built: z not materialised"
		return nil
	}
	if err := o.Budget.CheckDense("mechanism", n, 1, denseAdvice); err != nil {
		return err
	}
	// Row i is exp(-eps·d(i,k))·z_k divided by its float64 sum S_i: with
	// the computed z the rows sum to 1 only within the solver's error
	// (|S_i - 1| <= W·ZErr, up to 1e-13 and more for iterative solvers),
	// and the audit takes mechanisms only (rows within mech.RowSumTol of
	// 1). The ratios move by S_h/S_i, which mech.Harden absorbs.
	x := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("the tight-constraints mechanism: %w", err)
		}
		row := x.RawRowView(i)
		s := 0.0
		for k := 0; k < n; k++ {
			row[k] = math.Exp(-eps*m.Dist(i, k)) * r.Z[k]
			s += row[k]
		}
		for k := 0; k < n; k++ {
			row[k] /= s
			if d := m.Dist(i, k); row[k] < 0x1p-1022 && !math.IsInf(d, 1) && r.Z[k] > 0 {
				r.Note = fmt.Sprintf("X not built: entry X[%d][%d] = exp(-%g·%g)·z underflows float64, so its privacy ratios cannot be represented; the mechanism is defined by z (row i is exp(-eps·d(i,k))·z_k)", i, k, eps, d)
				return nil
			}
		}
	}
	// X is exactly tight at eps, so its float64 ratios sit within rounding
	// of e^{eps d}: mech.Harden returns it, or mixes it with the uniform row
	// by the smallest γ (from 2^-52) that passes the exact audit, for X and
	// for the rows Sampler realises.
	hx, gamma, rep, err := mech.HardenContext(ctx, x, m, eps)
	if ctx.Err() != nil {
		return fmt.Errorf("the tight-constraints mechanism's audit: %w", ctx.Err())
	}
	if err != nil {
		return fmt.Errorf("internal error: the tight-constraints mechanism: %w", err)
	}
	if gamma > 0 {
		r.Note = joinNote(r.Note, fmt.Sprintf("X mixed with the uniform row by γ = %g so that its float64 entries pass the exact audit (ratios within rounding of e^{eps d})", gamma))
	}
	r.X, r.Audit, r.Mix = hx, rep, gamma
	return nil
}

// meanOf is the arithmetic mean.
func meanOf(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

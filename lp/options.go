package lp

import (
	"runtime"

	"github.com/optdp/optdp/lp/internal/orbit"
	"github.com/optdp/optdp/run"
)

// Options tunes Solve. The zero value (or a nil pointer) means the defaults.
type Options struct {
	// Settings: Budget bounds the solver's workspace (see
	// Problem.WorkspaceBytes; 0 = run.DefaultBudget, 4 GiB; run.Unlimited =
	// no limit; negative = run.ErrBadInput), larger problems are refused before anything is allocated;
	// Progress, when set, receives a run.Progress after every iteration with
	// Stage "ipm", Iter, MaxIter, Gap (the relative gap of the current,
	// uncertified iterate) and Value (its primal objective).
	run.Settings
	// Tol is the target relative gap (Dual-Primal)/max(|Dual|,|Primal|)
	// between the certified bounds; default 1e-8.
	Tol float64
	// MaxIter caps the interior-point iterations; default 200.
	MaxIter int
	// Workers is the number of goroutines sharing the columns; default
	// GOMAXPROCS.
	Workers int
	// Margin is the relative tightening of the ratios used by Repair;
	// default 1e-12.
	Margin float64
	// KeepPairs solves with the pairs as given, without first dropping
	// those implied by chains of others (see Solve).
	KeepPairs bool

	// KeepColumns keeps every column (output) in the solve. By default
	// Solve leaves out, as the iteration approaches the optimum, the
	// columns whose mass vanishes (docs/MATH.md §11.10: solves to a Tol of
	// 1e-5 or looser, without symmetries, from 64 columns; SolveSpanner's
	// second LP starts without the columns its first left out), and
	// Generate with PerColumn the columns whose reduced costs show them
	// unused (§11.7). Either way the certified bound still covers every
	// column, and a column that no longer prices out comes back.
	KeepColumns bool

	// Banded forces the banded per-column factorisation (in the reverse
	// Cuthill–McKee order) even where the sparse one (minimum degree) is
	// estimated cheaper.
	Banded bool

	// DirectSchur assembles and factors the row-sum Schur complement
	// S = sum_o H_o^{-1} at every iteration. By default, on problems
	// where the assembly costs much more than a sweep of solves with the
	// per-column factors (n in the thousands; Generate's per-column
	// relaxations of a thousand columns and more), Solve reuses an earlier
	// iteration's factor of S as the preconditioner of conjugate gradients
	// on the exact S (see schur.Lazy in lp/internal/schur), assembling afresh
	// only when they slow down.
	DirectSchur bool

	// Symmetry lists candidate symmetries of the problem: permutations g
	// of the N = M points, acting on rows and columns alike. Those that
	// map the problem onto itself exactly (C[g(i)][g(o)] = C[i][o], and
	// every pair (I, H, W) to a pair (g(I), g(H), W)) generate a group G;
	// Solve then keeps one column per orbit of G and sums the rest by
	// symmetry (docs/MATH.md §11.9), about |G| times less work per
	// iteration. The others are ignored (Result.Symmetry reports |G|). The
	// answer and its certificate are computed on the full problem, so
	// they do not depend on the symmetries. The per-column mode
	// (GenerateOptions.PerColumn) ignores them.
	Symmetry [][]int
}

// config is a solve's Options, defaults applied (Options.withDefaults),
// with the settings that SolveSpanner and Generate pass to the solves they
// run and the test hooks.
type config struct {
	Options
	keepLam bool // keep the multipliers in Result.lam (SolveSpanner)
	// startOut, by column, leaves the columns with multipliers out of
	// the solve from the start (lp/ipm_drop.go), those multipliers
	// standing for them in the bound (SolveSpanner: the columns its
	// first LP left out, for the second).
	startOut [][]float64
	// boundOnly: the solve is wanted for its certified bound
	// (SolveSpanner's second LP). Columns left out that do not price out
	// within Tol at the end test (once the columns in are within Tol,
	// not Tol/2, lp/ipm_drop.go) are not brought back (which restarts the
	// iteration) when the certified gap is within boundSlack·Tol: the
	// best certificate is returned, its bound counting their priced
	// multipliers (valid, looser than Tol).
	boundOnly bool
	// capture, when not nil, keeps the first iterate whose relative gap
	// is at most capture.gap; warm, when taken, is the start point
	// instead of start's if it fits (lp/ipm_warm.go: SolveSpanner).
	capture, warm *warmPoint
	// colCapture and colWarm are capture and warm for per-column LPs
	// (lp/percol_warm.go: the rounds of generateColumns); colAct maps the
	// solve's columns to the original ones.
	colCapture, colWarm *colWarm
	colAct              []int
	// test holds the settings only tests use (export_test.go).
	test testHooks
}

// testHooks are settings of a solve that only tests change (through
// export_test.go); the zero value is what Solve uses.
type testHooks struct {
	dropAll         bool // leave out every column but the heaviest at the first check (lp/ipm_drop.go)
	schurMode       int  // 1: lazy Schur complement whenever possible, 2: on with the automatic tuning, -1: off
	schurDouble     bool // the lazy Schur complement's assemblies, and its products' L, in double precision
	schurSingleFail bool // the first single-precision S taken as out of range
	// record, when set, receives every certified Result with the
	// solve's counters at that iterate.
	record func(r *Result, c testCounts)
}

// testCounts are counters of a solve that only tests read (testHooks.record).
type testCounts struct {
	schurSingle int // SchurAssemblies made in single precision (schur.Lazy.Single)
	schurF32    int // products S v that read the single-precision copy of L (ldl.Solve4F32)
	restarts    int // restarts that brought columns left out back (ipm_drop.go)
}

// Result is a certified solution of a Problem.
type Result struct {
	// X is the solution, row-major N×M: nonnegative, rows summing to 1 (up to
	// rounding), and satisfying every ratio constraint exactly in floating
	// point (see Repair).
	X []float64
	// Primal is the objective C·X of the returned X.
	Primal float64
	// Dual is an upper bound on the optimum from an exactly feasible dual
	// point, so Primal <= optimum <= Dual up to the rounding of the sums.
	Dual float64
	// Gap is (Dual-Primal)/max(|Dual|,|Primal|) (0 when both vanish).
	Gap float64
	// Iterations is the number of interior-point iterations.
	Iterations int
	// Pairs is the number of ratio constraints per column of the LP
	// solved: after dropping implied pairs (Solve), of the last relaxation
	// (Generate), of the spanner (SolveSpanner).
	Pairs int
	// Mix is the weight of the uniform matrix mixed in by Repair.
	Mix float64
	// Y is the certified dual row multipliers (Dual = sum Y).
	Y []float64
	// SchurAssemblies counts the assemblies of the Schur complement S up to
	// the iterate returned (one per iteration unless the lazy Schur
	// complement kept an earlier factor, see Options.DirectSchur), SchurCG
	// the conjugate-gradient iterations of the solves with an earlier
	// factor (each costs one solve with every column's factor).
	SchurAssemblies, SchurCG int
	// Symmetry is the order of the symmetry group the solver used (see
	// Options.Symmetry); 1 when it used none.
	Symmetry int
	// Columns is the number of columns (outputs) still in the solve at
	// the iterate returned: M unless some were left out as unused (see
	// Options.KeepColumns); X is 0 in the others before Repair.
	Columns int

	lam []float64 // the ratio multipliers behind Dual, when Options.keepLam
	// lamSym, when not nil, is the symmetry whose representatives' columns
	// lam holds (the symmetric mode: symmetry.dualBound with its colAct).
	lamSym *orbit.Group
	// left, by column, holds the multipliers of the columns left out of
	// the solve (lp/ipm_drop.go), when Options.keepLam; nil otherwise.
	left [][]float64
	// warm: the solve started from another LP's iterate (Options.warm,
	// lp/ipm_warm.go).
	warm bool
}

func (o *Options) withDefaults() config {
	var r config
	if o != nil {
		r.Options = *o
	}
	if !(r.Tol > 0) {
		r.Tol = 1e-8
	}
	if r.MaxIter <= 0 {
		r.MaxIter = 200
	}
	if r.Workers <= 0 {
		r.Workers = runtime.GOMAXPROCS(0)
	}
	if !(r.Margin > 0) {
		r.Margin = 1e-12
	}
	return r
}

package solve

// Solver names the method that produced a Result or a BandedResult, as
// reported in results and their JSON.
type Solver string

// The solvers of this package. A Toeplitz solve is named by its Krylov
// method and circulant preconditioner (Precond.String), MINRES using the
// preconditioner's absolute value.
const (
	SolverPCG            Solver = "pcg"
	SolverMINRES         Solver = "minres"
	SolverKron           Solver = "kron"
	SolverBandedCholesky Solver = "banded-cholesky"

	SolverToeplitzPCGStrang       Solver = "toeplitz-pcg-strang"
	SolverToeplitzPCGTChan        Solver = "toeplitz-pcg-tchan"
	SolverToeplitzPCGNone         Solver = "toeplitz-pcg-none"
	SolverToeplitzMINRESAbsStrang Solver = "toeplitz-minres-abs-strang"
	SolverToeplitzMINRESAbsTChan  Solver = "toeplitz-minres-abs-tchan"
	SolverToeplitzMINRESNone      Solver = "toeplitz-minres-none"
)

// String returns the solver's name.
func (s Solver) String() string { return string(s) }

// toeplitzSolver is the name of a Toeplitz solve by PCG (minres false) or
// MINRES with the preconditioner kind (PrecondNone: none).
func toeplitzSolver(minres bool, kind Precond) Solver {
	if minres {
		if kind == PrecondNone {
			return SolverToeplitzMINRESNone
		}
		return Solver("toeplitz-minres-abs-" + kind.String())
	}
	return Solver("toeplitz-pcg-" + kind.String())
}

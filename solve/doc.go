// Package solve solves the privacy-constraints systems of optdp: Phi z = 1
// (the tight-constraints mechanism, docs/MATH.md §3) and Phi y = pi (regular
// priors, docs/MATH.md §5), where Phi = exp(-dY) is symmetric with unit diagonal
// and non-negative entries, and decides whether a non-negative solution
// exists.
//
// The dense path (DenseSystem) factorises Phi once through package backend
// (Cholesky, falling back to Bunch–Kaufman or LU) and solves any number of
// right-hand sides. Every solution comes with a rigorous-in-form error bound
// on each component, from the residual, the rounding of the residual and of
// Phi's own entries, and a condition estimate; a sign that the bound cannot
// settle is reported as Borderline rather than guessed. A numerically
// singular Phi (reciprocal condition below SingularRCond) is not solved but
// handed to a feasibility test (Feasible, built on Lawson–Hanson NNLS) that
// either finds z >= 0 with a residual at rounding level, proves infeasibility
// with a Farkas certificate, or says Borderline.
//
// Scan and Bisect locate the threshold eps* where a sign changes, by a
// coarse scan that reports every crossing followed by bisection.
//
// Structured solvers (Toeplitz/BTTB through the FFT, Kronecker products,
// closed forms) live in the other files of this package and are applied
// through the Operator interface without storing Phi (docs/MATH.md §12).
package solve

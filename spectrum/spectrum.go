// Package spectrum gives closed-form lower bounds on the smallest eigenvalue
// of the kernel matrices Phi[x][y] = exp(-c d(x, y)) of the line and of the
// Euclidean and Chebyshev metrics on the square lattice (docs/MATH.md
// §12.3). The bounds hold for every finite set of points, so they certify
// a computed solution of Phi z = b (solve.Certify) and tell a metric's
// mechanism that Phi is positive definite (mech/metric).
//
// The package imports only run, so that both the solvers (solve) and the
// metrics (mech/metric) can use it. Invalid arguments return errors that
// wrap run.ErrBadInput behind "spectrum: ".
package spectrum

import (
	"fmt"
	"math"

	"github.com/optdp/optdp/run"
)

// LineLambdaMin returns (1-a)/(1+a), a lower bound on the smallest
// eigenvalue of the line's n×n matrix Phi[i][j] = a^{|i-j|} for every n
// (0 < a < 1). Phi is the Toeplitz matrix of the Poisson kernel
// f(theta) = (1-a^2)/(1 - 2a cos(theta) + a^2), and by Grenander–Szegő
// (Toeplitz Forms, 1958, section 5.2) its eigenvalues lie in
// (min f, max f) = ((1-a)/(1+a), (1+a)/(1-a)).
func LineLambdaMin(a float64) (float64, error) {
	if !(a > 0 && a < 1) {
		return 0, fmt.Errorf("spectrum: one-hop entry a = %v, want 0 < a < 1 (eps > 0 finite): %w", a, run.ErrBadInput)
	}
	return (1 - a) / (1 + a), nil
}

// EuclidLambdaMin returns a lower bound on the smallest eigenvalue of
// Phi[x][y] = exp(-c |x-y|_2) for every finite set of points of the square
// lattice Z^2 (in particular every W×H grid with step s at privacy level
// eps per unit length, c = eps*s), c > 0.
//
// By Poisson summation the symbol of exp(-c|k|) on Z^2 is
//
//	f(theta) = sum_{m in Z^2} g(theta + 2 pi m),  g(w) = 2 pi c / (c^2 + |w|^2)^{3/2},
//
// g being the 2-D Fourier transform of exp(-c|x|). Since (c^2+s)^{-3/2} is
// completely monotone in s = |w|^2, g is a positive mixture of Gaussians
// exp(-t|w|^2); each Gaussian's periodisation factorises into two Jacobi
// theta functions, which by the triple product are minimised at pi. Hence
// f >= f(pi, pi), and truncating its (positive) series to |m_i| <= K gives
//
//	lambda_min >= 2 pi c sum_{|m_i| <= K} (c^2 + pi^2 ((2m_1+1)^2 + (2m_2+1)^2))^{-3/2},
//
// computed here with K = 300 (the omitted tail is below about 0.3% of the
// sum) and rounded down by a relative 1e-10 for the arithmetic.
func EuclidLambdaMin(c float64) (float64, error) {
	if !(c > 0) || math.IsInf(c, 0) {
		return 0, fmt.Errorf("spectrum: euclidean kernel rate c = %v, want 0 < c < Inf: %w", c, run.ErrBadInput)
	}
	const K = 300
	// Compensated (Neumaier) summation of positive terms, each accurate to
	// a few units of roundoff.
	var s, comp float64
	for m1 := -K; m1 <= K; m1++ {
		a := float64(2*m1 + 1)
		for m2 := -K; m2 <= K; m2++ {
			b := float64(2*m2 + 1)
			q := c*c + math.Pi*math.Pi*(a*a+b*b)
			x := 1 / (q * math.Sqrt(q))
			t := s + x
			if s >= x {
				comp += (s - t) + x
			} else {
				comp += (x - t) + s
			}
			s = t
		}
	}
	s += comp
	return 2 * math.Pi * c * s * (1 - 1e-10), nil
}

// ChebyshevLambdaMin returns a lower bound on the smallest eigenvalue of
// Phi[x][y] = exp(-c max(|x1-y1|, |x2-y2|)) on any finite subset of Z^2
// (Chebyshev grids, and the 2-count query's king-move graph with c = eps),
// c > 0. In the plane max(|x1|,|x2|) = (|x1+x2| + |x1-x2|)/2, so the
// kernel's Fourier transform is
//
//	F(w) = 1/2 L((w1+w2)/2) L((w1-w2)/2),  L(s) = c / (c^2/4 + s^2) > 0,
//
// and by Poisson summation the lattice symbol is f(theta) =
// sum_m F(theta + 2 pi m). For theta in [-pi, pi]^2 the rotated coordinates
// of theta + 2 pi m satisfy |s1| <= pi(|m1+m2|+1), |s2| <= pi(|m1-m2|+1), and
// L decreases in |s|, so
//
//	lambda_min >= min f >= 1/2 sum_{|m_i| <= K} L(pi(|m1+m2|+1)) L(pi(|m1-m2|+1)),
//
// summed here with K = 200. The bound is valid but not tight (about 20-40
// times below lambda_min at small c): it certifies well-resolved solutions.
func ChebyshevLambdaMin(c float64) (float64, error) {
	if !(c > 0) || math.IsInf(c, 0) {
		return 0, fmt.Errorf("spectrum: chebyshev kernel rate c = %v, want 0 < c < Inf: %w", c, run.ErrBadInput)
	}
	const K = 200
	L := func(s float64) float64 { return c / (c*c/4 + s*s) }
	var s float64
	for m1 := -K; m1 <= K; m1++ {
		for m2 := -K; m2 <= K; m2++ {
			s += L(math.Pi*float64(abs(m1+m2)+1)) * L(math.Pi*float64(abs(m1-m2)+1))
		}
	}
	return 0.5 * s * (1 - 1e-10), nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

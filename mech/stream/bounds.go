package stream

import "math"

// PrefixBounds are closed-form bounds for the prefix sums of n steps under
// single participation (docs/MATH.md §19.5).
type PrefixBounds struct {
	// Nuclear is ‖A‖_* = Σ_k σ_k, σ_k = 1/(2 sin((2k-1)π/(4n+2))), k = 1..n
	// (the singular values of the prefix-sum matrix).
	Nuclear float64 `json:"nuclear"`
	// TotalLower = Nuclear²/n: no factorisation has a smaller total squared
	// error (the singular value bound of Li et al.; ‖A‖_* <= ‖B‖_F ‖C‖_F <=
	// ‖B‖_F √n·sens).
	TotalLower float64 `json:"total_lower"`
	// MaxLower = (Nuclear/n)²: no factorisation has a smaller max variance
	// (‖A‖_* <= ‖B‖_F ‖C‖_F <= √n max_i ‖B_i‖ · √n sens).
	MaxLower float64 `json:"max_lower"`
	// SqrtMax = (Σ_{t<n} r_t²)², the max variance of the square-root
	// factorisation, an upper bound on the optimum; √SqrtMax lies in
	// [1 + ln((2n+1)/3)/π, 1 + (1 + ln(n-1))/π] (from 1/√(π(t+½)) <= r_t
	// <= 1/√(πt), t >= 1).
	SqrtMax float64 `json:"sqrt_max"`
	// LogOverPi is ln(n)/π: both √MaxLower and √SqrtMax are ln(n)/π + O(1)
	// (Fichtenberger, Henzinger and Upadhyay 2023; Henzinger, Upadhyay and
	// Upadhyay 2023).
	LogOverPi float64 `json:"log_over_pi"`
}

// Bounds returns the PrefixBounds for n steps (O(n)).
func Bounds(n int) PrefixBounds {
	nuc := 0.0
	for k := 1; k <= n; k++ {
		nuc += 1 / (2 * math.Sin(float64(2*k-1)*math.Pi/float64(4*n+2)))
	}
	sq := 0.0
	for _, r := range SqrtCoef(n) {
		sq += r * r
	}
	return PrefixBounds{Nuclear: nuc, TotalLower: nuc * nuc / float64(n), MaxLower: (nuc / float64(n)) * (nuc / float64(n)), SqrtMax: sq * sq, LogOverPi: math.Log(float64(n)) / math.Pi}
}

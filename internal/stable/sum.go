package stable

// Sum accumulates float64 values with a compensated (TwoSum) error term:
// Value returns the sum correctly rounded up to an error of about
// 2u·Σ|x_i| + n²u²·Σ|x_i| (u = 2^-53), against (n-1)u·Σ|x_i| for plain
// summation, which at 10^5 terms loses the last four digits. The zero
// value is an empty sum.
type Sum struct{ hi, lo float64 }

// Add adds x to s: the rounding error of hi + x, recovered exactly by
// Knuth's TwoSum, goes to lo.
func (s *Sum) Add(x float64) {
	t := s.hi + x
	bv := t - s.hi
	s.lo += (s.hi - (t - bv)) + (x - bv)
	s.hi = t
}

// Value returns the accumulated sum.
func (s *Sum) Value() float64 { return s.hi + s.lo }

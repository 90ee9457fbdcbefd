package mech

import (
	"fmt"
	"math"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// Leakage bounds about databases Val^u, |Val| = v (docs/MATH.md §7).

// Bnd is the bound Bnd(u, v, eps) = u log2(v e^eps / (v - 1 + e^eps)) bits on
// the min-entropy leakage about a database of u individuals with v values
// each, valid for every eps-DP mechanism and every prior, and reached by
// BndMechanism for the uniform prior. It is computed as
// u (log2 v - log2(1 + (v-1) e^-eps)), which neither overflows nor loses
// accuracy for large eps. Requires u >= 1, v >= 2 and a valid eps.
func Bnd(u, v int, eps float64) (float64, error) {
	if err := checkDB(u, v, eps); err != nil {
		return 0, fmt.Errorf("bnd: %w", err)
	}
	return float64(u) * bndPerIndividual(v, eps), nil
}

// bndPerIndividual is log2(v e^eps / (v-1+e^eps)).
func bndPerIndividual(v int, eps float64) float64 {
	return math.Log2(float64(v)) - math.Log1p(float64(v-1)*math.Exp(-eps))/math.Ln2
}

// IndividualBound bounds, in bits, the min-entropy leakage of an eps-DP
// mechanism about one individual with v possible values when every other
// individual is known: log2(v e^eps / (v - 1 + e^eps)) = Bnd(1, v, eps).
func IndividualBound(v int, eps float64) (float64, error) {
	if err := checkDB(1, v, eps); err != nil {
		return 0, fmt.Errorf("individual bound: %w", err)
	}
	return bndPerIndividual(v, eps), nil
}

// RangeBound bounds, in bits, the min-entropy leakage about a database of u
// individuals with v values each of an eps-DP mechanism with at most r
// outputs (the journal paper's Proposition 20):
//
//	log2( r e^{eps u} / ((v-1+e^eps)^l - e^{eps l} + e^{eps u}) ),  l = floor(log_v r),
//
// with l computed in integer arithmetic. The proposition needs l < u; when
// r >= v^u the range does not restrict anything and RangeBound returns
// Bnd(u, v, eps). The bound never exceeds log2 r, but it is not always below
// Bnd: the proposition relaxes the constraints between the l retained
// individuals, and for r close to v^u (e.g. u=5, v=3, r=27, eps=1.1: 4.268
// against Bnd = 4.244 bits) Bnd is the smaller; both are valid, so
// min(RangeBound, Bnd) is a bound too. Every power is handled in logarithms,
// so large u and eps do not overflow.
func RangeBound(u, v, r int, eps float64) (float64, error) {
	if err := checkDB(u, v, eps); err != nil {
		return 0, fmt.Errorf("range bound: %w", err)
	}
	if r < 1 {
		return 0, fmt.Errorf("mech: range bound: the range size r must be >= 1, got %d: %w", r, run.ErrBadInput)
	}
	l := floorLog(r, v)
	if l >= u {
		return float64(u) * bndPerIndividual(v, eps), nil
	}
	if l == 0 {
		return math.Log2(float64(r)), nil // A - B = 0: log2(r e^{eps u} / e^{eps u})
	}
	// Divide through by e^{eps u}: the bound is log2 r - log2(1 + (A-B)/C)
	// with A = (v-1+e^eps)^l, B = e^{eps l}, C = e^{eps u}, A > B.
	lnA := float64(l) * (eps + math.Log1p(float64(v-1)*math.Exp(-eps)))
	lnB := eps * float64(l)
	lnAB := lnB + lnExpm1(lnA-lnB) // ln(A - B)
	return (math.Log(float64(r)) - softplus(lnAB-eps*float64(u))) / math.Ln2, nil
}

// floorLog is floor(log_v r) for r >= 1, v >= 2, in integer arithmetic.
func floorLog(r, v int) int {
	l := 0
	for p := 1; p <= r/v; p *= v {
		l++
	}
	return l
}

// lnExpm1 is ln(e^x - 1) for x > 0, without overflow for large x.
func lnExpm1(x float64) float64 {
	if x > 1 {
		return x + math.Log1p(-math.Exp(-x))
	}
	return math.Log(math.Expm1(x))
}

// softplus is ln(1 + e^t), without overflow for large t.
func softplus(t float64) float64 {
	if t > 0 {
		return t + math.Log1p(math.Exp(-t))
	}
	return math.Log1p(math.Exp(t))
}

// BndMechanism is the eps-DP mechanism on the databases Val^u (|Val| = v,
// database x indexed by its base-v digits, most significant first) whose
// leakage for the uniform prior equals Bnd(u, v, eps):
// K[x][z] = 2^Bnd / (v^u e^{eps d(x,z)}) = e^{-eps d(x,z)} / (1+(v-1)e^-eps)^u
// with d the Hamming distance. It is built at BuildLevel(eps), a strict
// margin below eps, so its leakage is Bnd(u, v, BuildLevel(eps)), within
// about 1e-9 relative of Bnd(u, v, eps). The v^u x v^u matrix is refused
// with an error, before allocation, when it would exceed MaxDenseEntries.
//
// The result is audited exactly against Hamming(u, v) at eps before it is returned,
// and an error is returned if the audit fails: the full mech.Audit over the
// n·u(v-1)/2 edges when that costs at most about 2^27 ratio comparisons,
// otherwise the sampled audit of Exponential's doc.
func BndMechanism(u, v int, eps float64) (*mat.Dense, error) {
	if err := checkDB(u, v, eps); err != nil {
		return nil, fmt.Errorf("bnd mechanism: %w", err)
	}
	n := 1
	for k := 0; k < u; k++ {
		if n > MaxDenseEntries/v {
			return nil, fmt.Errorf("mech: bnd mechanism: %d^%d databases: the matrix would exceed %d entries: %w", v, u, MaxDenseEntries, run.ErrTooLarge)
		}
		n *= v
	}
	if err := ValidateDenseSize(n, n, "bnd mechanism"); err != nil {
		return nil, err
	}
	// Entry for Hamming distance d, computed in logs.
	lev := BuildLevel(eps)
	lnNorm := float64(u) * math.Log1p(float64(v-1)*math.Exp(-lev))
	byDist := make([]float64, u+1)
	for d := range byDist {
		byDist[d] = math.Exp(-lev*float64(d) - lnNorm)
	}
	if err := validateNoUnderflow(byDist, "bnd mechanism"); err != nil {
		return nil, err
	}
	k := mat.NewDense(n, n, nil)
	for x := 0; x < n; x++ {
		row := k.RawRowView(x)
		for z := range row {
			row[z] = byDist[dbHammingDist(x, z, u, v)]
		}
	}
	m, err := metric.Hamming(u, v)
	if err != nil {
		return nil, fmt.Errorf("bnd mechanism: %w", err)
	}
	if err := auditWithBudget("bnd mechanism", k, m, eps); err != nil {
		return nil, err
	}
	return k, nil
}

// dbHammingDist is the number of base-v digits (of u) in which the database
// indices x and z differ.
func dbHammingDist(x, z, u, v int) int {
	d := 0
	for k := 0; k < u; k++ {
		if x%v != z%v {
			d++
		}
		x /= v
		z /= v
	}
	return d
}

// checkDB validates the parameters of a database bound.
func checkDB(u, v int, eps float64) error {
	if u < 1 {
		return fmt.Errorf("mech: the number of individuals u must be >= 1, got %d: %w", u, run.ErrBadInput)
	}
	if v < 2 {
		return fmt.Errorf("mech: the number of values v must be >= 2, got %d: %w", v, run.ErrBadInput)
	}
	return metric.CheckEps(eps)
}

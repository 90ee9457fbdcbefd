package linear

import (
	"fmt"
	"math/bits"

	"gonum.org/v1/gonum/mat"
)

// CensusSF1Attributes names the attributes of the domain of CensusSF1Persons,
// in Kronecker order, and CensusSF1Dims gives their sizes:
// sex (2) × Hispanic origin (2: Hispanic, not Hispanic) × race (64: a bit
// pattern over the six race categories, bit i set when race i is checked,
// bit 0 white) × relationship to householder (17) × age (115: 0 to 114),
// 500,480 cells.
var (
	CensusSF1Attributes = []string{"sex", "hispanic", "race", "relationship", "age"}
	CensusSF1Dims       = []int{2, 2, 64, 17, 115}
)

// censusBlock returns the explicit one-attribute block rows (0/1 entries)
// named name, each row given by a predicate on the attribute's value.
func censusBlock(name string, n int, rows []func(v int) bool) *matrixWorkload {
	a := mat.NewDense(len(rows), n, nil)
	for q, in := range rows {
		for v := 0; v < n; v++ {
			if in(v) {
				a.Set(q, v, 1)
			}
		}
	}
	return &matrixWorkload{a: a, name: name}
}

// CensusSF1Persons returns the 2010 Census Summary File 1 tables over the
// universe "Persons" as stated in the HDMM paper (McKenna, Miklau, Hay and
// Machanavajjhala, "Optimizing error of high-dimensional statistical queries
// under differential privacy", VLDB 2018, and its public experiments): the
// union (stacked, no weights) of 33 Kronecker products over CensusSF1Dims
// that make up tables P1, P3, P4, P5, P8, P9, P10, P11, P12, P12A-I, PCT12
// and PCT12A-O, 4151 queries over 500,480 cells. Per attribute the blocks
// are: total (T), identity (I), identity and total (IT), on Hispanic origin
// "Hispanic" (H) and "not Hispanic" (N); on race race1 (the six single
// races and one row for every other pattern, 7 rows), race2 (each of the
// 63 non-empty patterns, each number 1..6 of races checked, and two or more
// races: 70 rows) and white (W); on age adult (18+), age1 (23 age groups
// with boundaries 0, 5, 10, 15, 18, 20, 21, 22, 25, 30, 35, 40, 45, 50, 55,
// 60, 62, 65, 67, 70, 75, 80, 85, 115) and age3 (each age 0..99, then
// 100-104, 105-109, 110-114: 103 rows). Relationship is always totalled.
// The products (sex, hispanic, race, relationship, age), in order:
//
//	P1 = T T T T T          P3: T T race1 T T, P1     P4: T I T T T, P1
//	P5: T I race1 T T, T IT T T T                     P8: T T race2 T T, P1
//	P9: T I T T T, T N race2 T T, P1                  P10: T T race2 T adult, T T T T adult
//	P11: T I T T adult, T N race2 T adult, T T T T adult
//	P12: I T T T age1, IT T T T T
//	P12A-I: I T race1 T age1, IT T race1 T T, I H T T age1, IT H T T T,
//	        I N W T age1, IT N W T T
//	PCT12: I T T T age3, IT T T T T
//	PCT12A-O: I T race1 T age3, IT T race1 T T, I H T T age3, IT H T T T,
//	          I N race1 T age3, IT N race1 T T
func CensusSF1Persons() (Workload, error) {
	tot := func(n int) Workload { w, _ := Total(n); return w }
	id := func(n int) Workload { w, _ := Identity(n); return w }
	it2, _ := IdentityTotal(2)
	T2, T64, T17, T115 := tot(2), tot(64), tot(17), tot(115)
	I2 := id(2)
	hisp := censusBlock("hispanic", 2, []func(int) bool{func(v int) bool { return v == 0 }})
	notHisp := censusBlock("not-hispanic", 2, []func(int) bool{func(v int) bool { return v == 1 }})
	var r1 []func(int) bool
	for i := 0; i < 6; i++ {
		r1 = append(r1, func(v int) bool { return v == 1<<i })
	}
	r1 = append(r1, func(v int) bool { return bits.OnesCount(uint(v)) != 1 })
	race1 := censusBlock("race1", 64, r1)
	var r2 []func(int) bool
	for p := 1; p < 64; p++ {
		r2 = append(r2, func(v int) bool { return v == p })
	}
	for k := 1; k <= 6; k++ {
		r2 = append(r2, func(v int) bool { return bits.OnesCount(uint(v)) == k })
	}
	r2 = append(r2, func(v int) bool { return bits.OnesCount(uint(v)) >= 2 })
	race2 := censusBlock("race2", 64, r2)
	white := censusBlock("white", 64, []func(int) bool{func(v int) bool { return v == 1 }})
	adult := censusBlock("adult", 115, []func(int) bool{func(v int) bool { return v >= 18 }})
	bounds := []int{0, 5, 10, 15, 18, 20, 21, 22, 25, 30, 35, 40, 45, 50, 55, 60, 62, 65, 67, 70, 75, 80, 85, 115}
	var a1 []func(int) bool
	for i := 0; i+1 < len(bounds); i++ {
		lo, hi := bounds[i], bounds[i+1]
		a1 = append(a1, func(v int) bool { return v >= lo && v < hi })
	}
	age1 := censusBlock("age1", 115, a1)
	var a3 []func(int) bool
	for a := 0; a < 100; a++ {
		a3 = append(a3, func(v int) bool { return v == a })
	}
	for lo := 100; lo < 115; lo += 5 {
		a3 = append(a3, func(v int) bool { return v >= lo && v < lo+5 })
	}
	age3 := censusBlock("age3", 115, a3)

	type product struct {
		table string
		f     [5]Workload
	}
	p1 := [5]Workload{T2, T2, T64, T17, T115}
	ps := []product{
		{"P1", p1},
		{"P3", [5]Workload{T2, T2, race1, T17, T115}}, {"P3", p1},
		{"P4", [5]Workload{T2, I2, T64, T17, T115}}, {"P4", p1},
		{"P5", [5]Workload{T2, I2, race1, T17, T115}}, {"P5", [5]Workload{T2, it2, T64, T17, T115}},
		{"P8", [5]Workload{T2, T2, race2, T17, T115}}, {"P8", p1},
		{"P9", [5]Workload{T2, I2, T64, T17, T115}}, {"P9", [5]Workload{T2, notHisp, race2, T17, T115}}, {"P9", p1},
		{"P10", [5]Workload{T2, T2, race2, T17, adult}}, {"P10", [5]Workload{T2, T2, T64, T17, adult}},
		{"P11", [5]Workload{T2, I2, T64, T17, adult}}, {"P11", [5]Workload{T2, notHisp, race2, T17, adult}},
		{"P11", [5]Workload{T2, T2, T64, T17, adult}},
		{"P12", [5]Workload{I2, T2, T64, T17, age1}}, {"P12", [5]Workload{it2, T2, T64, T17, T115}},
		{"P12A-I", [5]Workload{I2, T2, race1, T17, age1}}, {"P12A-I", [5]Workload{it2, T2, race1, T17, T115}},
		{"P12A-I", [5]Workload{I2, hisp, T64, T17, age1}}, {"P12A-I", [5]Workload{it2, hisp, T64, T17, T115}},
		{"P12A-I", [5]Workload{I2, notHisp, white, T17, age1}}, {"P12A-I", [5]Workload{it2, notHisp, white, T17, T115}},
		{"PCT12", [5]Workload{I2, T2, T64, T17, age3}}, {"PCT12", [5]Workload{it2, T2, T64, T17, T115}},
		{"PCT12A-O", [5]Workload{I2, T2, race1, T17, age3}}, {"PCT12A-O", [5]Workload{it2, T2, race1, T17, T115}},
		{"PCT12A-O", [5]Workload{I2, hisp, T64, T17, age3}}, {"PCT12A-O", [5]Workload{it2, hisp, T64, T17, T115}},
		{"PCT12A-O", [5]Workload{I2, notHisp, race1, T17, age3}}, {"PCT12A-O", [5]Workload{it2, notHisp, race1, T17, T115}},
	}
	ws := make([]Workload, len(ps))
	for i, p := range ps {
		k, err := Kron(p.f[:]...)
		if err != nil {
			return nil, fmt.Errorf("census SF1 %s: %w", p.table, err)
		}
		ws[i] = k
	}
	u, err := Union(ws...)
	if err != nil {
		return nil, err
	}
	u.(*unionWorkload).name = "census-sf1-persons"
	return u, nil
}

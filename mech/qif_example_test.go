package mech_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"

	"gonum.org/v1/gonum/mat"
)

// The identity channel reveals the secret: it leaks all of the prior's
// Shannon entropy, and one guess always suffices afterwards.
func ExampleShannonLeakage() {
	id := mat.NewDense(4, 4, []float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1})
	prior := []float64{0.5, 0.25, 0.125, 0.125}
	h, _ := mech.ShannonEntropy(prior)
	l, _ := mech.ShannonLeakage(id, prior)
	g, _ := mech.GuessingEntropy(prior)
	gc, _ := mech.CondGuessingEntropy(id, prior)
	fmt.Printf("H = %.4g bits, leaked %.4g bits; guesses %.4g before, %.4g after\n", h, l, g, gc)
	// Output: H = 1.75 bits, leaked 1.75 bits; guesses 1.875 before, 1 after
}

// The capacity of the binary symmetric channel with crossover 0.11 is
// 1 - h(0.11) = 0.5 bits (to 3 digits), bracketed by Blahut–Arimoto.
func ExampleShannonCapacity() {
	bsc := mat.NewDense(2, 2, []float64{0.89, 0.11, 0.11, 0.89})
	res, _ := mech.ShannonCapacity(context.Background(), bsc, nil)
	fmt.Printf("capacity in [%.3f, %.3f] bits\n", res.Lower, res.Upper)
	// Output: capacity in [0.500, 0.500] bits
}

// A noisier binary symmetric channel is a post-processing of a cleaner one
// (BSC(0.1) followed by BSC(0.25) is BSC(0.3)), never the other way round:
// a witness gain shows the cleaner one leaking more.
func ExampleRefinedBy() {
	clean := mat.NewDense(2, 2, []float64{0.9, 0.1, 0.1, 0.9})
	noisy := mat.NewDense(2, 2, []float64{0.7, 0.3, 0.3, 0.7})
	a, _ := mech.RefinedBy(context.Background(), clean, noisy, nil)
	b, _ := mech.RefinedBy(context.Background(), noisy, clean, nil)
	fmt.Println("clean refined by noisy:", a.Verdict)
	fmt.Println("noisy refined by clean:", b.Verdict, "witness gap > 0:", b.WitnessGap > 0)
	// Output:
	// clean refined by noisy: yes
	// noisy refined by clean: no witness gap > 0: true
}

// Check-ins binned onto a 2x2 grid laid on a map, with a pseudo-count of 1
// per cell: counts (2, 0, 0, 1) become (3, 1, 1, 2)/7.
func ExamplePriorFromPoints() {
	g, _ := metric.GeoGrid(2, 2, metric.GeoBox{South: 10, West: 20, North: 12, East: 24}, 0, metric.Euclid)
	csv := "lat,lon\n11.5,20.5\n11.9,21.9\n10.1,23.9\n0,0\n"
	res, _ := mech.PriorFromPoints(strings.NewReader(csv), g, &mech.MapPriorOptions{Pseudo: 1})
	fmt.Printf("%d points, %d outside; prior = %.4f\n", res.Points, res.Outside, res.Prior)
	// Output: 4 points, 1 outside; prior = [0.4286 0.1429 0.1429 0.2857]
}

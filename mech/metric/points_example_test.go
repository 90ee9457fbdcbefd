package metric_test

import (
	"fmt"

	"github.com/optdp/optdp/mech/metric"
)

func ExampleLatLon() {
	// London, Paris, New York.
	m, err := metric.LatLon([]float64{51.5074, 48.8566, 40.7128}, []float64{-0.1278, 2.3522, -74.0060})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("London-Paris %.1f km, London-New York %.0f km\n", m.Dist(0, 1), m.Dist(0, 2))
	i, _ := m.Locate(49.0, 2.5, true) // snap a record to the nearest place
	fmt.Println("nearest to (49, 2.5):", i)
	_, err = metric.LatLon([]float64{10, 95}, []float64{0, 0})
	fmt.Println(err)
	// Output:
	// London-Paris 343.6 km, London-New York 5570 km
	// nearest to (49, 2.5): 1
	// latlon: point 1: latitude 95 is outside [-90, 90] (are latitude and longitude swapped?)
}

func ExampleNewRoads() {
	m, err := metric.NewRoads(4, []metric.WeightedEdge{{U: 0, V: 1, W: 2}, {U: 1, V: 2, W: 3}, {U: 0, V: 2, W: 10}})
	fmt.Println(m, err)
	m, _ = metric.NewRoads(3, []metric.WeightedEdge{{U: 0, V: 1, W: 2}, {U: 1, V: 2, W: 3}, {U: 0, V: 2, W: 10}})
	fmt.Println(m.Dist(0, 2))
	// Output:
	// <nil> roads: the graph is disconnected: vertex 3 cannot be reached from vertex 0 (keep one connected component, or join it with an edge)
	// 5
}

func ExampleRepairMatrix() {
	// Points 0, 1/3, 2/3 on a line, written with six decimals.
	d := [][]float64{{0, 0.333333, 0.666667}, {0.333333, 0, 0.333333}, {0.666667, 0.333333, 0}}
	_, err := metric.NewMatrix(d)
	fmt.Println(err != nil)
	m, err := metric.RepairMatrix(d, 1e-5)
	fmt.Println(m.Dist(0, 2), m.Lowered, err)
	// Output:
	// true
	// 0.666666 1 <nil>
}

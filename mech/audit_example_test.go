package mech_test

import (
	"errors"
	"fmt"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// The audit takes mechanisms only: all ones has every ratio 1 but rows
// summing to 2, beyond RowSumTol (cols·2^-50).
func ExampleRowSumTol() {
	line, _ := metric.Line(2)
	_, err := mech.Audit(mat.NewDense(2, 2, []float64{1, 1, 1, 1}), line, 1)
	fmt.Println(errors.Is(err, run.ErrBadInput), mech.RowSumTol(2))
	rep, err := mech.Audit(mat.NewDense(2, 2, []float64{0.6, 0.4, 0.4, 0.6}), line, 1)
	fmt.Println(rep.Private, err)
	// Output:
	// true 1.7763568394002505e-15
	// true <nil>
}

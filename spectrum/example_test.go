package spectrum_test

import (
	"fmt"
	"math"

	"github.com/optdp/optdp/spectrum"
)

func ExampleLineLambdaMin() {
	// The line at eps = 0.5 per step: Phi[i][j] = exp(-0.5|i-j|).
	lam, _ := spectrum.LineLambdaMin(math.Exp(-0.5))
	fmt.Printf("%.4f\n", lam)
	// Output: 0.2449
}

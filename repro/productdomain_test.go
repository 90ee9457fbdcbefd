package repro

import (
	"path/filepath"
	"testing"
)

// TestMatrixProductQuick: the census identity error equals 37,997,108, the
// value HDMM's own code (error.expected_error with eps = 1 on its
// SF1_Persons workload and the identity) prints (bench/README.md, "Product
// domains and HDMM"); on every workload the optimised strategy is no worse
// than each baseline, and the experiment reports no discrepancy.
func TestMatrixProductQuick(t *testing.T) {
	r, dir := result(t, "matrix-product")
	near(t, "census identity TSE", r.Values["census SF1 Persons (2x2x64x17x115) / identity"], 37997108, 1e-6)
	if len(r.Discrepancies) != 0 {
		t.Errorf("discrepancies: %v", r.Discrepancies)
	}
	rows := readCSV(t, filepath.Join(dir, "matrix_product_tse.csv"))
	opt := map[string]float64{}
	base := map[string][]float64{}
	for _, row := range rows[1:] {
		if row[1] == "optimised" {
			opt[row[0]] = atof(t, row[3])
		} else {
			base[row[0]] = append(base[row[0]], atof(t, row[3]))
		}
	}
	if len(opt) != 3 {
		t.Fatalf("optimised rows for %d workloads, want 3", len(opt))
	}
	for w, v := range opt {
		for _, b := range base[w] {
			if v > b*(1+1e-9) {
				t.Errorf("%s: optimised %v worse than a baseline %v", w, v, b)
			}
		}
	}
}

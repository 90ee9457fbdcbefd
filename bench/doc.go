// Package bench holds optdp's benchmarks: testing.B functions that measure
// the library's kernels and solvers under whichever backend the build selected
// (pure Go by default, OpenBLAS with -tags netlib), plus a small C program
// (bench/c) that times LAPACK directly for reference. bench/README.md says how
// to run them and compare backends with benchstat, and records the figures.
//
// The package has no API; it exists for its _test.go files.
package bench

//go:build netlib && !cgo

package backend_netlib

// The netlib backend calls OpenBLAS and LAPACKE through cgo. This file exists
// only to make `go build -tags netlib` with CGO_ENABLED=0 fail with a message
// that says what to do: the compiler reports the undefined name below.
var _ = optdp_netlib_backend_requires_cgo__set_CGO_ENABLED_1_and_install_libopenblas_dev_and_liblapacke_dev

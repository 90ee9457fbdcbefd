// Package backend_netlib is optdp's OpenBLAS/LAPACKE backend, compiled only
// with `go build -tags netlib` and cgo. See package backend.
package backend_netlib

//go:build netlib

package backend

import "github.com/optdp/optdp/backend_netlib"

// active is the backend chosen at build time: OpenBLAS/LAPACKE with -tags netlib.
var active Impl = backend_netlib.New()

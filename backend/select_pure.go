//go:build !netlib

package backend

import "github.com/optdp/optdp/backend_pure"

// active is the backend chosen at build time: pure Go unless built with -tags netlib.
var active Impl = backend_pure.Impl{}

// Package layers holds the test that keeps optdp's packages on the floors
// of docs/ARCHITECTURE.md: a package imports only packages on lower floors.
// It has no code of its own.
package layers

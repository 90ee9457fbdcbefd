package metric

import "math"

// The fixed limits of package metric, in one place (docs/ARCHITECTURE.md
// lists those of every package). Each is checked before anything of that
// size is allocated, and a value over it is refused with an error wrapping
// run.ErrTooLarge or run.ErrBadInput; memory that depends on the problem is
// bounded by a run.Budget instead (PhiLimit).

// MinEps and MaxEps bound the privacy level eps (per unit of distance) that
// optdp accepts; CheckEps enforces MinEps <= eps <= MaxEps.
//
// Why these values. Every computation uses e^{-eps·d} in float64. For
// eps·d < 2^-53 it rounds to exactly 1 (Phi becomes the all-ones matrix),
// and for eps·d = 1e-12 the difference 1 - e^{-eps·d} keeps only about 4
// significant digits, so below MinEps = 1e-12 per hop no result would carry
// meaning. Above, e^{-eps·d} underflows to 0 once eps·d > 745 (2^-1074 =
// e^{-744.4}): hop metrics reach that at eps = 745 (the tight mechanism is
// then matrix-free), a grid with 1 m steps (d = 1e-3 km) at 7.45e5 per km,
// so MaxEps = 1e6 admits every unit optdp uses. Larger values only arise
// from mistakes (1e308) and make 1/eps, e^{eps} and the exact-arithmetic
// conversions of the samplers overflow.
const (
	MinEps = 1e-12
	MaxEps = 1e6
)

// MaxAnswers is the largest answer-set size a metric constructor accepts:
// indices must fit an int on every platform and in a float64 exactly.
const MaxAnswers = min(1<<53, math.MaxInt)

// MaxBallSizes is the longest ball-size list a metric returns (n_r for
// r = 0..diameter, 8 bytes each: 64 MiB). A ring of more than 2^24 answers
// (diameter above 2^23) reports BallSizes() == nil, so solvers fall back to
// the general paths and their memory checks instead of allocating (and
// printing) a list of n/2 sizes.
const MaxBallSizes = 1<<23 + 1

// MaxMatrixAnswers is the largest explicit distance matrix NewMatrix
// validates (the triangle check is cubic).
const MaxMatrixAnswers = 4096

// Limits of ReadDistCSV: the file and each of its lines. A row of
// MaxMatrixAnswers entries written with 17 significant digits takes about
// 100 KiB, the whole matrix about 400 MiB.
const (
	MaxDistCSVBytes = 512 << 20
	MaxDistCSVLine  = 1 << 20
)

// MaxGraphTableBytes is the largest all-pairs distance table a GraphMetric
// stores (2 bytes per pair up to 65535 vertices, 4 above). Larger graphs
// answer Dist by a breadth-first search from i, caching the last source's
// row, so Dist stays correct at any size (only slower).
const MaxGraphTableBytes = 1 << 30

// MaxBallDetect is the largest graph whose ball-size symmetry GraphMetric
// checks (one BFS per vertex); larger graphs report BallSizes() == nil.
const MaxBallDetect = 4096

// Limits of NewGraph and ReadEdgeList, checked before anything of that
// size is allocated. NewGraph keeps about 24 bytes per vertex (degrees,
// offsets) and 8 per edge (both directions of the int32 adjacency);
// ReadEdgeList holds 8 more per edge while reading. At the limits that is
// about 100 MiB for the vertices and 130 MiB for the edges. Larger graphs
// could not be used anyway: the tight-constraints mechanism of a graph
// without structure is dense (8n² bytes, n ≈ 23 000 at the default 4 GiB
// budget).
const (
	// MaxGraphVertices is the largest vertex count (given to NewGraph or
	// declared by an edge list's "n N" line, or implied by its largest
	// index).
	MaxGraphVertices = 1 << 22
	// MaxGraphEdges is the largest number of edge lines an edge list may
	// hold (and of edges given to NewGraph).
	MaxGraphEdges = 1 << 23
	// MaxEdgeListBytes is the largest edge-list file ReadEdgeList reads, and
	// MaxEdgeListLine its longest line.
	MaxEdgeListBytes = 256 << 20
	MaxEdgeListLine  = 64 << 10
)

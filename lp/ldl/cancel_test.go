package ldl

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// randomGraph is a random graph on n rows with about n·deg/2 pairs: an
// expander, on which minimum degree and nested dissection fill in almost
// completely (n = 3000, deg = 10: some 25 s each, measured under load).
func randomGraph(n, deg int, seed uint64) *Graph {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	g := &Graph{N: n}
	for i := 0; i < n; i++ {
		for k := 0; k < deg/2; k++ {
			if h := rng.IntN(n); h != i {
				g.Pairs = append(g.Pairs, Pair{I: i, H: h, W: 2})
			}
		}
	}
	return g
}

// TestOrdersCancelled: the orders in Go stop once their context is
// cancelled and report its error: FillReducing (minimum degree, the
// default), MinimumDegreeContext (lp's pricing in banded mode), nested
// dissection and the postordered minimum degree through
// orderByName, on a random graph whose orders take tens of seconds
// uncancelled, cancelled 100 ms in; and RCM with a context cancelled
// before the start. The latency is logged, not asserted.
func TestOrdersCancelled(t *testing.T) {
	if testing.Short() {
		t.Skip("orders of a 3000-row random graph")
	}
	g := randomGraph(3000, 10, 9)
	for _, name := range []string{"fill-reducing", "minimum-degree", "nd", "mdpost"} {
		ctx, cancel := context.WithCancel(context.Background())
		var at time.Time
		time.AfterFunc(100*time.Millisecond, func() { at = time.Now(); cancel() })
		var err error
		switch name {
		case "fill-reducing":
			_, _, err = FillReducing(ctx, g)
		case "minimum-degree":
			var perm []int
			perm, _, err = MinimumDegreeContext(ctx, g)
			if perm != nil {
				t.Errorf("MinimumDegreeContext cancelled returned an order")
			}
		default:
			pl := &poll{ctx: ctx}
			perm, sym, oerr := orderByName(pl, name, g)
			if oerr != nil || perm != nil || sym != nil {
				t.Errorf("%s cancelled: perm %v, sym %v, err %v; want nils", name, perm != nil, sym != nil, oerr)
			}
			err = pl.err()
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: err = %v, want context.Canceled", name, err)
		}
		t.Logf("%s: returned %v after the cancellation", name, time.Since(at))
		cancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RCM(ctx, g); !errors.Is(err, context.Canceled) {
		t.Errorf("RCM with a cancelled context: %v, want context.Canceled", err)
	}
}

// TestOrdersContextSame: with a live context the orders are those of the
// uncancellable entry points (the polls change nothing), on a small
// irregular graph.
func TestOrdersContextSame(t *testing.T) {
	g := randomGraph(300, 5, 4)
	ctx := context.Background()
	perm, sym, err := FillReducing(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	want, wsym, err := OrderByName(DefaultOrder, g)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(perm, want) || sym.NNZ() != wsym.NNZ() {
		t.Errorf("FillReducing with a context differs from OrderByName(%q)", DefaultOrder)
	}
	mp, msym, err := MinimumDegreeContext(ctx, g)
	if wp, wsym := MinimumDegree(g); err != nil || !slices.Equal(mp, wp) || msym.NNZ() != wsym.NNZ() {
		t.Errorf("MinimumDegreeContext differs from MinimumDegree (%v)", err)
	}
	rp, err := RCM(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rp, rcm(nil, g)) {
		t.Error("RCM with a context differs from rcm without one")
	}
	// A permutation of the rows.
	seen := make([]bool, g.N)
	for _, v := range rp {
		if seen[v] {
			t.Fatalf("RCM repeats row %d", v)
		}
		seen[v] = true
	}
	if len(rp) != g.N {
		t.Fatalf("RCM gave %d rows of %d", len(rp), g.N)
	}
}

package optimal

import (
	"context"
	"fmt"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// hubGroups groups the points of a metric by their nearest hub, for the
// sifters of completeSpanner (the same groups for every stretch).
type hubGroups struct {
	hubs    []int
	group   []int32   // each point's group: the index in hubs of its hub
	members [][]int32 // each group's points, ascending
	radius  []float64 // each group's largest distance from its hub
	// dist[i·H+B] is the distance between point i and hubs[B], as
	// privacyPairs reads it (d(min, max)); nil when every point is a hub.
	dist []float64
}

// hubPointBytes is what a hub costs for each point: its distances (8
// bytes, hubGroups), and in each of the two sifters that run side by
// side its chains (8) and its blocks' reach (4).
const hubPointBytes = 8 + 2*(8+4)

// newHubGroups returns hubs of m at least r apart such that every point
// is within r of one (chosen greedily in index order), each other point
// in the group of its nearest hub. Every point is a hub (allHubGroups)
// when r is not positive or when the hubs cost (hubPointBytes for each
// point) more than half the budget. The distances to the hubs are read on
// workers goroutines (GOMAXPROCS for 0).
func newHubGroups(ctx context.Context, m metric.Metric, r float64, workers int, budget run.Budget) (*hubGroups, error) {
	n := m.Len()
	if !(r > 0) {
		return allHubGroups(n), nil
	}
	fits := func(h int) bool {
		return budget == run.Unlimited || 2*hubPointBytes*float64(n)*float64(h) <= float64(budget.Bytes())
	}
	var hubs []int
	for i := range n {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("optimal: interrupted choosing hubs: %w", ctx.Err())
		}
		near := false
		for _, j := range hubs {
			if m.Dist(j, i) <= r { // j < i
				near = true
				break
			}
		}
		if !near {
			if hubs = append(hubs, i); !fits(len(hubs)) {
				return allHubGroups(n), nil
			}
		}
	}
	H := len(hubs)
	g := &hubGroups{hubs: hubs, group: make([]int32, n), members: make([][]int32, H), radius: make([]float64, H), dist: make([]float64, n*H)}
	// Each point's distances to the hubs, and the nearest of them (the
	// first of equals; a hub is its own).
	err := forRowChunks(ctx, n, workers, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			row := g.dist[i*H : (i+1)*H]
			best := 0
			for k, j := range hubs {
				row[k] = m.Dist(min(i, j), max(i, j))
				if row[k] < row[best] || j == i {
					best = k
				}
			}
			g.group[i] = int32(best)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("optimal: interrupted choosing hubs: %w", err)
	}
	for i := range n {
		k := g.group[i]
		g.members[k] = append(g.members[k], int32(i))
		g.radius[k] = max(g.radius[k], g.dist[i*H+int(k)])
	}
	return g, nil
}

// allHubGroups makes every one of n points a hub, alone in its group.
func allHubGroups(n int) *hubGroups {
	g := &hubGroups{hubs: make([]int, n), group: make([]int32, n), members: make([][]int32, n), radius: make([]float64, n)}
	for i := range n {
		g.hubs[i], g.group[i], g.members[i] = i, int32(i), []int32{int32(i)}
	}
	return g
}

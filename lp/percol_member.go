package lp

import (
	"fmt"
	"math"
	"slices"
)

// colMembers is which of p's pairs every column of per-column generation
// holds: column c's pair indices in ascending order. It takes 4 bytes per
// pair a column holds, where a bit per pair and column takes M/8 bytes per
// pair of p whatever the columns hold: on 2,500 random points, 6.2 million
// pairs and 2,500 columns holding about 26 million pairs by round 4, 0.1 GB
// against 2.0 GB.
//
// A column gains pairs in a batch: in tells whether a pair is in the
// column or already in its batch, put adds one to the batch, and flush
// merges the batch into the column. Batches are filled one column at a
// time.
type colMembers struct {
	sorted [][]int32
	stamp  []int32 // stamp[k] = c+1: pair k was put in column c (in c's batch, or in c since)
	batch  []int32
}

// membersBytes is the memory colMembers takes for np pairs of p and held
// pairs in all the columns.
func membersBytes(np, held int) float64 {
	return 4 * (float64(np) + float64(held))
}

// newColMembers returns the membership of the pair lists cols (distinct
// indices of p's np pairs in each list). Equal lists share their sorted
// copy.
func newColMembers(np int, cols [][]int) (*colMembers, error) {
	if np > math.MaxInt32 {
		return nil, fmt.Errorf("lp: generate: %d pairs, more than %d", np, math.MaxInt32)
	}
	s := &colMembers{sorted: make([][]int32, len(cols)), stamp: make([]int32, np)}
	for c, ks := range cols {
		if c > 0 && slices.Equal(ks, cols[c-1]) {
			s.sorted[c] = s.sorted[c-1]
			continue
		}
		v := make([]int32, len(ks))
		for j, k := range ks {
			v[j] = int32(k)
		}
		slices.Sort(v)
		s.sorted[c] = v
	}
	return s, nil
}

// has reports whether column c holds pair k (its batch not counted).
func (s *colMembers) has(c, k int) bool {
	_, ok := slices.BinarySearch(s.sorted[c], int32(k))
	return ok
}

// in reports whether column c holds pair k or has it in its batch.
func (s *colMembers) in(c, k int) bool {
	return s.stamp[k] == int32(c+1) || s.has(c, k)
}

// put adds pair k, not in column c (see in), to c's batch.
func (s *colMembers) put(c, k int) {
	s.stamp[k] = int32(c + 1)
	s.batch = append(s.batch, int32(k))
}

// flush merges the batch into column c (a new slice: columns may share
// their lists) and empties it.
func (s *colMembers) flush(c int) {
	if len(s.batch) == 0 {
		return
	}
	slices.Sort(s.batch)
	old := s.sorted[c]
	v := make([]int32, 0, len(old)+len(s.batch))
	i, j := 0, 0
	for i < len(old) && j < len(s.batch) {
		if old[i] < s.batch[j] {
			v = append(v, old[i])
			i++
		} else {
			v = append(v, s.batch[j])
			j++
		}
	}
	v = append(v, old[i:]...)
	v = append(v, s.batch[j:]...)
	s.sorted[c] = v
	s.batch = s.batch[:0]
}

// cursor walks column c's pairs in ascending order of pair index: a scan
// of p's pairs in order asks at for each pair it needs, in amortised
// constant time.
type cursor struct {
	ks  []int32
	pos int
}

// at reports whether the column holds pair k; successive calls must come
// with k not decreasing.
func (u *cursor) at(k int) bool {
	for u.pos < len(u.ks) && int(u.ks[u.pos]) < k {
		u.pos++
	}
	return u.pos < len(u.ks) && int(u.ks[u.pos]) == k
}

package stream

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/optdp/optdp/run"
)

// Kind names a participation schema.
type Kind int

// The participation schemas.
const (
	// Single: each user contributes to one step; the patterns are {i}.
	Single Kind = iota
	// Epochs: k participations exactly b steps apart; the b patterns are
	// π_j = {j, j+b, ..., j+(k-1)b} ∩ [0, n), j = 0, ..., b-1.
	Epochs
	// MinSep: at most k participations, any two at least b steps apart;
	// the patterns are the subsets of [0, n) of size 1..k with gaps >= b.
	MinSep
)

// Schema is a participation schema: who may contribute to which steps. Its
// patterns are the sets of steps one user may touch; a user's contribution
// to each step of its pattern is at most 1 in absolute value (scalar
// streams) or in L2 norm (vector streams, gradients).
type Schema struct {
	Kind Kind
	// K is the number of participations (Epochs: exactly, MinSep: at most;
	// 1 for Single).
	K int
	// B is the separation: the period of Epochs, the minimum gap of MinSep
	// (unused for Single).
	B int
}

// SingleParticipation is the schema of one participation per user.
func SingleParticipation() Schema { return Schema{Kind: Single, K: 1, B: 1} }

// FixedEpochs is the schema of k participations b steps apart (k epochs of
// b steps: n = k·b).
func FixedEpochs(k, b int) Schema { return Schema{Kind: Epochs, K: k, B: b} }

// MinSeparation is the schema of at most k participations at least b steps
// apart.
func MinSeparation(k, b int) Schema { return Schema{Kind: MinSep, K: k, B: b} }

// String is the schema's spec, as ParseSchema reads it: "single",
// "epochs:k=4,b=512", "minsep:k=4,b=512".
func (s Schema) String() string {
	switch s.Kind {
	case Single:
		return "single"
	case Epochs:
		return fmt.Sprintf("epochs:k=%d,b=%d", s.K, s.B)
	case MinSep:
		return fmt.Sprintf("minsep:k=%d,b=%d", s.K, s.B)
	}
	return fmt.Sprintf("schema(%d)", int(s.Kind))
}

// Check refuses a schema outside its domain for a stream of n steps.
func (s Schema) Check(n int) error {
	if n < 1 {
		return fmt.Errorf("stream: %w: n = %d steps, want >= 1", run.ErrBadInput, n)
	}
	switch s.Kind {
	case Single:
		return nil
	case Epochs, MinSep:
		if s.K < 1 || s.B < 1 {
			return fmt.Errorf("stream: %w: schema %v: want k >= 1 and b >= 1", run.ErrBadInput, s)
		}
		return nil
	}
	return fmt.Errorf("stream: %w: unknown schema kind %d", run.ErrBadInput, int(s.Kind))
}

// ParseSchema reads "single", "epochs:k=K,b=B" or "minsep:k=K,b=B".
func ParseSchema(spec string) (Schema, error) {
	name, params, _ := strings.Cut(strings.TrimSpace(spec), ":")
	vals := map[string]int{}
	if params != "" {
		for _, kv := range strings.Split(params, ",") {
			k, v, ok := strings.Cut(kv, "=")
			iv, err := strconv.Atoi(strings.TrimSpace(v))
			if !ok || err != nil || iv < 1 {
				return Schema{}, fmt.Errorf("stream: %w: participation %q: parameter %q, want name=positive integer", run.ErrBadInput, spec, kv)
			}
			vals[strings.TrimSpace(k)] = iv
		}
	}
	need := func(s Schema) (Schema, error) {
		for k := range vals {
			if k != "k" && k != "b" {
				return Schema{}, fmt.Errorf("stream: %w: participation %q: unknown parameter %q (want k and b)", run.ErrBadInput, spec, k)
			}
		}
		if vals["k"] == 0 || vals["b"] == 0 {
			return Schema{}, fmt.Errorf("stream: %w: participation %q: want k=K,b=B", run.ErrBadInput, spec)
		}
		return s, nil
	}
	switch name {
	case "single":
		if params != "" {
			return Schema{}, fmt.Errorf("stream: %w: participation %q: single takes no parameters", run.ErrBadInput, spec)
		}
		return SingleParticipation(), nil
	case "epochs":
		return need(FixedEpochs(vals["k"], vals["b"]))
	case "minsep":
		return need(MinSeparation(vals["k"], vals["b"]))
	}
	return Schema{}, fmt.Errorf("stream: %w: participation %q: want single, epochs:k=K,b=B or minsep:k=K,b=B", run.ErrBadInput, spec)
}

// EpochPatterns returns the patterns of a fixed-epochs schema on n steps:
// π_j = {j, j+b, ..., j+(k-1)b} ∩ [0, n) for j = 0, ..., min(b, n)-1. For
// Single it returns the n patterns {i}.
func (s Schema) EpochPatterns(n int) [][]int {
	if s.Kind == Single {
		ps := make([][]int, n)
		for i := range ps {
			ps[i] = []int{i}
		}
		return ps
	}
	var ps [][]int
	for j := 0; j < s.B && j < n; j++ {
		var p []int
		for e := 0; e < s.K && j+e*s.B < n; e++ {
			p = append(p, j+e*s.B)
		}
		ps = append(ps, p)
	}
	return ps
}

package ldl

import "context"

// pollEvery is how many steps of an ordering's loops (eliminations,
// columns, breadth-first visits) go between two reads of the context.
const pollEvery = 256

// poll is the cancellation check of the orderings: done reports whether
// ctx is cancelled, reading it once every pollEvery calls, so that a
// loop step of a few operations pays one counter increment.
type poll struct {
	ctx     context.Context
	k       int
	stopped bool
}

// done reports whether the context is cancelled, checked every pollEvery
// calls (and true at every call once it has seen it cancelled); false for
// a nil poll.
func (p *poll) done() bool {
	if p == nil {
		return false
	}
	if p.stopped {
		return true
	}
	p.k++
	if p.k < pollEvery {
		return false
	}
	p.k = 0
	p.stopped = p.ctx.Err() != nil
	return p.stopped
}

// err is the context's error, nil for a nil poll.
func (p *poll) err() error {
	if p == nil {
		return nil
	}
	return p.ctx.Err()
}

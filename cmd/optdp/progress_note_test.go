package main

import (
	"bytes"
	"testing"
)

// Note prints its line at once on a line of its own when enabled (after
// clearing a status line drawn on a terminal), and nothing when quiet.
func TestProgressNote(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, label: "optimal", enabled: true}
	p.Note("estimate: about 2 to 40 min")
	if got, want := b.String(), "optimal estimate: about 2 to 40 min\n"; got != want {
		t.Errorf("plain: %q, want %q", got, want)
	}
	b.Reset()
	p = &progress{w: &b, label: "optimal", enabled: true, tty: true, drawn: true}
	p.Note("x")
	if got, want := b.String(), "\r\033[Koptimal x\n"; got != want || p.drawn {
		t.Errorf("terminal: %q (drawn %v), want %q", got, p.drawn, want)
	}
	b.Reset()
	(&progress{w: &b, label: "optimal"}).Note("x")
	var nilp *progress
	nilp.Note("x")
	if b.Len() != 0 {
		t.Errorf("quiet: %q", b.String())
	}
}

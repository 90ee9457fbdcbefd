package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress draws a one-line progress bar on stderr for work that takes more
// than a second. Nothing is drawn before the first second has passed, so quick
// commands stay quiet. It is safe for concurrent use.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	label   string
	start   time.Time
	last    time.Time
	drawn   bool
	enabled bool
	frac    float64 // last status, redrawn by Redraw
	msg     string
}

// newProgress returns a progress bar writing to env.stderr when enabled.
func newProgress(env *runEnv, label string, enabled bool) *progress {
	return &progress{w: env.stderr, label: label, start: time.Now(), enabled: enabled, frac: -1, msg: "working"}
}

// Update reports that frac (0..1, or negative when unknown) of the work is
// done, with a short status message, and remembers it for Redraw.
func (p *progress) Update(frac float64, msg string) {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.frac, p.msg = frac, msg
	p.draw()
}

// Redraw draws the last status again (the elapsed time moves on).
func (p *progress) Redraw() {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw()
}

// draw writes the bar; p.mu is held.
func (p *progress) draw() {
	frac, msg := p.frac, p.msg
	now := time.Now()
	if now.Sub(p.start) < time.Second || now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	const width = 30
	bar := ""
	if frac >= 0 {
		if frac > 1 {
			frac = 1
		}
		k := int(frac * width)
		bar = fmt.Sprintf("[%s%s] %3.0f%% ", strings.Repeat("#", k), strings.Repeat(" ", width-k), 100*frac)
	}
	fmt.Fprintf(p.w, "\r%s %s%s (%.1fs)\033[K", p.label, bar, msg, now.Sub(p.start).Seconds())
	p.drawn = true
}

// Done ends the progress line, if one was drawn.
func (p *progress) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintf(p.w, "\r%s done in %.1fs\033[K\n", p.label, time.Since(p.start).Seconds())
		p.drawn = false
	}
}

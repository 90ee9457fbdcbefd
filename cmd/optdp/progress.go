package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// isTerminal reports whether w is a terminal (a character device), the
// only place where a progress bar may redraw itself with carriage returns.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Timing of the progress display.
const (
	// progressQuiet: nothing is drawn before the work has run this long,
	// so quick commands stay quiet.
	progressQuiet = time.Second
	// progressTick: how often the bar is redrawn on a terminal, so that
	// the elapsed time keeps moving during a long step.
	progressTick = 200 * time.Millisecond
	// progressLineEvery and progressHeartbeat: off a terminal, a plain
	// line is written when the status changes (at most once per
	// progressLineEvery) and otherwise once per progressHeartbeat.
	progressLineEvery = 2 * time.Second
	progressHeartbeat = 30 * time.Second
)

// progress shows the state of work that takes more than a second on
// stderr. On a terminal it is a one-line bar redrawn in place every
// progressTick (the elapsed time moves even when the work reports
// nothing); elsewhere (a file, a pipe, a CI log) it writes plain lines
// without carriage returns or escape codes. It is safe for concurrent use;
// Done must be called when the work ends (it stops the ticker).
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	label   string
	start   time.Time
	last    time.Time // last draw (terminal) or last line (otherwise)
	lastMsg string    // the status of the last plain line
	drawn   bool
	enabled bool
	frac    float64 // last status: fraction done (< 0 unknown) and message
	msg     string
	stop    chan struct{}
	wg      sync.WaitGroup
}

// newProgress returns a progress display labelled label writing to
// env.stderr when enabled, with its ticker running.
func newProgress(env *runEnv, label string, enabled bool) *progress {
	p := &progress{w: env.stderr, tty: env.stderrTTY, label: label, start: time.Now(), enabled: enabled, frac: -1, msg: "working"}
	if enabled {
		p.stop = make(chan struct{})
		p.wg.Go(func() {
			t := time.NewTicker(progressTick)
			defer t.Stop()
			for {
				select {
				case <-p.stop:
					return
				case <-t.C:
					p.Redraw()
				}
			}
		})
	}
	return p
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

// Note prints line on a line of its own, which the status line does not
// overwrite, when the progress is enabled (at once, without the quiet
// first second of the status line).
func (p *progress) Note(line string) {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.drawn {
		fmt.Fprintf(p.w, "\r\033[K")
		p.drawn = false
	}
	fmt.Fprintf(p.w, "%s %s\n", p.label, line)
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

// status is the text of the current state: label, bar (terminal) or
// percentage, message and elapsed time.
func (p *progress) status(now time.Time) string {
	frac := min(p.frac, 1)
	pct := ""
	if frac >= 0 {
		if p.tty {
			const width = 30
			k := int(frac * width)
			pct = fmt.Sprintf("[%s%s] %3.0f%% ", strings.Repeat("#", k), strings.Repeat(" ", width-k), 100*frac)
		} else {
			pct = fmt.Sprintf("%.0f%% ", 100*frac)
		}
	}
	return fmt.Sprintf("%s %s%s (%.1fs)", p.label, pct, p.msg, now.Sub(p.start).Seconds())
}

// draw writes the bar (terminal) or a plain line when one is due; p.mu is
// held.
func (p *progress) draw() {
	now := time.Now()
	if now.Sub(p.start) < progressQuiet {
		return
	}
	if p.tty {
		if now.Sub(p.last) < 100*time.Millisecond {
			return
		}
		p.last = now
		fmt.Fprintf(p.w, "\r%s\033[K", p.status(now))
		p.drawn = true
		return
	}
	since := now.Sub(p.last)
	if p.drawn && !(p.msg != p.lastMsg && since >= progressLineEvery) && since < progressHeartbeat {
		return
	}
	p.last, p.lastMsg = now, p.msg
	fmt.Fprintln(p.w, p.status(now))
	p.drawn = true
}

// Done stops the ticker and ends the progress display, if anything was
// drawn, with the total time.
func (p *progress) Done() {
	if p == nil {
		return
	}
	if p.stop != nil {
		close(p.stop)
		p.wg.Wait()
		p.stop = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		if p.tty {
			fmt.Fprintf(p.w, "\r%s done in %.1fs\033[K\n", p.label, time.Since(p.start).Seconds())
		} else {
			fmt.Fprintf(p.w, "%s done in %.1fs\n", p.label, time.Since(p.start).Seconds())
		}
		p.drawn = false
	}
}

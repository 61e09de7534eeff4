package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/fatih/color"
)

// recStatusLine is record's live line on a terminal's stderr, redrawn in
// place. Messages printed through it clear the line first.
type recStatusLine struct {
	mu      sync.Mutex
	w       io.Writer
	live    bool // draw the live line (stderr is a terminal and not --quiet)
	color   bool
	quiet   bool
	shown   bool
	last    recStats
	lastAt  time.Time
	rate    float64
	started time.Time
}

func (s *recStatusLine) clearLocked() {
	if s.shown {
		fmt.Fprint(s.w, "\r\x1b[2K")
		s.shown = false
	}
}

// printf prints a message line (never a secret) under the live line.
func (s *recStatusLine) printf(prefix, format string, args ...any) {
	if s.quiet {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clearLocked()
	fmt.Fprintf(s.w, "clawtap: "+prefix+format+"\n", args...)
}

func (s *recStatusLine) info(format string, args ...any) { s.printf("", format, args...) }
func (s *recStatusLine) warn(format string, args ...any) { s.printf("warning: ", format, args...) }

// draw renders st.
func (s *recStatusLine) draw(st recStats, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.live {
		return
	}
	if !s.lastAt.IsZero() {
		if dt := now.Sub(s.lastAt).Seconds(); dt > 0 {
			s.rate = float64(st.frames-s.last.frames) / dt
		}
	}
	s.last, s.lastAt = st, now
	fmt.Fprint(s.w, "\r\x1b[2K"+s.render(st))
	s.shown = true
}

func (s *recStatusLine) render(st recStats) string {
	dot := "●"
	state := st.state
	if s.color {
		switch {
		case strings.HasPrefix(state, "connected"), strings.HasPrefix(state, "listening"):
			dot = color.New(color.FgGreen).Sprint(dot)
		case strings.HasPrefix(state, "stopping"):
			dot = color.New(color.FgYellow).Sprint(dot)
		default:
			dot = color.New(color.FgRed).Sprint(dot)
		}
	}
	if st.peers > 0 || strings.HasPrefix(state, "listening") {
		state = fmt.Sprintf("%s, %d client(s)", state, st.peers)
	}
	gaps := recPlural(st.gaps, "gap", "gaps")
	if st.gaps > 0 && s.color {
		gaps = color.New(color.FgRed).Sprint(gaps)
	}
	return fmt.Sprintf("%s %s · conn %d · %s frames · %s · %s/s · %s · %s in flight",
		dot, state, st.conns, recThousands(st.frames), recHumanBytes(st.bytes), recHumanRate(s.rate), gaps, recPlural(st.inFlight, "run", "runs"))
}

// loop redraws every interval until ctx ends, then clears the line.
func (s *recStatusLine) loop(ctx context.Context, every time.Duration, get func() recStats) {
	if !s.live {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	s.draw(get(), time.Now())
	for {
		select {
		case <-ctx.Done():
			s.mu.Lock()
			s.clearLocked()
			s.mu.Unlock()
			return
		case now := <-t.C:
			s.draw(get(), now)
		}
	}
}

func recThousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func recHumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func recHumanRate(r float64) string {
	switch {
	case r >= 1e6:
		return fmt.Sprintf("%.1fM", r/1e6)
	case r >= 1e4:
		return fmt.Sprintf("%.0fk", r/1e3)
	case r >= 1e3:
		return fmt.Sprintf("%.1fk", r/1e3)
	}
	return fmt.Sprintf("%.0f", r)
}

func recPlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

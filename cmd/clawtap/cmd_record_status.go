package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/record"
	"github.com/fatih/color"
)

// recStatusLine is record's live line on a terminal's stderr, redrawn in
// place. Messages printed through it clear the line first.
type recStatusLine struct {
	mu     sync.Mutex
	w      io.Writer
	live   bool // draw the live line (stderr is a terminal and not --quiet)
	color  bool
	quiet  bool
	shown  bool
	last   record.Stats
	lastAt time.Time
	rate   float64
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
func (s *recStatusLine) draw(st record.Stats, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.live {
		return
	}
	if !s.lastAt.IsZero() {
		if dt := now.Sub(s.lastAt).Seconds(); dt > 0 {
			s.rate = float64(st.Frames-s.last.Frames) / dt
		}
	}
	s.last, s.lastAt = st, now
	fmt.Fprint(s.w, "\r\x1b[2K"+s.render(st))
	s.shown = true
}

func (s *recStatusLine) render(st record.Stats) string {
	dot := "●"
	state := st.State
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
	if st.Peers > 0 || strings.HasPrefix(state, "listening") {
		state = fmt.Sprintf("%s, %d client(s)", state, st.Peers)
	}
	gaps := recPlural(st.Gaps, "gap", "gaps")
	if st.Gaps > 0 && s.color {
		gaps = color.New(color.FgRed).Sprint(gaps)
	}
	return fmt.Sprintf("%s %s · conn %d · %s frames · %s · %s/s · %s · %s in flight",
		dot, state, st.Conns, recThousands(st.Frames), output.FormatSize(st.Bytes), recHumanRate(s.rate), gaps, recPlural(st.InFlight, "run", "runs"))
}

// loop redraws every interval until ctx ends, then clears the line.
func (s *recStatusLine) loop(ctx context.Context, every time.Duration, get func() record.Stats) {
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

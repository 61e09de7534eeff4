package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/record"
	"github.com/fatih/color"
)

// statusLine is a recording's live line on a terminal, redrawn in place
// from record.Stats; messages printed through it (Infof, Warnf) clear the line
// first, so the two never mix.
type statusLine struct {
	W     io.Writer
	Live  bool // draw the live line (a terminal, and not quiet)
	Color bool
	Quiet bool // print no messages

	mu     sync.Mutex
	shown  bool
	last   record.Stats
	lastAt time.Time
	rate   float64
}

func (s *statusLine) clearLocked() {
	if s.shown {
		fmt.Fprint(s.W, "\r\x1b[2K")
		s.shown = false
	}
}

// printf prints a message line (never a secret) under the live line.
func (s *statusLine) printf(prefix, format string, args ...any) {
	if s.Quiet {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clearLocked()
	// What the gateway, a client or a file name put in it is made printable.
	io.WriteString(s.W, "clawtap: "+prefix+human.Printable(fmt.Sprintf(format, args...))+"\n")
}

// Summary prints the closing summary in format (see output.Summary) under
// the live line; quiet prints none.
func (s *statusLine) Summary(format output.Format, text string, fields []output.Field) {
	if s.Quiet {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clearLocked()
	_ = output.Summary(s.W, format, "summary", text, fields)
}

// Infof prints a message as "clawtap: ...".
func (s *statusLine) Infof(format string, args ...any) { s.printf("", format, args...) }

// Warnf prints a message as "clawtap: warning: ...".
func (s *statusLine) Warnf(format string, args ...any) { s.printf("warning: ", format, args...) }

// draw renders st.
func (s *statusLine) draw(st record.Stats, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.Live {
		return
	}
	if !s.lastAt.IsZero() {
		if dt := now.Sub(s.lastAt).Seconds(); dt > 0 {
			s.rate = float64(st.Frames-s.last.Frames) / dt
		}
	}
	s.last, s.lastAt = st, now
	fmt.Fprint(s.W, "\r\x1b[2K"+s.render(st))
	s.shown = true
}

func (s *statusLine) render(st record.Stats) string {
	dot := "●"
	state := st.State
	if s.Color {
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
	gaps := human.Count(st.Gaps, "gap", "gaps")
	if st.Gaps > 0 && s.Color {
		gaps = color.New(color.FgRed).Sprint(gaps)
	}
	return fmt.Sprintf("%s %s · conn %d · %s frames · %s · %s/s · %s · %s in flight",
		dot, state, st.Conns, human.Thousands(st.Frames), output.FormatSize(st.Bytes), humanRate(s.rate), gaps, human.Count(st.InFlight, "run", "runs"))
}

// Run redraws every interval until ctx ends, then clears the line. It
// returns at once when the line is not live.
func (s *statusLine) Run(ctx context.Context, every time.Duration, get func() record.Stats) {
	if !s.Live {
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

// humanRate renders frames per second with three significant digits.
func humanRate(r float64) string {
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

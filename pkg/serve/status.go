package serve

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/clawtap/clawtap/pkg/human"
)

// Describe says in one line what a server of s with opts plays: the
// connection, its frames and runs, the protocol and gateway, the pacing,
// and how it ends. It waits for the pre-pass (s.Ready).
func Describe(s *Script, opts Options) string {
	var parts []string
	parts = append(parts, fmt.Sprintf("connection %d of %d: %d frame(s)", s.Conn, len(s.Conns()), s.Frames()))
	if n := s.Sends(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d chat.send run(s)", n))
	}
	if s.Protocol > 0 {
		parts = append(parts, fmt.Sprintf("protocol %d", s.Protocol))
	}
	if s.ServerVersion != "" {
		parts = append(parts, "gateway "+s.ServerVersion)
	}
	switch p := opts.Pacing; {
	case p.Fast:
		parts = append(parts, "no pacing")
	default:
		text := "recorded pacing"
		if p.Speed != 1 {
			text += fmt.Sprintf(" ×%g", p.Speed)
		}
		if p.MaxGap > 0 {
			text += fmt.Sprintf(", gaps ≤ %s", p.MaxGap)
		}
		parts = append(parts, text)
	}
	if opts.Loop {
		parts = append(parts, "looping")
	}
	if opts.Reconnects {
		ends := "then the recorded connection stays open"
		if c := s.End(); c != nil && c.Code != 0 {
			ends = fmt.Sprintf("then closes with %d", c.Code)
		} else if c != nil {
			ends = "then drops"
		}
		n := 0
		for next := s.Next(); next != nil; next = next.Next() {
			n++
		}
		parts = append(parts, fmt.Sprintf("%s; %d reconnect(s) follow", ends, n))
	}
	if opts.OnSend == OnSendNextRun {
		parts = append(parts, "chat.send plays the next run")
	}
	if opts.Token != "" {
		parts = append(parts, "token required")
	}
	return strings.Join(parts, ", ")
}

// StatusText is a terminal status line of a server of the capture name:
// clients, frames sent and where the clients are in the capture.
func StatusText(name string, st Stats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "clawtap: serving %s · %d client(s) · %d frame(s) sent", name, st.Active, st.Sent)
	if len(st.Clients) == 0 {
		b.WriteString(" · waiting for a client")
		return b.String()
	}
	lo, hi, pass, waiting := st.Clients[0].Item, 0, 0, false
	for _, c := range st.Clients {
		lo, hi = min(lo, c.Item), max(hi, c.Item)
		pass = max(pass, c.Pass)
		waiting = waiting || c.Waiting
	}
	pct := func(n int) int { return n * 100 / st.Items }
	switch {
	case st.Items == 0 && lo == hi: // the length is known once the pre-pass is over
		fmt.Fprintf(&b, " · at %d", hi)
	case st.Items == 0:
		fmt.Fprintf(&b, " · at %d–%d", lo, hi)
	case lo == hi:
		fmt.Fprintf(&b, " · at %d/%d (%d%%)", hi, st.Items, pct(hi))
	default:
		fmt.Fprintf(&b, " · at %d–%d/%d", lo, hi, st.Items)
	}
	if pass > 0 {
		fmt.Fprintf(&b, " · pass %d", pass+1)
	}
	if waiting {
		b.WriteString(" · waiting for chat.send")
	}
	return b.String()
}

// StatusLine keeps one refreshing line at the bottom of a terminal and
// prints log lines above it. When off, it only prints the log lines.
type StatusLine struct {
	mu   sync.Mutex
	w    io.Writer
	on   bool
	last string
}

// NewStatusLine writes to w; on draws the refreshing line.
func NewStatusLine(w io.Writer, on bool) *StatusLine { return &StatusLine{w: w, on: on} }

// Println prints a log line above the status line, made printable
// (human.Printable): what a client sent, or a file name, acts on nothing.
func (l *StatusLine) Println(s string) {
	s = human.Printable(s)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.on && l.last != "" {
		io.WriteString(l.w, "\r\x1b[K")
	}
	io.WriteString(l.w, s+"\n")
	if l.on && l.last != "" {
		io.WriteString(l.w, l.last)
	}
}

// Set redraws the status line as s, made printable.
func (l *StatusLine) Set(s string) {
	s = human.Printable(s)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = s
	io.WriteString(l.w, "\r\x1b[K"+s)
}

// Run refreshes the line every period until the returned stop is called,
// which clears it.
func (l *StatusLine) Run(period time.Duration, text func() string) (stop func()) {
	if !l.on {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			l.Set(text())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		l.mu.Lock()
		defer l.mu.Unlock()
		io.WriteString(l.w, "\r\x1b[K")
		l.last = ""
	}
}

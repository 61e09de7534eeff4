package cli

import (
	"fmt"

	"github.com/clawtap/clawtap/pkg/capture"
)

// MaxLineWarnings is how many warnings about one input's lines are shown:
// a file of thousands of broken lines would bury everything else on
// stderr. The rest are counted; ReadSummary says how many, and counts the
// lines by kind as before.
const MaxLineWarnings = 20

type warnCount struct{ shown, hidden int }

// CaptureWarnings returns a capture reader's OnWarning for the input named
// name (DisplayName): its line warnings go to LineWarnf, a warning about
// the stream as a whole (Line 0) always to out. out nil is Warnf.
func (e *Env) CaptureWarnings(name string, out func(string, ...any)) func(capture.Warning) {
	if out == nil {
		out = e.Warnf
	}
	return func(w capture.Warning) {
		if w.Line == 0 {
			out("%s: %s", name, w)
			return
		}
		e.LineWarnf(name, out, "%s", w)
	}
}

// LineWarnf prints "name: message" through out (nil is Warnf) for the
// first MaxLineWarnings warnings about the input's lines, and counts the
// rest for HiddenWarnings.
func (e *Env) LineWarnf(name string, out func(string, ...any), format string, args ...any) {
	if out == nil {
		out = e.Warnf
	}
	e.warnMu.Lock()
	if e.warns == nil {
		e.warns = make(map[string]*warnCount)
	}
	c := e.warns[name]
	if c == nil {
		c = &warnCount{}
		e.warns[name] = c
	}
	show := c.shown < MaxLineWarnings
	if show {
		c.shown++
	} else {
		c.hidden++
	}
	e.warnMu.Unlock()
	if show {
		out("%s: %s", name, fmt.Sprintf(format, args...))
	}
}

// HiddenWarnings says, once, how many warnings about the input's lines
// LineWarnf did not show. ReadSummary calls it.
func (e *Env) HiddenWarnings(name string) {
	e.warnMu.Lock()
	c := e.warns[name]
	delete(e.warns, name)
	e.warnMu.Unlock()
	if c != nil && c.hidden > 0 {
		e.Warnf("%s: %d more warning(s) about its lines not shown (only the first %d are)", name, c.hidden, MaxLineWarnings)
	}
}

package replay

import (
	"fmt"
	"strconv"
	"time"
)

// Bound is one end of a replay window: a record index, or an offset in ms
// from the capture's first record.
type Bound struct {
	Set     bool
	IsIndex bool
	Index   int
	Ms      int64
}

// ParseBound reads a record index (12) or an offset (2.5s, 1500ms); ""
// is an unset bound.
func ParseBound(s string) (Bound, error) {
	if s == "" {
		return Bound{}, nil
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 0 {
		return Bound{Set: true, IsIndex: true, Index: n}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return Bound{}, fmt.Errorf("%q is neither a record index nor an offset", s)
	}
	return Bound{Set: true, Ms: d.Milliseconds()}, nil
}

// Window is the part of a replay to print: steps from From on, up to To
// (a replay with an index To stops after that record, see
// pipeline.Options.Until, so only an offset To needs checking here).
type Window struct {
	From, To Bound
}

// Reversed reports whether From comes after To (both set, of one kind):
// a window that holds nothing.
func (w *Window) Reversed() bool {
	f, t := w.From, w.To
	if !f.Set || !t.Set || f.IsIndex != t.IsIndex {
		return false
	}
	return f.IsIndex && f.Index > t.Index || !f.IsIndex && f.Ms > t.Ms
}

// Contains reports whether step s of a replay that started at t0 is in the
// window.
func (w *Window) Contains(s *Step, t0 int64) bool {
	if f := w.From; f.Set {
		if f.IsIndex && s.I < f.Index || !f.IsIndex && s.T-t0 < f.Ms {
			return false
		}
	}
	if t := w.To; t.Set && !t.IsIndex && s.T-t0 > t.Ms {
		return false
	}
	return true
}

package report

import (
	"encoding/binary"
	"errors"
	"strings"
)

// A finding waits in a spool too, as its run does: a long capture has as
// many findings as runs, and held whole (with their ids and keys) they
// made the builder's memory grow by about 200 bytes each. What the end of
// the pass sorts and places them by, their pins, wait there too once they
// fill a block (pins.go).

var errFindingSpool = errors.New("report: a finding read back from the spool is corrupt")

// pinned is a finding's pin: where it waits, and what the end of the pass
// sorts and places it by (32 bytes).
type pinned struct {
	i        int
	off      int64
	n        int32
	run      int32  // -1 none
	lane     int32  // of a finding without a run; -1 none
	rule     uint16 // in findingStore.rules
	hasRunID bool   // it names a run, which may appear later
}

// maxRules bounds the rule table: a Checker of one's own could name a
// rule per finding. Past it, a finding's rule is read from the spool to
// sort it.
var maxRules uint16 = 1<<16 - 1 // a variable for tests

func (p *pinned) at() span { return span{off: p.off, n: p.n} }

// findingStore holds the report's findings, in the order they were made
// until the end of the pass sorts them.
type findingStore struct {
	pins   pinList
	rules  []string // by id
	ruleID map[string]uint16
	sp     *spool
	buf    []byte
}

// ruleOf returns the id of a rule in the table.
func (s *findingStore) ruleOf(rule string) uint16 {
	if id, ok := s.ruleID[rule]; ok {
		return id
	}
	if s.ruleID == nil {
		s.ruleID = map[string]uint16{}
	}
	if len(s.rules) >= int(maxRules) {
		return maxRules // read from the spool
	}
	id := uint16(len(s.rules))
	s.rules = append(s.rules, rule)
	s.ruleID[rule] = id
	return id
}

// ruleOfPinned is a finding's rule, from the table or the spool.
func (s *findingStore) ruleOfPinned(p *pinned) string {
	if p.rule < maxRules {
		return s.rules[p.rule]
	}
	var rule string
	rule, s.buf = leadingString(s.sp, s.buf, p.at())
	return rule
}

func (s *findingStore) len() int { return s.pins.len() }

// add puts a finding (its Lane and Run as found so far) in the spool,
// its message (JSON) right after it: read in order, one window serves
// both.
func (s *findingStore) add(f *PinnedFinding, msg []byte) {
	f.msg.n = int32(len(msg))
	s.buf = appendFinding(s.buf[:0], f)
	at := s.sp.put(s.buf)
	s.sp.put(msg)
	s.pins.add(pinned{rule: s.ruleOf(f.Rule), i: f.I, off: at.off, n: at.n, run: int32(f.Run), lane: int32(f.Lane), hasRunID: f.RunID != ""})
}

// read returns the finding p pins as it waits in the spool (Lane and Run
// unset).
func (s *findingStore) read(p *pinned) PinnedFinding {
	at := p.at()
	s.buf = s.sp.appendTo(s.buf[:0], at)
	d := decoder{b: s.buf}
	f := PinnedFinding{Rule: d.str(), Severity: d.str(), I: int(d.int()), T: d.int(), Conn: int(d.int()),
		RunID: d.str(), AgentID: d.str(), SessionKey: d.str(), msg: span{off: at.off + int64(at.n), n: int32(d.int())}}
	if len(d.b) != 0 {
		d.bad = true
	}
	if d.bad && s.sp.err == nil {
		s.sp.err = errFindingSpool
	}
	return f
}

// sort puts the findings in capture order (those of the whole capture
// last), then by rule, for a stable list.
func (s *findingStore) sort() {
	s.pins.sort(func(x, y pinned) int {
		xi, yi := x.i, y.i
		if xi < 0 {
			xi = int(^uint(0) >> 1)
		}
		if yi < 0 {
			yi = int(^uint(0) >> 1)
		}
		if xi != yi {
			return xi - yi
		}
		if x.rule != y.rule || x.rule == maxRules {
			return strings.Compare(s.ruleOfPinned(&x), s.ruleOfPinned(&y))
		}
		return 0
	})
}

func appendFinding(b []byte, f *PinnedFinding) []byte {
	b = appendStr(b, f.Rule)
	b = appendStr(b, f.Severity)
	b = binary.AppendVarint(b, int64(f.I))
	b = binary.AppendVarint(b, f.T)
	b = binary.AppendVarint(b, int64(f.Conn))
	b = appendStr(b, f.RunID)
	b = appendStr(b, f.AgentID)
	b = appendStr(b, f.SessionKey)
	return binary.AppendVarint(b, int64(f.msg.n)) // the message follows
}

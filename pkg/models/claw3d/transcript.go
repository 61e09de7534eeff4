package claw3d

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/message"
	"github.com/clawtap/clawtap/pkg/ui"
)

// Claw3D's transcript entries (transcript.ts, §4.8) and the store's
// appendOutput: the pure part the host wires to its state.

// Entry kinds, inferred from a line's prefix when not given.
const (
	KindMeta      = "meta"      // "[[meta]]…"
	KindUser      = "user"      // "> …"
	KindThinking  = "thinking"  // "[[trace]]…"
	KindTool      = "tool"      // "[[tool]]…", "[[tool-result]]…"
	KindAssistant = "assistant" // anything else
)

// Entry sources.
const (
	SourceRuntimeChat  = "runtime-chat"
	SourceRuntimeAgent = "runtime-agent"
	SourceHistory      = "history"
)

// Store and fingerprint constants.
const (
	// MaxTranscriptEntries caps an agent's transcript; the oldest go first.
	MaxTranscriptEntries = 600
	// FingerprintBucketMs is the time bucket of an entry's fingerprint.
	FingerprintBucketMs = 2000
)

// EntryMeta is the transcript part of an appendOutput action: what the
// pipeline knows about a line. Empty fields are filled in by NewEntry.
type EntryMeta struct {
	EntryID     string // "" gives the default, fingerprint-based id
	Source      string
	Kind        string // "" is inferred from the line
	Role        string // "" is inferred from the kind
	Confirmed   Bool   // unset: confirmed when the source is history
	RunID       string
	SessionKey  string
	TimestampMs ui.Int // unset or null: no timestamp
}

// Entry is one transcript entry.
type Entry struct {
	EntryID     string
	Text        string
	Kind        string
	Role        string
	Source      string
	SessionKey  string
	RunID       string
	TimestampMs ui.Int // unset or null: no timestamp
	SequenceKey int64
	Confirmed   bool
	Fingerprint string
}

// InferKind is the entry kind of a line: meta, user ("> "), thinking
// ("[[trace]]"), tool ("[[tool]]"/"[[tool-result]]") or assistant.
func InferKind(line string) string {
	switch {
	case message.IsMetaLine(line):
		return KindMeta
	case strings.HasPrefix(line, ">"):
		return KindUser
	case message.IsTraceLine(line):
		return KindThinking
	case message.IsToolLine(line):
		return KindTool
	}
	return KindAssistant
}

// inferRole is the role of an entry of a given kind: user for user lines,
// tool for tool lines, the role a "[[meta]]" line names (user or
// assistant; "system" when it names neither), assistant otherwise. The
// spec does not spell Claw3D's role inference out; this is the reading
// taken.
func inferRole(kind, line string) string {
	switch kind {
	case KindUser:
		return "user"
	case KindTool:
		return "tool"
	case KindMeta:
		if r, ok := jsonx.GetStr([]byte(line[len(message.MetaPrefix):]), "role"); ok && (r == "user" || r == "assistant") {
			return r
		}
		return "system"
	}
	return "assistant"
}

// NewEntry is createTranscriptEntryFromLine: kind and role inferred when
// not given, the fingerprint fnv1a(role|kind|normalized text|sessionKey|
// runId|floor(ts/2000)) ("none" for the bucket without a timestamp), the
// default entryId <source>:<sessionKey>:<sequenceKey>:<kind>:<fingerprint>,
// and confirmed by default only for history entries.
func NewEntry(line string, meta *EntryMeta, sequenceKey int64) Entry {
	e := Entry{
		Text: line, Kind: meta.Kind, Role: meta.Role, Source: meta.Source,
		SessionKey: meta.SessionKey, RunID: meta.RunID, TimestampMs: meta.TimestampMs,
		SequenceKey: sequenceKey, EntryID: meta.EntryID,
	}
	if e.Kind == "" {
		e.Kind = InferKind(line)
	}
	if e.Role == "" {
		e.Role = inferRole(e.Kind, line)
	}
	if meta.Confirmed.Set && !meta.Confirmed.Null {
		e.Confirmed = meta.Confirmed.V
	} else {
		e.Confirmed = e.Source == SourceHistory
	}
	e.Fingerprint = fingerprint(&e)
	if e.EntryID == "" {
		e.EntryID = e.Source + ":" + e.SessionKey + ":" + strconv.FormatInt(sequenceKey, 10) + ":" + e.Kind + ":" + e.Fingerprint
	}
	return e
}

func fingerprint(e *Entry) string {
	var b strings.Builder
	b.Grow(len(e.Text) + len(e.SessionKey) + len(e.RunID) + 40)
	b.WriteString(e.Role)
	b.WriteByte('|')
	b.WriteString(e.Kind)
	b.WriteByte('|')
	b.WriteString(collapseSpace(e.Text))
	b.WriteByte('|')
	b.WriteString(e.SessionKey)
	b.WriteByte('|')
	b.WriteString(e.RunID)
	b.WriteByte('|')
	if ts, ok := timeOf(e.TimestampMs); ok {
		b.WriteString(strconv.FormatInt(floorDiv(ts, FingerprintBucketMs), 10))
	} else {
		b.WriteString("none")
	}
	return FNV1a(b.String())
}

// timeOf reads an optional time.
func timeOf(t ui.Int) (int64, bool) { return t.V, t.Set && !t.Null }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// FNV1a is the 32-bit FNV-1a hash of s's UTF-16 code units (as a
// JavaScript loop over charCodeAt computes it), as 8 hex digits.
func FNV1a(s string) string {
	h := uint32(0x811c9dc5)
	step := func(u uint32) {
		h ^= u
		h *= 0x01000193
	}
	for _, r := range s {
		if r >= 0x10000 && r <= utf8.MaxRune {
			r -= 0x10000
			step(uint32(0xD800 + r>>10))
			step(uint32(0xDC00 + r&0x3FF))
			continue
		}
		step(uint32(r))
	}
	var buf [8]byte
	const hex = "0123456789abcdef"
	for i := 7; i >= 0; i-- {
		buf[i] = hex[h&0xF]
		h >>= 4
	}
	return string(buf[:])
}

// Transcript is one agent's transcript as Claw3D's store keeps it:
// appendOutput upserts by entryId (an existing id is replaced in place,
// keeping its sequenceKey, and duplicate copies of it collapse into one),
// new entries go at the end, and at most MaxTranscriptEntries are kept.
// The zero value is an empty transcript.
type Transcript struct {
	entries []Entry
	nextSeq int64
	traces  int // entries whose text is a "[[trace]]" line
	dropped int
}

// Append is the store's appendOutput for one line; it returns the entry's
// index and whether it replaced an entry with the same entryId.
func (t *Transcript) Append(line string, meta *EntryMeta) (index int, replaced bool) {
	return t.Upsert(NewEntry(line, meta, t.nextSeq))
}

// Upsert stores e: in place of the entry with its entryId (keeping that
// entry's sequenceKey; later copies of the id are removed), or at the end.
func (t *Transcript) Upsert(e Entry) (index int, replaced bool) {
	index = -1
	for i := 0; i < len(t.entries); i++ {
		if t.entries[i].EntryID != e.EntryID {
			continue
		}
		if index < 0 {
			index = i
			continue
		}
		t.remove(i) // a duplicate copy
		i--
	}
	if index >= 0 {
		old := &t.entries[index]
		e.SequenceKey = old.SequenceKey
		t.count(old, -1)
		*old = e
		t.count(old, +1)
		return index, true
	}
	if e.SequenceKey >= t.nextSeq {
		t.nextSeq = e.SequenceKey + 1
	}
	t.entries = append(t.entries, e)
	t.count(&t.entries[len(t.entries)-1], +1)
	t.capEntries()
	return len(t.entries) - 1, false
}

func (t *Transcript) remove(i int) {
	t.count(&t.entries[i], -1)
	n := copy(t.entries[i:], t.entries[i+1:])
	t.entries[i+n] = Entry{}
	t.entries = t.entries[:i+n]
}

func (t *Transcript) count(e *Entry, d int) {
	if message.IsTraceLine(e.Text) {
		t.traces += d
	}
}

// Entries returns the entries in order; the slice is the transcript's own.
func (t *Transcript) Entries() []Entry { return t.entries }

// Len is the number of entries kept.
func (t *Transcript) Len() int { return len(t.entries) }

// Dropped counts the entries the cap removed.
func (t *Transcript) Dropped() int { return t.dropped }

// HasTrace reports whether some entry is a "[[trace]]" line.
func (t *Transcript) HasTrace() bool { return t.traces > 0 }

// Lines returns the entries' texts in order (the agent's outputLines).
func (t *Transcript) Lines() []string {
	out := make([]string, len(t.entries))
	for i := range t.entries {
		out[i] = t.entries[i].Text
	}
	return out
}

// Replace sets the whole transcript (after a history merge), keeping the
// sequence counter ahead of every entry and the cap.
func (t *Transcript) Replace(entries []Entry) {
	t.entries = t.entries[:0]
	t.traces = 0
	for _, e := range entries {
		t.entries = append(t.entries, e)
		t.count(&t.entries[len(t.entries)-1], +1)
		if e.SequenceKey >= t.nextSeq {
			t.nextSeq = e.SequenceKey + 1
		}
	}
	t.capEntries()
}

// capEntries drops the oldest entries beyond MaxTranscriptEntries. The
// kept ones are not moved down: the slice starts later instead, and the
// dropped entries' room is given back when append next runs out of it and
// copies only the kept ones. Moving 600 entries down at every line past
// the cap was most of what a long session's transcript cost.
func (t *Transcript) capEntries() {
	over := len(t.entries) - MaxTranscriptEntries
	if over <= 0 {
		return
	}
	for i := 0; i < over; i++ {
		t.count(&t.entries[i], -1)
	}
	clear(t.entries[:over]) // let their strings go
	t.entries = t.entries[over:]
	t.dropped += over
}

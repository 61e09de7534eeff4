package ui

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/jsstr"
)

// The fleet store's agent patch, shared by every UI model: clawboo's
// AgentStatusPatch and Claw3D's agent update both assign the keys a patch
// carries and leave the others alone.

// Str is an optional, nullable string: in a patch, a missing key means
// "leave the field alone" and null means "clear it".
type Str struct {
	Set  bool
	Null bool
	V    string
}

// Int is an optional, nullable integer (unix ms here).
type Int struct {
	Set  bool
	Null bool
	V    int64
}

// SetStr, NullStr, SetInt and NullInt build optional values.
func SetStr(s string) Str           { return Str{Set: true, V: s} }
func NullStr() Str                  { return Str{Set: true, Null: true} }
func SetInt(n int64) Int            { return Int{Set: true, V: n} }
func NullInt() Int                  { return Int{Set: true, Null: true} }
func (s Str) Value() (string, bool) { return s.V, s.Set && !s.Null }

// Patch is the reference's AgentStatusPatch.
type Patch struct {
	Status         Str
	RunID          Str
	RunStartedAt   Int
	StreamText     Str
	ThinkingTrace  Str
	LastActivityAt Int

	// The fields Claw3D's agent store adds; clawboo never sets them.
	SessionCreated         Bool
	LatestPreview          Str
	LastUserMessage        Str
	LastResult             Str
	LastAssistantMessageAt Int
}

// Bool is an optional, nullable boolean, like Str and Int.
type Bool struct {
	Set  bool
	Null bool
	V    bool
}

// SetBool builds a set Bool.
func SetBool(v bool) Bool { return Bool{Set: true, V: v} }

// Empty reports whether the patch sets nothing.
func (p *Patch) Empty() bool { return *p == Patch{} }

// Merge shallow-merges src over p: every key src sets (a value or null)
// replaces p's.
func (p *Patch) Merge(src *Patch) {
	mergeStr(&p.Status, src.Status)
	mergeStr(&p.RunID, src.RunID)
	mergeInt(&p.RunStartedAt, src.RunStartedAt)
	mergeStr(&p.StreamText, src.StreamText)
	mergeStr(&p.ThinkingTrace, src.ThinkingTrace)
	mergeInt(&p.LastActivityAt, src.LastActivityAt)
	if src.SessionCreated.Set {
		p.SessionCreated = src.SessionCreated
	}
	mergeStr(&p.LatestPreview, src.LatestPreview)
	mergeStr(&p.LastUserMessage, src.LastUserMessage)
	mergeStr(&p.LastResult, src.LastResult)
	mergeInt(&p.LastAssistantMessageAt, src.LastAssistantMessageAt)
}

func mergeStr(dst *Str, src Str) {
	if src.Set {
		*dst = src
	}
}

func mergeInt(dst *Int, src Int) {
	if src.Set {
		*dst = src
	}
}

// AppendNumber appends f as JSON.stringify writes a number: as
// JavaScript's Number#toString (1.5, 1e+21, -0 as 0), and null when it
// is not finite.
func AppendNumber(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || f != f {
		return append(dst, "null"...)
	}
	return jsstr.AppendNumber(dst, f)
}

func AppendStrOrNull(dst []byte, s Str) []byte {
	if !s.Set || s.Null {
		return append(dst, "null"...)
	}
	return jsonx.AppendString(dst, s.V)
}

// AppendJSON appends the patch with only the keys it sets, in a fixed order.
func (p *Patch) AppendJSON(dst []byte) []byte { return p.AppendJSONAt(dst, 0) }

// AppendJSONAt is AppendJSON with base subtracted from every time (an
// offset from a capture's start).
func (p *Patch) AppendJSONAt(dst []byte, base int64) []byte {
	dst = append(dst, '{')
	n := 0
	key := func(k string) {
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = append(dst, '"')
		dst = append(dst, k...)
		dst = append(dst, '"', ':')
	}
	str := func(k string, s Str) {
		if s.Set {
			key(k)
			dst = AppendStrOrNull(dst, s)
		}
	}
	num := func(k string, v Int) {
		if v.Set {
			key(k)
			if v.Null {
				dst = append(dst, "null"...)
			} else {
				dst = strconv.AppendInt(dst, v.V-base, 10)
			}
		}
	}
	str("status", p.Status)
	str("runId", p.RunID)
	num("runStartedAt", p.RunStartedAt)
	str("streamText", p.StreamText)
	str("thinkingTrace", p.ThinkingTrace)
	num("lastActivityAt", p.LastActivityAt)
	if b := p.SessionCreated; b.Set {
		key("sessionCreated")
		switch {
		case b.Null:
			dst = append(dst, "null"...)
		default:
			dst = strconv.AppendBool(dst, b.V)
		}
	}
	str("latestPreview", p.LatestPreview)
	str("lastUserMessage", p.LastUserMessage)
	str("lastResult", p.LastResult)
	num("lastAssistantMessageAt", p.LastAssistantMessageAt)
	return append(dst, '}')
}

// AgentPatch is the patch pending (or written) for one agent.
type AgentPatch struct {
	AgentID string
	Patch   Patch
	// Patches counts the enqueues coalesced into Patch since the agent's
	// entry was created or last replaced.
	Patches int
}

// ClosedRun is one entry of a UI's closed-run map (clawboo's guard,
// Claw3D's fence).
type ClosedRun struct {
	RunID  string
	Expiry int64 // unix ms; closed while now <= Expiry
	// ClosedBy is what closed the run, where the UI remembers it
	// ("commit", "lifecycle"); "" where it does not.
	ClosedBy string
}

// CutRunes is s's first n runes.
func CutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for c := 0; c < n && i < len(s); c++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

func cutStr(s Str, n int) Str {
	s.V = CutRunes(s.V, n)
	return s
}

// CutTexts is p with its texts cut to n runes; n <= 0 leaves them whole.
func (p Patch) CutTexts(n int) Patch {
	if n <= 0 {
		return p
	}
	p.Status, p.RunID, p.StreamText, p.ThinkingTrace = cutStr(p.Status, n), cutStr(p.RunID, n), cutStr(p.StreamText, n), cutStr(p.ThinkingTrace, n)
	p.LatestPreview, p.LastUserMessage, p.LastResult = cutStr(p.LatestPreview, n), cutStr(p.LastUserMessage, n), cutStr(p.LastResult, n)
	return p
}

// LongerThan reports whether any of p's texts is longer than n bytes.
func (p *Patch) LongerThan(n int) bool {
	for _, s := range [...]string{p.Status.V, p.RunID.V, p.StreamText.V, p.ThinkingTrace.V, p.LatestPreview.V, p.LastUserMessage.V, p.LastResult.V} {
		if len(s) > n {
			return true
		}
	}
	return false
}

package serve

import (
	"bytes"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// frameType is what a frame's top-level "type" says, as bridge classifies
// it: "req" and "res" are requests and responses, "event" events, and
// anything else (another type, none, not a JSON object) is streamed as
// recorded, without a seq.
type frameType uint8

const (
	frameOther frameType = iota
	frameEvent
	frameReq
	frameRes
)

// head is what serve reads of a frame: its top-level members that say what
// it is, in one pass and without allocating. The byte slices are raw JSON
// values inside the frame; nil when absent.
type head struct {
	typ                frameType
	event, method, idv []byte
	seq                int64
	hasSeq             bool
	seqAt              span // the seq value's place in the frame, for an event
}

// readHead reads a frame's head. Like JSON.parse, the last of duplicate
// members wins. A frame that is not a JSON object is frameOther.
func readHead(frame []byte) head {
	var h head
	if jsonx.KindOf(frame) != jsonx.Object {
		return h
	}
	var typ, seq []byte
	err := jsonx.ObjectEach(frame, func(k, v []byte) bool {
		switch {
		case jsonx.KeyIs(k, "type"):
			typ = v
		case jsonx.KeyIs(k, "event"):
			h.event = v
		case jsonx.KeyIs(k, "method"):
			h.method = v
		case jsonx.KeyIs(k, "id"):
			h.idv = v
		case jsonx.KeyIs(k, "seq"):
			seq = v
		}
		return true
	})
	if err != nil {
		return head{}
	}
	switch {
	case strIs(typ, "event"):
		h.typ = frameEvent
		if n, ok := jsonx.Int(seq); ok {
			start := offsetIn(frame, seq)
			h.seq, h.hasSeq, h.seqAt = n, true, span{start, start + len(seq)}
		}
	case strIs(typ, "req"):
		h.typ = frameReq
	case strIs(typ, "res"):
		h.typ = frameRes
	}
	return h
}

// id is the frame's id as bridge names it: a string's value, a number's
// text, else "".
func (h *head) id() string {
	if s, ok := jsonx.Str(h.idv); ok {
		return s
	}
	if jsonx.KindOf(h.idv) == jsonx.Number {
		return string(h.idv)
	}
	return ""
}

// strIs reports whether the raw JSON value v is the string s, decoding
// escapes only when there are some.
func strIs(v []byte, s string) bool {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return false
	}
	if len(v) == len(s)+2 && string(v[1:len(v)-1]) == s {
		return true
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return false
	}
	d, ok := jsonx.Str(v)
	return ok && d == s
}

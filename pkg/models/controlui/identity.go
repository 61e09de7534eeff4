package controlui

import (
	"crypto/sha256"
	"math"
	"strings"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/jsstr"
)

// Transcript identity: how the pane tells one message of its list from
// another. Read from the 2026.9.6 bundle,
// dist/control-ui/assets/control-ui-boot-shared-DsSmvo0L.js:
// readSessionMessageIdentity (minified Te), sameTranscriptIdentity (ke),
// the assistant idempotency match (De), the tool-use tests (ze, Re) and the
// content key (He); docs/ui-controlui.md, "Session messages".

// envelope is what a message came with besides itself: a session.message
// payload, or the runId/messageId/messageSeq a chat terminal publishes
// it with.
type envelope struct {
	runID, clientRunID, idemKey, messageID string
	messageSeq                             int64 // 0: none
}

// readEnvelope reads a session.message payload as an envelope.
func readEnvelope(payload []byte) envelope {
	var e envelope
	e.runID = optStr(payload, "runId")
	e.clientRunID = optStr(payload, "clientRunId")
	e.idemKey = optStr(payload, "idempotencyKey")
	e.messageID = optStr(payload, "messageId")
	e.messageSeq = seqOf(payload, "messageSeq")
	return e
}

// ident is a message's transcript identity.
type ident struct {
	role       string // lower-cased
	id         string // __openclaw.id, else the envelope's messageId
	seq        int64  // __openclaw.seq, else the envelope's messageSeq; 0: none
	idemKey    string
	runID      string
	imported   bool
	external   string  // import source, for an imported message with all three ids
	mirror     bool    // __openclaw.mirrorOrigin is set
	terminal   bool    // __openclaw.runTerminal is true
	toolCall   bool    // ze: a tool call, or a tool-use stop with nothing to show
	toolUse    bool    // Re: a tool-use stop without a tool call
	stopEnd    bool    // Ue: it stopped for good (stop, length, error, aborted, end_turn)
	contentKey textKey // He: role, text and non-text content
}

// optStr is O(): a string member, trimmed, "" when blank or absent.
func optStr(obj []byte, key string) string {
	v, _ := jsonx.Get(obj, key)
	return trimmedStr(v)
}

// trimmedStr is optStr of a member's raw value (nil: absent).
func trimmedStr(v []byte) string {
	s, ok := jsonx.Str(v)
	if !ok {
		return ""
	}
	return jsstr.Trim(s)
}

// seqOf is Ce(): a positive safe integer member, else 0.
func seqOf(obj []byte, key string) int64 {
	v, _ := jsonx.Get(obj, key)
	return positiveSeq(v)
}

// positiveSeq is seqOf of a member's raw value (nil: absent).
func positiveSeq(v []byte) int64 {
	f, ok := jsonx.Num(v)
	if !ok || f <= 0 || f != math.Trunc(f) || f > 1<<53-1 {
		return 0
	}
	return int64(f)
}

// sendKey is k(): a run id (already trimmed) as the pane normalises it, a
// trailing ":user" dropped.
func sendKey(s string) string {
	t, _ := strings.CutSuffix(s, ":user")
	return t
}

// readIdent is readSessionMessageIdentity (Te); ok is false for a message
// that is not an object with a role. A chat terminal's message without a
// role is the assistant's (normalizeFinalAssistantMessage): pass role
// "assistant" for it, "" otherwise.
func readIdent(msg []byte, env envelope, role string) (ident, bool) {
	var d ident
	if jsonx.KindOf(msg) != jsonx.Object {
		return d, false
	}
	d.role = jsstr.Lower(optStr(msg, "role"))
	if d.role == "" {
		d.role = role
	}
	if d.role == "" {
		return d, false
	}
	meta, _ := jsonx.Get(msg, "__openclaw")
	if jsonx.KindOf(meta) != jsonx.Object {
		meta = nil
	}
	from, cli, ext := optStr(meta, "importedFrom"), optStr(meta, "cliSessionId"), optStr(meta, "externalId")
	d.imported = !validPosition(meta) && (from != "" || cli != "" || ext != "")
	if d.imported && from != "" && cli != "" && ext != "" {
		b := jsonx.AppendString([]byte{'['}, from)
		b = jsonx.AppendString(append(b, ','), cli)
		b = jsonx.AppendString(append(b, ','), ext)
		d.external = string(append(b, ']'))
	}
	d.idemKey = firstOf(optStr(meta, "idempotencyKey"), optStr(msg, "idempotencyKey"), env.idemKey, env.clientRunID)
	send := sendKey(d.idemKey)
	metaRun := sendKey(optStr(meta, "runId"))
	fallback, _ := jsonx.Get(msg, "openclawStreamFallback")
	d.mirror = optStr(meta, "mirrorOrigin") != ""
	if v, ok := jsonx.Get(meta, "runTerminal"); ok && string(v) == "true" {
		d.terminal = true
	}
	if d.role == "assistant" {
		cliAPI := jsstr.Lower(optStr(msg, "api")) == "cli"
		owner := send
		if cliAPI && strings.HasPrefix(send, "cli-assistant:") {
			owner = jsstr.Trim(send[len("cli-assistant:"):])
		}
		if !cliAPI && d.mirror {
			owner = ""
		}
		d.runID = firstOf(metaRun, sendKey(env.runID), sendKey(optStr(fallback, "runId")), owner)
	} else {
		d.runID = firstOf(metaRun, send, sendKey(env.runID))
	}
	d.id = firstOf(optStr(meta, "id"), env.messageID)
	d.seq = seqOf(meta, "seq")
	if d.seq == 0 {
		d.seq = env.messageSeq
	}
	d.toolCall, d.toolUse = toolUseOf(msg)
	switch r, _ := jsonx.GetStr(msg, "stopReason"); r {
	case "stop", "length", "error", "aborted", "end_turn":
		d.stopEnd = true
	}
	d.contentKey = contentKey(msg, d.role)
	return d, true
}

// validPosition: __openclaw.transcriptPosition names its source (at most
// 128 UTF-16 units) and a raw sequence; such a row is no import.
func validPosition(meta []byte) bool {
	pos, ok := jsonx.Get(meta, "transcriptPosition")
	if !ok || jsonx.KindOf(pos) != jsonx.Object {
		return false
	}
	src := optStr(pos, "source")
	v, ok := jsonx.Get(pos, "rawSeq")
	if src == "" || jsstr.UTF16Len(src) > 128 || !ok {
		return false
	}
	f, ok := jsonx.Num(v)
	return ok && f >= 0 && f == math.Trunc(f) && f <= 1<<53-1
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// toolUseOf is ze and Re: a message with a toolCall, toolUse or
// functionCall block (or a tool-use stop with nothing to show) is a tool
// call; a tool-use stop without one is a tool-use stop.
func toolUseOf(msg []byte) (call, stop bool) {
	content, _ := jsonx.Get(msg, "content")
	if jsonx.KindOf(content) == jsonx.Array {
		_ = jsonx.ArrayEach(content, func(b []byte) bool {
			switch t, _ := jsonx.GetStr(b, "type"); t {
			case "toolCall", "toolUse", "functionCall":
				call = true
			}
			return !call
		})
	}
	toolStop := false
	if s, ok := jsonx.GetStr(msg, "stopReason"); ok && s == "toolUse" {
		toolStop = true
	}
	if !call && toolStop {
		text, nonText := displayOf(msg)
		call = text == "" && !nonText
	}
	return call, toolStop && !call
}

// displayOf is Me's text and non-text flag: the text blocks (text,
// input_text, output_text; a plain string) trimmed and joined by "\n", else
// the message's text; any other block but a thinking one, or attached
// media, is non-text.
func displayOf(msg []byte) (text string, nonText bool) {
	if media, ok := jsonx.GetPath(msg, "__openclaw", "media"); ok && jsonx.KindOf(media) == jsonx.Array {
		_ = jsonx.ArrayEach(media, func([]byte) bool { nonText = true; return false })
	}
	var parts []string
	take := func(b []byte) {
		switch jsonx.KindOf(b) {
		case jsonx.Object:
			switch t, _ := jsonx.GetStr(b, "type"); t {
			case "text", "input_text", "output_text":
			default:
				nonText = nonText || (t != "thinking" && t != "reasoning" && t != "redacted_thinking")
				return
			}
			if s := optStr(b, "text"); s != "" {
				parts = append(parts, s)
			}
		case jsonx.String:
			if s, _ := jsonx.Str(b); jsstr.Trim(s) != "" {
				parts = append(parts, jsstr.Trim(s))
			}
		}
	}
	content, _ := jsonx.Get(msg, "content")
	if jsonx.KindOf(content) == jsonx.Array {
		_ = jsonx.ArrayEach(content, func(b []byte) bool { take(b); return true })
	} else if content != nil {
		take(content)
	}
	if len(parts) == 0 {
		return optStr(msg, "text"), nonText
	}
	return strings.Join(parts, "\n"), nonText
}

// textKey stands for a content key: only compared, so its digest is kept
// (the key holds a message's whole text, and every entry a pane shows
// has one); the zero key is a message with nothing to show.
type textKey struct {
	set bool
	sum [16]byte
}

// contentKey is He: none for a message with nothing to show, else its
// role, text and (when it has non-text blocks) its content.
func contentKey(msg []byte, role string) textKey {
	text, nonText := displayOf(msg)
	if text == "" && !nonText {
		return textKey{}
	}
	b := jsonx.AppendString(nil, role)
	b = jsonx.AppendString(append(b, ','), text)
	if nonText {
		content, _ := jsonx.Get(msg, "content")
		b = append(append(b, ','), jsonx.TrimSpace(content)...)
	}
	sum := sha256.Sum256(b)
	k := textKey{set: true}
	copy(k.sum[:], sum[:])
	return k
}

// sameIdent is sameTranscriptIdentity (ke): the same role and, for an
// import, the same source or sequence; else the same id where either has
// one; else the same sequence.
func sameIdent(a, b *ident) bool {
	if a.role != b.role {
		return false
	}
	if a.imported || b.imported {
		switch {
		case !a.imported || !b.imported:
			return false
		case a.external != "" || b.external != "":
			return a.external != "" && a.external == b.external
		}
		return a.seq != 0 && a.seq == b.seq
	}
	if a.id != "" || b.id != "" {
		return a.id != "" && a.id == b.id
	}
	return a.seq != 0 && a.seq == b.seq
}

// sameAssistantKey is De: two assistant rows with the same idempotency key,
// one of them without an id or a sequence.
func sameAssistantKey(a, b *ident) bool {
	if a.role != "assistant" || b.role != "assistant" || a.imported || b.imported || a.idemKey == "" || a.idemKey != b.idemKey {
		return false
	}
	return !((a.id != "" || a.seq != 0) && (b.id != "" || b.seq != 0))
}

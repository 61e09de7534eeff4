// Package redact removes credentials (always) and, on request, message
// content and personal identifiers from gateway frames and capture records,
// before a capture touches disk or is shared.
//
// Frames are rewritten in place: only the replaced string values change,
// every other byte (key order, spacing, number spelling) stays as it came
// off the wire, and a frame with nothing to replace is returned as is. The
// rules are documented in docs/redaction.md.
package redact

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"hash"
	"slices"
	"strings"
	"sync"

	"github.com/clawtap/clawtap/pkg/capture"
)

// Marker replaces every credential.
const Marker = "__CLAWTAP_REDACTED__"

// RulesVersion names the rule set in capture headers. Bump it when a change
// makes a capture redacted by an older clawtap different from a new one.
const RulesVersion = "clawtap-redact/1"

// Options choose what a Redactor removes besides credentials.
type Options struct {
	// Content masks message text, tool input and output, commands, logs and
	// base64 payloads, and pseudonymises identifiers (device and instance
	// ids, hosts, IPs, user names, e-mail addresses, delivery addresses,
	// channel peer ids in session keys, home-directory user names).
	Content bool
	// Salt keys the pseudonyms and blob placeholders. With the same salt two
	// runs give the same pseudonyms; nil means a random salt per Redactor.
	// Surrounding whitespace is ignored, so a salt file reads the same with
	// or without a final newline.
	Salt []byte
}

// Stats counts what a Redactor did.
type Stats struct {
	Frames        int // frames seen
	FramesChanged int
	Raw           int // non-JSON messages and unreadable lines seen
	RawChanged    int
	Marks         int // markers seen
	MarksChanged  int
	Credentials   int // values (or parts of text) replaced by Marker
	Content       int // strings masked or replaced by a blob placeholder
	Pseudonyms    int // identifiers pseudonymised
}

// Redactor redacts frames and records. It keeps a little state per
// connection (which request ids asked for credentials, so that their
// responses can be redacted) and is safe for concurrent use.
type Redactor struct {
	mu        sync.Mutex
	content   bool
	saltGiven bool
	mac       hash.Hash
	cache     map[string]string
	pend      pending
	texts     textCache // streamed texts the pre-scan found clean
	stats     Stats
	w         walker
}

// New returns a Redactor.
func New(opts Options) *Redactor {
	salt := opts.Salt
	if t := bytes.TrimSpace(salt); len(t) > 0 {
		salt = t
	}
	if len(salt) == 0 {
		salt = make([]byte, 32)
		_, _ = rand.Read(salt)
	}
	r := &Redactor{
		content:   opts.Content,
		saltGiven: len(opts.Salt) > 0,
		mac:       hmac.New(sha256.New, slices.Clone(salt)),
		cache:     map[string]string{},
	}
	r.w.r = r
	return r
}

// Frame returns frame with its secrets replaced. dir is capture.DirIn or
// capture.DirOut (informational). When nothing needs replacing, frame itself
// is returned; otherwise a new slice. Input that is not JSON is treated as
// text. Frame is FrameConn for connection 0.
func (r *Redactor) Frame(dir string, frame []byte) []byte {
	return r.FrameConn(0, dir, frame)
}

// FrameConn is Frame for one of several connections: request ids are
// matched to responses per connection.
func (r *Redactor) FrameConn(conn int, dir string, frame []byte) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.frame(conn, frame)
}

// Record returns rec with its frame, raw text or marker details redacted.
// When nothing changes it returns rec itself; otherwise a copy that shares
// no changed memory with rec (rec is never modified).
func (r *Redactor) Record(rec *capture.Record) *capture.Record {
	if rec.Mark == "" && rec.Frame != nil {
		// Every record of a capture read unredacted comes here: no
		// deferred unlock (nothing recovers from a panic).
		r.mu.Lock()
		f := r.frame(rec.Conn, rec.Frame)
		r.mu.Unlock()
		if sameSlice(f, rec.Frame) {
			return rec
		}
		c := *rec
		c.Frame = f
		return &c
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case rec.Mark != "":
		return r.mark(rec)
	default:
		r.stats.Raw++
		t := r.rawText(rec.Raw)
		if t == nil {
			return rec
		}
		r.stats.RawChanged++
		c := *rec
		c.Raw = t
		return &c
	}
}

// Info describes the redaction for a capture header.
func (r *Redactor) Info() capture.Redaction {
	notes := []string{RulesVersion + ": credentials replaced by " + Marker + " (see docs/redaction.md)"}
	if r.content {
		notes = append(notes,
			"content masked: letters to x/X and digits to 0, rune by rune, keeping whitespace, punctuation and length; base64 payloads replaced by «blob:HASH:BYTES»",
		)
		if r.saltGiven {
			notes = append(notes, "identifiers pseudonymised with a keyed hash (key from a salt file)")
		} else {
			notes = append(notes, "identifiers pseudonymised with a keyed hash (random key, not kept)")
		}
	}
	return capture.Redaction{Credentials: true, Content: r.content, Marker: Marker, Notes: notes}
}

// Header returns h redacted for a redacted capture: text fields that can
// carry a token (URLs, notes) are scrubbed and the redaction info is merged
// with any the header already had.
func (r *Redactor) Header(h capture.Header) capture.Header {
	r.mu.Lock()
	h.Source.URL = r.textString(h.Source.URL)
	h.Source.Listen = r.textString(h.Source.Listen)
	h.Source.From = r.textString(h.Source.From)
	if len(h.Notes) > 0 {
		h.Notes = r.frame(0, h.Notes)
	}
	r.mu.Unlock()
	info := r.Info()
	if old := h.Redaction; old != nil {
		info.Content = info.Content || old.Content
		notes := slices.Clone(old.Notes)
		for _, n := range info.Notes {
			if !slices.Contains(notes, n) {
				notes = append(notes, n)
			}
		}
		info.Notes = notes
	}
	h.Redaction = &info
	return h
}

// Stats returns the counts so far.
func (r *Redactor) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

func sameSlice(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func (r *Redactor) mark(rec *capture.Record) *capture.Record {
	r.stats.Marks++
	c := *rec
	c.URL = r.textString(rec.URL)
	c.Reason = r.textString(rec.Reason)
	c.Err = r.textString(rec.Err)
	if r.content {
		if c.Peer != "" {
			c.Peer = r.pseudoHost(c.Peer)
		}
		if c.ConnID != "" {
			c.ConnID = r.pseudo(c.ConnID)
		}
	}
	if c.URL == rec.URL && c.Reason == rec.Reason && c.Err == rec.Err && c.Peer == rec.Peer && c.ConnID == rec.ConnID {
		return rec
	}
	r.stats.MarksChanged++
	return &c
}

// textString applies the text rules to a string.
func (r *Redactor) textString(s string) string {
	if s == "" {
		return s
	}
	spans := scanText([]byte(s), r.w.spans[:0])
	out := applySpans([]byte(s), spans, nil)
	if out == nil {
		return s
	}
	r.stats.Credentials++
	return string(out)
}

// rawText redacts a message that is not JSON (or a line that could not be
// read). With Content it is masked whole; otherwise the text rules apply.
// It returns nil when nothing changes.
func (r *Redactor) rawText(b []byte) []byte {
	if r.content {
		if !needsMask(b) {
			return nil
		}
		r.stats.Content++
		return mask(b, make([]byte, 0, len(b)))
	}
	if !mayHavePlainText(b) {
		return nil
	}
	spans := scanText(b, r.w.spans[:0])
	out := applySpans(b, spans, make([]byte, 0, len(b)+len(Marker)))
	if out != nil {
		r.stats.Credentials++
	}
	return out
}

// ---- per-connection request memory ----

// Method kinds whose responses (or params) need more than the key rule.
const (
	mkNone uint8 = iota
	mkCredResult
	mkSecrets
	mkTalkConfig
	mkConfigWrite
)

func methodKind(m string) uint8 {
	switch m {
	case "secrets.resolve":
		return mkSecrets
	case "talk.config":
		return mkTalkConfig
	case "config.set", "config.patch", "config.apply":
		return mkConfigWrite
	case "talk.client.create":
		return mkCredResult
	}
	lm := strings.ToLower(m)
	if strings.Contains(lm, "token") || strings.Contains(lm, "secret") {
		return mkCredResult
	}
	return mkNone
}

type pendKey struct {
	conn int
	id   string
}

// maxPending bounds the request ids remembered per Redactor.
const maxPending = 1024

// pending remembers the method kind of recent requests by id, first in
// first out.
type pending struct {
	m    map[pendKey]uint8
	ring []pendKey
	head int
}

func (p *pending) add(k pendKey, kind uint8) {
	if p.m == nil {
		p.m = map[pendKey]uint8{}
	}
	if _, ok := p.m[k]; ok {
		p.m[k] = kind
		return
	}
	if len(p.ring) < maxPending {
		p.ring = append(p.ring, k)
	} else {
		delete(p.m, p.ring[p.head])
		p.ring[p.head] = k
		p.head = (p.head + 1) % maxPending
	}
	p.m[k] = kind
}

func (p *pending) get(k pendKey) uint8 { return p.m[k] }

func (p *pending) empty() bool { return len(p.m) == 0 }

var (
	resType = []byte(`"res"`)
	reqType = []byte(`"req"`)
)

// frame redacts one frame for connection conn. The caller holds r.mu.
func (r *Redactor) frame(conn int, frame []byte) []byte {
	r.stats.Frames++
	if !r.content {
		hit, credKey := r.texts.frameScan(frame)
		// A request carrying a credential name is walked whatever the
		// value (its response may hand out a credential), and so is a
		// response to a request that asked for one.
		if !hit && !(credKey && bytes.Contains(frame, reqType)) && (r.pend.empty() || !bytes.Contains(frame, resType)) {
			return frame
		}
	}
	out, ok := r.w.run(conn, frame)
	if !ok {
		// Not JSON: treat it as text.
		t := r.rawText(frame)
		if t == nil {
			return frame
		}
		r.stats.FramesChanged++
		return t
	}
	if !sameSlice(out, frame) {
		r.stats.FramesChanged++
	}
	return out
}

// Package capture reads and writes clawtap captures: JSON Lines, optionally
// zstd-compressed, holding a header, the gateway's frames exactly as they
// came off the wire, and markers for each connection's life.
//
// The format is documented in docs/capture-format.md.
package capture

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Version is the capture format version written in the header's "clawtap" key.
const Version = 1

// Direction of a frame, seen from the client that clawtap stands in for.
const (
	DirIn  = "in"  // gateway → client
	DirOut = "out" // client → gateway
)

// Marker names.
const (
	MarkOpen  = "open"
	MarkHello = "hello"
	MarkClose = "close"
	MarkError = "error"
	// MarkOversize stands for a message a proxy forwarded without holding
	// it whole (larger than its buffer), so it is not in the capture: Size
	// says how large it was, Dir which way it went.
	MarkOversize = "oversize"
)

// Header is the first line of a capture.
type Header struct {
	Version   int             `json:"clawtap"`
	CreatedAt string          `json:"createdAt"`
	Source    Source          `json:"source"`
	Redaction *Redaction      `json:"redaction,omitempty"`
	Notes     json.RawMessage `json:"notes,omitempty"`
}

// Source says where a capture came from.
type Source struct {
	Tool           string `json:"tool,omitempty"`           // e.g. "clawtap 0.1.0"
	Mode           string `json:"mode,omitempty"`           // record, proxy, generate, import, redact, reshape
	URL            string `json:"url,omitempty"`            // gateway URL (upstream in proxy mode)
	Listen         string `json:"listen,omitempty"`         // proxy listen address
	GatewayVersion string `json:"gatewayVersion,omitempty"` // from hello-ok, once known
	Protocol       int    `json:"protocol,omitempty"`       // negotiated protocol, once known
	From           string `json:"from,omitempty"`           // imported file name
	// ReshapedFrom is the release of the capture a reshape was made from
	// (mode reshape; "unknown" when it named none); GatewayVersion is then
	// the release whose wire it was rewritten to.
	ReshapedFrom string `json:"reshapedFrom,omitempty"`
}

// Redaction records what was removed before the capture touched disk.
type Redaction struct {
	Credentials bool     `json:"credentials"`
	Content     bool     `json:"content"`
	Marker      string   `json:"marker,omitempty"`
	Notes       []string `json:"notes,omitempty"`
}

// NewHeader returns a header stamped with the given creation time.
func NewHeader(created time.Time, src Source) Header {
	return Header{Version: Version, CreatedAt: created.UTC().Format(time.RFC3339), Source: src}
}

// Record is one line of a capture after the header: a frame, a message that
// was not JSON, or a marker.
//
// Records returned by Reader.Next share memory with the reader and are only
// valid until the next call; use Clone to keep one.
type Record struct {
	Index int   // position among the capture's records, from 0
	Line  int   // line number in the file, from 1
	T     int64 // receive time, unix milliseconds
	Conn  int   // connection number within the capture, from 1
	Dir   string

	// Exactly one of these describes the record.
	Frame json.RawMessage // a frame as it came off the wire (a JSON value)
	Raw   []byte          // a message that was not JSON (IsRaw), or an unreadable line (Malformed)
	IsRaw bool
	Mark  string

	// Marker details; zero when absent.
	URL      string
	Code     int
	Reason   string
	Protocol int
	Server   string // gateway version
	ConnID   string
	BootID   string
	Err      string // an error marker's message; for a Malformed record, why its line is unreadable
	Peer     string // proxy mode: the client's address
	Size     int64  // oversize: the message's length in bytes

	// Bare is set when the line was a bare gateway frame rather than a record.
	Bare bool
	// Malformed is set when the line could not be read as a record; Raw holds it.
	Malformed bool
}

// IsFrame reports whether the record holds a JSON frame.
func (r *Record) IsFrame() bool { return r.Frame != nil }

// Clone returns a copy that does not share memory with the reader.
func (r *Record) Clone() *Record {
	c := *r
	if r.Frame != nil {
		c.Frame = bytes.Clone(r.Frame)
	}
	if r.Raw != nil {
		c.Raw = bytes.Clone(r.Raw)
	}
	return &c
}

// AppendJSON appends the record as one JSON line (with the newline).
func (r *Record) AppendJSON(dst []byte) []byte {
	dst = r.appendEnvelope(dst)
	switch {
	case r.Mark != "":
		dst = append(dst, `,"mark":`...)
		dst = jsonx.AppendString(dst, r.Mark)
		dst = jsonx.AppendOptStr(dst, "url", r.URL)
		dst = jsonx.AppendOptStr(dst, "peer", r.Peer)
		if r.Code != 0 {
			dst = append(dst, `,"code":`...)
			dst = jsonx.AppendInt(dst, int64(r.Code))
		}
		dst = jsonx.AppendOptStr(dst, "reason", r.Reason)
		if r.Protocol != 0 {
			dst = append(dst, `,"protocol":`...)
			dst = jsonx.AppendInt(dst, int64(r.Protocol))
		}
		dst = jsonx.AppendOptStr(dst, "server", r.Server)
		dst = jsonx.AppendOptStr(dst, "connId", r.ConnID)
		dst = jsonx.AppendOptStr(dst, "bootId", r.BootID)
		dst = jsonx.AppendOptStr(dst, "error", r.Err)
		if r.Size != 0 {
			dst = append(dst, `,"size":`...)
			dst = jsonx.AppendInt(dst, r.Size)
		}
	case r.Frame != nil && jsonx.Valid(r.Frame):
		dst = append(dst, `,"frame":`...)
		dst = appendOneLine(dst, r.Frame)
	case r.Frame != nil:
		dst = append(dst, `,"raw":`...)
		dst = jsonx.AppendString(dst, string(r.Frame))
	default:
		dst = append(dst, `,"raw":`...)
		dst = jsonx.AppendString(dst, string(r.Raw))
	}
	return append(dst, '}', '\n')
}

// appendEnvelope appends what every record line starts with: the opening
// brace, time, connection and direction.
func (r *Record) appendEnvelope(dst []byte) []byte {
	dst = append(dst, `{"t":`...)
	dst = jsonx.AppendInt(dst, r.T)
	dst = append(dst, `,"conn":`...)
	dst = jsonx.AppendInt(dst, int64(r.Conn))
	if r.Dir != "" {
		dst = append(dst, `,"dir":`...)
		dst = jsonx.AppendString(dst, r.Dir)
	}
	return dst
}

// verbatimFrame returns the frame as AppendJSON writes it when that is the
// frame's own bytes (valid JSON on one line), so a writer can send it on
// without copying it.
func (r *Record) verbatimFrame() ([]byte, bool) {
	if r.Mark != "" || r.Frame == nil || !jsonx.Valid(r.Frame) {
		return nil, false
	}
	v := jsonx.TrimSpace(r.Frame)
	if bytes.IndexByte(v, '\n') >= 0 || bytes.IndexByte(v, '\r') >= 0 {
		return nil, false
	}
	return v, true
}

// appendOneLine appends a valid JSON value verbatim unless it spans several
// lines (pretty-printed), in which case it is compacted: JSON Lines cannot
// hold a newline, and only whitespace outside strings can contain one.
func appendOneLine(dst, v []byte) []byte {
	v = jsonx.TrimSpace(v)
	if bytes.IndexByte(v, '\n') < 0 && bytes.IndexByte(v, '\r') < 0 {
		return append(dst, v...)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return jsonx.AppendString(dst, string(v))
	}
	return append(dst, b.Bytes()...)
}

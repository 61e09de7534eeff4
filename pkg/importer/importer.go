// Package importer turns WebSocket frames recorded by other tools into
// clawtap captures: a browser's HAR export (the _webSocketMessages of each
// WebSocket entry) and JSON Lines of frames in the common shapes
// ({"ts":…,"frame":…}, {"time":…,"direction":…,"data":"…"}, …). The
// accepted shapes are documented in docs/import.md.
//
// Both stream: a HAR is one JSON document, walked token by token with
// encoding/json, one entry at a time; the WebSocket connections whose
// lives overlap are held until they can be interleaved by time (see
// interleave.go). JSON Lines are read line by line. Credentials are redacted with pkg/redact
// unless the caller turns it off.
package importer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/redact"
)

// Formats.
const (
	FormatAuto  = "auto"
	FormatHAR   = "har"
	FormatJSONL = "jsonl"
)

// Options tune an import.
type Options struct {
	Format   string // auto (default), har or jsonl
	NoRedact bool   // keep credentials (the header says so)
	Tool     string // header source.tool, e.g. "clawtap 0.1.0"
	From     string // header source.from: the imported file's name
	// Created stamps the header; zero means the first record's time.
	Created time.Time
	// OnWarning receives what the importer stepped over. May be nil.
	OnWarning func(msg string)
}

// Stats counts what an import did.
type Stats struct {
	Format      string
	Entries     int // HAR entries seen
	Connections int // WebSocket connections written
	Frames      int // frame records written (JSON)
	Raw         int // messages that were not JSON, kept as raw records
	Skipped     int // lines or messages that could not be used
	Redacted    int // values replaced by the redactor
	// Cut says why the input ended early (a zstd stream cut off or
	// corrupt, a HAR document cut off), "" when it did not: what came
	// before the cut is imported.
	Cut string
}

// ErrNoFrames is returned when the input held nothing to import.
var ErrNoFrames = errors.New("no WebSocket frames found")

// ErrHARCutOff is returned for a HAR document that ends before its first
// whole WebSocket entry. One cut later imports the entries before the cut
// (Stats.Cut).
var ErrHARCutOff = errors.New("the HAR document is cut off")

// Import reads src and writes a capture to w: the header, then the records.
// A zstd-compressed input (by its magic bytes) is decompressed first. It
// does not close w.
func Import(src io.Reader, w *capture.Writer, opts Options) (Stats, error) {
	plain, release, err := capture.Decompress(src)
	if err != nil {
		return Stats{}, err
	}
	defer release()
	br := bufio.NewReaderSize(plain, 1<<20)
	format := opts.Format
	if format == "" || format == FormatAuto {
		if format, err = detect(br); err != nil {
			return Stats{Format: format}, err
		}
	}
	im := &importer{w: w, opts: opts, st: Stats{Format: format}}
	if !opts.NoRedact {
		im.red = redact.New(redact.Options{})
	}
	switch format {
	case FormatHAR:
		err = im.har(br)
	case FormatJSONL:
		err = im.jsonl(br)
	default:
		return im.st, fmt.Errorf("unknown format %q (use auto, har or jsonl)", format)
	}
	var se *capture.StreamError
	switch {
	case errors.As(err, &se):
		if im.headerDone {
			// A cut-off capture reads up to the cut in every command;
			// so does import. The caller warns (Stats.Cut), past any
			// cap on line warnings.
			im.st.Cut = "the zstd stream is cut off"
			if !se.CutOff() {
				im.st.Cut = "the zstd stream is corrupt: " + se.Error()
			}
			err = nil
		}
	case format == FormatHAR && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)):
		// A HAR that breaks off is imported up to its last whole entry,
		// as a cut capture is.
		err = ErrHARCutOff
		if im.headerDone {
			im.st.Cut, err = ErrHARCutOff.Error(), nil
		}
	}
	if err == nil && !im.headerDone {
		err = ErrNoFrames
	}
	if im.red != nil {
		rs := im.red.Stats()
		im.st.Redacted = rs.Credentials
	}
	return im.st, err
}

// detect tells a HAR from JSON Lines: a first line that is a whole JSON
// value is JSON Lines, unless it is an object with a "log" member (a
// minified HAR).
func detect(br *bufio.Reader) (string, error) {
	peek, err := br.Peek(br.Size())
	var se *capture.StreamError
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) && !errors.As(err, &se) {
		return "", err
	}
	peek = bytes.TrimLeft(peek, " \t\r\n\ufeff")
	if len(peek) == 0 {
		if se != nil {
			return "", se // cut off before anything: say so, not "no frames"
		}
		return "", ErrNoFrames
	}
	line := peek
	if i := bytes.IndexByte(peek, '\n'); i >= 0 {
		line = peek[:i]
	}
	line = jsonx.TrimSpace(line)
	if jsonx.Valid(line) {
		if _, ok := jsonx.Get(line, "log"); ok && jsonx.KindOf(line) == jsonx.Object {
			return FormatHAR, nil
		}
		return FormatJSONL, nil
	}
	if peek[0] == '{' {
		return FormatHAR, nil
	}
	return FormatJSONL, nil
}

type importer struct {
	w          *capture.Writer
	opts       Options
	red        *redact.Redactor
	st         Stats
	headerDone bool
	hold       *entryQueue // set while a HAR entry's records are being held
	held       queueHeap   // entries waiting to be merged (interleave.go)
	heldBytes  int
	heldWarned bool
	opened     int // HAR entries opened
	// sniffing holds JSON Lines warnings until the first record: an
	// input that turns out not to be frames gets one error, not a
	// warning a line (NotFramesError).
	sniffing  bool
	heldWarns []string
}

func (im *importer) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if im.sniffing && !im.headerDone {
		im.heldWarns = append(im.heldWarns, msg)
		return
	}
	if im.opts.OnWarning != nil {
		im.opts.OnWarning(msg)
	}
}

// flushWarns hands on the warnings held while sniffing.
func (im *importer) flushWarns() {
	held := im.heldWarns
	im.heldWarns, im.sniffing = nil, false
	for _, msg := range held {
		im.warn("%s", msg)
	}
}

// write writes one record, the header first; while a HAR entry is being
// read its records are held instead, to be interleaved with the others.
func (im *importer) write(rec *capture.Record) error {
	if im.hold != nil {
		im.hold.add(rec)
		return nil
	}
	if !im.headerDone {
		im.flushWarns()
		im.headerDone = true
		created := im.opts.Created
		if created.IsZero() {
			created = time.UnixMilli(rec.T)
		}
		h := capture.NewHeader(created, capture.Source{Tool: im.opts.Tool, Mode: "import", From: im.opts.From})
		if im.red != nil {
			h = im.red.Header(h)
		} else {
			h.Redaction = &capture.Redaction{Credentials: false, Notes: []string{"imported with --no-redact: credentials were kept"}}
		}
		if err := im.w.WriteHeader(h); err != nil {
			return err
		}
	}
	switch {
	case rec.Mark != "":
	case rec.Frame != nil:
		im.st.Frames++
	default:
		im.st.Raw++
	}
	if im.red != nil {
		rec = im.red.Record(rec)
	}
	return im.w.Write(rec)
}

// frame writes a message as a frame record (JSON) or a raw record, and a
// hello marker after a hello-ok.
func (im *importer) frame(t int64, conn int, dir string, msg []byte) error {
	msg = jsonx.TrimSpace(msg)
	rec := capture.Record{T: t, Conn: conn, Dir: dir}
	if len(msg) > 0 && jsonx.Valid(msg) {
		rec.Frame = msg
	} else {
		rec.Raw, rec.IsRaw = msg, true
	}
	if err := im.write(&rec); err != nil {
		return err
	}
	if rec.Frame != nil && dir == capture.DirIn && bytes.Contains(msg, []byte(`"hello-ok"`)) {
		return im.hello(t, conn, msg)
	}
	return nil
}

func (im *importer) hello(t int64, conn int, frame []byte) error {
	p, _ := jsonx.Get(frame, "payload")
	if typ, _ := jsonx.GetStr(p, "type"); typ != "hello-ok" {
		return nil
	}
	m := capture.Record{T: t, Conn: conn, Mark: capture.MarkHello}
	if n, ok := jsonx.GetInt(p, "protocol"); ok {
		m.Protocol = int(n)
	}
	srv, _ := jsonx.Get(p, "server")
	m.Server, _ = jsonx.GetStr(srv, "version")
	m.ConnID, _ = jsonx.GetStr(srv, "connId")
	m.BootID, _ = jsonx.GetStr(srv, "bootId")
	return im.write(&m)
}

// dirOf reads a direction word; ok is false for an unknown word.
func dirOf(s string) (string, bool) {
	switch strings.ToLower(s) {
	case "in", "receive", "received", "recv", "incoming", "inbound", "server", "s2c", "down":
		return capture.DirIn, true
	case "out", "send", "sent", "outgoing", "outbound", "client", "c2s", "up":
		return capture.DirOut, true
	}
	return "", false
}

// guessDir is the direction of a frame with none given: a req is the
// client's, anything else the gateway's.
func guessDir(msg []byte) string {
	if t, _ := jsonx.GetStr(msg, "type"); t == "req" {
		return capture.DirOut
	}
	return capture.DirIn
}

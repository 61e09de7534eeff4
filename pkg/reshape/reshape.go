// Package reshape rewrites a capture of one gateway release into the wire
// of a newer one, where the newer release's change is a deterministic
// function of what the capture holds. Today that is 2026.9.6 → 2026.9.7
// (and 2026.9.8, the same wire): append-only live text per connection
// (gateway-protocol §11). A chat delta loses its cumulative message, and an
// agent assistant event its data.text, where the connection already holds
// the text before it and the new text is that text plus the delta; every
// other byte of every record stays as it was. The changes that depend on
// timing or on what happened at run time (coalescing, a second lifecycle
// start, an error after an abort, …) are not made up: Result.NotSimulated
// lists them, and the output's header says so.
//
// It streams: it keeps, per connection, the text of the runs live on it
// (each forgotten at the run's terminal), never anything per record. It
// checks its own output as it writes it, with the text projection the
// official client runs on a 2026.9.7 connection: a rewritten delta that
// would not rebuild the text it replaced is an error, not an output.
package reshape

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/release"
)

// Source is what reshape reads: a capture reader.
type Source interface {
	Header() *capture.Header
	Next() (*capture.Record, error)
}

// Sink is what reshape writes: a capture writer.
type Sink interface {
	WriteHeader(capture.Header) error
	Write(*capture.Record) error
}

// Options say what to write.
type Options struct {
	// Target is the release whose wire to write: 2026.9.7 or 2026.9.8
	// (Targets).
	Target release.Version
	// Force reshapes a capture of 2026.9.2 to 2026.9.5, or of a protocol 4
	// gateway before them, whose live text has the same shape as 2026.9.6's
	// (the fixes between them are not added).
	Force bool
	// Tool is the output header's source.tool ("clawtap 1.2.3"); "" keeps
	// the input's.
	Tool string
	// From names the input in the output header's source.from ("" keeps
	// the input's).
	From string
	// OnWarning, when set, receives each warning as it is made.
	OnWarning func(Warning)
}

// Targets are the releases reshape writes.
func Targets() []release.Version { return []release.Version{release.V2026_9_7, release.V2026_9_8} }

// Warning is something the output does not do as the target release
// would, or a choice reshape made that a reader should know.
type Warning struct {
	I      int // the record (from 0); -1 for the capture as a whole
	Conn   int
	Caveat bool // the output differs from the target release's wire here (a tasks.* answer kept)
	Msg    string
}

func (w Warning) String() string {
	if w.I < 0 {
		return w.Msg
	}
	return fmt.Sprintf("record %d: %s", w.I, w.Msg)
}

// Result says what was rewritten.
type Result struct {
	From        string // the input's release, "" when unknown
	To          string // the target release
	Records     int
	Frames      int
	Connections int

	ChatDeltas      int // chat deltas carrying a message
	ChatAppendOnly  int // ... written without it
	AgentTexts      int // assistant events carrying data.text
	AgentAppendOnly int // ... written without it
	// Breaks counts deltas kept whole although their connection held the
	// run's text: the text before them plus the delta is not their text
	// (the connection did not get a delta another did), so the target
	// gateway would have sent them whole too.
	Breaks int
	// Unusual counts deltas kept whole because their shape is not one the
	// gateway builds (no text block, several, a message member twice).
	Unusual   int
	Hellos    int // hello-ok frames and hello markers rewritten
	Tasks     int // tasks.* calls kept as recorded (caveats)
	Evicted   int // run baselines forgotten past the per-connection cap (later deltas kept whole)
	Caveats   int
	Warnings  int
	Simulated []string // the changes made, by release.Change id
	// NotSimulated lists the target's changes reshape cannot make, as
	// sentences.
	NotSimulated []string
}

// RefusedError is an input reshape will not rewrite (exit 2): its
// release, or frames already on the target's wire.
type RefusedError struct {
	Reason string
	Hint   string
	// Older: a capture of 2026.9.2 to 2026.9.5, which Options.Force takes.
	Older bool
}

func (e *RefusedError) Error() string { return e.Reason }

// ReadError wraps an error of the Source.
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// lookahead bounds what is read before the header is written, to find
// the input's release in its first hello.
const (
	lookaheadRecords = 256
	lookaheadBytes   = 1 << 20
)

// Copy reshapes src into dst.
func Copy(dst Sink, src Source, opts Options) (*Result, error) {
	if !targetOK(opts.Target) {
		return nil, fmt.Errorf("reshape: cannot write the %s wire (targets: %s)", opts.Target, targetNames())
	}
	r := newRun(opts)
	in := src.Header()
	if in != nil && (in.Source.Mode == "reshape" || in.Source.ReshapedFrom != "") {
		return nil, &RefusedError{Reason: fmt.Sprintf("the capture was reshaped already (from %s to %s)", orUnknown(in.Source.ReshapedFrom), orUnknown(in.Source.GatewayVersion)),
			Hint: "reshape the capture it was made from"}
	}
	// Read ahead to the first hello: the header names the input's release.
	var ahead []capture.Record
	size := 0
	for len(ahead) < lookaheadRecords && size < lookaheadBytes {
		rec, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &ReadError{err}
		}
		c := rec.Clone()
		ahead = append(ahead, *c)
		size += len(c.Frame) + len(c.Raw)
		if v, ok := helloVersion(c); ok {
			r.first = v
			break
		}
	}
	if err := r.decide(in); err != nil {
		return nil, err
	}
	var first *capture.Record
	if len(ahead) > 0 {
		first = &ahead[0]
	}
	if err := dst.WriteHeader(r.header(in, first)); err != nil {
		return nil, err
	}
	for i := range ahead {
		if err := r.record(dst, &ahead[i]); err != nil {
			return nil, err
		}
	}
	ahead = nil
	for {
		rec, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &ReadError{err}
		}
		if err := r.record(dst, rec); err != nil {
			return nil, err
		}
	}
	return r.result(), nil
}

func targetOK(v release.Version) bool {
	for _, t := range Targets() {
		if v.Compare(t) == 0 {
			return true
		}
	}
	return false
}

func targetNames() string {
	var names []string
	for _, t := range Targets() {
		names = append(names, t.String())
	}
	return strings.Join(names, ", ")
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown release"
	}
	return s
}

// helloVersion is the release a hello marker or a hello-ok names.
func helloVersion(rec *capture.Record) (string, bool) {
	if rec.Mark == capture.MarkHello {
		return rec.Server, rec.Server != ""
	}
	if rec.Mark == "" && rec.Dir != capture.DirOut && rec.Frame != nil {
		if h, ok := readHelloOK(rec.Frame); ok {
			return h.version, h.hasVersion
		}
	}
	return "", false
}

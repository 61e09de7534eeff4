package redact

import (
	"errors"
	"io"

	"github.com/clawtap/clawtap/pkg/capture"
)

// ReadError is a failure to read the input of Copy, as opposed to writing
// its output.
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// Copy writes the capture src reads to dst, redacted: its header (h when
// src has none) with note added to the redaction notes, then every record.
// The reader reports a source failing mid-stream as the capture's end (a
// warning and Stats.Truncated, like a cut capture); an error it does
// return is a *ReadError; anything else is dst's.
func (r *Redactor) Copy(dst *capture.Writer, src *capture.Reader, h capture.Header, note string) error {
	if hp := src.Header(); hp != nil {
		h = *hp
	}
	h = r.Header(h)
	h.Redaction.Notes = append(h.Redaction.Notes, note)
	if err := dst.WriteHeader(h); err != nil {
		return err
	}
	for {
		rec, err := src.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return &ReadError{err}
		}
		if err := dst.Write(r.Record(rec)); err != nil {
			return err
		}
	}
}

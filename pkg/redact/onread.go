package redact

import "github.com/clawtap/clawtap/pkg/capture"

// Unredacted reports whether a capture may hold credentials: it has no
// header (bare frames, a paste from a browser console), or its header does
// not say they were redacted when it was written (record --no-redact).
func Unredacted(h *capture.Header) bool {
	return h == nil || h.Redaction == nil || !h.Redaction.Credentials
}

// OnRead redacts the credentials of an unredacted capture as r reads it,
// so that nothing derived from it (a replay, a finding, a report) shows
// them; it reports whether it did. Only credentials go: the pass sees the
// same frames otherwise, and the same output every run.
func OnRead(r *capture.Reader) bool {
	if !Unredacted(r.Header()) {
		return false
	}
	red := New(Options{})
	return r.SetTransform(red.Record)
}

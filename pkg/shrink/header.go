package shrink

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/models"
)

// Header is the shrunk capture's header: the input's, its redaction
// section unchanged (the records are the input's, redacted as they were),
// with a note saying what was shrunk for. A capture without a header
// (bare frames) gets a fresh one dated by its first record, never by the
// clock, so the output is the same on every run.
func Header(in *capture.Header, recs []capture.Record, t Target, r *Result) capture.Header {
	var h capture.Header
	if in != nil {
		h = *in
	} else {
		h = capture.Header{Version: capture.Version, Source: capture.Source{Mode: "shrink"}}
		for _, rec := range recs {
			if rec.T > 0 {
				h.CreatedAt = time.UnixMilli(rec.T).UTC().Format(time.RFC3339)
				break
			}
		}
	}
	note := Note(t, r)
	if old := oldNotes(h.Notes); old != "" {
		note += " Original notes: " + old
	}
	h.Notes, _ = json.Marshal(note)
	return h
}

// Note is the sentence the shrunk capture's header carries.
func Note(t Target, r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Shrunk by clawtap shrink to %d of %d records that still show %s", len(r.Kept), r.Total, t)
	if r.Replays {
		ui := t.UI
		if ui.IsZero() {
			ui = models.Default()
		}
		fmt.Fprintf(&b, " under the %s UI", ui)
	}
	fmt.Fprintf(&b, " (%d check passes", r.Tests)
	if r.Exhausted {
		b.WriteString(", stopped at --max-tests: smaller may exist")
	}
	b.WriteString(").")
	return b.String()
}

// oldNotes renders the input's notes as text: a string as it is, any
// other JSON value as its JSON.
func oldNotes(raw json.RawMessage) string {
	v := jsonx.TrimSpace(raw)
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	if s, ok := jsonx.Str(v); ok {
		return s
	}
	return string(v)
}

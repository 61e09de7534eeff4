package replay

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

func appendJSONString(dst []byte, s string) []byte { return jsonx.AppendString(dst, s) }
func appendInt(dst []byte, n int64) []byte         { return strconv.AppendInt(dst, n, 10) }
func sortStrings(s []string)                       { slices.Sort(s) }

// Formatter renders steps and state. Every time it prints is an offset in
// milliseconds (JSON) or seconds (text) from T0, the capture's first
// record, so output does not depend on when a capture was recorded.
type Formatter struct {
	T0 int64
	// Style colours text output; the zero value prints plain text.
	Style Style
	// Width truncates frames and long values in text output (0 = 120).
	Width int
}

// Style colours parts of the text output. Nil functions print plain text.
type Style struct {
	Header, Time, Frame, Intent, Effect, Guard, Hazard, Path, From, To, Dim func(string) string
}

func paint(f func(string) string, s string) string {
	if f == nil {
		return s
	}
	return f(s)
}

func (f *Formatter) rel(t int64) int64 { return t - f.T0 }

// UIOfOutput finds the UI version that replay output names: the label of
// its last final state ("final state of the clawboo@1211c16 UI at …" in
// text, {"final":{"ui":"…"} in JSON); false when it names none (a
// transcript, or output cut before its final state). A golden file is
// replayed under the UI it names.
func UIOfOutput(out []byte) (string, bool) {
	const text, json = "final state of the ", `{"final":{"ui":"`
	best, label := -1, ""
	if i := bytes.LastIndex(out, []byte(text)); i >= 0 && (i == 0 || out[i-1] == '\n') {
		rest := out[i+len(text):]
		if j := bytes.Index(rest, []byte(" UI at ")); j > 0 && bytes.IndexByte(rest[:j], '\n') < 0 {
			best, label = i, string(rest[:j])
		}
	}
	if i := bytes.LastIndex(out, []byte(json)); i > best && (i == 0 || out[i-1] == '\n') {
		rest := out[i+len(json):]
		if j := bytes.IndexByte(rest, '"'); j > 0 && bytes.IndexByte(rest[:j], '\\') < 0 {
			best, label = i, string(rest[:j])
		}
	}
	return label, best >= 0
}

// Package message implements the message extraction rules of the clawboo
// reference (`@clawboo/protocol`, pipeline-spec §3): the visible text of a
// chat message (Text), its thinking (Thinking), its tool calls and result
// as transcript lines (ToolLines), and the transcript line markers
// ([[tool]], [[tool-result]], [[trace]], [[meta]]).
//
// Messages are raw JSON bytes, the `message` value of a chat payload, read
// with pkg/jsonx without building a tree. Any JSON value is accepted: a
// non-object gives the reference's null, or no lines. A message comes from
// a frame that was validated already (by the capture reader or
// bridge.Classify), so it is not validated again: on malformed JSON the
// results are unspecified, but never a panic.
// Where the reference's behaviour involves JavaScript semantics (the \s
// whitespace set, String#trim, Number#toString, JSON.stringify), this
// package reproduces them; the doc comments spell out each rule and every
// reading of the spec that had to be chosen. Nothing here panics, and every
// scan is linear in the input (pretty-printed tool arguments are as long as
// JSON.stringify makes them: deep nesting costs indentation on every line).
//
// Strings are JavaScript strings held in Go as WTF-8 (see pkg/jsstr): a
// lone UTF-16 surrogate in the JSON input (a stream cut inside an emoji)
// is kept, and pkg/jsonx writes it back as the same escape.
package message

package redact

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

func scanSeeds(f *testing.F) {
	for _, c := range textCorpus {
		f.Add([]byte(c.in), []byte(" and more"))
	}
	for _, c := range shapeFixtures {
		f.Add([]byte("x "+c.token+" y"), []byte(c.token[:len(c.token)/2]))
	}
	for _, s := range []string{statusText, "Auth: api-key", "token: <x>", "password = hunter2", "https:\\/\\/u:p@h",
		`{\"token\":\"abc\"}`, "Bearer abcdefgh12", "-----BEGIN RSA PRIVATE KEY-----\nx", "a\\u0074oken=x", "secret=\\\"x"} {
		f.Add([]byte(s), []byte("!"))
	}
}

// FuzzPrescan holds the pre-scan to its promise: when it says a frame (or
// a string) holds nothing a rule replaces, the walk (or the text rules)
// indeed replace nothing — whatever the bytes, escapes included; and the
// streamed-text cache never lets a frame through that a fresh redactor
// would change.
func FuzzPrescan(f *testing.F) {
	scanSeeds(f)
	f.Add([]byte(`{"token":"x","a":[1,{"b":"\u0041KIAIOSFODNN7EXAMPLE"}]}`), []byte(`{"apiKey":{"k":"4f9a8b7c6d5e4f3a2b1c"}}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		for _, frame := range [][]byte{a, b} {
			if !jsonx.Valid(frame) {
				continue
			}
			hit, credKey := prescan(frame, true)
			if hit || credKey {
				continue
			}
			r := New(Options{})
			if out, ok := r.w.run(0, frame); ok && !bytes.Equal(out, frame) {
				t.Fatalf("pre-scan says nothing, the walk changes it:\n in %q\nout %q", frame, out)
			}
		}
		for _, text := range [][]byte{a, b, append(append([]byte(nil), a...), b...)} {
			// As a message that is not JSON.
			if !mayHavePlainText(text) {
				if sp := scanText(text, nil); applySpans(text, sp, nil) != nil {
					t.Fatalf("pre-scan says nothing, the text rules find %v in %q", sp, text)
				}
			}
			// As a string of a frame, JSON-escaped.
			raw := jsonx.AppendStringMinimal(nil, text)
			raw = raw[1 : len(raw)-1]
			if !mayHaveText(raw) {
				if sp := scanText(text, nil); applySpans(text, sp, nil) != nil {
					t.Fatalf("pre-scan of the escaped string says nothing, the text rules find %v in %q", sp, text)
				}
			}
		}
		// The names' verdicts remembered from a: b is let through only
		// when the walk changes nothing.
		if jsonx.Valid(b) {
			var tc textCache
			tc.frameScan(a)
			if hit, credKey := tc.frameScan(b); !hit && !credKey {
				if out, ok := New(Options{}).w.run(0, b); ok && !bytes.Equal(out, b) {
					t.Fatalf("a remembered name let a credential through:\n in %q\nout %q", b, out)
				}
			}
		}
		// The frames' starts remembered: a, then a's first half and b.
		{
			r := New(Options{})
			r.Frame("in", a)
			f := append(append([]byte(nil), a[:len(a)/2]...), b...)
			if got, want := r.Frame("in", f), New(Options{}).Frame("in", f); !bytes.Equal(got, want) {
				t.Fatalf("a remembered start let a credential through:\n got %q\nwant %q", got, want)
			}
		}
		// The cache: a reply streamed as a, then a+b.
		if len(a) > 0 {
			agent := func(text []byte) []byte {
				f := jsonx.AppendString([]byte(`{"type":"event","event":"agent","payload":{"runId":"r1","stream":"assistant","data":{"text":`), string(text))
				return append(f, `}}}`...)
			}
			r := New(Options{})
			r.Frame("in", agent(a))
			r.Frame("in", agent(a))
			ab := append(append([]byte(nil), a...), b...)
			got := r.Frame("in", agent(ab))
			want := New(Options{}).Frame("in", agent(ab))
			if !bytes.Equal(got, want) {
				t.Fatalf("the cache let a credential through:\n got %q\nwant %q", got, want)
			}
		}
	})
}

// FuzzIdempotent: redaction is idempotent (a redacted frame or text is
// redacted again to itself, not even copied), so replacing a credential
// never makes a new one out of what is around it.
func FuzzIdempotent(f *testing.F) {
	scanSeeds(f)
	for _, s := range []string{connectV4, helloV4, chatDelta, agentText, toolResult, configSchemaFrame} {
		f.Add([]byte(s), []byte(""))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		in := append(append([]byte(nil), a...), b...)
		once := New(Options{}).Frame("in", in)
		twice := New(Options{}).Frame("in", once)
		if !bytes.Equal(once, twice) {
			t.Fatalf("not idempotent:\n  in %q\nonce %q\n  2x %q", in, once, twice)
		}
		raw := New(Options{}).Record(&capture.Record{Conn: 1, IsRaw: true, Raw: in})
		raw2 := New(Options{}).Record(&capture.Record{Conn: 1, IsRaw: true, Raw: raw.Raw})
		if !bytes.Equal(raw.Raw, raw2.Raw) {
			t.Fatalf("text not idempotent:\n  in %q\nonce %q\n  2x %q", in, raw.Raw, raw2.Raw)
		}
		// In a frame's text too.
		frame := jsonx.AppendString([]byte(`{"text":`), string(in))
		frame = append(frame, '}')
		f1 := New(Options{}).Frame("in", frame)
		if f2 := New(Options{}).Frame("in", f1); !bytes.Equal(f1, f2) {
			t.Fatalf("frame text not idempotent:\n  in %q\nonce %q\n  2x %q", frame, f1, f2)
		}
	})
}

// The cache across a long streamed reply: every chunk's frame is what a
// fresh redactor makes of it, and a credential the reply ends with goes.
func TestTextCacheStream(t *testing.T) {
	words := []string{"the ", "token ", "is ", "in ", "a ", "file, ", "see: ", "password: ", "hunter2 ", "and ", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t ", "done.\n"}
	r := New(Options{})
	text := ""
	for i := 0; i < 600; i++ {
		text += words[i%len(words)]
		f := []byte(fmt.Sprintf(`{"type":"event","event":"agent","payload":{"runId":"r1","stream":"assistant","data":{"text":%q,"delta":%q}}}`, text, words[i%len(words)]))
		got := r.Frame("in", f)
		want := New(Options{}).Frame("in", f)
		if !bytes.Equal(got, want) {
			t.Fatalf("chunk %d differs:\n got %s\nwant %s", i, got, want)
		}
	}
}

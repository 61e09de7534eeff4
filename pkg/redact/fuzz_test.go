package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

const planted = "PlantedZx9Secret"

// fuzzKeys are credential keys the fuzzer plants a secret under.
var fuzzKeys = []string{"token", "password", "deviceToken", "bootstrapToken", "signature", "nonce", "apiKey", "api_key",
	"client_secret", "x-api-key", "set-cookie", "authorization", "pathEnv", "recoveryScope", "auth", "secret", "jwt",
	"privateKey", "refresh_token", "credentials", "agentRuntimeIdentityToken", "T_O_K_E_N", "to\\u006ben"}

// objectStarts returns the offsets of the '{' of every object in a valid
// JSON value.
func objectStarts(b []byte) []int {
	var out []int
	in, esc := false, false
	for i, c := range b {
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && c == '{':
			out = append(out, i)
		}
	}
	return out
}

// plant inserts "key":"planted" and a note holding a shaped token as the
// first members of the object at offset at.
func plant(frame []byte, at int, key, token string) []byte {
	member := `"` + key + `":"` + planted + `","note":"see ` + token + ` here"`
	rest := frame[at+1:]
	if j := skipWS(rest, 0); j < len(rest) && rest[j] != '}' {
		member += ","
	}
	out := make([]byte, 0, len(frame)+len(member))
	out = append(out, frame[:at+1]...)
	out = append(out, member...)
	return append(out, rest...)
}

// FuzzFrame: Frame never panics, keeps valid JSON valid, returns the input
// untouched when it changes nothing, and never lets a secret planted under a
// credential key, or a shaped token planted in text, through.
func FuzzFrame(f *testing.F) {
	for _, s := range []string{connectV4, helloV4, helloV3, chatDelta, agentText, toolResult, approval, presenceV4, badToken, `[]`, `"x"`} {
		f.Add([]byte(s), uint8(0), uint8(0), false)
	}
	f.Fuzz(func(t *testing.T, frame []byte, where, which uint8, content bool) {
		r := New(Options{Content: content, Salt: []byte("fuzz")})
		valid := jsonx.Valid(frame)
		out := r.Frame("in", frame)
		if valid && !jsonx.Valid(out) {
			t.Fatalf("valid input, invalid output:\n in %q\nout %q", frame, out)
		}
		if bytes.Equal(out, frame) && !sameSlice(out, frame) {
			t.Fatalf("unchanged frame copied")
		}
		if !valid {
			return
		}
		starts := objectStarts(frame)
		if len(starts) == 0 {
			return
		}
		before := bytes.Count(frame, []byte(planted))
		tok := shapeTokens[int(which)%len(shapeTokens)]
		body := tok[len(tok)-12:]
		beforeTok := bytes.Count(frame, []byte(body))
		in := plant(frame, starts[int(where)%len(starts)], fuzzKeys[int(which)%len(fuzzKeys)], tok)
		if !jsonx.Valid(in) {
			t.Fatalf("test bug: planting broke %q", in)
		}
		out = New(Options{Content: content, Salt: []byte("fuzz")}).Frame("in", in)
		if !jsonx.Valid(out) {
			t.Fatalf("invalid output:\n in %q\nout %q", in, out)
		}
		if bytes.Count(out, []byte(planted)) > before {
			t.Fatalf("planted secret survived:\n in %q\nout %q", in, out)
		}
		if bytes.Count(out, []byte(body)) > beforeTok {
			t.Fatalf("planted token survived:\n in %q\nout %q", in, out)
		}
	})
}

// FuzzText: the text rules never panic, and a shaped token planted as a
// word anywhere in any text (a message that is not JSON) never survives,
// nor does it when the text is a frame's string value.
func FuzzText(f *testing.F) {
	for _, c := range textCorpus {
		f.Add([]byte(c.in), uint8(len(c.name)), uint16(len(c.in)/2))
	}
	f.Add([]byte("-----BEGIN RSA PRIVATE KEY-----\nabc"), uint8(3), uint16(10))
	f.Add([]byte("token: \"x"), uint8(14), uint16(7))
	f.Fuzz(func(t *testing.T, text []byte, which uint8, pos uint16) {
		tok := shapeTokens[int(which)%len(shapeTokens)]
		body := tok[len(tok)-12:]
		at := int(pos) % (len(text) + 1)
		in := append(append(append([]byte(nil), text[:at]...), " "+tok+" "...), text[at:]...)
		before := bytes.Count(text, []byte(body))
		raw := New(Options{}).Record(&capture.Record{Conn: 1, IsRaw: true, Raw: in})
		if bytes.Count(raw.Raw, []byte(body)) > before {
			t.Fatalf("token survived in text:\n in %q\nout %q", in, raw.Raw)
		}
		frame := jsonx.AppendString([]byte(`{"type":"event","event":"chat","payload":{"message":{"content":[{"type":"text","text":`), string(in))
		frame = append(frame, "}]}}}"...)
		out := New(Options{}).Frame("in", frame)
		if !jsonx.Valid(out) {
			t.Fatalf("invalid output: %q", out)
		}
		var v struct {
			Payload struct {
				Message struct{ Content []struct{ Text string } }
			}
		}
		if err := json.Unmarshal(out, &v); err != nil || len(v.Payload.Message.Content) != 1 {
			t.Fatalf("output %q: %v", out, err)
		}
		if strings.Count(v.Payload.Message.Content[0].Text, body) > strings.Count(string(bytes.ToValidUTF8(text, []byte("\uFFFD"))), body) {
			t.Fatalf("token survived in a frame:\n in %q\nout %q", frame, out)
		}
	})
}

package redact

import (
	"bytes"
	"testing"

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

// plant inserts "key":"planted" as the first member of the object at
// offset at.
func plant(frame []byte, at int, key string) []byte {
	member := `"` + key + `":"` + planted + `"`
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
// credential key through.
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
		in := plant(frame, starts[int(where)%len(starts)], fuzzKeys[int(which)%len(fuzzKeys)])
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
	})
}

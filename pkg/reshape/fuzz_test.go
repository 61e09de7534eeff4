package reshape_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/release"
	"github.com/clawtap/clawtap/pkg/reshape"
)

// Any input reshapes without a panic: it is refused, or fails to read, or
// gives a capture that reads back with as many records, which reshape
// then refuses to reshape again.
func FuzzReshape(f *testing.F) {
	for _, name := range []string{"slash-command", "bare-frames"} {
		fx, _ := synth.Lookup(name)
		b, err := fx.Bytes()
		if err != nil {
			f.Fatal(err)
		}
		if plain, rel, err := capture.Decompress(bytes.NewReader(b)); err == nil {
			var buf bytes.Buffer
			_, _ = buf.ReadFrom(plain)
			rel()
			b = buf.Bytes()
		}
		f.Add(b)
	}
	f.Add([]byte(`{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"s","state":"delta","deltaText":"a","message":{"content":[{"type":"text","text":"a"}]}}}` + "\n" +
		`{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"s","state":"delta","deltaText":"b","message":{"content":[{"type":"text","text":"ab"}],"message":1}}}` + "\n"))
	f.Add([]byte(`{"type":"event","event":"agent","payload":{"runId":"r","sessionKey":"s","stream":"assistant","data":{"text":"a","delta":"a"}}}` + "\n" +
		`{"type":"event","event":"agent","payload":{"runId":"r","sessionKey":"s","stream":"assistant","data":{ "text" : "ab" , "delta":"b"}}}` + "\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := capture.NewReader(bytes.NewReader(in), capture.Options{Serial: true, MaxLine: 1 << 16})
		if err != nil {
			return
		}
		defer r.Close()
		var out bytes.Buffer
		w, _ := capture.NewWriter(&out, false)
		res, err := reshape.Copy(w, r, reshape.Options{Target: release.V2026_9_7, Force: true})
		w.Close()
		if err != nil {
			return
		}
		n := r.Stats().Records
		r2, err := capture.NewReader(bytes.NewReader(out.Bytes()), capture.Options{Serial: true, MaxLine: 1 << 17})
		if err != nil {
			t.Fatalf("the output is not a capture: %v", err)
		}
		defer r2.Close()
		var w2 bytes.Buffer
		cw, _ := capture.NewWriter(&w2, false)
		_, err = reshape.Copy(cw, r2, reshape.Options{Target: release.V2026_9_7, Force: true})
		if err == nil {
			t.Fatal("a reshaped capture was reshaped again")
		}
		if res.Records != n {
			t.Fatalf("%d records written, %d read", res.Records, n)
		}
	})
}

// Removing a member splices exactly it out: what is left is the object
// without it, whatever the spacing, escapes and order of its members.
func FuzzMemberSpan(f *testing.F) {
	for _, s := range []string{`{"a":1,"message":{"x":[1,2]},"b":"c"}`, `{"message":1}`, `{ "message" : 1 , "z" : 2 }`, `{"z":2,"m\u0065ssage":"q"}`, `{"message":1,"message":2}`, `{}`, `[1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, obj []byte) {
		a, b, n := reshape.MemberSpan(obj, "message")
		if n != 1 {
			return
		}
		if a < 0 || b > len(obj) || a > b {
			t.Fatalf("span [%d,%d) of %d bytes", a, b, len(obj))
		}
		var in map[string]any
		if json.Unmarshal(obj, &in) != nil {
			return // memberSpan does not validate; the frames it gets are valid
		}
		out := append(append([]byte{}, obj[:a]...), obj[b:]...)
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s without message is %s: %v", obj, out, err)
		}
		delete(in, "message")
		if !reflect.DeepEqual(in, got) {
			t.Fatalf("%s without message is %s", obj, out)
		}
	})
}

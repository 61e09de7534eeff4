package serve

import (
	"testing"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

var headSeeds = []string{
	`{"type":"event","event":"tick","payload":{"ts":1},"seq":7}`,
	`{"type":"event", "event":"chat", "payload":{"runId":"r","seq":3}, "seq" : 41 }`,
	`{"type":"req","id":"s1","method":"chat.send","params":{"idempotencyKey":"k"}}`,
	`{"type":"req","id":12,"method":"connect"}`,
	`{"type":"res","id":"s1","ok":true,"payload":{"runId":"k"}}`,
	`{"type":"res","id":{"x":1},"ok":false}`,
	`{"ty\u0070e":"ev\u0065nt","\u0065vent":"connect.challenge","seq":"1"}`,
	`{"type":"event","seq":1,"seq":2.5}`,
	`{"type":"event","seq":1.0}`,
	`{"type":"hello"}`,
	`{"seq":3}`,
	`[1,2]`,
	`"event"`,
	`{}`,
	`{"type":"req","type":"res","id":"x"}`,
}

// readHead agrees with bridge, which the rest of clawtap classifies with,
// on everything serve reads of a frame.
func TestReadHeadAgreesWithBridge(t *testing.T) {
	for _, s := range headSeeds {
		checkHead(t, []byte(s))
	}
}

func FuzzReadHead(f *testing.F) {
	for _, s := range headSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		frame := jsonx.TrimSpace([]byte(s))
		h := readHead(frame) // never panics, whatever the bytes
		if h.hasSeq && (h.seqAt.start < 0 || h.seqAt.end > len(frame) || h.seqAt.start > h.seqAt.end) {
			t.Fatalf("seq span %v outside %q", h.seqAt, frame)
		}
		if jsonx.Valid(frame) {
			checkHead(t, frame)
		}
	})
}

func checkHead(t *testing.T, frame []byte) {
	t.Helper()
	h := readHead(frame)
	ev := bridge.Classify(frame, 0)
	want := frameOther
	switch {
	case ev.Kind == bridge.Request:
		want = frameReq
	case ev.Kind == bridge.Response:
		want = frameRes
	case ev.Type == "event" && ev.Kind != bridge.Invalid:
		want = frameEvent
	}
	if h.typ != want {
		t.Fatalf("%s: type %d, bridge says %q (%q)", frame, h.typ, ev.Type, ev.Kind)
	}
	switch want {
	case frameReq:
		if m, _ := jsonx.Str(h.method); m != ev.Method || h.id() != ev.ID {
			t.Fatalf("%s: method %q id %q, bridge says %q %q", frame, m, h.id(), ev.Method, ev.ID)
		}
	case frameRes:
		if h.id() != ev.ID {
			t.Fatalf("%s: id %q, bridge says %q", frame, h.id(), ev.ID)
		}
	case frameEvent:
		if e, _ := jsonx.Str(h.event); e != ev.Event || h.hasSeq != ev.HasSeq || h.seq != ev.Seq {
			t.Fatalf("%s: event %q seq %d/%v, bridge says %q %d/%v", frame, e, h.seq, h.hasSeq, ev.Event, ev.Seq, ev.HasSeq)
		}
		if h.hasSeq {
			if n, ok := jsonx.Int(frame[h.seqAt.start:h.seqAt.end]); !ok || n != h.seq {
				t.Fatalf("%s: the seq span %v does not hold %d", frame, h.seqAt, h.seq)
			}
		}
	}
}

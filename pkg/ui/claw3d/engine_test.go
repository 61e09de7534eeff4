package claw3d_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/ui"
	"github.com/clawtap/clawtap/pkg/ui/claw3d"
)

const T0 = 1_700_000_000_000

// rec builds a frame record at T0+ms on connection 1.
func rec(ms int64, frame string) *capture.Record {
	return &capture.Record{T: T0 + ms, Conn: 1, Dir: capture.DirIn, Frame: []byte(frame)}
}

func onConn(r *capture.Record, conn int) *capture.Record { r.Conn = conn; return r }

func mark(ms int64, conn int, m string) *capture.Record {
	return &capture.Record{T: T0 + ms, Conn: conn, Mark: m}
}

func start(ms int64, run string) *capture.Record {
	return rec(ms, fmt.Sprintf(`{"type":"event","event":"agent","payload":{"runId":%q,"sessionKey":"agent:main:main","stream":"lifecycle","data":{"phase":"start"}}}`, run))
}

func end(ms int64, run string) *capture.Record {
	return rec(ms, fmt.Sprintf(`{"type":"event","event":"agent","payload":{"runId":%q,"sessionKey":"agent:main:main","stream":"lifecycle","data":{"phase":"end"}}}`, run))
}

func delta(ms int64, agent, run, text string) *capture.Record {
	return rec(ms, fmt.Sprintf(`{"type":"event","event":"chat","payload":{"runId":%q,"sessionKey":"agent:%s:main","state":"delta","message":{"role":"assistant","content":[{"type":"text","text":%q}]}}}`, run, agent, text))
}

func final(ms int64, run, text string) *capture.Record {
	return rec(ms, fmt.Sprintf(`{"type":"event","event":"chat","payload":{"runId":%q,"sessionKey":"agent:main:main","state":"final","model":"m1","message":{"role":"assistant","content":[{"type":"text","text":%q}],"usage":{"input_tokens":10,"output_tokens":5}}}}`, run, text))
}

func presence(ms int64) *capture.Record {
	return rec(ms, `{"type":"event","event":"presence","payload":{}}`)
}

func heartbeat(ms int64) *capture.Record {
	return rec(ms, `{"type":"event","event":"heartbeat","payload":{}}`)
}

func approval(ms int64, id string, expiresMs int64) *capture.Record {
	exp := ""
	if expiresMs != 0 {
		exp = fmt.Sprintf(`,"expiresAtMs":%d`, T0+expiresMs)
	}
	return rec(ms, fmt.Sprintf(`{"type":"event","event":"exec.approval.requested","payload":{"id":%q,"request":{"command":"ls -la","agentId":"main"},"createdAtMs":%d%s}}`, id, T0+ms, exp))
}

func resolved(ms int64, id string) *capture.Record {
	return rec(ms, fmt.Sprintf(`{"type":"event","event":"exec.approval.resolved","payload":{"id":%q,"decision":"allow-once","request":{"agentId":"main"}}}`, id))
}

// stepLog is a compact, comparable trace of a replay.
type stepLog struct {
	steps []string
	e     *replay.Engine
	f     *replay.Formatter
}

func (l *stepLog) emit(s *replay.Step) error {
	if !s.Changed() {
		return nil
	}
	var b strings.Builder
	if s.Timer != "" {
		fmt.Fprintf(&b, "%d %s@%d:", s.I, s.Timer, s.T-T0)
	} else {
		fmt.Fprintf(&b, "#%d@%d:", s.I, s.T-T0)
	}
	for i := range s.Effects {
		e := &s.Effects[i]
		b.WriteString(" " + e.Type)
		if e.Action != "" {
			b.WriteString(":" + e.Action)
		}
		if e.Type == replay.EffDispose {
			b.WriteString(":" + e.Name)
		}
	}
	for _, c := range s.Diff {
		fmt.Fprintf(&b, " %s=%s", c.Path, l.f.ValueText(c.To))
	}
	l.steps = append(l.steps, b.String())
	return nil
}

func replayAll(t *testing.T, opts replay.Options, recs ...*capture.Record) *stepLog {
	t.Helper()
	e := replay.New(opts)
	l := &stepLog{e: e, f: &replay.Formatter{T0: T0}}
	for i, r := range recs {
		r.Index = i
		if err := e.Record(r, l.emit); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Finish(l.emit); err != nil {
		t.Fatal(err)
	}
	return l
}

func (l *stepLog) has(t *testing.T, sub string) {
	t.Helper()
	for _, s := range l.steps {
		if strings.Contains(s, sub) {
			return
		}
	}
	t.Fatalf("no step contains %q:\n%s", sub, strings.Join(l.steps, "\n"))
}

func (l *stepLog) lacks(t *testing.T, sub string) {
	t.Helper()
	for _, s := range l.steps {
		if strings.Contains(s, sub) {
			t.Fatalf("a step contains %q: %s", sub, s)
		}
	}
}

func lines(e *replay.Engine, agent string) []string {
	a := e.State().Agent(agent)
	if a == nil {
		return nil
	}
	var out []string
	for _, l := range a.Lines() {
		out = append(out, l.Text)
	}
	return out
}

// TestClaw3DTranscriptCap: Claw3D keeps 600 transcript entries, and the
// transcript says so.
func TestClaw3DTranscriptCap(t *testing.T) {
	var recs []*capture.Record
	for i := range 310 { // a [[meta]] line and the reply per run: 620 entries
		run := fmt.Sprint("r", i)
		recs = append(recs, start(int64(i*100), run), final(int64(i*100+10), run, fmt.Sprint("reply ", i)), end(int64(i*100+20), run))
	}
	l := replayAll(t, replay.Options{UI: c3d}, recs...)
	a := l.e.State().Agent("main")
	if a == nil || len(a.Lines()) != 600 || a.LinesDropped() != 20 {
		t.Fatalf("claw3d keeps 600 entries: %v", a)
	}
	tr := string(l.f.AppendTranscriptText(nil, l.e.State(), replay.StateFilter{}))
	if !strings.Contains(tr, "(600 line(s); 20 older dropped by the 600-line cap)") {
		t.Errorf("transcript header: %s", tr[:strings.IndexByte(tr, '\n')])
	}
}

// TestClaw3DIsDisconnectedAfterAClose: Claw3D refreshes its summary only
// while connected; after the followed connection's close a presence frame
// (a late one on the same socket) is ignored, and the next connection
// connects it again.
func TestClaw3DIsDisconnectedAfterAClose(t *testing.T) {
	recs := []*capture.Record{mark(0, 1, capture.MarkOpen), presence(10), mark(100, 1, capture.MarkClose), presence(200),
		mark(300, 2, capture.MarkOpen), onConn(presence(310), 2)}
	e := replay.New(replay.Options{UI: c3d})
	var reasons []string
	emit := func(s *replay.Step) error {
		for _, in := range s.Intents {
			if b := string(in.AppendJSONAt(nil, 0)); in.IntentKind() == ui.IgnoreKind && strings.Contains(b, "connected") {
				reasons = append(reasons, fmt.Sprint(s.I, ":", b))
			}
		}
		return nil
	}
	for i, r := range recs {
		r.Index = i
		if err := e.Record(r, emit); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Finish(emit); err != nil {
		t.Fatal(err)
	}
	if len(reasons) != 1 || !strings.HasPrefix(reasons[0], "3:") {
		t.Errorf("only the presence after the close is ignored as not connected: %v", reasons)
	}
}

// c3d is the version these tests replay.
var c3d = replay.UI{Model: claw3d.Model{}, Version: claw3d.Veeb6f31}

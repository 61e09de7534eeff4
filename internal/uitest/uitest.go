// Package uitest holds what the UI models' tests share: frames built at a
// fixed clock, a fake clock whose timers fire only when a test advances
// it, and a compact log of a replay's steps. It is for tests only.
package uitest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/replay"
)

// T0 is the start of every test's clock (unix ms).
const T0 = 1_700_000_000_000

// Rec builds a frame record at T0+ms on connection 1.
func Rec(ms int64, frame string) *capture.Record {
	return &capture.Record{T: T0 + ms, Conn: 1, Dir: capture.DirIn, Frame: []byte(frame)}
}

// OnConn moves r to connection conn.
func OnConn(r *capture.Record, conn int) *capture.Record { r.Conn = conn; return r }

// Mark is a connection marker at T0+ms.
func Mark(ms int64, conn int, m string) *capture.Record {
	return &capture.Record{T: T0 + ms, Conn: conn, Mark: m}
}

// Start is run's lifecycle start in agent:main:main.
func Start(ms int64, run string) *capture.Record {
	return Rec(ms, fmt.Sprintf(`{"type":"event","event":"agent","payload":{"runId":%q,"sessionKey":"agent:main:main","stream":"lifecycle","data":{"phase":"start"}}}`, run))
}

// End is run's lifecycle end in agent:main:main.
func End(ms int64, run string) *capture.Record {
	return Rec(ms, fmt.Sprintf(`{"type":"event","event":"agent","payload":{"runId":%q,"sessionKey":"agent:main:main","stream":"lifecycle","data":{"phase":"end"}}}`, run))
}

// Delta is a chat delta of run in agent's main session with the
// cumulative text.
func Delta(ms int64, agent, run, text string) *capture.Record {
	return Rec(ms, fmt.Sprintf(`{"type":"event","event":"chat","payload":{"runId":%q,"sessionKey":"agent:%s:main","state":"delta","message":{"role":"assistant","content":[{"type":"text","text":%q}]}}}`, run, agent, text))
}

// Final is run's chat final in agent:main:main, with usage.
func Final(ms int64, run, text string) *capture.Record {
	return Rec(ms, fmt.Sprintf(`{"type":"event","event":"chat","payload":{"runId":%q,"sessionKey":"agent:main:main","state":"final","model":"m1","message":{"role":"assistant","content":[{"type":"text","text":%q}],"usage":{"input_tokens":10,"output_tokens":5}}}}`, run, text))
}

// Presence is a presence event.
func Presence(ms int64) *capture.Record {
	return Rec(ms, `{"type":"event","event":"presence","payload":{}}`)
}

// Heartbeat is a heartbeat event.
func Heartbeat(ms int64) *capture.Record {
	return Rec(ms, `{"type":"event","event":"heartbeat","payload":{}}`)
}

// Approval is an exec approval request; expiresMs 0 has no expiry.
func Approval(ms int64, id string, expiresMs int64) *capture.Record {
	exp := ""
	if expiresMs != 0 {
		exp = fmt.Sprintf(`,"expiresAtMs":%d`, T0+expiresMs)
	}
	return Rec(ms, fmt.Sprintf(`{"type":"event","event":"exec.approval.requested","payload":{"id":%q,"request":{"command":"ls -la","agentId":"main"},"createdAtMs":%d%s}}`, id, T0+ms, exp))
}

// Resolved resolves approval id.
func Resolved(ms int64, id string) *capture.Record {
	return Rec(ms, fmt.Sprintf(`{"type":"event","event":"exec.approval.resolved","payload":{"id":%q,"decision":"allow-once","request":{"agentId":"main"}}}`, id))
}

// StepLog is a compact, comparable trace of a replay: a line per step
// that changed something.
type StepLog struct {
	Steps []string
	E     *replay.Engine
	F     *replay.Formatter
}

// Emit takes one step.
func (l *StepLog) Emit(s *replay.Step) error {
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
		fmt.Fprintf(&b, " %s=%s", c.Path, l.F.ValueText(c.To))
	}
	l.Steps = append(l.Steps, b.String())
	return nil
}

// Replay replays recs under opts, numbering them, and logs the steps;
// width clips values in the log (0: the formatter's default).
func Replay(t testing.TB, opts replay.Options, width int, recs ...*capture.Record) *StepLog {
	t.Helper()
	e := replay.New(opts)
	l := &StepLog{E: e, F: &replay.Formatter{T0: T0, Width: width}}
	for i, r := range recs {
		r.Index = i
		if err := e.Record(r, l.Emit); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Finish(l.Emit); err != nil {
		t.Fatal(err)
	}
	return l
}

// Has fails unless a step's line contains sub.
func (l *StepLog) Has(t testing.TB, sub string) {
	t.Helper()
	for _, s := range l.Steps {
		if strings.Contains(s, sub) {
			return
		}
	}
	t.Fatalf("no step contains %q:\n%s", sub, strings.Join(l.Steps, "\n"))
}

// Lacks fails if a step's line contains sub.
func (l *StepLog) Lacks(t testing.TB, sub string) {
	t.Helper()
	for _, s := range l.Steps {
		if strings.Contains(s, sub) {
			t.Fatalf("a step contains %q: %s", sub, s)
		}
	}
}

// Transcript is the texts of an agent's committed transcript lines, oldest
// first (nil for an agent the replay never wrote).
func Transcript(e *replay.Engine, agent string) []string {
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

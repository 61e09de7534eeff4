package claw3d_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/uitest"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/models/claw3d"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/ui"
)

func replayAll(t *testing.T, opts replay.Options, recs ...*capture.Record) *uitest.StepLog {
	t.Helper()
	return uitest.Replay(t, opts, 0, recs...)
}

// TestClaw3DTranscriptCap: Claw3D keeps 600 transcript entries, and the
// transcript says so.
func TestClaw3DTranscriptCap(t *testing.T) {
	var recs []*capture.Record
	for i := range 310 { // a [[meta]] line and the reply per run: 620 entries
		run := fmt.Sprint("r", i)
		recs = append(recs, uitest.Start(int64(i*100), run), uitest.Final(int64(i*100+10), run, fmt.Sprint("reply ", i)), uitest.End(int64(i*100+20), run))
	}
	l := replayAll(t, replay.Options{UI: c3d}, recs...)
	a := l.E.State().Agent("main")
	if a == nil || len(a.Lines()) != 600 || a.LinesDropped() != 20 {
		t.Fatalf("claw3d keeps 600 entries: %v", a)
	}
	tr := string(l.F.AppendTranscriptText(nil, l.E.State(), replay.StateFilter{}))
	if !strings.Contains(tr, "(600 line(s); 20 older dropped by the 600-line cap)") {
		t.Errorf("transcript header: %s", tr[:strings.IndexByte(tr, '\n')])
	}
}

// TestClaw3DIsDisconnectedAfterAClose: Claw3D refreshes its summary only
// while connected; after the followed connection's close a presence frame
// (a late one on the same socket) is ignored, and the next connection
// connects it again.
func TestClaw3DIsDisconnectedAfterAClose(t *testing.T) {
	recs := []*capture.Record{uitest.Mark(0, 1, capture.MarkOpen), uitest.Presence(10), uitest.Mark(100, 1, capture.MarkClose), uitest.Presence(200),
		uitest.Mark(300, 2, capture.MarkOpen), uitest.OnConn(uitest.Presence(310), 2)}
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

package clawboo

import (
	"fmt"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/ui"
)

// captured is clawboo's model with the runtime the engine built kept, so
// a test can call the host's store writers directly.
type captured struct {
	Model
	h *host
}

func (c *captured) New(v ui.Version, h *replay.Host) replay.Runtime {
	c.h = newHost(h, behaviourOf(v))
	return c.h
}

// inStep runs fn as a timer step of the engine and returns the step's
// effects and diff.
func inStep(t *testing.T, e *replay.Engine, c *captured, fn func()) ([]replay.Effect, []replay.Change) {
	t.Helper()
	c.h.h.After(0, "test", fn)
	var effs []replay.Effect
	var diff []replay.Change
	err := e.Advance(e.Now(), func(s *replay.Step) error {
		effs = append(effs, s.Effects...)
		diff = append(diff, s.Diff...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return effs, diff
}

func TestTranscriptCapAndDedupe(t *testing.T) {
	c := &captured{}
	e := replay.New(replay.Options{UI: replay.UI{Model: c, Version: V1211c16}})
	start := &capture.Record{T: 1000, Conn: 1, Dir: capture.DirIn, Frame: []byte(`{"type":"event","event":"agent","payload":{"runId":"r1","sessionKey":"agent:main:main","stream":"lifecycle","data":{"phase":"start"}}}`)}
	if err := e.Record(start, nil); err != nil {
		t.Fatal(err)
	}
	a := e.State().EnsureAgent("main")
	inStep(t, e, c, func() {
		// Layer 2: same kind, timestamp and text — within the batch too.
		if n := c.h.appendLines(a, []string{"x", "x", "[[tool]] t", "y"}, replay.Line{Kind: replay.LineAssistant, TS: 5}); n != 3 {
			t.Fatalf("kept %d", n)
		}
		if n := c.h.appendLines(a, []string{"x"}, replay.Line{Kind: replay.LineAssistant, TS: 5}); n != 0 {
			t.Fatal("duplicate with the same timestamp kept")
		}
		if n := c.h.appendLines(a, []string{"x"}, replay.Line{Kind: replay.LineAssistant, TS: 6}); n != 1 {
			t.Fatal("a repeat with another timestamp must survive")
		}
	})
	if a.Lines()[1].Kind != replay.LineTool {
		t.Fatalf("kind %q", a.Lines()[1].Kind)
	}
	for i := 0; i < 600; i++ {
		inStep(t, e, c, func() {
			c.h.appendLines(a, []string{fmt.Sprint("line ", i)}, replay.Line{Kind: replay.LineAssistant, TS: int64(100 + i)})
		})
	}
	if len(a.Lines()) != TranscriptCap || a.LinesDropped() != 604-TranscriptCap || a.Lines()[TranscriptCap-1].Text != "line 599" {
		t.Fatalf("%d lines, %d dropped, last %q", len(a.Lines()), a.LinesDropped(), a.Lines()[TranscriptCap-1].Text)
	}
	// Diff paths keep absolute numbers past the cap.
	effs, diff := inStep(t, e, c, func() { c.h.appendLines(a, []string{"newest"}, replay.Line{Kind: replay.LineAssistant, TS: 9999}) })
	if len(diff) != 1 || diff[0].Path.String() != "agents.main.outputLines.604" {
		t.Fatalf("diff %v", diff)
	}
	if ef := effs[len(effs)-1]; ef.Type != replay.EffTrim || ef.Count != 1 {
		t.Fatalf("no trim effect: %+v", ef)
	}
}

// TestHandlerConstantsVisible guards the numbers the docs promise.
func TestHandlerConstantsVisible(t *testing.T) {
	if ClosedRunTTLMs != 30_000 || ClosedRunsMaxSize != 500 || ApprovalSweepMs != 5000 || TranscriptCap != 500 || dedupeWindow != 50 {
		t.Fatal("a documented constant changed")
	}
}

//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
)

const redacted = "__CLAWTAP_REDACTED__"

// capFile is a capture read back whole.
type capFile struct {
	header *capture.Header
	recs   []*capture.Record
	stats  capture.Stats
	warns  []capture.Warning
}

func readCap(t *testing.T, path string) *capFile {
	t.Helper()
	c, err := tryReadCap(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return c
}

func tryReadCap(path string) (*capFile, error) {
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	c := &capFile{header: r.Header()}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		c.recs = append(c.recs, rec.Clone())
	}
	c.stats, c.warns = r.Stats(), r.Warnings()
	return c, nil
}

// marks lists "conn:mark" in order.
func (c *capFile) marks() []string {
	var out []string
	for _, r := range c.recs {
		if r.Mark != "" {
			out = append(out, fmt.Sprintf("%d:%s", r.Conn, r.Mark))
		}
	}
	return out
}

func (c *capFile) mark(conn int, name string) *capture.Record {
	for _, r := range c.recs {
		if r.Conn == conn && r.Mark == name {
			return r
		}
	}
	return nil
}

func (c *capFile) hasMark(name string, pred func(*capture.Record) bool) bool {
	for _, r := range c.recs {
		if r.Mark == name && pred(r) {
			return true
		}
	}
	return false
}

// frames returns the frame records of conn (0: all) with their events.
func (c *capFile) frames(conn int) []frameRec {
	var out []frameRec
	for _, r := range c.recs {
		if r.Frame == nil || (conn != 0 && r.Conn != conn) {
			continue
		}
		out = append(out, frameRec{rec: r, ev: bridge.Classify(r.Frame, r.T)})
	}
	return out
}

type frameRec struct {
	rec *capture.Record
	ev  bridge.Event
}

func (f frameRec) chat() chatPayload {
	var p chatPayload
	_ = json.Unmarshal(f.ev.Payload, &p)
	return p
}

// text is every record as a line, for "is this secret anywhere" checks.
func (c *capFile) text() string {
	var b strings.Builder
	hb, _ := json.Marshal(c.header)
	b.Write(hb)
	for _, r := range c.recs {
		b.Write(r.AppendJSON(nil))
	}
	return b.String()
}

// checkSeqContiguous: on every connection of a 2026.9.6 gateway the frame
// seq starts at 1 and has no holes (gateway-protocol.md §10).
func (c *capFile) checkSeqContiguous(t *testing.T) {
	t.Helper()
	last := map[int]int64{}
	for _, f := range c.frames(0) {
		if f.rec.Dir != capture.DirIn || !f.ev.HasSeq {
			continue
		}
		want := last[f.rec.Conn] + 1
		if f.ev.Seq != want {
			t.Errorf("conn %d: frame seq %d, want %d (line %d)", f.rec.Conn, f.ev.Seq, want, f.rec.Line)
		}
		last[f.rec.Conn] = f.ev.Seq
	}
}

// runs collects, per runId, the chat states seen and the final text.
type runInfo struct {
	states    []string
	finalText string
	deltas    int
	agentEvts int
	// endBeforeFinal: the run's lifecycle end (or error) came before its
	// chat final, the order real gateways usually send (spec §7.2).
	endBeforeFinal bool
	ended          bool
	toolEvts       int // agent stream "tool" (sender only)
	session        int // session.tool events
	itemTool       int // agent item events of kind tool
}

func (c *capFile) runs(conn int) map[string]*runInfo {
	out := map[string]*runInfo{}
	get := func(id string) *runInfo {
		if out[id] == nil {
			out[id] = &runInfo{}
		}
		return out[id]
	}
	for _, f := range c.frames(conn) {
		if f.rec.Dir != capture.DirIn {
			continue
		}
		switch {
		case f.ev.Kind == bridge.RuntimeChat && f.ev.RunID != "":
			ri := get(f.ev.RunID)
			ri.states = append(ri.states, f.ev.State)
			if f.ev.State == "delta" {
				ri.deltas++
			}
			if isTerminal(f.ev.State) {
				ri.finalText = f.chat().text()
			}
			if f.ev.State == "final" && ri.ended {
				ri.endBeforeFinal = true
			}
		case f.ev.Kind == bridge.RuntimeAgent && f.ev.RunID != "":
			ri := get(f.ev.RunID)
			ri.agentEvts++
			if f.ev.Stream == "lifecycle" && (f.ev.Phase == "end" || f.ev.Phase == "error") {
				ri.ended = true
			}
			if f.ev.Stream == "tool" {
				ri.toolEvts++
			}
			if f.ev.Stream == "item" && strings.Contains(string(f.ev.Payload), `"kind":"tool"`) {
				ri.itemTool++
			}
		case f.ev.Event == "session.tool":
			var p struct {
				RunID string `json:"runId"`
			}
			_ = json.Unmarshal(f.ev.Payload, &p)
			if p.RunID != "" {
				get(p.RunID).session++
			}
		}
	}
	return out
}

func (ri *runInfo) terminal() string {
	for i := len(ri.states) - 1; i >= 0; i-- {
		if isTerminal(ri.states[i]) {
			return ri.states[i]
		}
	}
	return ""
}

// connectFrame returns the recorded connect request's params.
func (c *capFile) connectParams(t *testing.T, conn int) map[string]any {
	t.Helper()
	for _, f := range c.frames(conn) {
		if f.ev.Kind == bridge.Request && f.ev.Method == "connect" {
			var fr struct {
				Params map[string]any `json:"params"`
			}
			if err := json.Unmarshal(f.rec.Frame, &fr); err != nil {
				t.Fatal(err)
			}
			return fr.Params
		}
	}
	t.Fatalf("conn %d: no connect request recorded", conn)
	return nil
}

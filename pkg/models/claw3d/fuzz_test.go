package claw3d

import (
	"bytes"
	"encoding/json"
	"testing"
)

// fuzzFrame turns four fuzz bytes into one step: a frame from a small
// vocabulary of runs, agents, states and streams (so the rules meet), or
// a raw piece of the input, and how far the clock moves first.
func fuzzFrame(b []byte, raw []byte) (frame string, advance int64, dispose bool) {
	runs := [...]string{"r1", "r2", "r3"}
	keys := [...]string{mainKey, "agent:ops:main", "agent:main:telegram:dm:1", "agent:ghost:main", "", " " + mainKey}
	texts := [...]string{"Hel", "Hello", "Hello world", "<think>plan", "<think>plan</think>Answer", "Project path: /w\n\nx", "", "reasoning: r"}
	run, key, text := runs[int(b[1])%len(runs)], keys[int(b[2])%len(keys)], texts[int(b[2]>>3)%len(texts)]
	seq := int(b[2] % 7)
	switch {
	case b[3] == 255:
		advance = ClosedRunTTLMs
	case b[3] > 200:
		advance = int64(b[3]) * 13
	default:
		advance = int64(b[3] % 40)
	}
	chat := func(state string, msg any) string {
		p := obj{"runId": run, "sessionKey": key, "state": state, "message": msg}
		if seq > 0 {
			p["seq"] = seq
		}
		if state == "error" && b[2]&1 == 0 {
			p["errorMessage"] = "boom"
		}
		return chatEv(p)
	}
	agent := func(stream string, data obj) string {
		p := obj{"runId": run, "stream": stream, "data": data}
		if key != "" {
			p["sessionKey"] = key
		}
		return js(obj{"type": "event", "event": "agent", "payload": p})
	}
	switch b[0] % 20 {
	case 0:
		frame = agent("lifecycle", obj{"phase": "start"})
	case 1:
		frame = agent("lifecycle", obj{"phase": "end"})
	case 2:
		frame = agent("lifecycle", obj{"phase": "error"})
	case 3:
		frame = agent("assistant", obj{"text": text, "delta": text})
	case 4:
		frame = agent("assistant", obj{"delta": text})
	case 5:
		frame = agent("thinking", obj{"delta": text})
	case 6:
		frame = agent("tool", obj{"phase": []string{"start", "update", "result"}[seq%3], "name": "ls", "toolCallId": text, "args": obj{"p": seq}})
	case 7, 8:
		frame = chat("delta", assistantMsg(text))
	case 9:
		frame = chat("final", assistantMsg(text))
	case 10:
		frame = chat("aborted", assistantMsg(text))
	case 11:
		frame = chat("error", nil)
	case 12:
		frame = chat([]string{"final", "delta"}[seq%2], obj{"role": "user", "content": text})
	case 13:
		frame = event([]string{"heartbeat", "presence"}[seq%2], obj{})
	case 14:
		if seq%2 == 0 {
			frame = approvalReq("a"+run, obj{"command": "ls", "sessionKey": key}, T0, T0+int64(b[3])*100)
		} else {
			frame = event("exec.approval.resolved", obj{"id": "a" + run, "decision": "deny", "ts": 1})
		}
	case 15:
		frame = cronEv(obj{"action": "finished", "sessionKey": key, "jobId": run, "runAtMs": seq})
	case 16:
		frame = chat("final", obj{"role": "toolResult", "toolName": "ls", "content": text})
	case 17:
		frame = string(raw)
	case 18:
		dispose = true
	default:
		frame = agent("item", obj{"phase": "start"})
	}
	return frame, advance, dispose
}

// FuzzHandle runs random frame sequences through the handler: nothing
// panics, every intent and decision is valid JSON, the same sequence
// gives the same output twice, and the model's invariants hold.
func FuzzHandle(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 7, 0, 8, 5, 3, 0, 16, 5, 1, 0, 0, 1, 9, 0, 8, 2, 7, 0, 8, 1})
	f.Add([]byte{0, 0, 0, 0, 3, 0, 16, 5, 1, 0, 0, 0, 7, 0, 24, 0, 9, 0, 24, 1, 7, 0, 8, 255, 7, 0, 8, 1})
	f.Add([]byte{14, 0, 0, 10, 14, 1, 1, 255, 15, 0, 0, 0, 15, 0, 0, 0, 13, 0, 0, 0, 18, 0, 0, 0, 17, 0, 0, 0})
	f.Add([]byte(`{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","state":"final"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a := runFuzz(t, data)
		b := runFuzz(t, data)
		if !bytes.Equal(a, b) {
			t.Fatalf("not deterministic:\n%s\n---\n%s", a, b)
		}
	})
}

func runFuzz(t *testing.T, data []byte) []byte {
	hs := newFakeHost(t, Options{})
	var out []byte
	raws := 0 // raw frames: each may name one more run
	for i := 0; i+4 <= len(data) && i < 400; i += 4 {
		frame, advance, dispose := fuzzFrame(data[i:i+4], data[i:])
		hs.decisions = hs.decisions[:0]
		if dispose {
			hs.h.Dispose()
			hs.queue.Dispose()
		} else {
			hs.clock.Advance(hs.clock.Now() + advance)
			for _, in := range hs.handle(frame) {
				j := in.AppendJSON(nil)
				if !json.Valid(j) {
					t.Fatalf("invalid intent JSON %s", j)
				}
				out = append(append(out, j...), '\n')
			}
		}
		for _, d := range hs.decisions {
			j := d.AppendJSON(nil)
			if !json.Valid(j) {
				t.Fatalf("invalid decision JSON %s", j)
			}
			out = append(append(out, j...), '\n')
		}
		if data[i]%20 == 17 {
			raws++
		}
		checkInvariants(t, hs, frame, raws)
	}
	hs.clock.Advance(hs.clock.Now() + 60_000)
	checkInvariants(t, hs, "", raws)
	for _, l := range hs.log {
		out = append(append(out, l...), '\n')
	}
	return out
}

func checkInvariants(t *testing.T, hs *fakeHost, frame string, raws int) {
	h := hs.h
	now := hs.clock.Now()
	// Claw3D prunes the fence on agent frames and on chat frames that carry a
	// session key (a chat frame without one returns before the prune, §4.2).
	chat := bytes.Contains([]byte(frame), []byte(`"event":"chat"`))
	runtime := chat && !bytes.Contains([]byte(frame), []byte(`"sessionKey":""`)) || bytes.Contains([]byte(frame), []byte(`"event":"agent"`))
	for _, c := range h.ClosedRuns() {
		if runtime && c.ExpiresAt <= now {
			t.Fatalf("closed run %s expired at %d survived a prune at %d (frame %s)", c.RunID, c.ExpiresAt, now, frame)
		}
		if c.ExpiresAt > now+ClosedRunTTLMs {
			t.Fatalf("closed run %s beyond the TTL", c.RunID)
		}
	}
	for run := range h.fallback {
		if h.IsClosed(run) {
			t.Fatalf("run %s closed with a fallback pending", run)
		}
	}
	if len(h.closed.index) != len(h.closed.order) {
		t.Fatalf("fence index %d vs order %d", len(h.closed.index), len(h.closed.order))
	}
	for id, tr := range hs.transcripts {
		if tr.Len() > MaxTranscriptEntries {
			t.Fatalf("%s transcript over the cap", id)
		}
		ids := map[string]bool{}
		for _, e := range tr.Entries() {
			if ids[e.EntryID] {
				t.Fatalf("%s: entryId %s twice", id, e.EntryID)
			}
			ids[e.EntryID] = true
		}
	}
	seen := map[string]bool{}
	for _, p := range hs.queue.Pending() {
		if seen[p.AgentID] {
			t.Fatalf("agent %s pending twice", p.AgentID)
		}
		seen[p.AgentID] = true
	}
	agents := map[string]bool{}
	for _, a := range h.Roster().Agents() {
		if agents[a.AgentID] {
			t.Fatalf("agent %s in the roster twice", a.AgentID)
		}
		agents[a.AgentID] = true
	}
	// Tracking is per run, never per frame.
	if n := h.TrackedRuns(); n > 3+raws {
		t.Fatalf("%d tracked runs", n)
	}
}

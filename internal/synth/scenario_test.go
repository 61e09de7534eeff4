package synth

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// frames returns the frame records of conn (0 for all) with their info.
func frames(recs []capture.Record, conn int) ([]capture.Record, []frameInfo) {
	var rs []capture.Record
	var fs []frameInfo
	for _, r := range recs {
		if r.Frame != nil && (conn == 0 || r.Conn == conn) {
			rs = append(rs, r)
			fs = append(fs, info(r.Frame))
		}
	}
	return rs, fs
}

func str(b []byte, path ...string) string {
	v, _ := jsonx.GetPath(b, path...)
	s, _ := jsonx.Str(v)
	return s
}

func has(b []byte, path ...string) bool {
	_, ok := jsonx.GetPath(b, path...)
	return ok
}

func msgText(p []byte) string {
	c, _ := jsonx.GetPath(p, "message", "content")
	var out string
	jsonx.ArrayEach(c, func(v []byte) bool {
		out += str(v, "text")
		return true
	})
	return out
}

// Credentials never appear: the connect token is the redaction marker.
func TestRedacted(t *testing.T) {
	for _, f := range sessionFixtures() {
		recs := f.Build().Records()
		_, fs := frames(recs, 0)
		n := 0
		for _, fi := range fs {
			if fi.method == "connect" {
				n++
			}
		}
		for _, r := range recs {
			if r.Frame == nil {
				continue
			}
			fi := info(r.Frame)
			if fi.method == "connect" {
				params, _ := jsonx.Get(r.Frame, "params")
				if str(params, "auth", "token") != Redacted {
					t.Errorf("%s: connect token %q", f.Name, str(params, "auth", "token"))
				}
				if has(params, "device") && str(params, "device", "signature") != Redacted {
					t.Errorf("%s: device signature not redacted", f.Name)
				}
			}
			if str(fi.payload, "type") == "hello-ok" {
				if has(fi.payload, "auth", "deviceToken") && str(fi.payload, "auth", "deviceToken") != Redacted {
					t.Errorf("%s: deviceToken not redacted", f.Name)
				}
				if str(fi.payload, "server", "version") != GatewayVersion || str(fi.payload, "server", "bootId") == "" {
					t.Errorf("%s: hello-ok server %s", f.Name, fi.payload)
				}
				if len(r.Frame) > 4096 {
					t.Errorf("%s: hello-ok is %d bytes; keep it small", f.Name, len(r.Frame))
				}
			}
		}
		if n == 0 {
			t.Errorf("%s: no connect", f.Name)
		}
	}
}

// In every run: chat deltas concatenate to the final text, agent assistant
// deltas to the agent text; a chat delta shares its payload seq with an
// agent event (or the final's); the final reuses the lifecycle end's seq.
func TestRunTextAndSeq(t *testing.T) {
	for _, name := range []string{"demo", "streamed-run", "tool-run", "exec-approval", "reconnect", "seq-gap", "stale-terminal", "duplicate-final"} {
		f, _ := Lookup(name)
		recs := f.Build().Records()
		for conn := 1; conn <= 2; conn++ {
			_, fs := frames(recs, conn)
			if len(fs) > 0 {
				checkRuns(t, name, conn, fs)
			}
		}
	}
}

func checkRuns(t *testing.T, name string, conn int, fs []frameInfo) {
	t.Helper()
	name = fmt.Sprintf("%s conn %d", name, conn)
	gapped := strings.HasPrefix(name, "seq-gap conn 1")
	{
		type runState struct {
			chat, agent, final string
			agentSeqs          map[int64]bool
			endSeq, finalSeq   int64
			finals             int
		}
		runs := map[string]*runState{}
		get := func(id string) *runState {
			if runs[id] == nil {
				runs[id] = &runState{agentSeqs: map[int64]bool{}}
			}
			return runs[id]
		}
		var deltaSeqs []struct {
			run string
			seq int64
		}
		for _, fi := range fs {
			if fi.runID == "" {
				continue
			}
			rs := get(fi.runID)
			switch {
			case fi.event == "agent" && fi.stream == "assistant":
				rs.agent += str(fi.payload, "data", "delta")
				if got := str(fi.payload, "data", "text"); got != rs.agent && !gapped {
					t.Errorf("%s: agent text %q, deltas give %q", name, got, rs.agent)
				}
			case fi.event == "chat" && fi.state == "delta":
				rs.chat += str(fi.payload, "deltaText")
				if !gapped && msgText(fi.payload) != rs.chat {
					t.Errorf("%s: chat message %q, deltas give %q", name, msgText(fi.payload), rs.chat)
				}
				deltaSeqs = append(deltaSeqs, struct {
					run string
					seq int64
				}{fi.runID, fi.pseq})
			case fi.event == "chat" && fi.state == "final":
				rs.final = msgText(fi.payload)
				rs.finalSeq = fi.pseq
				rs.finals++
				if str(fi.payload, "stopReason") != "stop" {
					t.Errorf("%s: final stopReason %q", name, str(fi.payload, "stopReason"))
				}
			}
			if fi.event == "agent" && fi.hasPSeq {
				rs.agentSeqs[fi.pseq] = true
				if fi.stream == "lifecycle" && fi.phase == "end" {
					rs.endSeq = fi.pseq
				}
			}
		}
		for _, d := range deltaSeqs {
			if !runs[d.run].agentSeqs[d.seq] && !gapped {
				t.Errorf("%s: chat delta seq %d matches no agent event", name, d.seq)
			}
		}
		if len(runs) == 0 {
			t.Errorf("%s: no runs", name)
		}
		for id, rs := range runs {
			if rs.finals == 0 {
				t.Errorf("%s: run %s has no final", name, id)
				continue
			}
			if !gapped && (rs.final != rs.chat || rs.final != rs.agent) {
				t.Errorf("%s: final %q, chat deltas %q, agent deltas %q", name, rs.final, rs.chat, rs.agent)
			}
			wantFinals := 1
			if strings.HasPrefix(name, "duplicate-final") {
				wantFinals = 2
			}
			if rs.finals != wantFinals {
				t.Errorf("%s: %d finals", name, rs.finals)
			}
			if rs.endSeq != 0 && rs.finalSeq != rs.endSeq {
				t.Errorf("%s: final seq %d, lifecycle end seq %d", name, rs.finalSeq, rs.endSeq)
			}
		}
	}
}

func TestToolRunTargeting(t *testing.T) {
	recs := ToolRun().Records()
	count := func(conn int, stream string) int {
		n := 0
		_, fs := frames(recs, conn)
		for _, fi := range fs {
			if fi.event == "agent" && fi.stream == stream {
				n++
			}
		}
		return n
	}
	if count(1, "tool") != 2 || count(2, "tool") != 0 {
		t.Errorf("tool events: conn1 %d conn2 %d, want 2 and 0", count(1, "tool"), count(2, "tool"))
	}
	if count(1, "item") != 2 || count(2, "item") != 2 {
		t.Errorf("item events: conn1 %d conn2 %d", count(1, "item"), count(2, "item"))
	}
	_, fs := frames(recs, 1)
	for _, fi := range fs {
		if fi.stream == "tool" && fi.phase == "start" && str(fi.payload, "data", "args", "path") != "." {
			t.Errorf("tool start args: %s", fi.payload)
		}
		if fi.stream == "tool" && fi.phase == "result" {
			if !has(fi.payload, "data", "result", "content") || !has(fi.payload, "data", "result", "details") || !has(fi.payload, "data", "isError") {
				t.Errorf("tool result: %s", fi.payload)
			}
		}
	}
	for _, r := range recs {
		isUI := r.Conn == 2 && r.Frame != nil && has(r.Frame, "seq")
		if isUI != (str(r.Frame, "recipientProfileId") == ProfileID) {
			t.Errorf("recipientProfileId on conn %d: %s", r.Conn, r.Frame)
		}
	}
}

func TestAbortShape(t *testing.T) {
	rs, fs := frames(AbortRun().Records(), 1)
	var abortedAt, endAt, errAt, resAt = -1, -1, -1, -1
	for i, fi := range fs {
		switch {
		case fi.event == "chat" && fi.state == "final":
			t.Error("abort must have no final")
		case fi.event == "chat" && fi.state == "aborted":
			abortedAt = i
			if str(fi.payload, "stopReason") != "rpc" || msgText(fi.payload) == "" {
				t.Errorf("aborted: %s", fi.payload)
			}
		case fi.stream == "lifecycle" && fi.phase == "end":
			endAt = i
			if str(fi.payload, "data", "status") != "cancelled" || !jsonx.Truthy(mustGet(fi.payload, "data", "aborted")) {
				t.Errorf("lifecycle end: %s", fi.payload)
			}
		case fi.stream == "lifecycle" && fi.phase == "error":
			errAt = i
		case fi.typ == "res" && strings.HasSuffix(fi.id, "chat.abort"):
			resAt = i
		}
	}
	if !(abortedAt >= 0 && abortedAt < endAt && endAt < resAt && resAt < errAt) {
		t.Fatalf("order aborted %d, end %d, res %d, error %d", abortedAt, endAt, resAt, errAt)
	}
	if fs[abortedAt].pseq != fs[endAt].pseq {
		t.Errorf("aborted seq %d, end seq %d", fs[abortedAt].pseq, fs[endAt].pseq)
	}
	if d := rs[errAt].T - rs[endAt].T; d < 60 || d > 90 {
		t.Errorf("lifecycle error %d ms after end, want ~70", d)
	}
}

func mustGet(b []byte, path ...string) []byte {
	v, _ := jsonx.GetPath(b, path...)
	return v
}

func TestErrorRunShape(t *testing.T) {
	rs, fs := frames(ErrorRun().Records(), 1)
	var errs []int
	for i, fi := range fs {
		if fi.event == "chat" && fi.state == "error" {
			errs = append(errs, i)
		}
		if fi.event == "chat" && fi.state == "final" {
			t.Error("error run must have no final")
		}
	}
	if len(errs) != 2 {
		t.Fatalf("%d chat error frames, want 2", len(errs))
	}
	a, b := fs[errs[0]], fs[errs[1]]
	if a.runID != b.runID || !has(a.payload, "agentId") || has(b.payload, "agentId") || b.pseq != 1 || a.pseq <= 1 {
		t.Errorf("chat errors:\n%s\n%s", a.payload, b.payload)
	}
	if !strings.HasPrefix(str(b.payload, "errorMessage"), "⚠️ Agent failed before reply: ") {
		t.Errorf("second error message %q", str(b.payload, "errorMessage"))
	}
	if d := rs[errs[1]].T - rs[errs[0]].T; d < 10 || d > 100 {
		t.Errorf("second chat error %d ms later", d)
	}
	var replaced bool
	for _, fi := range fs {
		if fi.event == "chat" && fi.state == "delta" && string(mustGet(fi.payload, "replace")) == "true" {
			replaced = str(fi.payload, "deltaText") == "" && msgText(fi.payload) == ""
		}
	}
	if !replaced {
		t.Error("no chat delta with replace:true resetting the text")
	}
}

func TestSlashCommandShape(t *testing.T) {
	_, fs := frames(SlashCommand().Records(), 1)
	finals := 0
	for _, fi := range fs {
		if fi.event == "agent" {
			t.Errorf("agent event in /status: %s", fi.payload)
		}
		if fi.event == "chat" {
			if fi.state != "final" || fi.pseq != 1 || has(fi.payload, "agentId") || str(fi.payload, "message", "model") != "gateway-injected" {
				t.Errorf("chat: %s", fi.payload)
			}
			finals++
		}
		if fi.typ == "res" && strings.HasSuffix(fi.id, "chat.send") && str(fi.payload, "status") != "started" {
			t.Errorf("res: %s", fi.payload)
		}
	}
	if finals != 1 {
		t.Errorf("%d finals", finals)
	}
}

func TestExecApprovalTargeting(t *testing.T) {
	recs := ExecApproval().Records()
	for conn, want := range map[int]int{1: 4, 2: 0} {
		_, fs := frames(recs, conn)
		n, waits := 0, 0
		for _, fi := range fs {
			if strings.HasPrefix(fi.event, "exec.approval.") {
				n++
				if fi.event == "exec.approval.requested" {
					for _, k := range []string{"command", "agentId", "sessionKey"} {
						if str(fi.payload, "request", k) == "" {
							t.Errorf("request without %s: %s", k, fi.payload)
						}
					}
					if !has(fi.payload, "createdAtMs") || !has(fi.payload, "expiresAtMs") {
						t.Errorf("requested: %s", fi.payload)
					}
				}
			}
			if fi.stream == "lifecycle" && (fi.phase == "waiting-approval" || fi.phase == "approval-resolved") {
				waits++
			}
		}
		if n != want || waits != 4 {
			t.Errorf("conn %d: %d approval events (want %d), %d lifecycle approval phases (want 4)", conn, n, want, waits)
		}
	}
}

func TestReconnectShape(t *testing.T) {
	recs := Reconnect().Records()
	var boots []string
	var closed bool
	for _, r := range recs {
		if r.Mark == capture.MarkHello {
			boots = append(boots, r.BootID)
		}
		if r.Mark == capture.MarkClose && r.Conn == 1 && r.Code == 1012 && r.Reason == "service restart" {
			closed = true
		}
	}
	if len(boots) != 2 || boots[0] == boots[1] || !closed {
		t.Errorf("boots %v, closed %v", boots, closed)
	}
	_, fs := frames(recs, 1)
	if last := fs[len(fs)-1]; last.event != "shutdown" || str(last.payload, "reason") != "gateway stopping" {
		t.Errorf("conn 1 ends with %s %s", last.event, last.payload)
	}
	_, fs = frames(recs, 2)
	for _, fi := range fs {
		if fi.hasSeq {
			if fi.seq != 1 {
				t.Errorf("conn 2 first seq %d", fi.seq)
			}
			break
		}
	}
}

func TestSeqGapEvent(t *testing.T) {
	_, fs := frames(SeqGap().Records(), 2)
	n := 0
	for _, fi := range fs {
		if fi.event == "agent" && fi.stream == "error" {
			n++
			if fi.hasPSeq || str(fi.payload, "data", "reason") != "seq gap" {
				t.Errorf("gap event: %s", fi.payload)
			}
			e, _ := jsonx.GetInt(mustGet(fi.payload, "data"), "expected")
			r, _ := jsonx.GetInt(mustGet(fi.payload, "data"), "received")
			if r-e != 2 {
				t.Errorf("gap event expected %d received %d", e, r)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d gap events", n)
	}
}

func TestStaleTerminalShape(t *testing.T) {
	_, fs := frames(StaleTerminal().Records(), 1)
	var r1, r2 string
	for _, fi := range fs {
		if fi.typ == "res" && strings.HasSuffix(fi.id, "chat.send") {
			if r1 == "" {
				r1 = str(fi.payload, "runId")
			} else {
				r2 = str(fi.payload, "runId")
			}
		}
	}
	var order []string
	for _, fi := range fs {
		switch {
		case fi.runID == r1 && fi.stream == "lifecycle" && fi.phase == "end":
			t.Error("r1's lifecycle end must not be seen")
		case fi.runID == r2 && fi.stream == "lifecycle" && fi.phase == "start":
			order = append(order, "r2-start")
		case fi.event == "chat" && fi.state == "final" && fi.runID == r1:
			order = append(order, "r1-final")
		case fi.event == "chat" && fi.state == "delta" && fi.runID == r2:
			order = append(order, "r2-delta")
		case fi.event == "chat" && fi.state == "final" && fi.runID == r2:
			order = append(order, "r2-final")
		}
	}
	got := strings.Join(order, ",")
	if got != "r2-start,r2-delta,r2-delta,r1-final,r2-delta,r2-delta,r2-final" {
		t.Errorf("order %s", got)
	}
}

func TestDuplicateFinalIdentical(t *testing.T) {
	rs, fs := frames(DuplicateFinal().Records(), 1)
	var ps [][]byte
	var seqs []int64
	for i, fi := range fs {
		if fi.event == "chat" && fi.state == "final" {
			ps = append(ps, fi.payload)
			seqs = append(seqs, fi.seq)
			_ = rs[i]
		}
	}
	if len(ps) != 2 || !bytes.Equal(ps[0], ps[1]) || seqs[1] != seqs[0]+1 {
		t.Errorf("finals %d, seqs %v", len(ps), seqs)
	}
}

func TestPresenceBurstTimeline(t *testing.T) {
	// Simulate the 750 ms trailing debounce over summary events.
	rs, fs := frames(PresenceBurst().Records(), 1)
	var fires int
	var timer int64 = -1
	var lastHeartbeat, hbFires []bool
	_ = lastHeartbeat
	var pendingHB bool
	for i, fi := range fs {
		t0 := rs[i].T
		if timer >= 0 && t0 >= timer {
			fires++
			hbFires = append(hbFires, pendingHB)
			timer = -1
		}
		if fi.event == "presence" || fi.event == "heartbeat" {
			timer = t0 + 750
			pendingHB = fi.event == "heartbeat"
		}
	}
	if timer >= 0 {
		fires++
		hbFires = append(hbFires, pendingHB)
	}
	if fires != 4 {
		t.Errorf("%d refreshes, want 4", fires)
	}
	want := []bool{true, false, false, true}
	for i := range want {
		if i < len(hbFires) && hbFires[i] != want[i] {
			t.Errorf("refresh %d heartbeat=%v, want %v", i, hbFires[i], want[i])
		}
	}
}

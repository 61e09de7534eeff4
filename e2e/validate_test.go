//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawtap/clawtap/internal/fakemodel"
	"github.com/clawtap/clawtap/pkg/capture"
)

// realGatewayFindings are the schema findings the real 2026.9.6 gateway's
// frames give against the built-in @openclaw/gateway-protocol 2026.9.1
// snapshot, by rule, definition and pointer (array indices as *);
// knownRealFinding adds the agent payload fields. docs/validate.md explains
// each one. A finding not known here is new: look at it, document it there,
// then add it here.
var realGatewayFindings = map[string]bool{
	// The gateway is newer than the newest published schema.
	"schema-extra-field HelloOk /payload/auth/method":                            true,
	"schema-extra-field HelloOk /payload/controlUiLinkReaders":                   true,
	"schema-extra-field HelloOk /payload/snapshot/health/eventLoop/cpuBreakdown": true,
	"schema-extra-field HelloOk /payload/snapshot/presence/*/clientId":           true,
	"schema-extra-field EventFrame /recipientProfileId":                          true,
	"schema-extra-field RequestFrame /expectedProfileId":                         true,
}

// knownRealFinding: the listed findings, and any field the server adds at
// the top of an agent event's payload (sessionKey, agentId, sessionId,
// lane on every event; a whole session snapshot merged into the tool
// events of the run's sender), which its closed AgentEvent schema does not
// declare.
func knownRealFinding(key string) bool {
	if realGatewayFindings[key] {
		return true
	}
	rest, ok := strings.CutPrefix(key, "schema-extra-field AgentEvent /payload/")
	return ok && rest != "" && !strings.Contains(rest, "/")
}

type schemaFinding struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	I        int    `json:"i"`
	Event    string `json:"event"`
	Method   string `json:"method"`
	Schema   string `json:"schema"`
	Pointer  string `json:"pointer"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
	Message  string `json:"message"`
}

type schemaSummary struct {
	Schema    string         `json:"schema"`
	Frames    int            `json:"frames"`
	Validated int            `json:"validated"`
	Unchecked map[string]int `json:"unchecked"`
	Errors    int            `json:"error"`
	Warnings  int            `json:"warn"`
	Infos     int            `json:"info"`
	ByRule    map[string]int `json:"rules"`
}

// validateCap runs clawtap validate on a capture and parses its NDJSON.
func validateCap(t *testing.T, path string) ([]schemaFinding, schemaSummary, int) {
	t.Helper()
	out, errOut, code := h.clawtapRun(t, "validate", "--format", "json", path)
	if code != 0 && code != 1 {
		t.Fatalf("clawtap validate %s: exit %d\n%s", path, code, errOut)
	}
	var fs []schemaFinding
	var sum schemaSummary
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, `{"summary":`) {
			var s struct{ Summary schemaSummary }
			if err := json.Unmarshal([]byte(l), &s); err != nil {
				t.Fatalf("summary line: %v\n%s", err, l)
			}
			sum = s.Summary
			continue
		}
		var f schemaFinding
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatalf("finding line: %v\n%s", err, l)
		}
		fs = append(fs, f)
	}
	if sum.Schema == "" {
		t.Fatalf("no summary line:\n%s", out)
	}
	return fs, sum, code
}

// fieldKey is a finding's rule, definition and pointer, indices as *.
func fieldKey(f schemaFinding) string {
	parts := strings.Split(f.Pointer, "/")
	for i, p := range parts {
		if p != "" && strings.Trim(p, "0123456789") == "" {
			parts[i] = "*"
		}
	}
	return f.Rule + " " + f.Schema + " " + strings.Join(parts, "/")
}

// TestValidateRealGateway: frames a real gateway sent and received through
// the recording proxy (a reply, a tool run, history, logs, an abort) are
// validated against the built-in schema; what they show is documented in
// docs/validate.md. A wrong-typed field planted in the capture is then
// found at its record and pointer, and nothing else changes.
func TestValidateRealGateway(t *testing.T) {
	path := h.capPath("validate-" + randHex(4) + ".jsonl.zst") // unique: -count=2 runs it again
	rec, listen := h.proxy(t, "record-validate", path)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cl := h.driver(t, "ws://"+listen, "validate-client")
	// A session of its own: the main one may still be busy with a turn
	// the gateway resumed after the restart test.
	session := "agent:main:validate-" + randHex(4)
	reply := send(t, ctx, cl, session, "Hello, say hello back.")
	if p := waitChat(t, ctx, cl, reply, "final", "error", "aborted"); p.State != "final" || p.text() != fakemodel.DefaultReply {
		t.Fatalf("reply run ended %s with %q", p.State, p.text())
	}
	tool := send(t, ctx, cl, session, "Now run a TOOL please.")
	if p := waitChat(t, ctx, cl, tool, "final", "error", "aborted"); p.State != "final" {
		t.Fatalf("tool run ended %s", p.State)
	}
	for _, c := range []struct {
		method string
		params map[string]any
	}{
		{"chat.history", map[string]any{"sessionKey": session, "limit": 20}},
		{"logs.tail", map[string]any{"limit": 5}},
		{"sessions.list", map[string]any{"limit": 5}},
	} {
		if res, err := cl.Call(ctx, c.method, c.params); err != nil || !res.OK {
			t.Fatalf("%s: %v %v", c.method, err, res.Err())
		}
	}
	slow := send(t, ctx, cl, session, "Tell me a SLOW story.")
	waitChat(t, ctx, cl, slow, "delta")
	if res, err := cl.Call(ctx, "chat.abort", map[string]any{"sessionKey": session, "runId": slow}); err != nil || !res.OK {
		t.Fatalf("chat.abort: %v %v", err, res.Err())
	}
	waitChat(t, ctx, cl, slow, "final", "error", "aborted")
	time.Sleep(time.Second)
	if err := cl.Close(); err != nil {
		t.Logf("client close: %v", err)
	}
	time.Sleep(500 * time.Millisecond)
	rec.signal(syscall.SIGTERM)
	if code := waitExit(t, rec, 15*time.Second); code != 0 {
		t.Fatalf("proxy exit %d:\n%s", code, rec.log())
	}

	fs, sum, code := validateCap(t, path)
	counts := map[string]int{}
	for _, f := range fs {
		counts[f.Rule+" "+f.Severity]++
		if f.Rule == "schema-violation" || f.Rule == "schema-extra-field" {
			if !knownRealFinding(fieldKey(f)) {
				t.Errorf("new schema finding on the real gateway (document it in docs/validate.md, then list it in realGatewayFindings): %s", f.Message)
			}
		}
	}
	var keys []string
	for k := range sum.Unchecked {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("validate (exit %d) against %s: %d frames, %d parts validated; findings %v; unchecked %v", code, sum.Schema, sum.Frames, sum.Validated, counts, keys)
	if sum.Frames < 50 || sum.Validated < sum.Frames {
		t.Errorf("too little validated: %+v", sum)
	}
	// Every part that has a schema was checked: the chat and agent
	// payloads, the driver's params and the results it got.
	for _, want := range []string{"params chat.send", "params chat.history", "params chat.abort", "params sessions.list", "params logs.tail", "result logs.tail"} {
		if sum.Unchecked[want] != 0 {
			t.Errorf("%s was not checked (%d)", want, sum.Unchecked[want])
		}
	}

	// Plant a wrong-typed field: the payload seq of the first chat delta.
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	target := -1
	for {
		rc, err := r.Next()
		if err != nil {
			break
		}
		if target < 0 && rc.IsFrame() && bytes.Contains(rc.Frame, []byte(`"event":"chat"`)) && bytes.Contains(rc.Frame, []byte(`"state":"delta"`)) {
			var m map[string]any
			d := json.NewDecoder(bytes.NewReader(rc.Frame))
			d.UseNumber()
			if d.Decode(&m) == nil {
				if p, ok := m["payload"].(map[string]any); ok && p["seq"] != nil {
					p["seq"] = fmt.Sprint(p["seq"])
					c := rc.Clone()
					c.Frame, _ = json.Marshal(m)
					rc, target = c, rc.Index
				}
			}
		}
		b = rc.AppendJSON(b)
	}
	r.Close()
	if target < 0 {
		t.Fatal("no chat delta with a payload seq in the capture")
	}
	planted := strings.TrimSuffix(path, ".jsonl.zst") + "-planted.jsonl"
	if err := os.WriteFile(planted, b, 0o600); err != nil {
		t.Fatal(err)
	}
	pfs, psum, pcode := validateCap(t, planted)
	if pcode != 1 {
		t.Errorf("planted capture: exit %d, want 1", pcode)
	}
	if len(pfs) != len(fs)+1 || psum.Errors != sum.Errors+1 {
		t.Errorf("%d findings (%d errors) before planting, %d (%d) after", len(fs), sum.Errors, len(pfs), psum.Errors)
	}
	found := false
	for _, f := range pfs {
		if f.Rule == "schema-violation" && f.I == target && f.Pointer == "/payload/seq" && f.Expected == "integer" && f.Event == "chat" {
			found = true
		}
	}
	if !found {
		t.Errorf("the planted violation at record %d was not reported", target)
	}
}

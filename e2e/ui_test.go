//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawtap/clawtap/internal/fakemodel"
)

// TestUIModelsOnRealGateway records a fast streamed reply and a tool reply
// from the real gateway and replays the capture as both UIs: where the
// gateway sent the lifecycle end before the chat final (spec §7.2), clawboo
// loses the reply and check says so, naming the run; Claw3D commits every
// reply and leaves no ghost; diff --ui tells them apart.
func TestUIModelsOnRealGateway(t *testing.T) {
	path := h.capPath("uis.jsonl.zst")
	cl, rec := h.recordQuiet(t, "uis", path)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// Its own session: a run another test left on the main session (one
	// killed with its gateway, say) must not queue this one behind it.
	session := "agent:main:uis-" + randHex(4)
	fast := send(t, ctx, cl, session, "Answer FAST please.")
	fastEnd := waitChat(t, ctx, cl, fast, "final", "error", "aborted")
	if fastEnd.State != "final" || fastEnd.text() == "" {
		t.Fatalf("fast run ended %s with %q", fastEnd.State, fastEnd.text())
	}
	tool := send(t, ctx, cl, session, "Now run a TOOL call.")
	if p := waitChat(t, ctx, cl, tool, "final", "error", "aborted"); p.State != "final" || p.text() != fakemodel.ToolDoneReply {
		t.Fatalf("tool run ended %s with %q", p.State, p.text())
	}
	time.Sleep(time.Second) // the trailing lifecycle and session events
	rec.signal(syscall.SIGINT)
	if code := waitExit(t, rec, 15*time.Second); code != 0 {
		t.Fatalf("recorder exit %d:\n%s", code, rec.log())
	}
	c := readCap(t, path)
	runs := c.runs(1)
	for _, id := range []string{fast, tool} {
		if ri := runs[id]; ri == nil || ri.terminal() != "final" || ri.agentEvts == 0 {
			t.Fatalf("run %s not recorded whole: %+v", id, ri)
		}
	}
	checkUIs(t, path, runs)
}

// checkUIs replays a capture as clawboo and as Claw3D and checks what each
// left the user with, run by run, against the order the gateway sent.
func checkUIs(t *testing.T, path string, runs map[string]*runInfo) {
	t.Helper()
	var lost, kept []string // runs clawboo must lose / commit
	for id, ri := range runs {
		if ri.terminal() != "final" || ri.finalText == "" {
			continue
		}
		if ri.endBeforeFinal {
			lost = append(lost, id)
		} else {
			kept = append(kept, id)
		}
	}
	sort.Strings(lost)
	t.Logf("%d run(s) got the lifecycle end before the chat final, %d the other way", len(lost), len(kept))

	// clawboo@1211c16: every run §7.2 loses is a lost-reply warning naming it.
	out, errOut, code := h.clawtapRun(t, "check", "--ui", "clawboo@1211c16", "--format", "json", "--fail-on", "warn", path)
	if want := min(len(lost), 1); code != want {
		t.Errorf("clawboo@1211c16 check --fail-on warn: exit %d, want %d\n%s%s", code, want, out, errOut)
	}
	if got := findingRuns(t, out, "lost-reply"); !slices.Equal(got, lost) {
		t.Errorf("clawboo@1211c16 lost-reply findings name runs %v, want %v\n%s", got, lost, out)
	}
	tr := transcript(t, path, "clawboo@1211c16")
	for _, id := range lost {
		if strings.Contains(tr, needle(runs[id].finalText)) {
			t.Errorf("clawboo's transcript shows run %s's reply, which its guard drops", id)
		}
	}
	for _, id := range kept {
		if !strings.Contains(tr, needle(runs[id].finalText)) {
			t.Errorf("clawboo's transcript lacks run %s's reply %q", id, runs[id].finalText)
		}
	}

	// The clawboo after its fix, and the Control UI: every reply shows, no
	// warning; check --ui all names clawboo@1211c16 alone for each lost one.
	for _, ui := range []string{"clawboo", "control-ui"} {
		if out, errOut, code := h.clawtapRun(t, "check", "--ui", ui, "--format", "json", "--fail-on", "warn", path); code != 0 {
			t.Errorf("%s check --fail-on warn: exit %d\n%s%s", ui, code, out, errOut)
		}
		tr := transcript(t, path, ui)
		for _, id := range append(slices.Clone(lost), kept...) {
			if !strings.Contains(tr, needle(runs[id].finalText)) {
				t.Errorf("%s's transcript lacks run %s's reply %q", ui, id, runs[id].finalText)
			}
		}
	}
	out, errOut, code = h.clawtapRun(t, "check", "--ui", "all", "--format", "json", path)
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var f struct {
			Rule string   `json:"rule"`
			UIs  []string `json:"uis"`
		}
		if json.Unmarshal([]byte(line), &f) == nil && f.Rule == "lost-reply" && !slices.Equal(f.UIs, []string{"clawboo@1211c16"}) {
			t.Errorf("check --ui all: a lost reply shown by %v, want clawboo@1211c16 alone: %s", f.UIs, line)
		}
	}
	if got := findingRuns(t, out, "lost-reply"); !slices.Equal(got, lost) {
		t.Errorf("check --ui all: lost-reply findings name runs %v, want %v\n%s%s", got, lost, out, errOut)
	}

	// Claw3D: settles with every final committed and no ghost.
	if out, errOut, code := h.clawtapRun(t, "check", "--ui", "claw3d", "--format", "json", "--fail-on", "warn", path); code != 0 {
		t.Errorf("claw3d check --fail-on warn: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = h.clawtapRun(t, "replay", "--ui", "claw3d", "--final", "--format", "json", path)
	if code != 0 {
		t.Fatalf("claw3d replay --final: exit %d\n%s", code, errOut)
	}
	var final struct {
		Final struct {
			Agents map[string]map[string]any `json:"agents"`
		} `json:"final"`
	}
	if err := json.Unmarshal([]byte(lastLine(out)), &final); err != nil || len(final.Final.Agents) == 0 {
		t.Fatalf("claw3d replay --final: %v\n%s", err, out)
	}
	for id, a := range final.Final.Agents {
		if a["status"] != "idle" || a["runId"] != nil || a["streamText"] != nil {
			t.Errorf("claw3d: agent %s ends %v with runId %v and streamText %v, want idle and clear", id, a["status"], a["runId"], a["streamText"])
		}
	}
	tr = transcript(t, path, "claw3d")
	for _, id := range append(slices.Clone(lost), kept...) {
		if !strings.Contains(tr, needle(runs[id].finalText)) {
			t.Errorf("claw3d's transcript lacks run %s's reply %q", id, runs[id].finalText)
		}
	}

	// diff --ui: exit 1 exactly when clawboo@1211c16 lost a reply Claw3D kept.
	out, errOut, code = h.clawtapRun(t, "diff", "--ui", "clawboo@1211c16,claw3d", "--format", "json", path)
	if want := min(len(lost), 1); code != want {
		t.Errorf("diff --ui clawboo@1211c16,claw3d: exit %d, want %d\n%s%s", code, want, out, errOut)
	}
	var differ []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var l struct {
			Run *struct {
				RunID   string   `json:"runId"`
				Differs []string `json:"differs"`
			} `json:"run"`
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Run != nil && slices.Contains(l.Run.Differs, "reply") {
			differ = append(differ, l.Run.RunID)
		}
	}
	sort.Strings(differ)
	if !slices.Equal(differ, lost) {
		t.Errorf("diff --ui names runs %v whose reply differs, want %v\n%s", differ, lost, out)
	}
}

// findingRuns lists the runs of a rule's findings in check's JSON output.
func findingRuns(t *testing.T, out, rule string) []string {
	t.Helper()
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var f struct {
			Rule  string `json:"rule"`
			RunID string `json:"runId"`
		}
		if json.Unmarshal([]byte(line), &f) == nil && f.Rule == rule {
			ids = append(ids, f.RunID)
		}
	}
	sort.Strings(ids)
	return ids
}

func transcript(t *testing.T, path, ui string) string {
	t.Helper()
	out, errOut, code := h.clawtapRun(t, "replay", "--ui", ui, "--transcript", "--format", "text", path)
	if code != 0 {
		t.Fatalf("%s replay --transcript: exit %d\n%s", ui, code, errOut)
	}
	return out
}

// needle is the part of a reply looked for in a transcript: its first
// line (a UI may re-flow the rest), at most 60 bytes.
func needle(text string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if len(first) > 60 {
		first = strings.ToValidUTF8(first[:60], "")
	}
	return first
}

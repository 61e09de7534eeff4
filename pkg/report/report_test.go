package report

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/models"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/replay"
)

func TestEveryFixtureGivesValidDeterministicOutput(t *testing.T) {
	for _, name := range allFixtures {
		t.Run(name, func(t *testing.T) {
			p := fixturePath(t, name)
			a, b := buildFile(t, p, Options{}), buildFile(t, p, Options{})
			pa, pb := AppendHTML(nil, a), AppendHTML(nil, b)
			if !bytes.Equal(pa, pb) {
				t.Fatal("two reports of the same capture differ")
			}
			var v map[string]any
			if err := json.Unmarshal(dataOf(t, pa), &v); err != nil {
				t.Fatalf("embedded data is not JSON: %v", err)
			}
			var ta, tb bytes.Buffer
			if err := WriteTrace(&ta, a); err != nil {
				t.Fatal(err)
			}
			WriteTrace(&tb, b)
			if !bytes.Equal(ta.Bytes(), tb.Bytes()) {
				t.Fatal("two traces of the same capture differ")
			}
			var tr struct {
				TraceEvents []map[string]any `json:"traceEvents"`
			}
			if err := json.Unmarshal(ta.Bytes(), &tr); err != nil {
				t.Fatalf("trace is not JSON: %v", err)
			}
			if len(tr.TraceEvents) == 0 {
				t.Fatal("empty trace")
			}
			// Every record is on the timeline (nothing is elided at this size).
			if a.Rows.Len() != a.Summary.Records {
				t.Errorf("%d rows for %d records", a.Rows.Len(), a.Summary.Records)
			}
			if a.Summary.BodiesElided != 0 || a.Summary.RowsElided != 0 {
				t.Errorf("elided at the default limit: %+v", a.Summary)
			}
		})
	}
}

func TestModelOfFixtures(t *testing.T) {
	cases := []struct {
		name                      string
		conns, lanes, runs        int
		terminals                 []string
		tracks                    int // of lane 0
		reconnect, gaps, findings bool
	}{
		// clawboo loses the replies of demo and reconnect (lost-reply).
		{"demo.jsonl.zst", 1, 1, 1, []string{TermFinal}, 1, false, false, true},
		{"stale-terminal.jsonl.zst", 1, 1, 2, []string{TermFinal, TermFinal}, 2, false, false, true},
		{"reconnect.jsonl.zst", 2, 1, 2, []string{TermFinal, TermFinal}, 1, true, false, true},
		{"abort.jsonl.zst", 1, 1, 1, []string{TermAborted}, 1, false, false, true},
		{"error-run.jsonl.zst", 1, 1, 1, []string{TermError}, 1, false, false, true},
		{"seq-gap.jsonl.zst", 2, 1, 1, []string{TermFinal}, 1, false, true, true},
		{"truncated.jsonl.zst", 1, 1, 1, []string{TermNone}, 1, false, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := buildFile(t, fixturePath(t, c.name), Options{})
			if len(r.Conns) != c.conns || len(r.Lanes) != c.lanes || r.NumRuns() != c.runs {
				t.Fatalf("conns %d lanes %d runs %d, want %d %d %d", len(r.Conns), len(r.Lanes), r.NumRuns(), c.conns, c.lanes, c.runs)
			}
			for k, want := range c.terminals {
				if got := runAt(t, r, k).Terminal; got != want {
					t.Errorf("run %d terminal %q, want %q", k, got, want)
				}
				if want == TermNone && runAt(t, r, k).End != r.Summary.End {
					t.Errorf("an unfinished run's bar should reach the capture's end")
				}
			}
			if r.Lanes[0].Tracks != c.tracks {
				t.Errorf("tracks %d, want %d", r.Lanes[0].Tracks, c.tracks)
			}
			if got := r.Conns[len(r.Conns)-1].Reconnect; got != c.reconnect {
				t.Errorf("reconnect %v", got)
			}
			if (r.Summary.Gaps > 0) != c.gaps {
				t.Errorf("gaps %d", r.Summary.Gaps)
			}
			if (r.NumFindings() > 0) != c.findings {
				t.Errorf("findings %d", r.NumFindings())
			}
			if r.Stats == nil || !json.Valid(r.Stats) {
				t.Errorf("no stats header")
			}
		})
	}
}

func TestReconnectBandsAndSeqRestart(t *testing.T) {
	r := buildFile(t, fixturePath(t, "reconnect.jsonl.zst"), Options{})
	c1, c2 := r.Conns[0], r.Conns[1]
	if !c1.HasClose || c1.Code != 1012 {
		t.Errorf("conn 1 close: %+v", c1)
	}
	if !c2.Reconnect || !c2.NewBoot || c2.FirstSeq != 1 {
		t.Errorf("conn 2 should be a reconnect to a restarted gateway whose seq starts at 1: %+v", c2)
	}
}

// Under Claw3D the same capture tells the opposite story: the older run's
// final is ignored (it is not the agent's current run) and the newer
// run's reply is committed; the header names the UI.
func TestClaw3DReport(t *testing.T) {
	r, err := capture.Open(fixturePath(t, "stale-terminal.jsonl.zst"), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rep := buildUI(t, r, Options{Name: "stale-terminal"}, models.MustLookup("claw3d"))
	if rep.Meta.UI != "claw3d@eeb6f31" || !bytes.Contains(AppendData(nil, rep), []byte(`"ui":"claw3d@eeb6f31"`)) {
		t.Errorf("the report should name the UI it replayed: %q", rep.Meta.UI)
	}
	if rep.NumRuns() != 2 {
		t.Fatalf("%d runs, want 2", rep.NumRuns())
	}
	first, second := transcript(t, rep, 0), transcript(t, rep, 1)
	if len(first) != 0 || len(second) == 0 || second[len(second)-1].Text != "Title: Q3 Revenue Review 2026." {
		t.Fatalf("Claw3D commits the second run's reply, not the first's: %+v / %+v", first, second)
	}
	var lost bool
	for _, f := range allFindings(t, rep) {
		lost = lost || f.Rule == "lost-reply" && f.Run == 1 && strings.Contains(f.Message, "Claw3D never shows")
	}
	if !lost {
		t.Errorf("the first run's lost reply should be pinned on it: %+v", allFindings(t, rep))
	}
}

func TestRunDetails(t *testing.T) {
	r := buildFileUI(t, fixturePath(t, "stale-terminal.jsonl.zst"), Options{}, models.MustLookup("clawboo@1211c16")) // its guard drops run 2's final
	if first := transcript(t, r, 0); len(first) != 1 || first[0].Text != "The report covers Q3 revenue." {
		t.Errorf("committed transcript of run 1: %+v", first)
	}
	second := runAt(t, r, 1)
	tr, out := transcript(t, r, 1), output(t, r, 1)
	if len(tr) != 0 || len(out) != 1 || out[0] != "Title: Q3 Revenue Review 2026." {
		t.Errorf("run 2's final is dropped by the guard: the gateway's text is its output, and nothing reaches the transcript: %+v / %+v", tr, out)
	}
	// The dropped final's record keeps its body, with the guard's effect.
	var found bool
	for _, b := range r.Bodies {
		if b.I == second.TermI {
			js, err := r.BodyJSON(b)
			found = err == nil && bytes.Contains(js, []byte("guard: dropped commitChat"))
		}
	}
	if !found {
		t.Error("the terminal's body should show the guard dropping the commit")
	}
	var dropped bool
	for _, f := range allFindings(t, r) {
		if f.Rule == "dropped-final" && f.Run == 2 && f.Lane == 0 {
			dropped = true
		}
	}
	if !dropped {
		t.Errorf("dropped-final finding not pinned on run 2: %+v", allFindings(t, r))
	}
	// Timer steps (animation frames) are kept per agent.
	if len(r.Timers) == 0 {
		t.Error("no timer steps")
	}
}

func TestApprovalsAndTools(t *testing.T) {
	r := buildFile(t, fixturePath(t, "exec-approval.jsonl.zst"), Options{})
	if len(r.Approvals) != 2 {
		t.Fatalf("approvals: %+v", r.Approvals)
	}
	for _, a := range r.Approvals {
		if a.ResI < 0 || a.Decision == "" || a.Run < 0 || a.Command == "" {
			t.Errorf("approval not resolved or not on its run: %+v", a)
		}
	}
	d := buildFile(t, fixturePath(t, "demo.jsonl.zst"), Options{})
	if runAt(t, d, 0).Tools != 1 || d.Summary.ToolCalls != 1 {
		t.Errorf("tool calls: %+v", runAt(t, d, 0))
	}
	// A passive recorder gets no tool stream events, only the agent item
	// events every connection gets: the call still counts, once.
	var passive bytes.Buffer
	dr, err := capture.Open(fixturePath(t, "demo.jsonl.zst"), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := capture.NewWriter(&passive, false)
	w.WriteHeader(*dr.Header())
	items := 0
	for {
		rec, err := dr.Next()
		if err != nil {
			break
		}
		if rec.Frame != nil && bytes.Contains(rec.Frame, []byte(`"stream":"tool"`)) {
			continue
		}
		if rec.Frame != nil && bytes.Contains(rec.Frame, []byte(`"stream":"item"`)) && bytes.Contains(rec.Frame, []byte(`"kind":"tool"`)) {
			items++
		}
		w.Write(rec)
	}
	dr.Close()
	w.Close()
	pr, err := capture.NewReader(&passive, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p := build(t, pr, Options{}); items == 0 || runAt(t, p, 0).Tools != 1 || p.Summary.ToolCalls != 1 {
		t.Errorf("a passive recording's tool calls (%d item events): %+v", items, runAt(t, p, 0))
	}
	// The chat.send request starts the run.
	rows := slices.Collect(d.Rows.All())
	if rows[runAt(t, d, 0).FirstI].Type != TypeSend || rows[runAt(t, d, 0).FirstI].Run != 0 {
		t.Errorf("run starts at %d: %+v", runAt(t, d, 0).FirstI, rows[runAt(t, d, 0).FirstI])
	}
}

// hostile is a capture whose text tries to break out of the page.
const hostile = `</script><img src=x onerror="window.__pwned=1"><!--<script>`

func hostileCapture(credentials bool) []byte {
	js := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	cred := "true"
	if !credentials {
		cred = "false"
	}
	lines := []string{
		`{"clawtap":1,"createdAt":"2026-11-22T03:23:55Z","source":{"tool":` + js(hostile) + `,"mode":"record"},"redaction":{"credentials":` + cred + `,"content":false},"notes":` + js(hostile+" notes \u2028 line") + `}`,
		`{"t":1000,"conn":1,"mark":"open","url":` + js("ws://x/"+hostile) + `}`,
		`{"t":1001,"conn":1,"dir":"out","frame":{"type":"req","id":"s1","method":"chat.send","params":{"sessionKey":` + js("agent:ev</script>il:"+hostile) + `,"message":` + js(hostile) + `}}}`,
		`{"t":1002,"conn":1,"dir":"in","frame":{"type":"res","id":"s1","ok":true,"payload":{"runId":` + js("run-"+hostile) + `,"status":"started"}}}`,
		`{"t":1003,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","seq":1,"payload":{"runId":` + js("run-"+hostile) + `,"sessionKey":` + js("agent:ev</script>il:"+hostile) + `,"state":"delta","message":{"role":"assistant","content":[{"type":"text","text":` + js(hostile+" \u2029 sep") + `}]}}}}`,
		`{"t":1004,"conn":1,"dir":"in","frame":{"type":"event","event":` + js("custom."+hostile) + `,"seq":2,"payload":{}}}`,
		`{"t":1005,"conn":1,"dir":"in","raw":` + js("raw "+hostile) + `}`,
		`{"t":1006,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","seq":3,"payload":{"runId":` + js("run-"+hostile) + `,"sessionKey":` + js("agent:ev</script>il:"+hostile) + `,"state":"final","message":{"role":"assistant","content":[{"type":"text","text":` + js(hostile) + `}]}}}}`,
		`{"t":1007,"conn":1,"mark":"close","code":1011,"reason":` + js(hostile) + `}`,
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

func TestHostileTextCannotBreakOut(t *testing.T) {
	r := buildBytes(t, hostileCapture(true), Options{Name: "evil" + hostile})
	page := AppendHTML(nil, r)
	css, js := Assets()
	// The only closing script tags are the two the page writes.
	if n := bytes.Count(bytes.ToLower(page), []byte("</script")); n != 2 {
		t.Errorf("%d </script in the page, want 2", n)
	}
	if bytes.Contains(page, []byte("<img")) || bytes.Contains(page, []byte("<!--")) {
		t.Error("capture text reached the page as markup")
	}
	// Outside the inline assets, no raw U+2028/U+2029 either.
	rest := bytes.Replace(bytes.Replace(page, []byte(js), nil, 1), []byte(css), nil, 1)
	if bytes.ContainsRune(rest, '\u2028') || bytes.ContainsRune(rest, '\u2029') {
		t.Error("raw line separators in the page")
	}
	data := dataOf(t, page)
	if bytes.ContainsAny(data, "<>&") {
		t.Error("unescaped <, > or & in the data")
	}
	// It still parses, and decodes to exactly the capture's text.
	var v struct {
		Meta struct {
			Name, Tool, Notes string
		}
		Runs   []struct{ RunID string }
		Lanes  []struct{ SessionKey string }
		Labels []string
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if v.Meta.Name != "evil"+hostile || v.Meta.Tool != hostile || !strings.Contains(v.Meta.Notes, "\u2028") {
		t.Errorf("meta did not round-trip: %+v", v.Meta)
	}
	if len(v.Runs) != 1 || v.Runs[0].RunID != "run-"+hostile || v.Lanes[0].SessionKey != "agent:ev</script>il:"+hostile {
		t.Errorf("run or lane did not round-trip: %+v %+v", v.Runs, v.Lanes)
	}
	if !strings.Contains(strings.Join(v.Labels, "|"), "custom."+hostile) {
		t.Errorf("labels: %q", v.Labels)
	}
	// The title is HTML-escaped.
	if !bytes.Contains(page, []byte("<title>clawtap report — evil&lt;/script&gt;")) {
		t.Error("title not escaped")
	}
	// The trace is JSON too.
	var tb bytes.Buffer
	WriteTrace(&tb, r)
	if !json.Valid(tb.Bytes()) {
		t.Error("trace is not JSON")
	}
}

func TestEscapeData(t *testing.T) {
	in := []byte(`{"a":"</script>&<!-- \u2028 ` + "\u2028\u2029 é ✓" + `"}`)
	out := EscapeData(nil, in)
	if bytes.ContainsAny(out, "<>&") || bytes.ContainsRune(out, '\u2028') || bytes.ContainsRune(out, '\u2029') {
		t.Fatalf("not escaped: %s", out)
	}
	var a, b any
	json.Unmarshal(in, &a)
	if err := json.Unmarshal(out, &b); err != nil {
		t.Fatal(err)
	}
	if a.(map[string]any)["a"] != b.(map[string]any)["a"] {
		t.Fatalf("escaping changed the value: %q vs %q", a, b)
	}
}

// escapeByByte is EscapeData one byte at a time, as it was first written:
// the reference for the eight-at-a-time scan.
func escapeByByte(dst, data []byte) []byte {
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '<':
			dst = append(dst, `\u003c`...)
		case c == '>':
			dst = append(dst, `\u003e`...)
		case c == '&':
			dst = append(dst, `\u0026`...)
		case c == 0xE2 && i+2 < len(data) && data[i+1] == 0x80 && data[i+2] == 0xA8:
			dst, i = append(dst, `\u2028`...), i+2
		case c == 0xE2 && i+2 < len(data) && data[i+1] == 0x80 && data[i+2] == 0xA9:
			dst, i = append(dst, `\u2029`...), i+2
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// FuzzEscapeData: the scan eight bytes at a time escapes what the plain
// byte loop escapes, wherever the bytes to escape fall.
func FuzzEscapeData(f *testing.F) {
	for _, s := range []string{`{"a":"</script>&"}`, "x\u2028y\u2029\u2027\xe2\x80", strings.Repeat("abcdefg<", 5) + "\xe2\x80\xa8", "\xe2\xe2\x80\xa9&&>>"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := EscapeData(nil, data), escapeByByte(nil, data); !bytes.Equal(got, want) {
			t.Fatalf("%q: %q, want %q", data, got, want)
		}
	})
}

func TestNoRedactBanner(t *testing.T) {
	r := buildBytes(t, hostileCapture(false), Options{})
	if !r.Meta.NoRedact {
		t.Fatal("credentials:false should mark the report not redacted")
	}
	if !bytes.Contains(AppendData(nil, r), []byte(`"noRedact":true`)) {
		t.Error("data does not carry noRedact")
	}
	r = buildFile(t, fixturePath(t, "demo.jsonl.zst"), Options{})
	if r.Meta.NoRedact || !r.Meta.Credentials {
		t.Error("a redacted capture is marked not redacted")
	}
}

func TestAssetsAreSafeAndTheCSPMatches(t *testing.T) {
	css, js := Assets()
	for _, s := range []string{css, js} {
		l := strings.ToLower(s)
		if strings.Contains(l, "</script") || strings.Contains(l, "</style") || strings.Contains(l, "<!--") {
			t.Error("an asset could end its element early")
		}
		for _, bad := range []string{"http://", "https://", "fetch(", "XMLHttpRequest", "innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"} {
			if strings.Contains(s, bad) {
				t.Errorf("asset uses %q", bad)
			}
		}
	}
	page := string(AppendHTML(nil, buildFile(t, fixturePath(t, "demo.jsonl.zst"), Options{})))
	if !strings.Contains(page, cspHash(js)) || !strings.Contains(page, cspHash(css)) || !strings.Contains(page, "default-src 'none'") {
		t.Error("the Content-Security-Policy does not pin the inline assets")
	}
}

// large writes a synth.Large capture of n frames.
func large(t testing.TB, n int) []byte {
	t.Helper()
	b, err := synth.LargeJSONL(n, 1)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A timeline that alone outgrows the limit is kept whole, and the report
// says so instead of quietly being larger than asked.
func TestSkeletonOverTheLimit(t *testing.T) {
	r := buildBytes(t, large(t, 6_000), Options{Name: "large", MaxBytes: MinMaxBytes}) // a timeline of about 94 kB
	data := AppendData(nil, r)
	if len(data) <= MinMaxBytes {
		t.Fatalf("data is %d bytes: the test needs a timeline over %d", len(data), MinMaxBytes)
	}
	if r.Summary.Skeleton <= MinMaxBytes || r.Summary.Skeleton < len(data)-len(data)/20 || r.Summary.Skeleton > len(data)+2048 {
		t.Errorf("Skeleton %d for %d bytes of data, limit %d", r.Summary.Skeleton, len(data), MinMaxBytes)
	}
	notes := strings.Join(r.Notes, " ")
	if !strings.Contains(notes, "more than 64 KiB (--max-bytes): it is never elided, so this report is larger than the limit") {
		t.Errorf("notes: %q", notes)
	}
	if r.Summary.Bodies != 0 || len(r.Timers) != 0 {
		t.Errorf("bodies %d, timers %d kept over the limit", r.Summary.Bodies, len(r.Timers))
	}
}

func TestSizeLimit(t *testing.T) {
	skipLarge(t)
	capt := large(t, 10_000)
	const limit = 500_000
	r := buildBytes(t, capt, Options{Name: "large", MaxBytes: limit})
	data := AppendData(nil, r)
	if len(data) > limit {
		t.Fatalf("data is %d bytes, over the %d limit", len(data), limit)
	}
	if r.Summary.BodiesElided == 0 || len(r.Notes) == 0 || !strings.Contains(strings.Join(r.Notes, " "), "--max-bytes") {
		t.Fatalf("nothing elided or no note: %+v %q", r.Summary, r.Notes)
	}
	if r.Summary.Skeleton != 0 || strings.Contains(strings.Join(r.Notes, " "), "larger than the limit") {
		t.Errorf("the timeline fits, but the report says it does not: %d, %q", r.Summary.Skeleton, r.Notes)
	}
	// Key records keep their bodies longest: every marker has its body.
	have := map[int]bool{}
	for _, b := range r.Bodies {
		have[b.I] = true
	}
	for row := range r.Rows.All() {
		if row.Type == TypeMarker && !have[row.I] {
			t.Errorf("marker #%d lost its body", row.I)
		}
	}
	// The timeline keeps every run and every key row.
	full := buildBytes(t, capt, Options{Name: "large", MaxBytes: 1 << 30})
	if r.NumRuns() != full.NumRuns() || r.NumFindings() != full.NumFindings() {
		t.Errorf("runs %d/%d findings %d/%d", r.NumRuns(), full.NumRuns(), r.NumFindings(), full.NumFindings())
	}
	keys := func(rep *Report) int {
		n := 0
		for row := range rep.Rows.All() {
			if row.Type != TypeAgentDelta && row.Type != TypeChatDelta && row.Type != TypeTraffic && row.Type != TypeOther {
				n++
			}
		}
		return n
	}
	if keys(r) != keys(full) {
		t.Errorf("key rows %d, want %d", keys(r), keys(full))
	}
	if full.Summary.BodiesElided != 0 {
		t.Errorf("nothing should be elided under a 1 GiB limit: %+v", full.Summary)
	}
	if small := buildBytes(t, large(t, 5000), Options{}); small.Summary.BodiesElided != 0 || len(small.Notes) != 0 {
		t.Errorf("5000 frames should fit the default limit: %+v %q", small.Summary, small.Notes)
	}
	// Deterministic at the limit too.
	again := buildBytes(t, capt, Options{Name: "large", MaxBytes: limit})
	if !bytes.Equal(AppendHTML(nil, r), AppendHTML(nil, again)) {
		t.Error("elision is not deterministic")
	}
}

// A body kept under a tight limit is whole: the same as the record's body
// when nothing is elided, effects and state diff included, whatever
// priority the record reached after its replay step (a finding pinned on
// it makes it critical).
func TestKeptBodiesAreWhole(t *testing.T) {
	skipLarge(t)
	capt := large(t, 20_000)
	whole := bodiesOf(t, buildBytes(t, capt, Options{Name: "large", MaxBytes: 1 << 30}))
	for _, limit := range []int{1_000_000, 2_000_000, 3_000_000} {
		r := buildBytes(t, capt, Options{Name: "large", MaxBytes: limit})
		if r.Summary.BodiesElided == 0 {
			t.Fatalf("limit %d: nothing elided; the test needs a tight limit", limit)
		}
		kept := bodiesOf(t, r)
		if len(kept) == 0 {
			t.Errorf("limit %d: no body kept", limit)
		}
		if i, ok := partialBody(kept, whole); !ok {
			t.Errorf("limit %d: record #%d's body differs from its whole body:\n got %.300s\nwant %.300s", limit, i, kept[i], whole[i])
		}
	}
}

// bodiesOf reads a report's kept bodies back, by record index.
func bodiesOf(t testing.TB, r *Report) map[int][]byte {
	t.Helper()
	out := make(map[int][]byte, len(r.Bodies))
	for _, b := range r.Bodies {
		js, err := r.BodyJSON(b)
		if err != nil {
			t.Fatal(err)
		}
		out[b.I] = js
	}
	return out
}

// partialBody finds a kept body that is not the record's whole body (the
// lowest record index, for a stable message); ok when there is none.
func partialBody(kept, whole map[int][]byte) (i int, ok bool) {
	i, ok = -1, true
	for k, js := range kept {
		if !bytes.Equal(js, whole[k]) && (ok || k < i) {
			i, ok = k, false
		}
	}
	return i, ok
}

func TestTraceShape(t *testing.T) {
	r := buildFile(t, fixturePath(t, "stale-terminal.jsonl.zst"), Options{})
	var buf bytes.Buffer
	if err := WriteTrace(&buf, r); err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Pid  int            `json:"pid"`
			Tid  int            `json:"tid"`
			Ts   int64          `json:"ts"`
			Dur  int64          `json:"dur"`
			S    string         `json:"s"`
			Cat  string         `json:"cat"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
		DisplayTimeUnit string `json:"displayTimeUnit"`
	}
	if err := json.Unmarshal(buf.Bytes(), &tr); err != nil {
		t.Fatal(err)
	}
	threads := map[[2]int]string{}
	var slices, instants, findings int
	for _, e := range tr.TraceEvents {
		switch e.Ph {
		case "M":
			if e.Name == "thread_name" {
				threads[[2]int{e.Pid, e.Tid}] = e.Args["name"].(string)
			}
		case "X":
			if e.Cat == "run" {
				slices++
				if threads[[2]int{e.Pid, e.Tid}] == "" {
					t.Errorf("run slice on an unnamed thread: %+v", e)
				}
			}
		case "i":
			instants++
			if e.S == "" {
				t.Errorf("instant without scope: %+v", e)
			}
			if strings.HasPrefix(e.Name, "finding: ") {
				findings++
				if e.Args["message"] == "" || e.Args["severity"] == "" {
					t.Errorf("finding without args: %+v", e)
				}
			}
		}
	}
	// The trace does not depend on bodies: building without them is the same.
	var lean bytes.Buffer
	WriteTrace(&lean, buildFile(t, fixturePath(t, "stale-terminal.jsonl.zst"), Options{NoBodies: true}))
	if !bytes.Equal(lean.Bytes(), buf.Bytes()) {
		t.Error("NoBodies changed the trace")
	}
	// One connection thread, two session threads (the runs overlap).
	if len(threads) != 3 || slices != 2 || findings != r.NumFindings() || instants < r.Rows.Len() {
		t.Errorf("threads %v, run slices %d, findings %d, instants %d", threads, slices, findings, instants)
	}
}

// transcript and output read what waits in the report's spool for run k.
func transcript(t *testing.T, r *Report, k int) []Line {
	t.Helper()
	run := runAt(t, r, k)
	lines, err := r.Transcript(&run)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func output(t *testing.T, r *Report, k int) []string {
	t.Helper()
	run := runAt(t, r, k)
	out, err := r.Output(&run)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TimersElided counts timer steps, not their parts: a step is elided when
// none of its parts (one per agent it touched) is kept. Under any limit it
// lies between the steps the whole report shows and are not shown now,
// and all the steps that changed something and are not shown now.
func TestTimersElidedCountsSteps(t *testing.T) {
	skipLarge(t)
	capt := large(t, 20_000)
	steps := func(r *Report) map[int]bool {
		s := map[int]bool{}
		for _, x := range r.Timers {
			s[x.step] = true
		}
		return s
	}
	read := func(b *Builder) *Report {
		r, err := capture.NewReader(bytes.NewReader(capt), capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return runBuilder(t, b, r, replay.UI{})
	}
	whole := read(NewBuilder(Options{Name: "large", MaxBytes: 1 << 30}))
	shown := steps(whole)
	if whole.Summary.TimersElided != 0 || len(shown) == 0 {
		t.Fatalf("no limit: %d timer steps elided, %d shown", whole.Summary.TimersElided, len(shown))
	}
	multi := 0
	for k := 1; k < len(whole.Timers); k++ {
		if whole.Timers[k].step == whole.Timers[k-1].step {
			multi++
		}
	}
	if multi == 0 {
		t.Fatal("no timer step touched two agents: the test needs steps of several parts")
	}
	for _, limit := range []int{1_000_000, 2_000_000, 3_000_000} {
		b := NewBuilder(Options{Name: "large", MaxBytes: limit})
		r := read(b)
		kept := steps(r)
		lo, hi := len(shown)-len(kept), b.timerSteps-len(kept)
		if got := r.Summary.TimersElided; got < lo || got > hi || got == 0 {
			t.Errorf("limit %d: %d timer steps elided; %d of %d shown steps are kept and %d changed something, so it must be in [%d, %d]",
				limit, got, len(kept), len(shown), b.timerSteps, lo, hi)
		}
	}
}

// runAt reads run k of rep (from 0), failing the test when it cannot.
func runAt(t testing.TB, rep *Report, k int) Run {
	t.Helper()
	runs := allRuns(t, rep)
	if k >= len(runs) {
		t.Fatalf("run %d of %d", k, len(runs))
	}
	return runs[k]
}

// allRuns reads all of rep's runs.
func allRuns(t testing.TB, rep *Report) []Run {
	t.Helper()
	runs := slices.Collect(rep.Runs())
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	if len(runs) != rep.NumRuns() {
		t.Fatalf("read %d runs of %d", len(runs), rep.NumRuns())
	}
	return runs
}

// allFindings reads all of rep's findings.
func allFindings(t testing.TB, rep *Report) []PinnedFinding {
	t.Helper()
	fs := slices.Collect(rep.Findings())
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	if len(fs) != rep.NumFindings() {
		t.Fatalf("read %d findings of %d", len(fs), rep.NumFindings())
	}
	return fs
}

// The note's count of elided transcript lines is every run's count summed:
// those refused while the pass ran and those the end of the pass took off,
// at several limits.
func TestTranscriptElidedNoteCountsEveryRun(t *testing.T) {
	skipLarge(t)
	capt := large(t, 20_000)
	seen := 0
	for _, limit := range []int{MinMaxBytes, 300_000, 1_000_000, 4_000_000} {
		r := buildBytes(t, capt, Options{Name: "large", MaxBytes: limit})
		sum := 0
		for _, run := range allRuns(t, r) {
			sum += int(run.TranscriptElided)
		}
		note := ""
		for _, n := range r.Notes {
			if strings.HasSuffix(n, " transcript line(s) were elided by the size limit") {
				note = n
			}
		}
		want := ""
		if sum > 0 {
			want = strconv.Itoa(sum) + " transcript line(s) were elided by the size limit"
			seen++
		}
		if note != want {
			t.Errorf("limit %d: note %q, runs' counts sum to %d", limit, note, sum)
		}
	}
	if seen < 2 {
		t.Errorf("only %d of the limits elided transcript lines: the test needs more", seen)
	}
	// Lines a committed transcript brings when the budget is spent are
	// refused as they come, and counted in the run and in the note's sum
	// (the captures above commit none: their runs' output is what is cut).
	b := NewBuilder(Options{MaxBytes: MinMaxBytes})
	defer b.Report().Close()
	run := &Run{ID: "r1"}
	b.skel = 2 * MinMaxBytes
	for _, l := range []replay.Line{{Kind: "assistant", Text: "one"}, {Kind: "assistant", Text: "two"}} {
		b.addLine(run, &l, "")
	}
	if got := run.TranscriptElided; got != 2 || b.linesCut != 2 {
		t.Errorf("2 lines refused: the run counts %d, the note's sum %d", got, b.linesCut)
	}
}

package synth

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/clawtap/clawtap/pkg/capture"
)

// Fixture is one of the committed captures under fixtures/.
type Fixture struct {
	Name  string // e.g. "streamed-run"
	File  string // file name under fixtures/, e.g. "streamed-run.jsonl.zst"
	Notes string // what it demonstrates; also the header's notes
	// Build returns the fixture's Session, for tests that want the records
	// without reading a file. Nil for the byte-level fixtures (junk,
	// bare-frames, truncated).
	Build func() *Session

	bytes func(Fixture) ([]byte, error)
}

// Bytes returns the fixture's exact file contents. Same bytes every call.
func (f Fixture) Bytes() ([]byte, error) {
	if f.bytes != nil {
		return f.bytes(f)
	}
	return f.Build().Encode(f.Notes, strings.HasSuffix(f.File, ".zst"))
}

// Compressed reports whether the fixture file is zstd-compressed.
func (f Fixture) Compressed() bool { return strings.HasSuffix(f.File, ".zst") }

// Fixtures returns every fixture, in a stable order.
func Fixtures() []Fixture {
	return append([]Fixture{
		{Name: "demo", File: "demo.jsonl.zst", Build: Demo,
			Notes: "The README's 30-second demo: handshake, a streamed reply with a tool run (ls), a ui client joining (presence), a heartbeat, health and a tick. One of everything interesting, kept short."},
		{Name: "streamed-run", File: "streamed-run.jsonl.zst", Build: StreamedRun,
			Notes: "One streamed reply on 2026.9.6: chat.send res {status:started}; chat status / agent run_status phases; lifecycle start and model; agent assistant {text cumulative, delta} paired with chat delta {deltaText, message cumulative} sharing payload seq (one pair with the chat delta first, coalesced pairs where the payload seq jumps, a tail held back by pacing and flushed as a last delta with the final's seq); usage; lifecycle finishing, model null and end; chat final."},
		{Name: "tool-run", File: "tool-run.jsonl.zst", Build: ToolRun,
			Notes: "A run that calls a tool, seen by two connections: the sender (cli, caps tool-events) gets agent tool start {name, toolCallId, args} and result {result:{content, details}, isError}; the ui observer sees only item start/end, so its payload seqs have holes while both connections' frame seqs stay contiguous. The ui connection's events carry recipientProfileId."},
		{Name: "abort", File: "abort.jsonl.zst", Build: AbortRun,
			Notes: "chat.abort during a slow reply: chat aborted {stopReason:rpc, message: partial text} and lifecycle end {status:cancelled, aborted:true} sharing one payload seq, the chat.abort res {ok, aborted, runIds}, then ~73 ms later lifecycle error {error:This operation was aborted}. No final."},
		{Name: "error-run", File: "error-run.jsonl.zst", Build: ErrorRun,
			Notes: "A failing run: a retry after a transient failure (run_status retrying, assistant and chat delta with replace:true resetting the partial reply, a fresh lifecycle start/model), then lifecycle error and two chat error frames for the same runId - first with agentId and the run's payload seq, then ~40 ms later with payload seq 1, no agentId, 'Agent failed before reply'."},
		{Name: "slash-command", File: "slash-command.jsonl.zst", Build: SlashCommand,
			Notes: "/status through chat.send: res {status:started} and exactly one chat final with payload seq 1, no agentId, provider openclaw / model gateway-injected. No agent events at all."},
		{Name: "exec-approval", File: "exec-approval.jsonl.zst", Build: ExecApproval,
			Notes: "Two exec approvals: one allowed (allow-once) and one denied, answered with exec.approval.resolve. exec.approval.requested/resolved go only to the connection with the approvals cap; the cli observer without it sees only agent lifecycle waiting-approval / approval-resolved."},
		{Name: "presence-burst", File: "presence-burst.jsonl.zst", Build: PresenceBurst,
			Notes: "Presence and heartbeat bursts for a 750 ms summary-refresh debounce. Expected refreshes: 4. Burst 1 (5 events within 500 ms) ends with a heartbeat; burst 2 (heartbeats and a health, which is not a summary event) ends with a presence, so the last intent decides: no heartbeat refresh; burst 3 has two presences 740 ms apart (one refresh) and a heartbeat 760 ms after that (a separate refresh)."},
		{Name: "reconnect", File: "reconnect.jsonl.zst", Build: Reconnect,
			Notes: "A gateway restart: the running reply finishes, then shutdown {reason:gateway stopping}, close marker 1012 service restart; 12 s later connection 2 opens, hello-ok has a new bootId and the frame seq restarts at 1; a new run follows."},
		{Name: "seq-gap", File: "seq-gap.jsonl.zst", Build: SeqGap,
			Notes: "A real frame-level seq gap on connection 1 only (a slow consumer: 5 droppable frames used up their seqs and never arrived, so seq jumps by 6), and the gateway's own agent stream:error {reason:seq gap, expected, received} event for a per-run seq jump. Connection 2 (ui) has no gap."},
		{Name: "junk", File: "junk.jsonl",
			Notes: "Bad input inside a valid capture, plain JSON Lines so people can read it: a raw record, malformed and truncated lines, records with fields of the wrong type, unknown event names, seq as a string, payload as an array, a chat payload without runId, frames that are not objects, a ~70 KB frame (over bufio.Scanner's 64 KiB default), a blank line, time going backwards, a frame for a connection that never opened, and an error marker.",
			bytes: junkBytes},
		{Name: "bare-frames", File: "bare-frames.jsonl",
			Notes: "Bare gateway frames, one per line: no header, no envelope, as one might paste from a browser console. A handshake and a short streamed run.",
			bytes: bareBytes},
		{Name: "truncated", File: "truncated.jsonl.zst",
			Notes: "A recorder SIGKILLed mid-write: the zstd stream is cut off mid-block. The records of the complete blocks read fine; the reader then warns and stops.",
			bytes: truncatedBytes},
		{Name: "stale-terminal", File: "stale-terminal.jsonl.zst", Build: StaleTerminal,
			Notes: "The reference pipeline's stale-terminal hazard: run r1 streams, its lifecycle end never reaches this connection (its payload seq jumps), then run r2 of the same session starts and streams, and r1's late chat final arrives while r2 is live; r2 then streams on and gets its own final."},
		{Name: "duplicate-final", File: "duplicate-final.jsonl.zst", Build: DuplicateFinal,
			Notes: "The same chat final delivered twice (identical payload, consecutive frame seqs, 3 ms apart) after a normal streamed run."},
	}, wireFixtures()...)
}

// Lookup returns the fixture with the given name.
func Lookup(name string) (Fixture, bool) {
	for _, f := range Fixtures() {
		if f.Name == name {
			return f, true
		}
	}
	return Fixture{}, false
}

const mainKey = "agent:main:main"

// cliTools is the recorder-as-client: a cli connection that sends chat and
// declares tool-events.
var cliTools = ConnOptions{Caps: []string{"tool-events"}}

var uiObserver = ConnOptions{ClientID: "openclaw-control-ui", Mode: "ui", DisplayName: "Control UI"}

// Demo builds the demo fixture.
func Demo() *Session {
	s := New(1)
	c := s.Open(cliTools)
	s.Advance(180)
	s.Health()
	s.Advance(640)
	r := c.ChatSend(mainKey, "What's in this folder?")
	r.Prepare()
	s.Advance(284)
	r.Say("Let me")
	s.Advance(76)
	r.Say(" look.")
	r.Tool("ls", "Ls .", []byte(`{"path":"."}`), "README.md\ngo.mod\nmain.go\n", false)
	s.Advance(310)
	r.Say("\n\nThree files:")
	s.Advance(75)
	r.Say(" README.md, go.mod")
	s.Advance(74)
	r.SayAgentOnly(" and main.go.")
	s.Advance(30)
	r.Finish()
	s.Advance(1400)
	s.ClientJoined()
	s.Advance(2100)
	s.Heartbeat("ok-empty")
	s.Advance(1250)
	s.Tick()
	return s
}

var tidePool = []string{
	"Tide", " pools", " are", " rocky", " hollows", " that", " hold", " seawater",
	" when", " the", " tide", " goes", " out,", " sheltering", " anemones,", " crabs", " and", " snails.",
}

// StreamedRun builds the streamed-run fixture.
func StreamedRun() *Session {
	s := New(2)
	c := s.Open(cliTools)
	s.Advance(210)
	s.Health()
	s.Advance(1200)
	r := c.ChatSend(mainKey, "Tell me about tide pools in one sentence.")
	r.Prepare()
	s.Advance(330)
	words := tidePool
	for i := 0; i < len(words); {
		switch {
		case i == 3:
			r.SayChatFirst(words[i])
			i++
		case i == 6 || i == 11:
			// Two tokens within one 75 ms window: merged, seq jumps.
			r.Skip(1)
			r.Say(words[i] + words[i+1])
			i += 2
		case i == len(words)-1:
			r.SayAgentOnly(words[i])
			i++
		default:
			r.Say(words[i])
			i++
		}
		s.Advance(61 + int64(i%4)*7)
	}
	r.Finish()
	s.Advance(2600)
	s.Tick()
	return s
}

// ToolRun builds the tool-run fixture.
func ToolRun() *Session {
	s := New(3)
	c := s.Open(cliTools)
	s.Advance(400)
	s.Open(uiObserver)
	s.Advance(900)
	r := c.ChatSend(mainKey, "List the files in the workspace (TOOL)")
	r.Prepare()
	s.Advance(280)
	r.Say("I'll list")
	s.Advance(75)
	r.Say(" the files.")
	r.Tool("ls", "Ls .", []byte(`{"path":".","all":false}`),
		"AGENTS.md\nHEARTBEAT.md\nIDENTITY.md\nSOUL.md\nTOOLS.md\nUSER.md\n", false)
	s.Advance(420)
	r.Say("The workspace has")
	s.Advance(75)
	r.Say(" six files: AGENTS.md, HEARTBEAT.md,")
	s.Advance(76)
	r.Say(" IDENTITY.md, SOUL.md, TOOLS.md and USER.md.")
	s.Advance(20)
	r.Finish()
	s.Advance(1800)
	s.Tick()
	return s
}

// AbortRun builds the abort fixture.
func AbortRun() *Session {
	s := New(4)
	c := s.Open(cliTools)
	s.Advance(700)
	r := c.ChatSend(mainKey, "Write a long poem about the sea (SLOW)")
	seaPoem(s, r)
	r.Abort(c)
	s.Advance(1500)
	s.Tick()
	return s
}

// seaPoem streams the first words of the slow sea poem the abort fixtures
// stop, 249 ms apart, and waits 90 ms: the reply that is then aborted.
func seaPoem(s *Session, r *Run) {
	r.Prepare()
	s.Advance(300)
	for _, w := range []string{"The", " sea", " is", " a", " slow", " grey", " animal"} {
		r.Say(w)
		s.Advance(249)
	}
	s.Advance(90)
}

// ErrorRun builds the error-run fixture.
func ErrorRun() *Session {
	s := New(5)
	c := s.Open(cliTools)
	s.Advance(650)
	r := c.ChatSend(mainKey, "Summarize yesterday's notes.")
	r.Prepare()
	s.Advance(310)
	r.Say("Sure,")
	s.Advance(75)
	r.Say(" here is")
	s.Advance(900)
	r.Retry(1, 8, "provider_overloaded")
	s.Advance(1200)
	r.Fail("429 Too Many Requests: rate limit exceeded for fake-model", "rate_limit")
	s.Advance(2000)
	s.Tick()
	return s
}

// SlashCommand builds the slash-command fixture.
func SlashCommand() *Session {
	s := New(6)
	c := s.Open(cliTools)
	s.Advance(240)
	s.Health()
	s.Advance(500)
	c.Command(mainKey, "/status",
		"🦞 OpenClaw 2026.9.6\n🧠 Model: fake/fake-model · 🔑 api-key\n🧮 Tokens: 812 in / 0 out\n📚 Context: 812/120k (1%)\n🧵 Session: agent:main:main")
	s.Advance(3000)
	s.Tick()
	return s
}

// ExecApproval builds the exec-approval fixture.
func ExecApproval() *Session {
	s := New(7)
	c := s.Open(ConnOptions{Caps: []string{"tool-events", "approvals"}})
	s.Advance(300)
	s.Open(ConnOptions{DisplayName: "observer"})
	s.Advance(800)
	r := c.ChatSend(mainKey, "Clean the build directory.")
	r.Prepare()
	s.Advance(290)
	r.Say("I'll remove")
	s.Advance(75)
	r.Say(" the build directory.")
	a := r.RequestApproval("rm -rf build")
	s.Advance(4200)
	a.Resolve(c, "allow-once", "operator", "")
	s.Advance(350)
	r.Say(" Done: build/ is gone.")
	r.Finish()

	s.Advance(5000)
	r2 := c.ChatSend(mainKey, "Also clear the npm cache.")
	r2.Prepare()
	s.Advance(300)
	r2.Say("Running the cache clean.")
	a2 := r2.RequestApproval("npm cache clean --force")
	s.Advance(2600)
	a2.Resolve(c, "deny", "operator", "")
	s.Advance(400)
	r2.Say(" The command was denied, so I left the cache alone.")
	r2.Finish()
	return s
}

// PresenceBurst builds the presence-burst fixture.
func PresenceBurst() *Session {
	s := New(8)
	s.Open(ConnOptions{})
	s.Advance(1000)
	// Burst 1: ends with a heartbeat.
	s.ClientJoined()
	s.Advance(90)
	s.ClientJoined()
	s.Advance(120)
	s.Heartbeat("ok-empty")
	s.Advance(150)
	s.ClientJoined()
	s.Advance(110)
	s.Heartbeat("ok-token")
	// Quiet.
	s.Advance(3000)
	// Burst 2: heartbeats and a health, ends with a presence.
	s.Heartbeat("sent")
	s.Advance(130)
	s.Health()
	s.Advance(60)
	s.Heartbeat("ok-empty")
	s.Advance(200)
	s.ClientLeft()
	s.Advance(2500)
	// Burst 3: two presences 740 ms apart, then a heartbeat 760 ms later.
	s.ClientLeft()
	s.Advance(740)
	s.ClientJoined()
	s.Advance(760)
	s.Heartbeat("ok-empty")
	s.Advance(2000)
	s.Tick()
	return s
}

// Reconnect builds the reconnect fixture.
func Reconnect() *Session {
	s := New(9)
	c := s.Open(cliTools)
	s.Advance(600)
	r := c.ChatSend(mainKey, "Say hi.")
	r.Prepare()
	s.Advance(270)
	r.Say("Hi")
	s.Advance(75)
	r.Say(" there!")
	s.Advance(40)
	r.Finish()
	s.Advance(900)
	s.Shutdown()
	s.Advance(12_300)
	c2 := s.Open(cliTools)
	s.Advance(850)
	s.Health()
	s.Advance(1500)
	r2 := c2.ChatSend(mainKey, "Are you back?")
	r2.Prepare()
	s.Advance(300)
	r2.Say("Yes,")
	s.Advance(75)
	r2.Say(" I'm back.")
	s.Advance(30)
	r2.Finish()
	return s
}

// SeqGap builds the seq-gap fixture.
func SeqGap() *Session {
	s := New(10)
	c := s.Open(cliTools)
	s.Advance(300)
	s.Open(uiObserver)
	s.Advance(700)
	r := c.ChatSend(mainKey, "Count to twelve (FAST)")
	r.Prepare()
	s.Advance(280)
	n := 0
	say := func() {
		n++
		r.Say(fmt.Sprintf(" %d", n))
		s.Advance(75)
	}
	say()
	say()
	say()
	// Connection 1 falls behind: the next 5 droppable frames are lost to it.
	c.Drop(5)
	say()
	say()
	say()
	say()
	// The gateway notices a per-run seq jump and says so.
	r.SeqGap(2)
	say()
	say()
	r.Finish()
	s.Advance(1200)
	s.Tick()
	return s
}

// StaleTerminal builds the stale-terminal fixture.
func StaleTerminal() *Session {
	s := New(14)
	c := s.Open(cliTools)
	s.Advance(500)
	r1 := c.ChatSend(mainKey, "Summarize the report.")
	r1.Prepare()
	s.Advance(290)
	r1.Say("The report")
	s.Advance(75)
	r1.Say(" covers Q3")
	s.Advance(75)
	r1.Say(" revenue.")
	// r1's usage, finishing, model and end never reach us.
	r1.Skip(4)
	s.Advance(400)
	r2 := c.ChatSend(mainKey, "Actually, just give me the title.")
	r2.Prepare()
	s.Advance(280)
	r2.Say("Title:")
	s.Advance(75)
	r2.Say(" Q3 Revenue")
	s.Advance(40)
	// r1's late final while r2 is live.
	r1.Final()
	s.Advance(35)
	r2.Say(" Review")
	s.Advance(75)
	r2.Say(" 2026.")
	s.Advance(20)
	r2.Finish()
	s.Advance(1500)
	s.Tick()
	return s
}

// DuplicateFinal builds the duplicate-final fixture.
func DuplicateFinal() *Session {
	s := New(15)
	c := s.Open(cliTools)
	s.Advance(500)
	r := c.ChatSend(mainKey, "What is 2+2?")
	r.Prepare()
	s.Advance(300)
	r.Say("2 + 2")
	s.Advance(75)
	r.Say(" = 4.")
	s.Advance(20)
	r.Finish()
	s.Advance(3)
	r.Final()
	s.Advance(1500)
	s.Tick()
	return s
}

// --- byte-level fixtures ----------------------------------------------------

// junkLine is a line written verbatim, with the warning the reader should
// give for it ("" for none).
type junkLine struct {
	text string
	warn string
}

// junkBytes writes the junk fixture and is also used by the tests, which
// get the expected warnings from junkCapture.
func junkBytes(f Fixture) ([]byte, error) {
	b, _, err := junkCapture(f.Notes)
	return b, err
}

// junkCapture returns the junk capture and the warnings reading it must
// produce.
func junkCapture(notes string) ([]byte, []capture.Warning, error) {
	var buf bytes.Buffer
	w, err := capture.NewWriter(&buf, false)
	if err != nil {
		return nil, nil, err
	}
	if err := w.WriteHeader(NewHeader(notes)); err != nil {
		return nil, nil, err
	}
	line := 1 // the header
	var warns []capture.Warning

	s := New(11)
	flushSession := func() error {
		for i := range s.recs {
			if err := w.Write(&s.recs[i]); err != nil {
				return err
			}
			line++
		}
		s.recs = s.recs[:0]
		return nil
	}
	verbatim := func(ls ...junkLine) error {
		if err := w.Flush(); err != nil {
			return err
		}
		for _, l := range ls {
			buf.WriteString(l.text)
			buf.WriteByte('\n')
			line++
			if l.warn != "" {
				warns = append(warns, capture.Warning{Line: line, Msg: l.warn + "; kept as an invalid record"})
			}
		}
		return nil
	}

	c := s.Open(cliTools)
	s.Advance(150)
	s.Tick()
	s.Advance(40)
	c.Raw(capture.DirIn, "PING keepalive (not JSON)")
	if err := flushSession(); err != nil {
		return nil, nil, err
	}
	t := s.Now()
	ts := func(d int64) string { return fmt.Sprint(t + d) }
	if err := verbatim(
		junkLine{`{"t":` + ts(10) + `,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","payload":{"runId":"`, "not valid JSON"},
		junkLine{`not json at all`, "not a JSON object"},
		junkLine{`[1,2,3]`, "not a JSON object"},
		junkLine{`{"hello":"world"}`, "neither a capture record nor a gateway frame"},
		junkLine{`{"t":"yesterday","conn":1,"dir":"in","frame":{"type":"event","event":"tick","payload":{"ts":` + ts(20) + `}}}`, `record field "t" has the wrong type`},
		junkLine{`{"t":` + ts(30) + `,"conn":1,"dir":"in"}`, "record has no frame, raw or mark"},
		junkLine{``, ""},
		junkLine{`{"t":` + ts(40) + `,"conn":"1","dir":"in","frame":{"type":"event","event":"tick","payload":{"ts":` + ts(40) + `}}}`, `record field "conn" has the wrong type`},
		junkLine{`{"t":` + ts(50) + `,"conn":1,"dir":"in","raw":42}`, `record field "raw" has the wrong type`},
		junkLine{`{"t":` + ts(60) + `,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","payload":{}}} trailing`, "not valid JSON"},
	); err != nil {
		return nil, nil, err
	}
	s.Advance(100)
	seq := c.seq
	next := func() string { seq++; return fmt.Sprint(seq) }
	frames := []string{
		`{"type":"event","event":"totally.new.event","payload":{"x":1},"seq":` + next() + `}`,
		`{"type":"event","event":"plugin.acme.widget","payload":{"widget":"gauge","value":0.5},"seq":` + next() + `}`,
		`{"type":"event","event":"tick","payload":{"ts":` + ts(120) + `},"seq":"7"}`,
		`{"type":"event","event":"presence","payload":[1,2,3],"seq":` + next() + `}`,
		`{"type":"event","event":"chat","payload":{"sessionKey":"agent:main:main","seq":3,"state":"final","message":{"role":"assistant","content":[{"type":"text","text":"no runId here"}],"timestamp":` + ts(130) + `}},"seq":` + next() + `}`,
		`{"type":"event","event":"agent","payload":{"runId":"r-junk","stream":7,"data":"not an object","seq":"1"},"seq":` + next() + `}`,
		`{"type":"event","event":"chat","payload":{"runId":"r-junk","sessionKey":"main","seq":2,"state":"streaming"},"seq":` + next() + `}`,
		`{"type":"evt","event":"tick","payload":{"ts":` + ts(140) + `}}`,
		`"just a string"`,
		`null`,
		`42`,
		`{"type":"event","event":"tick","seq":` + next() + `}`,
		`{"type":"res","id":"r99-nope","ok":true,"payload":{}}`,
		`{"type":"event","event":"tick","event":"chat","payload":{"ts":` + ts(150) + `},"seq":` + next() + `}`,
		`{"type":"event","event":"exec.approval.requested","payload":{"id":"ap-junk","request":["rm","-rf","/"],"createdAtMs":"soon"},"seq":` + next() + `}`,
		`{"type":"event","event":"heartbeat","payload":null,"seq":-1}`,
		`{"type":"event","event":"heartbeat","payload":{"ts":` + ts(160) + `},"seq":3.5}`,
		`{"type":"event","event":"chat","payload":{"runId":"r-uni","sessionKey":"agent:main:main","seq":1,"state":"delta","deltaText":"\"quoted\" <b>&amp;</b> \\ tab\t emoji 🦀 sep\u2028end","message":{"role":"assistant","content":[{"type":"text","text":"\"quoted\" <b>&amp;</b> \\ tab\t emoji 🦀 sep\u2028end"}],"timestamp":` + ts(170) + `}},"seq":` + next() + `}`,
	}
	for _, fr := range frames {
		s.Advance(5)
		c.Frame(capture.DirIn, []byte(fr))
	}
	// A ~72 KB assistant frame.
	big := strings.Repeat("All work and no play makes a very long line. ", 1560)
	s.Advance(5)
	bw := jw{}
	bw.open()
	bw.str("runId", "r-big")
	bw.str("sessionKey", mainKey)
	bw.str("agentId", "main")
	bw.int("seq", 1)
	bw.int("ts", s.t)
	bw.str("stream", "assistant")
	bw.obj("data")
	bw.str("text", big)
	bw.str("delta", big[len(big)-46:])
	bw.close()
	bw.close()
	c.seq = seq
	c.Event("agent", bw.b)
	// Time goes backwards by two seconds.
	s.t -= 2000
	c.Event("tick", []byte(`{"ts":`+fmt.Sprint(s.t)+`}`))
	s.t += 2100
	// A connection that never opened, and a failed dial.
	s.rec = capture.Record{T: s.t, Conn: 2, Dir: capture.DirIn, Frame: []byte(`{"type":"event","event":"tick","payload":{"ts":` + fmt.Sprint(s.t) + `},"seq":1}`)}
	s.emit(&s.rec)
	s.Advance(10)
	s.mark(&capture.Record{Conn: 3, Mark: capture.MarkError, URL: DefaultURL, Err: "dial tcp 127.0.0.1:18789: connect: connection refused"})
	s.Advance(500)
	c.Close(1000, "")
	if err := flushSession(); err != nil {
		return nil, nil, err
	}
	if err := w.Close(); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), warns, nil
}

// bareSession is the session behind bare-frames.
func bareSession() *Session {
	s := New(12)
	c := s.Open(cliTools)
	s.Advance(300)
	r := c.ChatSend(mainKey, "Ping?")
	r.Prepare()
	s.Advance(260)
	r.Say("Pong")
	s.Advance(75)
	r.Say("!")
	s.Advance(10)
	r.Finish()
	s.Advance(1000)
	s.Tick()
	return s
}

func bareBytes(Fixture) ([]byte, error) {
	var b []byte
	for _, rec := range bareSession().recs {
		if rec.Frame == nil {
			continue
		}
		b = append(b, rec.Frame...)
		b = append(b, '\n')
	}
	return b, nil
}

// truncatedSession is the session behind truncated.
func truncatedSession() *Session {
	s := New(13)
	c := s.Open(cliTools)
	s.Advance(400)
	s.Health()
	s.Advance(600)
	r := c.ChatSend(mainKey, "Explain zstd frames briefly.")
	r.Prepare()
	s.Advance(280)
	for _, w := range strings.Fields("A zstd stream is a sequence of frames; each frame holds blocks, and a block can only be decoded whole, so a cut stream loses its last partial block.") {
		r.Say(w + " ")
		s.Advance(75)
	}
	r.Finish()
	s.Advance(1500)
	s.Tick()
	return s
}

// truncatedFlushEvery is how many records go into each zstd block.
const truncatedFlushEvery = 8

func truncatedBytes(f Fixture) ([]byte, error) {
	s := truncatedSession()
	var buf bytes.Buffer
	w, err := capture.NewWriter(&buf, true)
	if err != nil {
		return nil, err
	}
	if err := w.WriteHeader(s.Header(f.Notes)); err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	var ends []int // where each block ends
	for i := range s.recs {
		if err := w.Write(&s.recs[i]); err != nil {
			return nil, err
		}
		if (i+1)%truncatedFlushEvery == 0 {
			if err := w.Flush(); err != nil {
				return nil, err
			}
			ends = append(ends, buf.Len())
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	full := buf.Bytes()
	// Cut a little past the middle, mid-block: never at a block boundary.
	cut := len(full) * 3 / 5
	for slices.Contains(ends, cut) {
		cut += 5
	}
	return full[:cut], nil
}

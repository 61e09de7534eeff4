package synth

import (
	"bytes"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/release"
	"github.com/clawtap/clawtap/pkg/reshape"
)

// The fixtures of the wire after 2026.9.6: sessions built in 2026.9.6's
// shapes (with the frames of the hazard added by hand where 2026.9.6 does
// not make them), and for the 2026.9.7 ones rewritten by reshape, as
// `clawtap reshape --gateway 2026.9.7` does.

func wireFixtures() []Fixture {
	return []Fixture{
		{Name: "append-only", File: "append-only.jsonl.zst", Build: StreamedRun, bytes: reshaped,
			Notes: "streamed-run reshaped to the 2026.9.7 wire by clawtap reshape: the run's first chat delta and assistant event carry the cumulative text, the 15 after them only deltaText / data.delta (append-only live text); the final carries the whole message. A UI that reads only message freezes on \"Tide\"."},
		{Name: "plan-continuation", File: "plan-continuation.jsonl.zst", Build: PlanContinuation, bytes: reshaped,
			Notes: "2026.9.7's unfinished-plan check (made in 2026.9.6 shapes by hand, then reshaped to the 2026.9.7 wire): a run answers, then starts again on the same runId (a second lifecycle start and model, no terminal between, a new assistant item) and its chat text goes on after a blank line; one lifecycle end and one final for both answers."},
		{Name: "abort-not-saved", File: "abort-not-saved.jsonl.zst", Build: AbortNotSaved, bytes: reshaped,
			Notes: "2026.9.7's second terminal (made by hand, then reshaped to the 2026.9.7 wire): chat.abort during a reply gives chat aborted with the partial text, lifecycle end and error as on 2026.9.6, then ~120 ms later a chat error for the same run (payload seq 1, no agentId, stopReason aborted-partial-persistence-failed): the stopped reply could not be saved."},
		{Name: "retraction", File: "retraction.jsonl.zst", Build: Retraction, bytes: reshaped,
			Notes: "A retraction on the 2026.9.7 wire (2026.9.5+, reshaped from 2026.9.6 shapes): a reply streams \"Sure, here is\", the provider fails and the run retries (run_status retrying, agent assistant {text:\"\", delta:\"\", replace:true}, chat delta {deltaText:\"\", replace:true}: the retraction, both whole), then the new attempt's text comes append-only from an empty baseline and the run ends with a final."},
		{Name: "status-mid-turn", File: "status-mid-turn.jsonl.zst", Build: StatusMidTurn,
			Notes: "A mid-turn status of 2026.9.4+ on 2026.9.6: after the reply's first words the provider asks to wait (agent run_status retrying reason rate_limit, chat status phase starting_model with retry {attempt, maxAttempts, reason}); the reply then goes on with its text kept, and ends normally."},
		{Name: "announce-double-answer", File: "announce-double-answer.jsonl.zst", Build: AnnounceDoubleAnswer,
			Notes: "The double answer (seen on 2026.9.4, 2026.9.6 shapes): a chat.send lands while an announce:v1:… run holds the session; its run gets an empty chat final (payload seq 1, no agentId, no message, no lifecycle), the reply comes under a follow-up run id after the announce run ends, and the client, seeing no answer, sends the same message again, which is answered a second time."},
		{Name: "idempotency-conflict", File: "idempotency-conflict.jsonl.zst", Build: IdempotencyConflict,
			Notes: "A chat.send idempotency key reused with edited text on 2026.9.6 (2026.9.2+ binds a key to its input): the second send is refused with INVALID_REQUEST details.reason chat-request-conflict, and the first run goes on to its final."},
	}
}

// Reshaped reports whether the fixture is its session rewritten by
// reshape (its records are not the session's).
func (f Fixture) Reshaped() bool { return f.Build != nil && f.bytes != nil }

// reshaped is a fixture's session rewritten to the 2026.9.7 wire.
func reshaped(f Fixture) ([]byte, error) {
	plain, err := f.Build().Encode(f.Notes, false)
	if err != nil {
		return nil, err
	}
	r, err := capture.NewReader(bytes.NewReader(plain), capture.Options{Serial: true})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out bytes.Buffer
	w, err := capture.NewWriter(&out, f.Compressed())
	if err != nil {
		return nil, err
	}
	if _, err := reshape.Copy(w, r, reshape.Options{Target: release.V2026_9_7}); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// PlanContinuation builds the plan-continuation fixture (before reshape).
func PlanContinuation() *Session {
	s := New(16)
	c := s.Open(cliTools)
	s.Advance(500)
	r := c.ChatSend(mainKey, "Rename the three test files, then tell me what you did.")
	r.Prepare()
	s.Advance(290)
	r.Say("I renamed")
	s.Advance(75)
	r.Say(" two of the")
	s.Advance(75)
	r.Say(" three files.")
	s.Advance(400)
	k := r.Continue("\n\n")
	s.Advance(280)
	k.Say("The third,")
	s.Advance(75)
	k.Say(" util_test.go,")
	s.Advance(75)
	k.Say(" is renamed too.")
	s.Advance(20)
	r.Finish()
	s.Advance(1500)
	s.Tick()
	return s
}

// AbortNotSaved builds the abort-not-saved fixture (before reshape).
func AbortNotSaved() *Session {
	s := New(17)
	c := s.Open(cliTools)
	s.Advance(500)
	r := c.ChatSend(mainKey, "Write a long poem about the sea.")
	seaPoem(s, r)
	r.AbortNotSaved(c)
	s.Advance(1500)
	s.Tick()
	return s
}

// Retraction builds the retraction fixture (before reshape).
func Retraction() *Session {
	s := New(21)
	c := s.Open(cliTools)
	s.Advance(500)
	r := c.ChatSend(mainKey, "Summarize yesterday's notes.")
	r.Prepare()
	s.Advance(310)
	r.Say("Sure,")
	s.Advance(75)
	r.Say(" here is")
	s.Advance(900)
	r.Retry(1, 8, "provider_overloaded")
	s.Advance(300)
	r.Say("Here is")
	s.Advance(75)
	r.Say(" the summary:")
	s.Advance(75)
	r.Say(" three notes.")
	s.Advance(20)
	r.Finish()
	s.Advance(1500)
	s.Tick()
	return s
}

// StatusMidTurn builds the status-mid-turn fixture.
func StatusMidTurn() *Session {
	s := New(18)
	c := s.Open(cliTools)
	s.Advance(500)
	r := c.ChatSend(mainKey, "Summarize the design doc.")
	r.Prepare()
	s.Advance(300)
	r.Say("The design")
	s.Advance(75)
	r.Say(" doc proposes")
	s.Advance(200)
	r.WaitRateLimit(2, 10)
	s.Advance(1800)
	r.Say(" a streaming")
	s.Advance(75)
	r.Say(" recorder.")
	s.Advance(20)
	r.Finish()
	s.Advance(1500)
	s.Tick()
	return s
}

// AnnounceDoubleAnswer builds the announce-double-answer fixture.
func AnnounceDoubleAnswer() *Session {
	s := New(19)
	c := s.Open(cliTools)
	s.Advance(400)
	an := s.StartRunID(mainKey, "announce:v1:agent:main:subagent:42:"+s.uuid())
	an.Start()
	s.Advance(3)
	an.ModelSelected()
	s.Advance(250)
	an.Say("The sub-agent finished:")
	s.Advance(75)
	an.Say(" 3 files")
	s.Advance(60)
	k := c.ChatSend(mainKey, "And the tides?")
	s.Advance(35)
	k.EmptyFinal()
	s.Advance(60)
	an.Say(" renamed.")
	s.Advance(20)
	an.Finish()
	s.Advance(300)
	u := s.StartRunID(mainKey, s.uuid())
	u.Prepare()
	s.Advance(280)
	u.Say("Tides rise")
	s.Advance(75)
	u.Say(" twice a day.")
	s.Advance(20)
	u.Finish()
	s.Advance(2500)
	k2 := c.ChatSend(mainKey, "And the tides?")
	k2.Prepare()
	s.Advance(280)
	k2.Say("As I said,")
	s.Advance(75)
	k2.Say(" twice a day.")
	s.Advance(20)
	k2.Finish()
	s.Advance(1500)
	s.Tick()
	return s
}

// IdempotencyConflict builds the idempotency-conflict fixture.
func IdempotencyConflict() *Session {
	s := New(20)
	c := s.Open(cliTools)
	s.Advance(500)
	r := c.ChatSend(mainKey, "What is the weather?")
	r.Prepare()
	s.Advance(290)
	r.Say("I cannot")
	s.Advance(120)
	c.ChatSendReused(mainKey, "What is the weather in Oslo?", r.ID)
	s.Advance(40)
	r.Say(" check the weather.")
	s.Advance(20)
	r.Finish()
	s.Advance(1500)
	s.Tick()
	return s
}

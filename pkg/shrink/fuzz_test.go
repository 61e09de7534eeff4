package shrink

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
)

// fuzzRecords turns bytes into a capture of up to three connections: each
// byte is one record — its top bits pick the connection, the rest what it
// is (handshake pieces, chat and agent events of three runs, ticks with a
// frame seq that sometimes skips, requests and responses, raw and
// unreadable lines, close and error markers) — in any order, so
// handshakes come late, twice or not at all.
func fuzzRecords(data []byte) []capture.Record {
	if len(data) > 96 {
		data = data[:96]
	}
	var recs []capture.Record
	t := int64(1795317835000)
	seq := map[int]int{}
	text := map[string]string{}
	for i, b := range data {
		conn := 1 + int(b>>6)%3
		t += int64(b % 5)
		rec := capture.Record{T: t, Conn: conn, Dir: capture.DirIn}
		run := fmt.Sprintf("r%d", int(b>>4)%3)
		frame := func(f string, args ...any) { rec.Frame = []byte(fmt.Sprintf(f, args...)) }
		event := func(name, payload string) {
			seq[conn] += 1 + int(b>>5)%2*int(b%3) // a skip now and then
			frame(`{"type":"event","event":%q,"payload":%s,"seq":%d}`, name, payload, seq[conn])
		}
		switch b % 16 {
		case 0:
			rec.Mark, rec.Dir = capture.MarkOpen, ""
		case 1:
			frame(`{"type":"event","event":"connect.challenge","payload":{"nonce":"n%d","ts":%d}}`, i, t)
		case 2:
			rec.Dir = capture.DirOut
			frame(`{"type":"req","id":"c%d","method":"connect","params":{"minProtocol":3,"maxProtocol":4}}`, conn)
		case 3:
			frame(`{"type":"res","id":"c%d","ok":true,"payload":{"type":"hello-ok","protocol":4,"server":{"version":"2026.9.6"}}}`, conn)
		case 4:
			rec.Mark, rec.Dir, rec.Protocol, rec.Server = capture.MarkHello, "", 4, "2026.9.6"
		case 5, 6:
			text[run] += "ab"[:1+int(b)%2]
			event("chat", fmt.Sprintf(`{"runId":%q,"sessionKey":"agent:main:main","agentId":"main","state":"delta","message":{"role":"assistant","content":[{"type":"text","text":%q}]}}`, run, text[run]))
		case 7:
			event("chat", fmt.Sprintf(`{"runId":%q,"sessionKey":"agent:main:main","agentId":"main","state":"final","message":{"role":"assistant","content":[{"type":"text","text":%q}]}}`, run, text[run]))
		case 8:
			event("agent", fmt.Sprintf(`{"runId":%q,"sessionKey":"agent:main:main","stream":"lifecycle","data":{"phase":"start"}}`, run))
		case 9:
			event("agent", fmt.Sprintf(`{"runId":%q,"sessionKey":"agent:main:main","stream":"lifecycle","data":{"phase":"end"}}`, run))
		case 10:
			event("tick", fmt.Sprintf(`{"ts":%d}`, t))
		case 11:
			rec.Dir = capture.DirOut
			frame(`{"type":"req","id":"q%d","method":"chat.send","params":{"sessionKey":"agent:main:main"}}`, int(b>>4)%3)
		case 12:
			frame(`{"type":"res","id":"q%d","ok":%v,"payload":{"runId":%q}}`, int(b>>4)%3, b&32 == 0, run)
		case 13:
			rec.Raw, rec.IsRaw = []byte("PING not json"), true
		case 14:
			rec.Raw, rec.Malformed, rec.Dir = []byte(`{"t":"oops"`), true, ""
		case 15:
			rec.Dir = ""
			if b&16 == 0 {
				rec.Mark, rec.Code, rec.Reason = capture.MarkClose, 1012, "service restart"
			} else {
				rec.Mark, rec.Err = capture.MarkError, "dial failed"
			}
		}
		recs = append(recs, rec)
	}
	return recs
}

// FuzzShrink: whatever the records, every candidate the search can make
// (any set of units) is a coherent capture that is written without a
// warning, replays and checks without an error; and a search, for any
// rule, ends within its bound with a capture that still shows the rule,
// the same on a second run.
func FuzzShrink(f *testing.F) {
	handshake := []byte{0, 1, 2, 3, 4}
	f.Add(append(slices.Clone(handshake), 8, 5, 6, 7, 7, 10, 15), ruleIndex(check.RuleDuplicateTerminal), []byte{0xff})
	f.Add(append(slices.Clone(handshake), 5, 5|64, 7, 7|64, 13, 14, 15, 0|64, 2|64, 3|64, 7|64), ruleIndex(check.RuleInvalidFrame), []byte{0xaa, 0x55})
	f.Add(append(slices.Clone(handshake), 10, 58, 10, 8, 5), ruleIndex(check.RuleSeqGap), []byte{0x0f})
	f.Add(append(slices.Clone(handshake), 21, 5, 7, 10, 7|128, 15|128), ruleIndex(check.RuleRunInFlight), []byte{})
	f.Add(append(slices.Clone(handshake), 11, 12|32, 0|64, 15|64, 13), ruleIndex(check.RuleRequestFailed), []byte{0x33})
	rules := check.Rules()
	f.Fuzz(func(t *testing.T, data []byte, ruleN uint8, pick []byte) {
		recs := fuzzRecords(data)
		if len(recs) == 0 {
			return
		}
		h := capture.NewHeader(testTime, capture.Source{Mode: "generate"})
		p := newPlan(recs)
		mask := make([]bool, len(recs))

		// Every unit set is a valid capture.
		var units []int
		for k := range p.units {
			if len(pick) == 0 || pick[k/8%len(pick)]&(1<<(k%8)) != 0 {
				units = append(units, k)
			}
		}
		kept := p.expand(units, mask)
		if err := validCandidate(h, recs, kept); err != nil {
			t.Fatalf("units %v → records %v: %v", units, kept, err)
		}
		all := make([]int, len(p.units))
		for k := range all {
			all[k] = k
		}
		if got := p.expand(all, mask); len(got) != len(recs) {
			t.Fatalf("every unit stands for %d of %d records", len(got), len(recs))
		}

		// A search ends within its bound on a capture that still shows
		// the rule, and is deterministic.
		rule := rules[int(ruleN)%len(rules)].ID
		target := Target{Rule: rule}
		const bound = 150
		res, err := Shrink(&h, recs, target, Options{MaxTests: bound})
		switch {
		case rule == check.RuleCaptureTruncated:
			if err == nil {
				t.Fatal("capture-truncated was not refused")
			}
			return
		case errors.Is(err, ErrNotShown):
			return
		case err != nil:
			t.Fatal(err)
		}
		if res.Tests > bound {
			t.Fatalf("%d tests over the bound %d", res.Tests, bound)
		}
		if err := validCandidate(h, recs, res.Kept); err != nil {
			t.Fatalf("result %v: %v", res.Kept, err)
		}
		fs, err := findings(&h, res.Records(recs), rule, replay.UI{})
		if err != nil || len(fs) == 0 {
			t.Fatalf("the result %v shows no %s (%v)", res.Kept, rule, err)
		}
		again, err := Shrink(&h, recs, target, Options{MaxTests: bound})
		if err != nil || !slices.Equal(again.Kept, res.Kept) || again.Tests != res.Tests {
			t.Fatalf("not deterministic: %v (%d tests) then %v (%d tests), %v", res.Kept, res.Tests, again.Kept, again.Tests, err)
		}
	})
}

// FuzzWindow: whatever the records, Locate finds the finding the search
// over them in memory anchors on; a window of them, if one shows it, is
// a valid capture that does, and shrinks to one that still shows the rule;
// and the same window comes on a second try.
func FuzzWindow(f *testing.F) {
	handshake := []byte{0, 1, 2, 3, 4}
	f.Add(append(slices.Clone(handshake), 8, 5, 6, 10, 10, 10, 7, 7, 10, 15), ruleIndex(check.RuleDuplicateTerminal), uint8(2), uint16(4000))
	f.Add(append(slices.Clone(handshake), 10, 58, 10, 8, 5, 10, 10, 58), ruleIndex(check.RuleSeqGap), uint8(1), uint16(300))
	f.Add(append(slices.Clone(handshake), 8, 5, 15, 0, 1, 2, 3, 4, 8, 5, 10, 10), ruleIndex(check.RuleRunInFlight), uint8(3), uint16(2000))
	rules := check.Rules()
	f.Fuzz(func(t *testing.T, data []byte, ruleN, first uint8, maxBytes uint16) {
		recs := fuzzRecords(data)
		if len(recs) == 0 {
			return
		}
		h := capture.NewHeader(testTime, capture.Source{Mode: "generate"})
		gh, got, bin, err := encode(h, recs)
		if err != nil {
			t.Fatal(err)
		}
		open := func() (pipeline.Source, func(), error) {
			r, err := capture.NewReader(bytes.NewReader(bin), capture.Options{})
			if err != nil {
				return nil, nil, err
			}
			return pipeline.Records(r), func() { r.Close() }, nil
		}
		rule := rules[int(ruleN)%len(rules)].ID
		target := Target{Rule: rule}
		at, err := Locate(open, target)
		if rule == check.RuleCaptureTruncated || errors.Is(err, ErrNotShown) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		pr := newPredicate(gh, got, target)
		if ok, want, _, err := pr.full(indices(len(got))); !ok || err != nil || !reflect.DeepEqual(want, at.Finding) {
			t.Fatalf("located %+v, the search anchors on %+v (%v)", at.Finding, want, err)
		}
		wh, win, anchorI, _, err := window(open, target, at, int64(maxBytes), 1+int(first)%8)
		if err != nil {
			t.Fatal(err)
		}
		if win == nil {
			return
		}
		if err := validCandidate(*wh, win, indices(len(win))); err != nil {
			t.Fatalf("window of %d records: %v", len(win), err)
		}
		anchor := at.Finding
		anchor.I = anchorI
		res, err := Shrink(wh, win, target, Options{Anchor: &anchor, MaxTests: 150})
		if err != nil {
			t.Fatalf("the window does not shrink: %v", err)
		}
		if fs, err := findings(wh, res.Records(win), rule, replay.UI{}); err != nil || len(fs) == 0 {
			t.Fatalf("the result %v shows no %s (%v)", res.Kept, rule, err)
		}
		_, again, againI, _, err := window(open, target, at, int64(maxBytes), 1+int(first)%8)
		if err != nil || againI != anchorI || len(again) != len(win) {
			t.Fatalf("a second try: %d records, the finding at %d; the first: %d, at %d (%v)", len(again), againI, len(win), anchorI, err)
		}
	})
}

// validCandidate: coherent, written and read back without a warning, and
// replayed and checked (every rule) without an error.
func validCandidate(h capture.Header, recs []capture.Record, kept []int) error {
	if err := coherent(recs, kept); err != nil {
		return err
	}
	sub := make([]capture.Record, 0, len(kept))
	for _, i := range kept {
		sub = append(sub, recs[i])
	}
	gh, got, _, err := encode(h, sub)
	if err != nil {
		return err
	}
	if len(got) != len(sub) {
		return fmt.Errorf("wrote %d records, read back %d", len(sub), len(got))
	}
	if err := replays(got, replay.UI{}); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	var ids []string
	for _, r := range check.Rules() {
		ids = append(ids, r.ID)
	}
	an, err := check.New(check.Options{Only: ids})
	if err != nil {
		return err
	}
	if err := pipeline.New(pipeline.Options{}, an).Run(pipeline.Slice(gh, got)); err != nil {
		return fmt.Errorf("check: %w", err)
	}
	return nil
}

// ruleIndex is a rule's position in check.Rules(), for seeds.
func ruleIndex(id string) uint8 {
	return uint8(slices.IndexFunc(check.Rules(), func(r check.Rule) bool { return r.ID == id }))
}

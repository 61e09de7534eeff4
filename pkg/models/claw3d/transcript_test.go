package claw3d

import (
	"fmt"
	"slices"
	"testing"

	"github.com/clawtap/clawtap/pkg/ui"
)

func TestInferKind(t *testing.T) {
	for _, tc := range []struct{ line, kind, role string }{
		{`[[meta]]{"role":"user","timestamp":1}`, KindMeta, "user"},
		{`[[meta]]{"role":"assistant","timestamp":1}`, KindMeta, "assistant"},
		{`[[meta]]not json`, KindMeta, "system"},
		{"> hello", KindUser, "user"},
		{">x", KindUser, "user"},
		{"[[trace]]\n_a_", KindThinking, "assistant"},
		{"[[tool]] ls", KindTool, "tool"},
		{"[[tool-result]] ls", KindTool, "tool"},
		{"Hello", KindAssistant, "assistant"},
		{" > quoted later", KindAssistant, "assistant"},
	} {
		e := NewEntry(tc.line, &EntryMeta{Source: SourceRuntimeChat}, 0)
		if e.Kind != tc.kind || e.Role != tc.role {
			t.Errorf("%q: kind %s role %s, want %s %s", tc.line, e.Kind, e.Role, tc.kind, tc.role)
		}
	}
}

func TestFNV1a(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "811c9dc5"},
		{"a", "e40c292c"},
		{"foobar", "bf9cf968"},
	} {
		if got := FNV1a(tc.in); got != tc.want {
			t.Errorf("FNV1a(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	// Astral characters hash as their two UTF-16 code units, as
	// charCodeAt walks them.
	h := uint32(0x811c9dc5)
	for _, u := range []uint32{0xD83D, 0xDE00} {
		h ^= u
		h *= 0x01000193
	}
	if got, want := FNV1a("😀"), fmt.Sprintf("%08x", h); got != want {
		t.Fatalf("FNV1a(😀) = %s, want %s", got, want)
	}
}

func TestNewEntryDefaults(t *testing.T) {
	meta := EntryMeta{Source: SourceRuntimeChat, RunID: "r1", SessionKey: mainKey, TimestampMs: ui.SetInt(4_001)}
	e := NewEntry("Hello   world", &meta, 7)
	fp := FNV1a("assistant|assistant|Hello world|" + mainKey + "|r1|2")
	if e.Fingerprint != fp {
		t.Fatalf("fingerprint %s, want %s", e.Fingerprint, fp)
	}
	if want := "runtime-chat:" + mainKey + ":7:assistant:" + fp; e.EntryID != want {
		t.Fatalf("entryId %s, want %s", e.EntryID, want)
	}
	if e.Confirmed {
		t.Fatal("a runtime entry is unconfirmed by default")
	}
	// Same text, same 2 s bucket: same fingerprint; the next bucket: another.
	meta.TimestampMs = ui.SetInt(5_999)
	if NewEntry("Hello world", &meta, 8).Fingerprint != fp {
		t.Fatal("same bucket, different fingerprint")
	}
	meta.TimestampMs = ui.SetInt(6_000)
	if NewEntry("Hello world", &meta, 8).Fingerprint == fp {
		t.Fatal("next bucket, same fingerprint")
	}
	meta.TimestampMs = ui.Int{}
	if e := NewEntry("x", &meta, 1); e.Fingerprint != FNV1a("assistant|assistant|x|"+mainKey+"|r1|none") {
		t.Fatalf("no timestamp: %s", e.Fingerprint)
	}
	h := NewEntry("> hi", &EntryMeta{Source: SourceHistory}, 0)
	if !h.Confirmed {
		t.Fatal("a history entry is confirmed by default")
	}
	c := NewEntry("x", &EntryMeta{Source: SourceHistory, Confirmed: SetBool(false), EntryID: "id"}, 0)
	if c.Confirmed || c.EntryID != "id" {
		t.Fatal("explicit confirmed/entryId not kept")
	}
}

func TestTranscriptUpsert(t *testing.T) {
	var tr Transcript
	tr.Append("first", &EntryMeta{Source: SourceRuntimeChat})
	meta := EntryMeta{EntryID: "run:r1:assistant:final", Source: SourceRuntimeAgent, Confirmed: SetBool(false)}
	i, replaced := tr.Append("fallback text", &meta)
	if i != 1 || replaced {
		t.Fatalf("append: %d %v", i, replaced)
	}
	tr.Append("later", &EntryMeta{Source: SourceRuntimeChat})
	meta = EntryMeta{EntryID: "run:r1:assistant:final", Source: SourceRuntimeChat, Confirmed: SetBool(true)}
	i, replaced = tr.Append("final text", &meta)
	if i != 1 || !replaced {
		t.Fatalf("upsert: %d %v", i, replaced)
	}
	e := tr.Entries()[1]
	if e.Text != "final text" || !e.Confirmed || e.SequenceKey != 1 || e.Source != SourceRuntimeChat {
		t.Fatalf("replaced in place keeping the sequenceKey: %+v", e)
	}
	if !slices.Equal(tr.Lines(), []string{"first", "final text", "later"}) {
		t.Fatalf("lines %q", tr.Lines())
	}
	// Duplicate copies of an id (after a merge) collapse into the first.
	tr.Replace(append(tr.Entries(), Entry{EntryID: "run:r1:assistant:final", Text: "dup", SequenceKey: 9}))
	tr.Append("again", &meta)
	if !slices.Equal(tr.Lines(), []string{"first", "again", "later"}) {
		t.Fatalf("duplicates not collapsed: %q", tr.Lines())
	}
	// A new entry gets a sequenceKey after every one seen.
	tr.Append("new", &EntryMeta{Source: SourceRuntimeChat})
	if last := tr.Entries()[tr.Len()-1]; last.SequenceKey != 10 {
		t.Fatalf("sequenceKey %d, want 10", last.SequenceKey)
	}
}

func TestTranscriptCapAndTrace(t *testing.T) {
	var tr Transcript
	tr.Append("[[trace]]\n_x_", &EntryMeta{Source: SourceRuntimeChat})
	if !tr.HasTrace() {
		t.Fatal("trace line not seen")
	}
	for i := 0; i < MaxTranscriptEntries; i++ {
		tr.Append(fmt.Sprintf("line %d", i), &EntryMeta{Source: SourceRuntimeChat})
	}
	if tr.Len() != MaxTranscriptEntries || tr.Dropped() != 1 || tr.Lines()[0] != "line 0" {
		t.Fatalf("cap: len %d dropped %d first %q", tr.Len(), tr.Dropped(), tr.Lines()[0])
	}
	if tr.HasTrace() {
		t.Fatal("the dropped trace line still counts")
	}
	// Replacing a trace line by another kind updates the count.
	tr.Append("[[trace]]\n_y_", &EntryMeta{Source: SourceRuntimeChat, EntryID: "t"})
	tr.Append("plain", &EntryMeta{Source: SourceRuntimeChat, EntryID: "t"})
	if tr.HasTrace() {
		t.Fatal("replaced trace line still counts")
	}
}

func hist(text, kind, role string, ts int64, seq int64) Entry {
	return NewEntry(text, &EntryMeta{Source: SourceHistory, Kind: kind, Role: role, SessionKey: mainKey, TimestampMs: ui.SetInt(ts)}, seq)
}

func live(id, text, run string, ts int64, seq int64) Entry {
	return NewEntry(text, &EntryMeta{EntryID: id, Source: SourceRuntimeChat, SessionKey: mainKey, RunID: run, TimestampMs: ui.SetInt(ts)}, seq)
}

func TestMergeTranscriptEntriesWithHistory(t *testing.T) {
	existing := []Entry{
		live("run:r1:assistant:final", "Hello  world", "r1", 1_000, 0),
		live("", "ok", "r2", 5_000, 1),
		live("", "ok", "r3", 9_000, 2),
		live("", "unmatched", "r4", 12_000, 3),
	}
	// 1. By entryId.
	byID := hist("whatever", KindAssistant, "assistant", 1_500, 100)
	byID.EntryID = "run:r1:assistant:final"
	// 2. One candidate: same session/kind/role and normalized text.
	one := hist("Hello world", KindAssistant, "assistant", 1_700, 101)
	// Several candidates ("ok" twice): the nearest timestamp wins.
	several := hist("ok", KindAssistant, "assistant", 8_000, 102)
	// 3. No candidate: appended.
	fresh := hist("> new user turn", "", "", 3_000, 103)
	merged, conflicts := MergeTranscriptEntriesWithHistory(existing, []Entry{byID, one, several, fresh})
	if conflicts != 1 {
		t.Fatalf("conflicts %d, want 1", conflicts)
	}
	byText := map[string][]Entry{}
	for _, e := range merged {
		byText[e.Text] = append(byText[e.Text], e)
	}
	if e := byText["Hello  world"]; len(e) != 1 || !e[0].Confirmed || e[0].TimestampMs.V != 1_500 {
		t.Fatalf("by id: %+v", e)
	}
	// "Hello world" (history) found no unmatched candidate: the by-id
	// entry was matched already in this pass, so it is appended.
	if e := byText["Hello world"]; len(e) != 1 || e[0].Source != SourceHistory {
		t.Fatalf("each entry matched once per pass: %+v", e)
	}
	oks := byText["ok"]
	if len(oks) != 2 {
		t.Fatalf("ok entries %d", len(oks))
	}
	for _, e := range oks {
		if e.RunID == "r3" && (!e.Confirmed || e.TimestampMs.V != 8_000) {
			t.Fatalf("nearest (r3, 9000) not confirmed: %+v", e)
		}
		if e.RunID == "r2" && e.Confirmed {
			t.Fatalf("farther one confirmed: %+v", e)
		}
	}
	if e := byText["> new user turn"]; len(e) != 1 || e[0].Kind != KindUser {
		t.Fatalf("appended: %+v", e)
	}
	// Sorted by timestamp.
	for i := 1; i < len(merged); i++ {
		if merged[i-1].TimestampMs.V > merged[i].TimestampMs.V {
			t.Fatalf("not sorted at %d: %+v", i, merged)
		}
	}
}

func TestMergeHistoryTiesAndRunID(t *testing.T) {
	a := live("", "same", "", 1_000, 5)
	b := live("", "same", "", 3_000, 4)
	h := hist("same", KindAssistant, "assistant", 2_000, 9)
	h.RunID = "hr"
	merged, conflicts := MergeTranscriptEntriesWithHistory([]Entry{a, b}, []Entry{h})
	if conflicts != 1 || len(merged) != 2 {
		t.Fatalf("conflicts %d, len %d", conflicts, len(merged))
	}
	for _, e := range merged {
		// Equally near (1000 ms each way): the lower sequenceKey (b) wins
		// and takes the history runId, having none.
		if e.SequenceKey == 4 && (!e.Confirmed || e.RunID != "hr") {
			t.Fatalf("tie not broken by sequenceKey: %+v", merged)
		}
		if e.SequenceKey == 5 && e.Confirmed {
			t.Fatalf("both confirmed: %+v", merged)
		}
	}
}

func TestSortEntries(t *testing.T) {
	es := []Entry{
		{EntryID: "a", SequenceKey: 3, TimestampMs: ui.SetInt(30)},
		{EntryID: "b", SequenceKey: 1, TimestampMs: ui.SetInt(30)},
		{EntryID: "c", SequenceKey: 2, TimestampMs: ui.SetInt(10)},
		{EntryID: "a", SequenceKey: 0},
	}
	got := SortEntries(es)
	var ids []string
	for _, e := range got {
		ids = append(ids, e.EntryID)
	}
	if !slices.Equal(ids, []string{"c", "b", "a"}) {
		t.Fatalf("order %v", ids)
	}
}

// TestTranscriptCapKeepsTheLatest runs a transcript far past its cap: it
// always holds the latest MaxTranscriptEntries lines in order, and its
// room stays within a few caps however long the session.
func TestTranscriptCapKeepsTheLatest(t *testing.T) {
	var tr Transcript
	const lines = 7*MaxTranscriptEntries + 13
	for i := range lines {
		tr.Append(fmt.Sprintf("line %d", i), &EntryMeta{Source: SourceRuntimeChat})
		if i%97 == 0 || i == lines-1 {
			got := tr.Lines()
			first := max(0, i+1-MaxTranscriptEntries)
			if len(got) != i+1-first || tr.Dropped() != first {
				t.Fatalf("after line %d: %d lines, %d dropped", i, len(got), tr.Dropped())
			}
			for j, l := range got {
				if l != fmt.Sprintf("line %d", first+j) {
					t.Fatalf("after line %d: line %d is %q", i, j, l)
				}
			}
		}
		if c := cap(tr.Entries()); c > 3*MaxTranscriptEntries {
			t.Fatalf("after line %d: room for %d entries", i, c)
		}
	}
}

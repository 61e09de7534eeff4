package claw3d

import (
	"math"
	"slices"

	"github.com/clawtap/clawtap/pkg/ui"
)

// SortEntries is Claw3D's transcript sort: entries with an entryId seen
// earlier in the slice are removed, then the rest is sorted stably by
// timestamp when both entries have one (and they differ), else by
// sequenceKey. (That order is not transitive when some entries lack a
// timestamp; a stable merge sort keeps the result deterministic.)
func SortEntries(entries []Entry) []Entry {
	out := make([]Entry, 0, len(entries))
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		if seen[e.EntryID] {
			continue
		}
		seen[e.EntryID] = true
		out = append(out, e)
	}
	slices.SortStableFunc(out, compareEntries)
	return out
}

func compareEntries(a, b Entry) int {
	ta, oka := timeOf(a.TimestampMs)
	tb, okb := timeOf(b.TimestampMs)
	if oka && okb && ta != tb {
		if ta < tb {
			return -1
		}
		return 1
	}
	switch {
	case a.SequenceKey < b.SequenceKey:
		return -1
	case a.SequenceKey > b.SequenceKey:
		return 1
	}
	return 0
}

// MergeTranscriptEntriesWithHistory is Claw3D's
// mergeTranscriptEntriesWithHistory. For each history entry, in order:
//
//  1. an entry with its entryId is confirmed and takes the history
//     timestamp;
//  2. otherwise the candidates are the entries not matched yet in this
//     pass with the same session, kind and role and the same
//     whitespace-normalized text: one is confirmed, takes the history
//     timestamp and keeps its runId (the history runId when it has none);
//     with several, conflicts is incremented and the one with the nearest
//     timestamp wins (ties and missing timestamps: the lower sequenceKey);
//  3. with no candidate the history entry is appended.
//
// Each entry is matched at most once per pass (an appended history entry
// counts as matched), clock skew between the UI and the gateway does not
// matter, and the result is sorted with SortEntries.
func MergeTranscriptEntriesWithHistory(existing, history []Entry) (merged []Entry, conflicts int) {
	merged = append(make([]Entry, 0, len(existing)+len(history)), existing...)
	matched := make([]bool, len(merged), cap(merged))
	norm := make([]string, len(merged), cap(merged)) // normalized texts, computed once
	for i := range merged {
		norm[i] = collapseSpace(merged[i].Text)
	}
	for _, h := range history {
		if i := slices.IndexFunc(merged, func(e Entry) bool { return e.EntryID == h.EntryID }); i >= 0 {
			merged[i].Confirmed = true
			merged[i].TimestampMs = h.TimestampMs
			matched[i] = true
			continue
		}
		ht := collapseSpace(h.Text)
		best, n := -1, 0
		for i := range merged {
			e := &merged[i]
			if matched[i] || e.SessionKey != h.SessionKey || e.Kind != h.Kind || e.Role != h.Role || norm[i] != ht {
				continue
			}
			n++
			if best < 0 || nearer(e, &merged[best], h.TimestampMs) {
				best = i
			}
		}
		if best < 0 {
			merged = append(merged, h)
			matched = append(matched, true)
			norm = append(norm, ht)
			continue
		}
		if n > 1 {
			conflicts++
		}
		e := &merged[best]
		e.Confirmed = true
		e.TimestampMs = h.TimestampMs
		if e.RunID == "" {
			e.RunID = h.RunID
		}
		matched[best] = true
	}
	return SortEntries(merged), conflicts
}

// nearer reports whether a is nearer to ts than b (ties: the lower
// sequenceKey).
func nearer(a, b *Entry, ts ui.Int) bool {
	da, db := distance(a, ts), distance(b, ts)
	if da != db {
		return da < db
	}
	return a.SequenceKey < b.SequenceKey
}

func distance(e *Entry, ts ui.Int) float64 {
	t, ok := timeOf(ts)
	et, eok := timeOf(e.TimestampMs)
	if !ok || !eok {
		return math.Inf(1)
	}
	return math.Abs(float64(et) - float64(t))
}

package report

import (
	"math"
	"strconv"
	"testing"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
)

func TestRowLen(t *testing.T) {
	ns := []int64{0, 1, 9, 10, 99, 100, -1, -9, -10, 1 << 40, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for p := int64(1); p <= math.MaxInt64/10; p *= 10 {
		ns = append(ns, p-1, p, p+1, -p+1, -p, -p-1, 2*p-1, 2*p)
	}
	for i := 0; i < 63; i++ {
		ns = append(ns, 1<<i-1, 1<<i, -1<<i)
	}
	for _, n := range ns {
		if got, want := intLen(n), len(strconv.FormatInt(n, 10)); got != want {
			t.Errorf("intLen(%d) = %d, want %d", n, got, want)
		}
	}
	for _, r := range []Row{{}, {I: 12345, T: -7, Conn: 3, Dir: -1, Type: 14, Label: 4095, Lane: -1, Run: 11325, Seq: -1}, {I: math.MaxInt64, T: math.MinInt64, Seq: math.MaxInt64}} {
		if got, want := rowLen(&r), len(appendRow(nil, &r)); got != want {
			t.Errorf("rowLen(%+v) = %d, want %d", r, got, want)
		}
	}
	if n := rowLen(&Row{}); n != minRowLen {
		t.Errorf("rowLen of the shortest row = %d, minRowLen %d", n, minRowLen)
	}
}

func TestLabelID(t *testing.T) {
	no := false
	recs := []struct {
		rec capture.Record
		ev  bridge.Event
	}{
		{capture.Record{Mark: "close", Code: 1012}, bridge.Event{Kind: bridge.Marker}},
		{capture.Record{Mark: "close"}, bridge.Event{Kind: bridge.Marker}},
		{capture.Record{Malformed: true}, bridge.Event{Kind: bridge.Invalid}},
		{capture.Record{IsRaw: true}, bridge.Event{Kind: bridge.Invalid}},
		{capture.Record{Frame: []byte("{}")}, bridge.Event{Kind: bridge.Invalid}},
		{capture.Record{}, bridge.Event{Kind: bridge.RuntimeChat, State: "delta", Phase: "x"}},
		{capture.Record{}, bridge.Event{Kind: bridge.RuntimeChat, State: "status", Phase: "x"}},
		{capture.Record{}, bridge.Event{Kind: bridge.RuntimeChat, State: "status"}},
		{capture.Record{}, bridge.Event{Kind: bridge.RuntimeAgent, Stream: "lifecycle", Phase: "end"}},
		{capture.Record{}, bridge.Event{Kind: bridge.RuntimeAgent, Stream: "lifecycle"}},
		{capture.Record{}, bridge.Event{Kind: bridge.Request, Method: "chat.send"}},
		{capture.Record{}, bridge.Event{Kind: bridge.Response, Method: "chat.send"}},
		{capture.Record{}, bridge.Event{Kind: bridge.Response, Method: "chat.send", OK: &no, Code: "E"}},
		{capture.Record{}, bridge.Event{Kind: bridge.Response, OK: &no}},
		{capture.Record{}, bridge.Event{Kind: bridge.Unknown, Event: "tick"}},
		{capture.Record{}, bridge.Event{Kind: bridge.SummaryRefresh}},
	}
	b := NewBuilder(Options{})
	for round := 0; round < 2; round++ {
		for _, x := range recs {
			typ := int8(typeOf(&x.ev))
			id := b.labelID(&x.rec, &x.ev, typ)
			if got, want := b.rep.Labels[id], labelOf(&x.rec, &x.ev); got != want {
				t.Errorf("%+v: label %q, want %q", x.ev, got, want)
			}
		}
	}
	if len(b.rep.Labels) != len(recs) {
		t.Errorf("%d labels for %d distinct records: %q", len(b.rep.Labels), len(recs), b.rep.Labels)
	}
}

func TestLimitText(t *testing.T) {
	for n, want := range map[int]string{64 << 10: "64 KiB", 20_000_000: "20 MB", 5 << 20: "5 MiB", 1_500_000: "1500 kB", 100_001: "100001 bytes", 1 << 30: "1 GiB"} {
		if got := limitText(n); got != want {
			t.Errorf("limitText(%d) = %q, want %q", n, got, want)
		}
	}
}

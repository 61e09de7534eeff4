package gaps

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/runs"
)

type rec struct {
	conn  int
	dir   string
	frame string
	mark  string
}

func ev(seq int) string {
	return fmt.Sprintf(`{"type":"event","event":"tick","payload":{"ts":1},"seq":%d}`, seq)
}

func run(t *testing.T, recs []rec) ([]string, Summary) {
	t.Helper()
	table := runs.New(0)
	tr := NewDetector(table)
	var out []string
	for i, r := range recs {
		var e bridge.Event
		if r.mark != "" {
			e = bridge.Event{Kind: bridge.Marker, Mark: r.mark}
		} else {
			e = bridge.Classify([]byte(r.frame), int64(i))
		}
		dir := r.dir
		if dir == "" {
			dir = "in"
		}
		rc := &capture.Record{Index: i, T: int64(i), Conn: r.conn, Dir: dir}
		for _, f := range tr.Observe(nil, i, int64(i), r.conn, dir, &e, table.Record(rc, &e)) {
			out = append(out, fmt.Sprintf("%s@%d conn%d %d>%d", f.Kind, f.I, f.Conn, f.Expected, f.Received))
		}
	}
	return out, tr.Summary()
}

func TestFrameSeqRules(t *testing.T) {
	cases := []struct {
		name string
		recs []rec
		want string
		gaps int
	}{
		{"contiguous", []rec{{1, "", ev(1), ""}, {1, "", ev(2), ""}, {1, "", ev(3), ""}}, "", 0},
		{"gap", []rec{{1, "", ev(1), ""}, {1, "", ev(2), ""}, {1, "", ev(6), ""}, {1, "", ev(7), ""}}, "gap@2 conn1 3>6", 1},
		{"duplicate is not a gap", []rec{{1, "", ev(1), ""}, {1, "", ev(2), ""}, {1, "", ev(2), ""}, {1, "", ev(3), ""}}, "duplicate@2 conn1 3>2", 0},
		{"backwards is not a gap, and does not make the next frame one", []rec{{1, "", ev(5), ""}, {1, "", ev(6), ""}, {1, "", ev(2), ""}, {1, "", ev(7), ""}},
			"first-seq@0 conn1 1>5 backwards@2 conn1 7>2", 0},
		{"frames without seq are ignored", []rec{{1, "", ev(1), ""}, {1, "", `{"type":"event","event":"connect.challenge","payload":{}}`, ""}, {1, "", `{"type":"res","id":"1","ok":true}`, ""}, {1, "", ev(2), ""}}, "", 0},
		{"seq restarts per connection", []rec{{1, "", ev(1), ""}, {1, "", ev(2), ""}, {2, "", "", "open"}, {2, "", ev(1), ""}, {2, "", ev(2), ""}}, "", 0},
		{"connections are independent", []rec{{1, "", ev(1), ""}, {2, "", ev(1), ""}, {1, "", ev(2), ""}, {2, "", ev(3), ""}}, "gap@3 conn2 2>3", 1},
		{"an open restarts the connection read last", []rec{{1, "", ev(1), ""}, {1, "", ev(2), ""}, {1, "", "", "open"}, {1, "", ev(1), ""}, {1, "", ev(2), ""}}, "", 0},
		{"a late observer starts mid-count (info)", []rec{{1, "", ev(32), ""}, {1, "", ev(33), ""}}, "first-seq@0 conn1 1>32", 0},
		{"outgoing frames are not counted", []rec{{1, "", ev(1), ""}, {1, "out", `{"type":"event","event":"x","seq":9}`, ""}, {1, "", ev(2), ""}}, "", 0},
		{"a string seq is no seq", []rec{{1, "", ev(1), ""}, {1, "", `{"type":"event","event":"tick","seq":"9"}`, ""}, {1, "", ev(2), ""}}, "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, sum := run(t, c.recs)
			if strings.Join(got, " ") != c.want || sum.Gaps != c.gaps {
				t.Fatalf("got %q (gaps %d), want %q (gaps %d)", strings.Join(got, " "), sum.Gaps, c.want, c.gaps)
			}
		})
	}
}

func TestGatewayGapAndRunSeqJumps(t *testing.T) {
	agent := func(seq int) string {
		return fmt.Sprintf(`{"type":"event","event":"agent","payload":{"runId":"r1","stream":"assistant","seq":%d,"data":{"text":"x"}}}`, seq)
	}
	got, sum := run(t, []rec{
		{1, "", agent(1), ""},
		{1, "", agent(2), ""},
		{1, "", agent(5), ""}, // throttled deltas: information only
		{1, "", `{"type":"event","event":"agent","payload":{"runId":"r1","stream":"error","data":{"reason":"seq gap","expected":3,"received":5}}}`, ""},
	})
	want := "run-seq-jump@2 conn1 3>5 gateway-gap@3 conn1 3>5"
	if strings.Join(got, " ") != want || sum.Gaps != 0 || sum.GatewayGaps != 1 || sum.RunSeqJumps != 1 {
		t.Fatalf("got %q %+v", strings.Join(got, " "), sum)
	}
}

// What the detector knows of a run lives in the run table: it goes when
// the table lets the run go, so memory follows the table's bound.
func TestRunMemoryIsBounded(t *testing.T) {
	const bound = 16
	table := runs.New(bound)
	tr := NewDetector(table)
	for i := 0; i < 3*bound; i++ {
		e := bridge.Classify([]byte(fmt.Sprintf(`{"type":"event","event":"chat","payload":{"runId":"r%d","sessionKey":"agent:a:b","state":"delta","seq":1}}`, i)), 0)
		tr.Observe(nil, i, 0, 1, "in", &e, table.Record(&capture.Record{Index: i, Conn: 1, Dir: "in"}, &e))
	}
	kept := 0
	table.Each(func(r *runs.Run) bool {
		if s := tr.seqs.Peek(r); s != nil && len(*s) == 1 {
			kept++
		}
		return true
	})
	if table.Len() != bound || kept != bound || table.Crowded() != 2*bound {
		t.Fatalf("%d runs held, %d with a seq, %d let go; want %d, %d, %d", table.Len(), kept, table.Crowded(), bound, bound, 2*bound)
	}
}

// A payload seq jump at a text delta is a merge, marked coalesced; at any
// other frame it is not.
func TestRunSeqJumpCoalesced(t *testing.T) {
	frames := []string{
		`{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"s","seq":1,"state":"delta","deltaText":"a"},"seq":1}`,
		`{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"s","seq":3,"state":"delta","deltaText":"bc"},"seq":2}`,
		`{"type":"event","event":"agent","payload":{"runId":"r","sessionKey":"s","seq":5,"stream":"assistant","data":{"delta":"d"}},"seq":3}`,
		`{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"s","seq":7,"state":"delta","deltaText":"","replace":true},"seq":4}`,
		`{"type":"event","event":"agent","payload":{"runId":"r","sessionKey":"s","seq":9,"stream":"tool","data":{"phase":"start"}},"seq":5}`,
	}
	got := coalesced(frames)
	if fmt.Sprint(got) != "[true true false false]" {
		t.Fatalf("coalesced %v, want [true true false false]", got)
	}
}

// A jump after lost frames, or one the gateway reported itself, is not a
// merge.
func TestRunSeqJumpNotCoalescedAfterAGap(t *testing.T) {
	frames := []string{
		`{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"s","seq":1,"state":"delta","deltaText":"a"},"seq":1}`,
		`{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"s","seq":3,"state":"delta","deltaText":"c"},"seq":3}`,
		`{"type":"event","event":"agent","payload":{"runId":"r","sessionKey":"s","stream":"error","data":{"reason":"seq gap","expected":4,"received":6}},"seq":4}`,
		`{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"s","seq":6,"state":"delta","deltaText":"f"},"seq":5}`,
		`{"type":"event","event":"chat","payload":{"runId":"r","sessionKey":"s","seq":8,"state":"delta","deltaText":"h"},"seq":6}`,
	}
	got := coalesced(frames)
	if fmt.Sprint(got) != "[false false true]" {
		t.Fatalf("coalesced %v, want [false false true]", got)
	}
}

// coalesced is the Coalesced flag of each run seq jump in frames, received
// on connection 1.
func coalesced(frames []string) []bool {
	table := runs.New(0)
	tr := NewDetector(table)
	var got []bool
	for i, f := range frames {
		ev := bridge.Classify([]byte(f), int64(i))
		rc := &capture.Record{Index: i, T: int64(i), Conn: 1, Dir: "in"}
		for _, g := range tr.Observe(nil, i, int64(i), 1, "in", &ev, table.Record(rc, &ev)) {
			if g.Kind == RunSeqJump {
				got = append(got, g.Coalesced)
			}
		}
	}
	return got
}

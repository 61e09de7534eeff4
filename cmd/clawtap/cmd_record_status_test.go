package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/clawtap/clawtap/pkg/record"
)

func TestRecordStatusLine(t *testing.T) {
	var b bytes.Buffer
	s := &statusLine{W: &b, Live: true}
	t0 := time.Unix(100, 0)
	s.draw(record.Stats{State: "connected", Conns: 1, Frames: 10}, t0)
	s.draw(record.Stats{State: "connected", Conns: 1, Frames: 12010, Bytes: 1500, Gaps: 1, InFlight: 2}, t0.Add(time.Second))
	s.Warnf("seq skipped %d time(s)", 1)
	want := "\r\x1b[2K● connected · conn 1 · 10 frames · 0 B · 0/s · 0 gaps · 0 runs in flight" +
		"\r\x1b[2K● connected · conn 1 · 12,010 frames · 1.50 kB · 12k/s · 1 gap · 2 runs in flight" +
		"\r\x1b[2Kclawtap: warning: seq skipped 1 time(s)\n"
	if b.String() != want {
		t.Fatalf("got  %q\nwant %q", b.String(), want)
	}
	if got := s.render(record.Stats{State: "listening"}); !strings.HasPrefix(got, "● listening, 0 client(s) · ") {
		t.Errorf("proxy line %q", got)
	}
}

func TestRecordStatusLineQuietAndNotLive(t *testing.T) {
	var b bytes.Buffer
	s := &statusLine{W: &b, Quiet: true}
	s.Infof("x")
	s.Run(context.Background(), time.Millisecond, func() record.Stats { return record.Stats{} }) // returns at once
	if b.Len() != 0 {
		t.Fatalf("%q", b.String())
	}
}

func TestHumanRate(t *testing.T) {
	for r, want := range map[float64]string{0: "0", 999: "999", 1500: "1.5k", 15000: "15k", 2.5e6: "2.5M"} {
		if got := humanRate(r); got != want {
			t.Errorf("%v: %q, want %q", r, got, want)
		}
	}
}

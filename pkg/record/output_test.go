package record

import (
	"bytes"
	"strings"
	"testing"
)

// fakeDest records what an Output did to it.
type fakeDest struct {
	bytes.Buffer
	calls []string
}

func (d *fakeDest) Publish() error { d.calls = append(d.calls, "publish"); return nil }
func (d *fakeDest) Commit() error  { d.calls = append(d.calls, "commit"); return nil }
func (d *fakeDest) Abort()         { d.calls = append(d.calls, "abort") }
func (d *fakeDest) Name() string   { return "dest" }

func TestOutputHoldsUntilPublish(t *testing.T) {
	d := &fakeDest{}
	o := NewOutput(d, true)
	o.Write([]byte("header\n"))
	if d.Len() != 0 || o.Published() {
		t.Fatalf("written before the handshake: %q", d.String())
	}
	if err := o.Publish(); err != nil || d.String() != "header\n" || !o.Published() {
		t.Fatalf("publish: %v %q", err, d.String())
	}
	o.Write([]byte("frame\n"))
	if err := o.Commit(); err != nil || d.String() != "header\nframe\n" || strings.Join(d.calls, ",") != "commit" {
		t.Fatalf("commit: %v %q %v", err, d.String(), d.calls)
	}
	o.Abort() // after the end: nothing
	if len(d.calls) != 1 {
		t.Fatalf("abort after commit: %v", d.calls)
	}
}

func TestOutputAbortBeforePublish(t *testing.T) {
	d := &fakeDest{}
	o := NewOutput(d, true)
	o.Write([]byte("header\n"))
	o.Abort()
	if d.Len() != 0 || strings.Join(d.calls, ",") != "abort" {
		t.Fatalf("%q %v", d.String(), d.calls)
	}
	if err := o.Publish(); err == nil {
		t.Fatal("published after abort")
	}
}

func TestOutputFilePublishes(t *testing.T) {
	d := &fakeDest{}
	o := NewOutput(d, false)
	o.Write([]byte("header\n"))
	if d.String() != "header\n" {
		t.Fatalf("a file destination holds back itself: %q", d.String())
	}
	if err := o.Publish(); err != nil || strings.Join(d.calls, ",") != "publish" {
		t.Fatalf("%v %v", err, d.calls)
	}
}

func TestOutputHoldIsBounded(t *testing.T) {
	d := &fakeDest{}
	o := NewOutput(d, true)
	o.Write(make([]byte, holdMax))
	if d.Len() != 0 {
		t.Fatal("released early")
	}
	o.Write([]byte("x"))
	if d.Len() != holdMax+1 {
		t.Fatalf("past holdMax the held bytes are written: %d", d.Len())
	}
}

package serve

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// gate is a capture in memory whose bytes past limit cannot be read until
// open is called: a capture far longer than what serve reads before it
// listens.
type gate struct {
	data   []byte
	limit  int64
	opened chan struct{}
	once   sync.Once
}

func (g *gate) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > g.limit {
		if off < g.limit {
			p = p[:g.limit-off] // what is there now
		} else {
			<-g.opened
		}
	}
	if off >= int64(len(g.data)) {
		return 0, io.EOF
	}
	n := copy(p, g.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (g *gate) open() { g.once.Do(func() { close(g.opened) }) }

// Load returns, and clients are served, while most of the capture has not
// been read yet: what needs all of it (the counts, request matching) comes
// when the pre-pass gets there.
func TestLoadDoesNotWaitForTheWholeCapture(t *testing.T) {
	const n = 20_000
	b := newCap(t).handshake(1000)
	for i := 1; i <= n; i++ {
		b.in(1000+int64(i), tick(i, int64(i)))
	}
	b.out(1000+n+1, `{"type":"req","id":"h","method":"health","params":{}}`)
	b.in(1000+n+2, `{"type":"res","id":"h","ok":true,"payload":{"ok":true}}`)
	data := b.bytes()
	g := &gate{data: data, limit: 64 << 10, opened: make(chan struct{})}
	defer g.open()
	loaded := make(chan *Script, 1)
	go func() {
		s, err := Load(&Source{ra: g, size: int64(len(data))}, LoadOptions{})
		if err != nil {
			t.Error(err)
		}
		loaded <- s
	}()
	var s *Script
	select {
	case s = <-loaded:
	case <-time.After(10 * time.Second):
		t.Fatal("Load waited for the whole capture")
	}
	if s == nil {
		return
	}
	select {
	case <-s.Ready():
		t.Fatal("the pre-pass read past what can be read")
	default:
	}
	if s.Items(false) != 0 {
		t.Fatal("the timeline's length is known before the capture is read")
	}
	_, url := startServer(t, s, Options{Pacing: Pacing{Fast: true}})
	c := dial(t, url)
	if hello := connect(t, c, connectReq); str(t, hello, "payload", "type") != "hello-ok" {
		t.Fatalf("hello: %s", hello)
	}
	if f := read(t, c); f != tick(1, 1) {
		t.Fatalf("first frame %s", f)
	}
	send(t, c, `{"type":"req","id":"mine","method":"health"}`) // answered once the pre-pass is through
	g.open()
	answered := false
	for i := 2; i <= n; i++ {
		f := read(t, c)
		if f == `{"type":"res","id":"mine","ok":true,"payload":{"ok":true}}` && !answered {
			answered = true
			f = read(t, c)
		}
		if f != tick(i, int64(i)) {
			t.Fatalf("frame %d: %s", i, f)
		}
	}
	if !answered {
		if f := read(t, c); f != `{"type":"res","id":"mine","ok":true,"payload":{"ok":true}}` {
			t.Fatalf("answer %s", f)
		}
	}
	<-s.Ready()
	if s.Frames() != n || s.Items(false) != n {
		t.Fatalf("counted %d frames, %d items", s.Frames(), s.Items(false))
	}
}

// Standard input, a pipe or a FIFO is copied aside once, so that every
// client can read it again; the copy leaves nothing on disk.
func TestSpoolSource(t *testing.T) {
	data := newCap(t).handshake(1000).in(1100, tick(1, 1)).bytes()
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "clawtap-serve-*"))
	src, err := SpoolSource(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "clawtap-serve-*"))
	if len(after) != len(before) {
		t.Fatalf("the copy is visible on disk: %v", after)
	}
	for i := 0; i < 2; i++ {
		r, err := src.reader(nil)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for {
			if _, err := r.Next(); err != nil {
				break
			}
			got++
		}
		r.Close()
		if got != 5 {
			t.Fatalf("pass %d read %d records, want 5", i, got)
		}
	}
}

package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// WriteHTML streams the page AppendHTML builds, byte for byte, however
// small its pieces; dataLen counts the data AppendData writes.
func TestWriteHTMLStreamsTheSamePage(t *testing.T) {
	reports := map[string]*Report{
		"hostile": buildBytes(t, hostileCapture(true), Options{Name: "evil" + hostile}),
		// A raw U+2028 in a frame, which the data keeps as it is.
		"u2028": buildBytes(t, []byte(`{"t":1,"conn":1,"dir":"in","frame":{"type":"event","event":"x`+"\u2028"+`y","payload":{"a":"`+"\u2028\u2029"+`"}}}`+"\n"), Options{}),
	}
	names, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "*.jsonl*"))
	for _, n := range names {
		reports[filepath.Base(n)] = buildFile(t, n, Options{MaxBytes: 200 << 10})
	}
	defer func(n int) { flushAt = n }(flushAt)
	for name, r := range reports {
		want := AppendHTML(nil, r)
		data := AppendData(nil, r)
		for _, at := range []int{1, 100, 64 << 10} {
			flushAt = at
			var got bytes.Buffer
			if err := WriteHTML(&got, r); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s, pieces of %d: WriteHTML differs from AppendHTML", name, at)
			}
			got.Reset()
			if err := WriteData(&got, r); err != nil || !bytes.Equal(got.Bytes(), data) {
				t.Errorf("%s, pieces of %d: WriteData differs from AppendData (%v)", name, at, err)
			}
			if n := dataLen(r); n != len(data) {
				t.Errorf("%s, pieces of %d: dataLen %d, AppendData %d", name, at, n, len(data))
			}
		}
	}
	if _, err := os.Stat(filepath.Join("..", "..", "fixtures")); err != nil || len(names) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	if w := (failWriter{}); WriteHTML(w, reports["hostile"]) == nil {
		t.Error("a failing writer's error is lost")
	}
	// A writer that fails within the data, where the pieces are written on
	// a goroutine of their own: its error comes back, and nothing is
	// written after it.
	flushAt = 100
	r := reports["demo.jsonl.zst"]
	head, data := len(appendHead(nil, r)), len(EscapeData(nil, AppendData(nil, r)))
	for _, after := range []int{head + 10, head + data/2, head + data - 10} {
		w := &failAfter{left: after}
		if err := WriteHTML(w, r); err != os.ErrClosed {
			t.Errorf("a writer failing after %d of the data's %d bytes: %v", after-head, data, err)
		}
		if w.calls != w.failed+1 && w.failed >= 0 {
			t.Errorf("failing after %d bytes: %d writes after the one that failed", after, w.calls-w.failed-1)
		}
	}
}

type failWriter struct{}

func (failWriter) Write(p []byte) (int, error) { return 0, os.ErrClosed }

// failAfter takes left bytes, then fails.
type failAfter struct {
	left, calls int
	failed      int // the call that failed, -1 before
}

func (f *failAfter) Write(p []byte) (int, error) {
	if f.calls == 0 {
		f.failed = -1
	}
	f.calls++
	if len(p) > f.left {
		if f.failed < 0 {
			f.failed = f.calls - 1
		}
		return f.left, os.ErrClosed
	}
	f.left -= len(p)
	return len(p), nil
}

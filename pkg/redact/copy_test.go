package redact

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
)

const connectLine = `{"type":"req","id":"c1","method":"connect","params":{"auth":{"token":"s3cret-token"}}}`

func copyOf(t *testing.T, in io.Reader) (string, error) {
	t.Helper()
	src, err := capture.NewReader(in, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return copyFrom(t, src)
}

// copyFrom redacts src into a capture in memory.
func copyFrom(t *testing.T, src *capture.Reader) (string, error) {
	t.Helper()
	var out bytes.Buffer
	w, err := capture.NewWriter(&out, false)
	if err != nil {
		t.Fatal(err)
	}
	fallback := capture.NewHeader(time.Unix(1, 0), capture.Source{Tool: "test", Mode: "redact", From: "bare.jsonl"})
	err = New(Options{}).Copy(w, src, fallback, "redacted by a test")
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return out.String(), err
}

func TestCopy(t *testing.T) {
	got, err := copyOf(t, strings.NewReader(connectLine+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "s3cret") || !strings.Contains(got, Marker) {
		t.Errorf("not redacted:\n%s", got)
	}
	if !strings.Contains(got, `"redacted by a test"`) || !strings.Contains(got, `"bare.jsonl"`) {
		t.Errorf("header without the note or the fallback source:\n%s", got)
	}
}

// failingReader hands out its data, then fails instead of ending.
type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

// A source that fails mid-stream ends the copy the way a cut capture does:
// the records before the failure are copied, and the reader says why.
func TestCopyOfAFailingSourceKeepsWhatWasRead(t *testing.T) {
	boom := errors.New("disk gone")
	src, err := capture.NewReader(&failingReader{data: []byte(connectLine + "\n" + connectLine + "\n"), err: boom}, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := copyFrom(t, src)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, `"token":"`+Marker+`"`); n != 2 {
		t.Errorf("%d redacted records copied, want 2:\n%s", n, out)
	}
	if !src.Stats().Truncated {
		t.Error("the reader does not say the capture was cut")
	}
	if ws := src.Warnings(); len(ws) == 0 || !strings.Contains(ws[len(ws)-1].Msg, "disk gone") {
		t.Errorf("warnings %v, want the read failure named", ws)
	}
}

package redact

import (
	"bytes"
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

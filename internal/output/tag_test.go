package output

import (
	"bytes"
	"testing"
)

func TestFileTagger(t *testing.T) {
	var b bytes.Buffer
	tag := NewFileTagger(&b, `a "b".jsonl`)
	for _, p := range []string{`{"x":1}`, "\n{}\n", "not json\n{ \"y\"", ":2}"} {
		if _, err := tag.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tag.Flush(); err != nil {
		t.Fatal(err)
	}
	want := `{"file":"a \"b\".jsonl","x":1}` + "\n" + `{"file":"a \"b\".jsonl"}` + "\nnot json\n" + `{"file":"a \"b\".jsonl", "y":2}` + "\n"
	if b.String() != want {
		t.Fatalf("got  %q\nwant %q", b.String(), want)
	}
}

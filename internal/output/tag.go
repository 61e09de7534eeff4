package output

import (
	"bytes"
	"io"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// FileTagger puts a "file" key first on every JSON object line written
// through it, so the json of several captures in one stream says which
// capture each line is about. Other lines pass as they are.
type FileTagger struct {
	w       io.Writer
	file    string
	partial []byte
	buf     []byte
}

// NewFileTagger tags the lines written to w with file.
func NewFileTagger(w io.Writer, file string) *FileTagger {
	return &FileTagger{w: w, file: file}
}

func (t *FileTagger) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			t.partial = append(t.partial, p...)
			break
		}
		line := p[:i]
		if len(t.partial) > 0 {
			t.partial = append(t.partial, line...)
			line = t.partial
		}
		if err := t.line(line); err != nil {
			return 0, err
		}
		t.partial = t.partial[:0]
		p = p[i+1:]
	}
	return n, nil
}

func (t *FileTagger) line(line []byte) error {
	b := t.buf[:0]
	if len(line) > 0 && line[0] == '{' {
		b = append(b, `{"file":`...)
		b = jsonx.AppendString(b, t.file)
		if rest := bytes.TrimLeft(line[1:], " "); len(rest) > 0 && rest[0] != '}' {
			b = append(b, ',')
		}
		b = append(b, line[1:]...)
	} else {
		b = append(b, line...)
	}
	b = append(b, '\n')
	t.buf = b
	_, err := t.w.Write(b)
	return err
}

// Flush writes a last line that had no newline.
func (t *FileTagger) Flush() error {
	if len(t.partial) == 0 {
		return nil
	}
	err := t.line(t.partial)
	t.partial = t.partial[:0]
	return err
}

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/spf13/cobra"
)

// section is where one capture's output goes: the command's sink, or,
// when several captures share it, a writer that tags each json line with
// the file.
type section struct {
	w      io.Writer
	format output.Format
	style  output.Style
}

// perCapture is a command's work on one opened capture; it returns nil,
// errFinding, or an error.
type perCapture func(path string, r *capture.Reader, out section) error

// eachCapture runs a reading command over its arguments (none is stdin).
// One capture prints exactly as the command always has. Several print a
// section per file in argument order — a "==> FILE <==" heading in text
// and table, a "file" key first on every json line — and the exit code is
// the worst: a capture that cannot be read is reported on stderr and the
// others still run (exit 2 at the end), a finding in any is exit 1.
func (a *app) eachCapture(cmd *cobra.Command, args []string, out *outFlags, run perCapture) error {
	paths := args
	if len(paths) == 0 {
		paths = []string{"-"}
	}
	stdin := 0
	for _, p := range paths {
		if p == "-" {
			stdin++
		}
		if err := a.checkStdin(cmd, p); err != nil {
			return err
		}
	}
	if stdin > 1 {
		return usageError("name - once", "stdin can be read only once")
	}
	if len(paths) == 1 {
		r, err := a.openCapture(paths[0])
		if err != nil {
			return err
		}
		defer r.Close()
		s, err := a.openSink(cmd, out)
		if err != nil {
			return err
		}
		return s.close(run(paths[0], r, section{s, s.format, s.style}))
	}
	s, err := a.openSink(cmd, out)
	if err != nil {
		return err
	}
	var worst error
	unread := 0
	for k, path := range paths {
		r, err := a.openCapture(path)
		if err != nil {
			a.printError(err)
			unread++
			continue
		}
		sec := section{s, s.format, s.style}
		var tag *fileTagger
		if s.format == output.JSON {
			tag = &fileTagger{w: s, file: displayName(path)}
			sec.w = tag
		} else {
			if k > 0 {
				s.WriteString("\n")
			}
			s.WriteString(s.style.Paint("==> "+displayName(path)+" <==", output.Bold...) + "\n")
		}
		err = run(path, r, sec)
		r.Close()
		if tag != nil && err == nil {
			err = tag.flush()
		}
		var ee *exitError
		switch {
		case err == nil:
		case errors.Is(err, errFinding):
			worst = errFinding
		case errors.As(err, &ee) && ee.code == exitTrouble:
			a.printError(err)
			unread++
		default:
			return s.close(err)
		}
	}
	if err := s.close(worst); err != nil && err != errFinding {
		return err
	}
	if unread > 0 {
		return &exitError{code: exitTrouble, err: fmt.Errorf("%d of %d capture(s) could not be read", unread, len(paths))}
	}
	return worst
}

// printError reports an error in clawtap's voice without ending the command.
func (a *app) printError(err error) {
	fmt.Fprintf(a.stderr, "clawtap: error: %v\n", err)
	var ee *exitError
	if errors.As(err, &ee) && ee.hint != "" {
		fmt.Fprintf(a.stderr, "clawtap: hint: %s\n", ee.hint)
	}
}

// fileTagger puts a "file" key first on every JSON object line written
// through it.
type fileTagger struct {
	w       io.Writer
	file    string
	partial []byte
	buf     []byte
}

func (t *fileTagger) Write(p []byte) (int, error) {
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

func (t *fileTagger) line(line []byte) error {
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

// flush writes a last line that had no newline.
func (t *fileTagger) flush() error {
	if len(t.partial) == 0 {
		return nil
	}
	err := t.line(t.partial)
	t.partial = t.partial[:0]
	return err
}

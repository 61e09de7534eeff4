package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/capture"
)

// Section is where one capture's output goes: the command's sink, or,
// when several captures share it, a writer that tags each json line with
// the file.
type Section struct {
	W      io.Writer
	Format output.Format
	Style  output.Style
}

// PerCapture is a command's work on one opened capture; it returns nil,
// ErrFinding, or an error.
type PerCapture func(path string, r *capture.Reader, out Section) error

// EachCapture runs a reading command over its arguments (none is stdin).
// One capture prints exactly as the command always has. Several print a
// section per file in argument order — a "==> FILE <==" heading in text
// and table, a "file" key first on every json line — and the exit code is
// the worst: a capture that cannot be read is reported on stderr and the
// others still run (exit 2 at the end), a finding in any is exit 1.
func (e *Env) EachCapture(out Output, paths []string, run PerCapture) error {
	if len(paths) == 0 {
		paths = []string{"-"}
	}
	stdin := 0
	for _, p := range paths {
		if p == "-" {
			stdin++
		}
		if err := e.CheckStdin(out.Cmd, p); err != nil {
			return err
		}
	}
	if stdin > 1 {
		return Usage("name - once", "stdin can be read only once")
	}
	if len(paths) == 1 {
		r, err := e.OpenCapture(paths[0])
		if err != nil {
			return err
		}
		defer r.Close()
		s, err := e.OpenSink(out)
		if err != nil {
			return err
		}
		return s.Close(run(paths[0], r, Section{s, s.Format, s.Style}))
	}
	s, err := e.OpenSink(out)
	if err != nil {
		return err
	}
	var worst error
	unread := 0
	for k, path := range paths {
		r, err := e.OpenCapture(path)
		if err != nil {
			e.PrintError(err)
			unread++
			continue
		}
		sec := Section{s, s.Format, s.Style}
		var tag *output.FileTagger
		if s.Format == output.JSON {
			tag = output.NewFileTagger(s, DisplayName(path))
			sec.W = tag
		} else {
			if k > 0 {
				s.WriteString("\n")
			}
			s.WriteString(s.Style.Paint("==> "+DisplayName(path)+" <==", output.Bold...) + "\n")
		}
		err = run(path, r, sec)
		r.Close()
		if tag != nil && err == nil {
			err = tag.Flush()
		}
		var ce *Error
		switch {
		case err == nil:
		case errors.Is(err, ErrFinding):
			worst = ErrFinding
		case errors.As(err, &ce) && ce.Code == ExitTrouble:
			e.PrintError(err)
			unread++
		default:
			return s.Close(err)
		}
	}
	if err := s.Close(worst); err != nil && err != ErrFinding {
		return err
	}
	if unread > 0 {
		return &Error{Code: ExitTrouble, Err: fmt.Errorf("%d of %d capture(s) could not be read", unread, len(paths))}
	}
	return worst
}

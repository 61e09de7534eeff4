package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/capture"
)

// Output is where a command writes, as its flags said.
type Output struct {
	Path   string        // -o: a file, or "-" for stdout
	Force  bool          // --force: an existing file may be replaced
	Format output.Format // --format, "" for the default
	Human  output.Format // the default on a terminal
	Cmd    string        // the command line, for hints ("clawtap check")
}

// Sink is an opened output: a buffered writer on the destination, with the
// format and style resolved for it. What is printed in any format but
// json (text, table, junit: for people and CI logs) passes the sanitiser,
// output.TextWriter, so that no line printed lets a capture act on a
// terminal or a CI log; json escapes what it holds.
type Sink struct {
	*bufio.Writer
	Dest   *output.Dest
	Format output.Format
	Style  output.Style

	text *output.TextWriter // nil for json
}

// OpenSink opens o's destination under the output rules (an existing file
// needs --force; devices and FIFOs are written in place) and resolves the
// format: the one asked for, else o.Human on a terminal, else json.
func (e *Env) OpenSink(o Output) (*Sink, error) {
	d, err := e.Create(o)
	if err != nil {
		return nil, err
	}
	terminal := d.IsStdout() && e.StdoutIsTTY()
	s := &Sink{
		Dest:   d,
		Format: output.Resolve(o.Format, terminal, o.Human),
		Style:  e.StyleFor(terminal),
	}
	var w io.Writer = d
	if s.Format != output.JSON {
		s.text = output.NewTextWriter(d, s.Style.On)
		w = s.text
	}
	s.Writer = bufio.NewWriterSize(w, 64<<10)
	return s, nil
}

// flush writes what is buffered, through the sanitiser.
func (s *Sink) flush() error {
	if err := s.Writer.Flush(); err != nil {
		return err
	}
	if s.text != nil {
		return s.text.Flush()
	}
	return nil
}

// Direct is where clawtap's own deliberate lines go in the output (GitHub
// Actions annotations, which start with ::), past the sanitiser, after
// what was printed before them. Their writer makes what they quote safe.
func (s *Sink) Direct() io.Writer { return direct{s} }

type direct struct{ s *Sink }

func (d direct) Write(p []byte) (int, error) {
	if err := d.s.flush(); err != nil {
		return 0, err
	}
	return d.s.Dest.Write(p)
}

// Create opens o's destination, turning refusals into exit 2 with a hint
// that fits the command.
func (e *Env) Create(o Output) (*output.Dest, error) {
	d, err := output.Create(o.Path, output.Options{Force: o.Force, Stdout: e.Stdout})
	return d, o.refused(err)
}

// CheckOutput refuses at once, as Create would, an output that a command
// working long before it writes (shrink, report) could not write at the end.
func (e *Env) CheckOutput(o Output) error {
	return o.refused(output.CheckPath(o.Path, output.Options{Force: o.Force}))
}

// refused turns a refusal of the output rules into exit 2 with a hint that
// fits the command.
func (o Output) refused(err error) error {
	switch {
	case errors.Is(err, output.ErrExists):
		return Usage("add --force to replace it, or choose another file", "%s already exists", o.Path)
	case err != nil:
		return &Error{Code: ExitTrouble, Err: fmt.Errorf("cannot write %s: %w", o.Path, err), Hint: "run '" + o.Cmd + " --help' for the output rules"}
	}
	return nil
}

// Close ends the output after the command: on success (or a finding, whose
// output is complete) it flushes and commits the file; on any other error
// it aborts, leaving no partial file. A closed pipe is not an error.
func (s *Sink) Close(err error) error {
	var ce *Error
	complete := err == nil || errors.As(err, &ce) && ce.Code == ExitFinding
	if !complete {
		s.flush()
		s.Dest.Abort()
		return err
	}
	if ferr := s.flush(); ferr != nil {
		s.Dest.Abort()
		if IsBrokenPipe(ferr) {
			return err
		}
		return fmt.Errorf("write %s: %w", s.Dest.Name(), ferr)
	}
	if cerr := s.Dest.Commit(); cerr != nil {
		return &Error{Code: ExitTrouble, Err: fmt.Errorf("write %s: %w", s.Dest.Name(), cerr)}
	}
	return err
}

// CaptureOut is a capture being written to an output: its writer, and the
// destination that commits or aborts it.
type CaptureOut struct {
	*capture.Writer
	dest *output.Dest
}

// CreateCapture opens o's destination for a capture, zstd-compressed when
// the name ends in .zst; stdout gets plain JSON Lines.
func (e *Env) CreateCapture(o Output) (*CaptureOut, error) {
	d, err := e.Create(o)
	if err != nil {
		return nil, err
	}
	w, err := capture.NewWriter(d, !d.IsStdout() && strings.HasSuffix(o.Path, ".zst"))
	if err != nil {
		d.Abort()
		return nil, &Error{Code: ExitTrouble, Err: err}
	}
	return &CaptureOut{Writer: w, dest: d}, nil
}

// Commit finishes the capture and puts the file in place.
func (c *CaptureOut) Commit() error {
	if err := c.Writer.Close(); err != nil {
		c.dest.Abort()
		return fmt.Errorf("write %s: %w", c.dest.Name(), err)
	}
	if err := c.dest.Commit(); err != nil {
		return fmt.Errorf("write %s: %w", c.dest.Name(), err)
	}
	return nil
}

// Abort drops the capture: no partial file is left.
func (c *CaptureOut) Abort() {
	_ = c.Writer.Close()
	c.dest.Abort()
}

// WriteCaptureWith writes a capture to o with fn, then puts it in place;
// when fn fails, no partial file is left. A reader that went away ends it
// quietly (done is false); fn's errors come back as fn returned them, a
// failed commit as exit 2.
func (e *Env) WriteCaptureWith(o Output, fn func(*capture.Writer) error) (done bool, err error) {
	w, err := e.CreateCapture(o)
	if err != nil {
		return false, err
	}
	if err := fn(w.Writer); err != nil {
		w.Abort()
		if IsBrokenPipe(err) {
			return false, nil
		}
		return false, err
	}
	if err := w.Commit(); err != nil {
		if IsBrokenPipe(err) {
			return false, nil
		}
		return false, &Error{Code: ExitTrouble, Err: err}
	}
	return true, nil
}

// WriteCapture writes a whole capture held in memory to o.
func (e *Env) WriteCapture(o Output, h capture.Header, recs []capture.Record) error {
	_, err := e.WriteCaptureWith(o, func(w *capture.Writer) error {
		err := w.WriteHeader(h)
		for i := 0; i < len(recs) && err == nil; i++ {
			err = w.Write(&recs[i])
		}
		if err != nil {
			return &Error{Code: ExitTrouble, Err: fmt.Errorf("write %s: %w", o.Path, err)}
		}
		return nil
	})
	return err
}

// WriteFile writes data to o through the safe writer. It returns the
// destination's name, or "" when the reader went away (not an error).
func (e *Env) WriteFile(o Output, data []byte) (string, error) {
	return e.WriteFileWith(o, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFileWith is WriteFile with the data written by fn, a piece at a
// time; fn's error is a write error, and leaves no partial file.
func (e *Env) WriteFileWith(o Output, fn func(io.Writer) error) (string, error) {
	d, err := e.Create(o)
	if err != nil {
		return "", err
	}
	if err := fn(d); err != nil {
		d.Abort()
		if IsBrokenPipe(err) {
			return "", nil
		}
		return "", &Error{Code: ExitTrouble, Err: fmt.Errorf("write %s: %w", d.Name(), err)}
	}
	if err := d.Commit(); err != nil {
		return "", &Error{Code: ExitTrouble, Err: fmt.Errorf("write %s: %w", d.Name(), err)}
	}
	return d.Name(), nil
}

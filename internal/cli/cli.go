// Package cli is what clawtap's commands share below cobra: the streams
// and the user's voice on stderr, errors that carry an exit code and a
// hint, and the command line's rules for opening inputs and outputs. A
// command builds on an Env; nothing here reads global state, so commands
// run in-process in tests.
package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"

	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/mattn/go-isatty"
)

// Exit codes, documented in README.md.
const (
	ExitOK          = 0
	ExitFinding     = 1 // gaps, golden mismatch, findings
	ExitTrouble     = 2 // usage or I/O trouble
	ExitInterrupted = 130
)

// Error carries an exit code and an optional hint up to main.
type Error struct {
	Code int
	Err  error
	Hint string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// ErrFinding ends a command with exit 1 after its output is complete;
// nothing more is printed.
var ErrFinding = &Error{Code: ExitFinding, Err: errors.New("finding")}

// IsFinding reports whether err is ErrFinding.
func IsFinding(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e == ErrFinding || e.Code == ExitFinding && e.Err == ErrFinding.Err)
}

// Usage is exit 2 with a hint.
func Usage(hint string, format string, args ...any) error {
	return &Error{Code: ExitTrouble, Err: fmt.Errorf(format, args...), Hint: hint}
}

// Trouble is exit 2 for err, with an optional hint.
func Trouble(err error, hint string) error {
	return &Error{Code: ExitTrouble, Err: err, Hint: hint}
}

// IsBrokenPipe reports a reader that went away (| head), which is not an
// error.
func IsBrokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)
}

// Env holds the streams and global settings every command shares.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer

	ColorMode string // auto, always, never
	Quiet     bool
	// ShowCredentials keeps the credentials of a capture written without
	// redaction; by default OpenCapture redacts them as it reads.
	ShowCredentials bool

	// IsTerminal reports whether a stream is a terminal; tests replace it.
	IsTerminal func(w any) bool
	// LookupEnv reads the environment; tests replace it.
	LookupEnv func(string) (string, bool)

	warnMu     sync.Mutex
	warns      map[string]*warnCount // per input, by display name (LineWarnf)
	redactSaid bool                  // RedactOnRead has warned
}

// NewEnv is an Env on the given streams and the process environment.
func NewEnv(stdin io.Reader, stdout, stderr io.Writer) *Env {
	return &Env{
		Stdin: stdin, Stdout: stdout, Stderr: stderr,
		ColorMode:  "auto",
		IsTerminal: fileIsTerminal,
		LookupEnv:  os.LookupEnv,
	}
}

// Getenv is the value of the environment variable k, "" when unset.
func (e *Env) Getenv(k string) string {
	v, _ := e.LookupEnv(k)
	return v
}

// SecretEnv is the secret in the environment variable k, trimmed, and
// whether k is set. Set but blank is a usage error: an empty
// CLAWTAP_TOKEN (a failed $(cat …), a typo) must not quietly mean no
// secret at all.
func (e *Env) SecretEnv(k string) (string, bool, error) {
	v, set := e.LookupEnv(k)
	if !set {
		return "", false, nil
	}
	if s := strings.TrimSpace(v); s != "" {
		return s, true, nil
	}
	return "", true, Usage("unset "+k+", or put the secret in it", "%s is set but empty", k)
}

func fileIsTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// StdoutIsTTY reports whether standard output is a terminal.
func (e *Env) StdoutIsTTY() bool { return e.IsTerminal(e.Stdout) }

// UseColor decides colour for a stream: --color, NO_COLOR, TERM=dumb, TTY.
func (e *Env) UseColor(w any) bool {
	switch e.ColorMode {
	case "always":
		return true
	case "never":
		return false
	}
	if _, set := os.LookupEnv("NO_COLOR"); set || e.Getenv("NO_COLOR") != "" || e.Getenv("TERM") == "dumb" {
		return false
	}
	return e.IsTerminal(w)
}

// StyleFor decides colour for an output: --color always or never decides;
// auto colours a terminal unless NO_COLOR or TERM=dumb says not to.
func (e *Env) StyleFor(terminal bool) output.Style {
	switch e.ColorMode {
	case "always":
		return output.Style{On: true}
	case "never":
		return output.Style{}
	}
	if e.Getenv("NO_COLOR") != "" || e.Getenv("TERM") == "dumb" {
		return output.Style{}
	}
	return output.Style{On: terminal}
}

// Say prints one line in clawtap's voice on stderr: "clawtap: ", kind
// ("warning: ", "error: ", "hint: " or ""), then msg made printable
// (human.Printable). Every line of the voice goes through it, so a
// message that quotes a capture, a file name or a peer stays one line
// and acts on nothing, whatever it holds.
func (e *Env) Say(kind, msg string) {
	io.WriteString(e.Stderr, "clawtap: "+kind+human.Printable(msg)+"\n")
}

// Warnf prints a warning on stderr in clawtap's one voice.
func (e *Env) Warnf(format string, args ...any) {
	if e.Quiet {
		return
	}
	e.Say("warning: ", fmt.Sprintf(format, args...))
}

// Infof prints progress or a summary on stderr unless --quiet.
func (e *Env) Infof(format string, args ...any) {
	if e.Quiet {
		return
	}
	e.Say("", fmt.Sprintf(format, args...))
}

// PrintError reports an error, and its hint, without ending the command.
func (e *Env) PrintError(err error) {
	e.Say("error: ", err.Error())
	var ce *Error
	if errors.As(err, &ce) && ce.Hint != "" {
		e.Say("hint: ", ce.Hint)
	}
}

// Out returns a buffered stdout for text, through the sanitiser
// (output.TextWriter), and a flush function that ignores a closed pipe
// (| head is not an error).
func (e *Env) Out() (*bufio.Writer, func() error) {
	tw := output.NewTextWriter(e.Stdout, false)
	bw := bufio.NewWriterSize(tw, 64<<10)
	return bw, func() error {
		err := bw.Flush()
		if err == nil {
			err = tw.Flush()
		}
		if err != nil && !IsBrokenPipe(err) {
			return fmt.Errorf("write output: %w", err)
		}
		return nil
	}
}

// Exit reports err as the command line ends, on stderr, and returns the
// exit code: an Error's code and hint; a finding, or a reader that went
// away, silently; anything else is exit 2, with a pointer to cmd's help
// when it is the parser's complaint about a flag or an argument.
func (e *Env) Exit(err error, cmd string) int {
	if err == nil {
		return ExitOK
	}
	var ce *Error
	if errors.As(err, &ce) {
		if IsFinding(ce) {
			return ExitFinding
		}
		e.Say("error: ", ce.Err.Error())
		if ce.Hint != "" {
			e.Say("hint: ", ce.Hint)
		}
		return ce.Code
	}
	if IsBrokenPipe(err) {
		return ExitOK
	}
	e.Say("error: ", err.Error())
	if isUsage(err) {
		e.Say("hint: ", "run '"+cmd+" --help' for usage")
	}
	return ExitTrouble
}

// isUsage recognises the command line parser's (cobra's) flag and
// argument errors.
func isUsage(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown flag", "unknown shorthand", "unknown command", "accepts ", "requires ", "invalid argument", "flag needs", "required flag"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

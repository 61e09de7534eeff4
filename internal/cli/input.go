package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/redact"
)

// DisplayName names an input in messages: its path, or stdin for "-".
func DisplayName(path string) string {
	if path == "-" {
		return "stdin"
	}
	return path
}

// OpenCapture opens a capture for reading ("-" is stdin) with reader
// warnings on stderr.
func (e *Env) OpenCapture(path string) (*capture.Reader, error) {
	r, err := e.OpenCaptureAsWritten(path)
	if err == nil {
		e.RedactOnRead(path, r)
	}
	return r, err
}

// RedactOnRead has r redact the credentials of a capture written without
// redaction as it reads it (redact.OnRead), unless --show-credentials,
// and says so: once per run of a command, however many such inputs it
// reads (diff A B, gaps A B C, a capture read twice).
func (e *Env) RedactOnRead(path string, r *capture.Reader) {
	if e.ShowCredentials || !redact.OnRead(r) {
		return
	}
	e.warnMu.Lock()
	said := e.redactSaid
	e.redactSaid = true
	e.warnMu.Unlock()
	if said {
		return
	}
	why := "it has no header saying they were redacted"
	if r.Header() != nil {
		why = "it was written without redaction"
	}
	e.Warnf("%s: %s: its credentials are redacted as it is read (--show-credentials shows them)", DisplayName(path), why)
}

// RedactedOnRead says, in one warning, that the captures named (a suite's)
// were written without redaction and had their credentials redacted as
// they were read; nothing when there are none.
func (e *Env) RedactedOnRead(paths []string) {
	switch len(paths) {
	case 0:
		return
	case 1:
		e.Warnf("%s: it was written without redaction: its credentials are redacted as it is read (--show-credentials shows them)", paths[0])
		return
	}
	e.Warnf("%d captures were written without redaction (%s, …): their credentials are redacted as they are read (--show-credentials shows them)", len(paths), paths[0])
}

// OpenCaptureAsWritten is OpenCapture without redaction on read: for
// redact itself.
func (e *Env) OpenCaptureAsWritten(path string) (*capture.Reader, error) {
	opts := capture.Options{OnWarning: e.CaptureWarnings(DisplayName(path), nil)}
	br, release, closeFn, err := e.openPlain(path)
	if err != nil {
		return nil, InputError(path, err)
	}
	if err := RefuseClassified(path, br); err != nil {
		release()
		closeFn()
		return nil, err
	}
	// The reader frees the decoder and the file once it no longer reads
	// them (Release), at Close at the latest.
	opts.Release = func() { release(); closeFn() }
	r, err := capture.NewReader(br, opts)
	return Opened(path, r, err)
}

// openPlain opens path ("-" is stdin) decompressed, buffered so that the
// first line can be peeked at; release frees the decoder, closeFn the file.
// The buffer is the capture reader's size, so that the reader reads
// through it rather than copying it into a buffer of its own.
func (e *Env) openPlain(path string) (br *bufio.Reader, release, closeFn func(), err error) {
	var in io.Reader = e.Stdin
	closeFn = func() {}
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, nil, err
		}
		in, closeFn = f, func() { f.Close() }
	}
	plain, release, err := capture.Decompress(in)
	if err != nil {
		closeFn()
		return nil, nil, nil, err
	}
	return bufio.NewReaderSize(plain, capture.ReadBuffer), release, closeFn, nil
}

// RefuseClassified refuses the NDJSON that 'clawtap classify' prints where
// a capture is wanted (exit 2): read as a capture, its events are invalid
// records, one warning each, and the command reports on nothing. Only
// intents reads classify output (OpenEvents).
func RefuseClassified(path string, br *bufio.Reader) error {
	if !pipeline.IsClassified(br) {
		return nil
	}
	return &Error{Code: ExitTrouble, Err: fmt.Errorf("%s is classify output, not a capture", DisplayName(path)),
		Hint: "give the capture itself (.jsonl or .jsonl.zst); only 'clawtap intents' reads what classify prints"}
}

// Opened finishes opening a capture: a failure, or an input that holds
// nothing at all, is exit 2. An empty input is refused like garbage
// rather than read as a capture of nothing, so that a recording that never
// wrote a line does not pass check or gaps; a capture with a header and no
// records is read as usual.
func Opened(path string, r *capture.Reader, err error) (*capture.Reader, error) {
	if err != nil {
		return nil, InputError(path, err)
	}
	if r.Stats().Empty {
		r.Close()
		return nil, EmptyInput(path)
	}
	return r, nil
}

// EmptyInput is the error for an input that holds nothing at all.
func EmptyInput(path string) error {
	return &Error{Code: ExitTrouble, Err: fmt.Errorf("%s is empty: no records", DisplayName(path)),
		Hint: "a capture has a header line or records; check the path, or that the recording wrote anything"}
}

// InputError turns an open/read failure into exit 2 with a hint.
func InputError(path string, err error) error {
	var nc *capture.NotCaptureError
	var se *capture.StreamError
	switch {
	case errors.Is(err, syscall.EISDIR):
		// Opening a directory works; reading it (or copying it) does not.
		return &Error{Code: ExitTrouble, Err: fmt.Errorf("%s is a directory", path), Hint: "give a capture file (.jsonl or .jsonl.zst), or - for stdin"}
	case errors.As(err, &se):
		// The reader returns a StreamError only when no record was read.
		what := se.What() + " is cut off"
		if !se.CutOff() {
			what = se.What() + " is corrupt: " + se.Error()
		}
		return &Error{Code: ExitTrouble, Err: fmt.Errorf("%s ends before its first record (%s)", DisplayName(path), what),
			Hint: "the file was cut short (a recording stopped hard, or a copy or download did not finish); copy it again, or record again"}
	case errors.As(err, &nc):
		return &Error{Code: ExitTrouble, Err: fmt.Errorf("not a clawtap capture: %s: %s", DisplayName(path), nc.Why),
			Hint: "give a capture (.jsonl or .jsonl.zst) written by clawtap, or JSON Lines of gateway frames; clawtap import reads HAR files and other logs"}
	case errors.Is(err, fs.ErrNotExist):
		return &Error{Code: ExitTrouble, Err: fmt.Errorf("open %s: no such file", path), Hint: "give a capture file (.jsonl or .jsonl.zst), or - for stdin"}
	case errors.Is(err, fs.ErrPermission):
		return &Error{Code: ExitTrouble, Err: fmt.Errorf("open %s: permission denied", path)}
	}
	return &Error{Code: ExitTrouble, Err: fmt.Errorf("read %s: %w", path, err)}
}

// ReadErr turns a pass's read error into I/O trouble with the input; any
// other error (an observer's write error) is returned as it is.
func ReadErr(path string, err error) error {
	var re *pipeline.ReadError
	if errors.As(err, &re) {
		return InputError(path, re.Err)
	}
	return err
}

// ReadSummary reports on stderr what the reader stepped over, once, at the
// end.
func (e *Env) ReadSummary(path string, st capture.Stats) {
	e.HiddenWarnings(DisplayName(path))
	if sum := st.Summary(); sum != "" {
		e.Warnf("%s: %s", DisplayName(path), sum)
	}
}

// CheckStdin refuses to wait silently on a terminal for a capture; cmd is
// the command line to suggest ("clawtap check").
func (e *Env) CheckStdin(cmd, path string) error {
	if path == "-" && e.IsTerminal(e.Stdin) {
		return Usage("pipe a capture in, or name a file: "+cmd+" capture.jsonl.zst", "no capture given and stdin is a terminal")
	}
	return nil
}

// SameFile reports whether out names the input file (never for stdin or
// stdout), so a command cannot overwrite what it reads.
func SameFile(in, out string) bool {
	if in == "-" || out == "-" {
		return false
	}
	a, err1 := os.Stat(in)
	b, err2 := os.Stat(out)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// ReadSecretFile reads a token or password file ("-" is stdin), trimmed;
// flag names it in messages. A file other users can read is a warning.
func (e *Env) ReadSecretFile(flag, path string) (string, error) {
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(io.LimitReader(e.Stdin, 1<<16))
	} else {
		b, err = os.ReadFile(path)
		if err == nil {
			if fi, serr := os.Stat(path); serr == nil && fi.Mode().Perm()&0o077 != 0 {
				e.Warnf("%s %s is readable by other users (mode %04o); chmod 600 it", flag, path, fi.Mode().Perm())
			}
		}
	}
	if err != nil {
		return "", Usage("check the path given to "+flag, "read %s: %v", flag, err)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "", Usage("put the secret on the first line of the file", "%s %s is empty", flag, path)
	}
	return s, nil
}

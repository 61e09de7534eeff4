package main

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/spf13/cobra"
)

// inputArg returns the capture path from args: the one given, or "-" (stdin).
func inputArg(args []string) string {
	if len(args) == 0 {
		return "-"
	}
	return args[0]
}

// displayName names an input in messages: its path, or stdin for "-".
func displayName(path string) string {
	if path == "-" {
		return "stdin"
	}
	return path
}

// openCapture opens a capture for reading with reader warnings on stderr.
func (a *app) openCapture(path string) (*capture.Reader, error) {
	name := displayName(path)
	opts := capture.Options{OnWarning: func(w capture.Warning) {
		a.warnf("%s: %s", name, w)
	}}
	var r *capture.Reader
	var err error
	if path == "-" {
		r, err = capture.NewReader(a.stdin, opts)
	} else {
		r, err = capture.Open(path, opts)
	}
	return opened(path, r, err)
}

// opened finishes opening a capture: a failure, or an input that holds
// nothing at all, is exit 2. An empty input is refused like garbage
// rather than read as a capture of nothing, so that a recording that never
// wrote a line does not pass check or gaps; a capture with a header and no
// records is read as usual.
func opened(path string, r *capture.Reader, err error) (*capture.Reader, error) {
	if err != nil {
		return nil, inputError(path, err)
	}
	if r.Stats().Empty {
		r.Close()
		return nil, emptyInput(path)
	}
	return r, nil
}

// emptyInput is the error for an input that holds nothing at all.
func emptyInput(path string) error {
	return &exitError{code: exitTrouble, err: fmt.Errorf("%s is empty: no records", displayName(path)),
		hint: "a capture has a header line or records; check the path, or that the recording wrote anything"}
}

// inputError turns an open/read failure into exit 2 with a hint.
func inputError(path string, err error) error {
	var nc *capture.NotCaptureError
	switch {
	case errors.As(err, &nc):
		return &exitError{code: exitTrouble, err: fmt.Errorf("not a clawtap capture: %s: %s", displayName(path), nc.Why),
			hint: "give a capture (.jsonl or .jsonl.zst) written by clawtap, or JSON Lines of gateway frames; clawtap import reads HAR files and other logs"}
	case errors.Is(err, fs.ErrNotExist):
		return &exitError{code: exitTrouble, err: fmt.Errorf("open %s: no such file", path), hint: "give a capture file (.jsonl or .jsonl.zst), or - for stdin"}
	case errors.Is(err, fs.ErrPermission):
		return &exitError{code: exitTrouble, err: fmt.Errorf("open %s: permission denied", path)}
	}
	return &exitError{code: exitTrouble, err: fmt.Errorf("read %s: %w", path, err)}
}

// readSummary reports on stderr what the reader stepped over, once, at the end.
func (a *app) readSummary(path string, st capture.Stats) {
	var parts []string
	if st.Malformed > 0 {
		parts = append(parts, fmt.Sprintf("%d unreadable line(s) kept as invalid records", st.Malformed))
	}
	if st.Oversized > 0 {
		parts = append(parts, fmt.Sprintf("%d oversized line(s) skipped", st.Oversized))
	}
	if st.InvalidUTF8 > 0 {
		parts = append(parts, fmt.Sprintf("%d record(s) with invalid UTF-8, replaced by U+FFFD", st.InvalidUTF8))
	}
	if st.Truncated {
		parts = append(parts, "the capture is truncated")
	}
	if len(parts) > 0 {
		a.warnf("%s: %d records read; %s", displayName(path), st.Records, strings.Join(parts, "; "))
	}
}

// isStdinTTY reports whether reading "-" would wait on a terminal.
func (a *app) isStdinTTY() bool { return a.isTerminal(a.stdin) }

// checkStdin refuses to wait silently on a terminal for a capture.
func (a *app) checkStdin(cmd *cobra.Command, path string) error {
	if path == "-" && a.isStdinTTY() {
		return usageError("pipe a capture in, or name a file: "+cmd.CommandPath()+" capture.jsonl.zst", "no capture given and stdin is a terminal")
	}
	return nil
}

// captureArgs completes a capture argument with capture file names.
func captureArgs(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return []string{"zst", "jsonl", "ndjson", "json"}, cobra.ShellCompDirectiveFilterFileExt
}

// readErr turns a pass's read error into I/O trouble with the input; any
// other error (an observer's write error) is returned as it is.
func readErr(path string, err error) error {
	var re *pipeline.ReadError
	if errors.As(err, &re) {
		return inputError(path, re.Err)
	}
	return err
}

// passErr turns a pass's error into the command's: a read error is I/O
// trouble with the input, anything else an observer's write error (nil
// for a closed pipe, after flushing what can be).
func passErr(path string, flush func() error, err error) error {
	var re *pipeline.ReadError
	if errors.As(err, &re) {
		return inputError(path, re.Err)
	}
	return flushErr(flush, err)
}

// flushErr reports a write failure unless it is a closed pipe.
func flushErr(flush func() error, err error) error {
	if isBrokenPipe(err) {
		return nil
	}
	if ferr := flush(); ferr != nil {
		return ferr
	}
	return fmt.Errorf("write output: %w", err)
}

package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/clawtap/clawtap/internal/output"
)

func testEnv() (*Env, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	e := NewEnv(strings.NewReader(""), &stdout, &stderr)
	e.IsTerminal = func(any) bool { return false }
	e.Getenv = func(string) string { return "" }
	return e, &stdout, &stderr
}

func TestExit(t *testing.T) {
	for _, c := range []struct {
		err    error
		code   int
		stderr string
	}{
		{nil, ExitOK, ""},
		{ErrFinding, ExitFinding, ""},
		{Usage("do this", "bad %s", "flag"), ExitTrouble, "clawtap: error: bad flag\nclawtap: hint: do this\n"},
		{&Error{Code: ExitInterrupted, Err: errors.New("aborted")}, ExitInterrupted, "clawtap: error: aborted\n"},
		{syscall.EPIPE, ExitOK, ""},
		{errors.New(`unknown flag: --nope`), ExitTrouble, "clawtap: error: unknown flag: --nope\nclawtap: hint: run 'clawtap x --help' for usage\n"},
		{errors.New("disk full"), ExitTrouble, "clawtap: error: disk full\n"},
	} {
		e, _, stderr := testEnv()
		if code := e.Exit(c.err, "clawtap x"); code != c.code || stderr.String() != c.stderr {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", c.err, code, stderr.String(), c.code, c.stderr)
		}
	}
}

func TestQuietVoice(t *testing.T) {
	e, _, stderr := testEnv()
	e.Warnf("w %d", 1)
	e.Infof("i")
	e.Quiet = true
	e.Warnf("hidden")
	e.Infof("hidden")
	if stderr.String() != "clawtap: warning: w 1\nclawtap: i\n" {
		t.Errorf("%q", stderr.String())
	}
}

func TestSinkCommitsCompleteOutputOnly(t *testing.T) {
	dir := t.TempDir()
	e, _, _ := testEnv()
	for _, c := range []struct {
		err  error
		kept bool
	}{{nil, true}, {ErrFinding, true}, {errors.New("half done"), false}} {
		path := filepath.Join(dir, "out.json")
		os.Remove(path)
		s, err := e.OpenSink(Output{Path: path, Human: output.Text})
		if err != nil {
			t.Fatal(err)
		}
		if s.Format != output.JSON {
			t.Errorf("a file's default format is %s", s.Format)
		}
		s.WriteString("x\n")
		if got := s.Close(c.err); got != c.err {
			t.Errorf("Close(%v) = %v", c.err, got)
		}
		if _, err := os.Stat(path); (err == nil) != c.kept {
			t.Errorf("%v: file kept %v", c.err, err == nil)
		}
	}
	os.WriteFile(filepath.Join(dir, "out.json"), nil, 0o644)
	if _, err := e.OpenSink(Output{Path: filepath.Join(dir, "out.json")}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("an existing file without --force: %v", err)
	}
}

func TestInputErrors(t *testing.T) {
	e, _, _ := testEnv()
	missing := filepath.Join(t.TempDir(), "gone.jsonl")
	if _, err := e.OpenCapture(missing); err == nil || err.Error() != "open "+missing+": no such file" {
		t.Errorf("missing: %v", err)
	}
	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	if _, err := e.OpenCapture(empty); err == nil || !strings.Contains(err.Error(), "is empty: no records") {
		t.Errorf("empty: %v", err)
	}
	e.IsTerminal = func(w any) bool { return w == e.Stdin }
	if err := e.CheckStdin("clawtap check", "-"); err == nil || !strings.Contains(err.(*Error).Hint, "clawtap check capture.jsonl.zst") {
		t.Errorf("stdin on a terminal: %v", err)
	}
	if SameFile("-", "-") || !SameFile(empty, empty) || SameFile(empty, missing) {
		t.Error("SameFile")
	}
}

func TestGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.golden")
	e, stdout, stderr := testEnv()
	if err := e.Golden("clawtap replay", "replay", path, []byte("a\n"), false); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing golden: %v", err)
	}
	if err := e.Golden("clawtap replay", "replay", path, []byte("a\n"), true); err != nil {
		t.Fatal(err)
	}
	if err := e.Golden("clawtap replay", "replay", path, []byte("a\n"), false); err != nil {
		t.Errorf("same bytes: %v", err)
	}
	if err := e.Golden("clawtap replay", "replay", path, []byte("b\n"), false); !IsFinding(err) || !strings.Contains(stdout.String(), "+b") {
		t.Errorf("changed: %v\n%s", err, stdout)
	}
	if !strings.Contains(stderr.String(), "differs from the replay") {
		t.Errorf("stderr %s", stderr)
	}
}

func TestReadSecretFile(t *testing.T) {
	e, _, stderr := testEnv()
	e.Stdin = strings.NewReader(" tok \n")
	if s, err := e.ReadSecretFile("--token-file", "-"); err != nil || s != "tok" {
		t.Errorf("%q %v", s, err)
	}
	f := filepath.Join(t.TempDir(), "tok")
	os.WriteFile(f, []byte("\n"), 0o600)
	if _, err := e.ReadSecretFile("--token-file", f); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("empty: %v", err)
	}
	if stderr.Len() != 0 {
		t.Errorf("a 0600 file warned: %s", stderr)
	}
}

func TestSuggestFlag(t *testing.T) {
	names := []string{"format", "force", "output", "fail-on", "from", "rule", "run"}
	for _, c := range []struct{ err, want string }{
		{"unknown flag: --fromat", "format"},
		{"unknown flag: --outptu", "output"},
		{"unknown flag: --fail-onn=warn", "fail-on"},
		{"unknown flag: --ruel", "rule"},
		{"unknown flag: --fo", ""},         // format, force and from: none stands out
		{"unknown flag: --outp", "output"}, // the only flag it starts
		{"unknown flag: --zzzzzz", ""},
		{"unknown flag: --ruel", "rule"}, // listed twice below: one flag
		{"unknown shorthand flag: 'z' in -z", ""},
	} {
		if got := SuggestFlag(c.err, append(names, "rule")); got != c.want {
			t.Errorf("%q: %q, want %q", c.err, got, c.want)
		}
	}
}

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/serve"
)

// hostile are what a capture, a file name or a peer may hold to act on a
// terminal or a CI log: every printing path is fed all of them.
var hostile = []string{
	"\x1b]0;pwned\x07",                // sets the terminal's title
	"\x1b[2J\x1b[H",                   // clears the screen
	"\x1b[8mconcealed\x1b[0m",         // an SGR sequence: hides text
	"\x9b31mC1-CSI",                   // the 8-bit CSI
	"shown\rOVERWRITTEN",              // CR rewrites the line
	"nul\x00byte",                     // NUL
	"x\nclawtap: error: forged",       // a forged line of clawtap's voice
	"x\n::warning::forged",            // a forged CI annotation
	"  ::add-mask::forged",            // one after white space
	"bidi \u202eevil\u202c",           // shows text reversed
	"\u2066isolate\u2069 \u200fmark",  // isolates, marks
	"sep\u2028line",                   // a line separator
	"lone \xed\xa0\x80 surrogate",     // a lone surrogate, in WTF-8
	"bad \xff byte",                   // invalid UTF-8
	"::warning file=x.go::line start", // a command at a line's start
}

// joined is every hostile string in one.
var joined = strings.Join(hostile, " | ")

// sgrRE is an SGR sequence, which clawtap's own colours are.
var sgrRE = regexp.MustCompile("\x1b\\[[0-9;]*m")

// assertSafe fails unless out acts on nothing: valid UTF-8; no control
// character but newline and tab, and with colour ESC only in clawtap's own
// SGR sequences (never the hostile conceal); no bidirectional control; no
// line that starts with "::" (after white space) but clawtap's own
// annotations when allowed; no line forged in clawtap's voice.
func assertSafe(t *testing.T, where, out string, colour, annotations bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s: not UTF-8: %q", where, clip(out))
	}
	plain := out
	if colour {
		if strings.Contains(out, "\x1b[8m") {
			t.Errorf("%s: the capture's SGR sequence reached the output", where)
		}
		plain = sgrRE.ReplaceAllString(out, "")
	}
	for _, r := range plain {
		if r != '\n' && r != '\t' && human.Unsafe(r) {
			t.Errorf("%s: holds %U: %q", where, r, clip(out))
			break
		}
	}
	for line := range strings.Lines(plain) {
		l := strings.TrimLeftFunc(line, unicode.IsSpace)
		switch {
		case strings.HasPrefix(l, "::") && !(annotations && strings.HasPrefix(l, "::error file=")):
			t.Errorf("%s: a line starts a workflow command: %q", where, line)
		case strings.HasPrefix(l, "clawtap: error: forged"), strings.HasPrefix(l, "OVERWRITTEN"):
			t.Errorf("%s: a forged line: %q", where, line)
		}
	}
}

func clip(s string) string { return human.Clip(s, 300) }

// hostileCapture writes the demo capture with the hostile strings in its
// run id, agent, session, model, tool, event and method names, texts.
func hostileCapture(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(fixture(t, "demo.jsonl.zst"))
	if err != nil {
		t.Fatal(err)
	}
	zr, release, err := capture.Decompress(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	release()
	if err != nil {
		t.Fatal(err)
	}
	q := string(jsonx.AppendString(nil, joined)) // \ud800 for the surrogate
	q = q[1 : len(q)-1]
	text := strings.NewReplacer(
		"0eae03ef-2056-48b0-94b8-1d774333f639", "R"+q,
		"Three files:", "T"+q,
		"agent:main:main", "S"+q,
		"fake-model", "M"+q,
		`"name":"ls"`, `"name":"T`+q+`"`,
		`"agentId":"main"`, `"agentId":"A`+q+`"`,
		`"event":"tick"`, `"event":"E`+q+`"`,
		`"displayName":"clawtap"`, `"displayName":"D`+q+`"`,
	).Replace(string(plain))
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHostileStringsPrintSafely feeds every printing path the same
// hostile strings: the commands' text and table output (colour on and
// off), the voice on stderr (warnings, errors, hints), record's and
// serve's log and status lines, the summaries, test's report in every
// format meant for a CI log under GITHUB_ACTIONS=true, its annotations,
// and the unified diff of a golden.
func TestHostileStringsPrintSafely(t *testing.T) {
	dir := t.TempDir()
	capt := hostileCapture(t, dir, "hostile.jsonl")

	t.Run("commands", func(t *testing.T) {
		for _, args := range [][]string{
			{"replay"}, {"replay", "--final"}, {"replay", "--transcript"}, {"stats"}, {"check"},
			{"classify"}, {"gaps"}, {"intents"}, {"diff", fixture(t, "demo.jsonl.zst")},
		} {
			for _, f := range []string{"text", "table"} {
				for _, colour := range []string{"never", "always"} {
					a := append(append([]string{"--color", colour}, args...), "--format", f, capt)
					r := run(t, "", a...)
					where := strings.Join(append(args[:1], f, colour), " ")
					if r.code == 2 {
						t.Fatalf("%s: exit 2\n%s", where, r.stderr)
					}
					assertSafe(t, where, r.stdout, colour == "always", false)
					assertSafe(t, where+" (stderr)", r.stderr, false, false)
				}
			}
		}
	})

	t.Run("voice", func(t *testing.T) {
		var errb bytes.Buffer
		env := cli.NewEnv(strings.NewReader(""), io.Discard, &errb)
		env.Warnf("%s", joined)
		env.Infof("capture %s", joined)
		env.PrintError(cli.Trouble(errors.New(joined), joined))
		env.Exit(cli.Usage(joined, "bad %s", joined), "clawtap "+joined)
		env.Exit(errors.New("unknown flag: "+joined), joined)
		assertSafe(t, "voice", errb.String(), false, false)
		if n := strings.Count(errb.String(), "\n"); n != 8 {
			t.Errorf("8 messages in %d lines:\n%s", n, errb.String())
		}
	})

	t.Run("record and serve", func(t *testing.T) {
		var b bytes.Buffer
		st := &statusLine{W: &b}
		st.Infof("conn 1 closed by the gateway (1008 %s)", joined)
		st.Warnf("refused GET %s", joined)
		for _, f := range []output.Format{output.Text, output.Table, output.JSON} {
			st.Summary(f, "clawtap: recorded to "+joined, []output.Field{{Key: "file", Label: "file", Value: joined}})
		}
		sl := serve.NewStatusLine(&b, true)
		sl.Set(serve.StatusText(joined, serve.Stats{}))
		sl.Println("clawtap: client " + joined + " connected (mode " + joined + ")")
		sl.Println("clawtap: client closed: " + joined)
		assertSafe(t, "record and serve", strings.ReplaceAll(b.String(), "\r\x1b[K", "\n"), false, false)
	})

	t.Run("test", func(t *testing.T) {
		t.Setenv("GITHUB_ACTIONS", "true")
		suiteDir := filepath.Join(dir, "suite")
		os.Mkdir(suiteDir, 0o755)
		hostileCapture(t, suiteDir, "a.jsonl")
		// A file name is as hostile as the capture (no NUL or /).
		hostileCapture(t, suiteDir, "\x1b]0;t\x07\x1b[2J\rx\n::warning::n \u202eb\xff.jsonl")
		if r := run(t, "", "test", "--update", "--format", "text", suiteDir); r.code != 0 {
			t.Fatalf("update: %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		// A golden from strangers: its lines end up in the diff.
		g, err := os.OpenFile(filepath.Join(suiteDir, "a.golden"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		g.WriteString(strings.Join(hostile, "\n") + "\n")
		g.Close()
		for _, f := range []string{"text", "table", "junit"} {
			r := run(t, "", "test", "--format", f, suiteDir)
			annotated := r.stdout // beside the report, on stderr for junit
			if f == "junit" {
				annotated = r.stderr
			}
			if r.code != 1 || !strings.Contains(annotated, "::error file=") {
				t.Fatalf("%s: exit %d, no annotation\n%s%s", f, r.code, r.stdout, r.stderr)
			}
			assertSafe(t, "test "+f, r.stdout, false, f != "junit")
			assertSafe(t, "test "+f+" (stderr)", r.stderr, false, f == "junit")
		}
	})

	t.Run("golden diff", func(t *testing.T) {
		golden := filepath.Join(dir, "replay.golden")
		os.WriteFile(golden, []byte(strings.Join(hostile, "\n")+"\n"), 0o600)
		r := run(t, "", "replay", "--golden", golden, capt)
		if r.code != 1 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		assertSafe(t, "golden diff", r.stdout, false, false)
		assertSafe(t, "golden diff (stderr)", r.stderr, false, false)
	})
}

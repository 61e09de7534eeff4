package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runEnv runs clawtap in-process with a chosen terminal and environment.
func runEnv(t *testing.T, tty bool, env map[string]string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	a := newApp(strings.NewReader(""), &out, &errb)
	a.IsTerminal = func(w any) bool { return tty && w == any(&out) }
	a.LookupEnv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	code := a.main(args)
	return result{code, out.String(), errb.String()}
}

// printing lists every command that prints, with arguments that make it
// print something, and its exit code on them.
func printing(t *testing.T) []struct {
	name string
	args []string
	code int
} {
	fx := func(n string) string { return fixture(t, n+".jsonl.zst") }
	return []struct {
		name string
		args []string
		code int
	}{
		{"classify", []string{"classify", fx("demo")}, 0},
		{"intents", []string{"intents", fx("streamed-run")}, 0},
		{"gaps", []string{"gaps", fx("seq-gap")}, 1},
		{"check", []string{"check", "--ui", "clawboo@1211c16", fx("stale-terminal")}, 1},
		{"stats", []string{"stats", fx("tool-run")}, 0},
		{"replay", []string{"replay", fx("stale-terminal")}, 0},
		{"diff", []string{"diff", fx("streamed-run"), fx("duplicate-final")}, 1},
		{"validate", []string{"validate", fx("seq-gap")}, 1},
		{"test", []string{"test", fx("stale-terminal")}, 1},
		{"uis", []string{"uis"}, 0},
	}
}

// TestConventionFormatsAndOutput: every printing command accepts json,
// text and table; -o FILE holds exactly what stdout would; an existing file
// is refused (exit 2, untouched) unless --force.
func TestConventionFormatsAndOutput(t *testing.T) {
	for _, c := range printing(t) {
		for _, format := range []string{"json", "text", "table"} {
			t.Run(c.name+"/"+format, func(t *testing.T) {
				args := append(append([]string{}, c.args...), "--format", format)
				std := run(t, "", args...)
				if std.code != c.code || std.stdout == "" {
					t.Fatalf("stdout: exit %d (want %d), %d bytes; stderr %s", std.code, c.code, len(std.stdout), std.stderr)
				}
				out := filepath.Join(t.TempDir(), "out")
				toFile := run(t, "", append(args, "-o", out)...)
				got, err := os.ReadFile(out)
				if err != nil || toFile.code != c.code || toFile.stdout != "" || string(got) != std.stdout {
					t.Fatalf("-o FILE: exit %d, stdout %q, file equal to stdout: %v (%v)", toFile.code, toFile.stdout, string(got) == std.stdout, err)
				}
				if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o600 {
					t.Errorf("output file mode %v, want 0600", fi.Mode().Perm())
				}
				os.WriteFile(out, []byte("keep me"), 0o600)
				again := run(t, "", append(args, "-o", out)...)
				if kept, _ := os.ReadFile(out); again.code != 2 || string(kept) != "keep me" || !strings.Contains(again.stderr, "--force") {
					t.Fatalf("existing file: exit %d, stderr %q, file %q", again.code, again.stderr, kept)
				}
				forced := run(t, "", append(args, "-o", out, "--force")...)
				if got, _ := os.ReadFile(out); forced.code != c.code || string(got) != std.stdout {
					t.Fatalf("--force: exit %d, file equal to stdout: %v", forced.code, string(got) == std.stdout)
				}
			})
		}
	}
}

// TestConventionDefaults: human on a terminal, json when piped.
func TestConventionDefaults(t *testing.T) {
	for _, c := range printing(t) {
		piped := runEnv(t, false, nil, c.args...)
		json := runEnv(t, false, nil, append(c.args, "--format", "json")...)
		if piped.stdout != json.stdout {
			t.Errorf("%s: piped output is not json", c.name)
		}
		tty := runEnv(t, true, map[string]string{"NO_COLOR": "1"}, c.args...)
		if tty.stdout == json.stdout || strings.HasPrefix(tty.stdout, "{") {
			t.Errorf("%s: a terminal gets json", c.name)
		}
	}
}

// TestConventionColour: --color always beats NO_COLOR; never beats a
// terminal; auto colours a terminal unless NO_COLOR or TERM=dumb; in
// table and text alike.
func TestConventionColour(t *testing.T) {
	for _, c := range printing(t) {
		for _, format := range []string{"table", "text"} {
			args := append(append([]string{}, c.args...), "--format", format)
			for _, k := range []struct {
				name  string
				tty   bool
				env   map[string]string
				flag  string
				color bool
			}{
				{"always beats NO_COLOR", false, map[string]string{"NO_COLOR": "1"}, "always", true},
				{"never beats a terminal", true, nil, "never", false},
				{"auto on a terminal", true, nil, "auto", true},
				{"auto with NO_COLOR", true, map[string]string{"NO_COLOR": "1"}, "auto", false},
				{"auto with TERM=dumb", true, map[string]string{"TERM": "dumb"}, "auto", false},
				{"auto in a pipe", false, nil, "auto", false},
			} {
				r := runEnv(t, k.tty, k.env, append([]string{"--color", k.flag}, args...)...)
				if has := strings.Contains(r.stdout, "\x1b["); has != k.color {
					t.Errorf("%s --format %s, %s: colour %v, want %v", c.name, format, k.name, has, k.color)
				}
			}
		}
	}
}

// TestConventionUsageErrors: unknown flags and formats exit 2 with a hint
// that names the command.
func TestConventionUsageErrors(t *testing.T) {
	for _, c := range printing(t) {
		for _, extra := range [][]string{{"--bogus"}, {"--format", "yaml"}, {"-o", "json"}, {"--output", "table"}} {
			r := run(t, "", append(append([]string{}, c.args...), extra...)...)
			if _, err := os.Stat(extra[len(extra)-1]); err == nil {
				t.Errorf("%s %v wrote a file named %s", c.name, extra, extra[len(extra)-1])
			}
			if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "clawtap: error:") || !strings.Contains(r.stderr, "clawtap: hint:") {
				t.Errorf("%s %v: exit %d, stdout %q, stderr %q", c.name, extra, r.code, r.stdout, r.stderr)
			}
			if extra[0] == "--bogus" && !strings.Contains(r.stderr, "clawtap "+c.name+" --help") {
				t.Errorf("%s: the hint does not point at its own help: %q", c.name, r.stderr)
			}
		}
	}
	if r := run(t, "", "replay", "--ui", "claw3d", "--history-sync", fixture(t, "demo.jsonl.zst")); r.code != 2 || !strings.Contains(r.stderr, "--history-sync") {
		t.Errorf("replay --ui claw3d --history-sync: exit %d, %q", r.code, r.stderr)
	}
	if r := run(t, "", "nope"); r.code != 2 {
		t.Errorf("unknown command: exit %d", r.code)
	}
}

// TestConventionCompletion: flag values complete in the shell.
func TestConventionCompletion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"classify", "--format", ""}, []string{"json", "text", "table"}},
		{[]string{"check", "--format", ""}, []string{"json", "text", "table"}},
		{[]string{"check", "--fail-on", ""}, []string{"info", "warn", "error"}},
		{[]string{"check", "--rule", ""}, []string{"seq-gap", "dropped-final"}},
		{[]string{"classify", "--kind", ""}, []string{"runtime-chat", "approval", "marker"}},
		{[]string{"replay", "--color", ""}, []string{"auto", "always", "never"}},
		{[]string{"report", "--format", ""}, []string{"html", "trace"}},
		{[]string{"import", "--input-format", ""}, []string{"auto", "har", "jsonl"}},
	} {
		r := run(t, "", append([]string{"__complete"}, c.args...)...)
		for _, w := range c.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("completing %v: %q lacks %q", c.args, r.stdout, w)
			}
		}
	}
	// A capture argument completes file names with capture extensions.
	if r := run(t, "", "__complete", "classify", ""); !strings.Contains(r.stdout, "zst") || !strings.Contains(r.stdout, ":8") {
		t.Errorf("capture argument completion: %q", r.stdout)
	}
}

// completion: no shell or an unknown one is a usage error naming the
// shells; -o/--force write the script through the safe writer.
func TestConventionCompletionCommand(t *testing.T) {
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}} {
		r := run(t, "", args...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "bash, zsh, fish, powershell") {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q", args, r.code, len(r.stdout), r.stderr)
		}
	}
	out := filepath.Join(t.TempDir(), "comp.bash")
	if r := run(t, "", "completion", "bash", "-o", out); r.code != 0 || r.stdout != "" {
		t.Fatalf("-o: exit %d, %s", r.code, r.stderr)
	}
	stdout := run(t, "", "completion", "bash")
	if b, _ := os.ReadFile(out); string(b) != stdout.stdout || !strings.Contains(stdout.stdout, "bash completion") {
		t.Errorf("-o wrote %d bytes, stdout has %d", len(b), len(stdout.stdout))
	}
	if r := run(t, "", "completion", "zsh", "-o", out); r.code != 2 || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("existing file without --force: exit %d, %s", r.code, r.stderr)
	}
	if r := run(t, "", "completion", "zsh", "--no-descriptions", "-o", out, "--force"); r.code != 0 {
		t.Errorf("--force: exit %d, %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), "compdef _clawtap") {
		t.Errorf("--force did not replace the script: %.60q", b)
	}
}

// -o through a dangling symbolic link writes the file the link names
// (docs/cli.md), as the shell's > does; the link stays.
func TestOutputThroughDanglingLink(t *testing.T) {
	dir := t.TempDir()
	link, target := filepath.Join(dir, "link.txt"), filepath.Join(dir, "target.txt")
	must(t, os.Symlink("target.txt", link))
	r := run(t, "", "classify", fixture(t, "demo.jsonl.zst"), "--format", "json", "-o", link, "--force")
	if b, _ := os.ReadFile(target); r.code != 0 || len(b) == 0 {
		t.Fatalf("exit %d, %d bytes written: %s", r.code, len(b), r.stderr)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
}

package walkthrough

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// repoRoot is the repository this test belongs to.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// needs skips under -short (these tests build clawtap and run the
// documented commands: make test's long stage runs them) and when a tool
// is missing, unless CI or CLAWTAP_REQUIRE_TOOLS=1 makes that a failure.
func needs(t *testing.T, tools ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds clawtap from a copy of the repository and runs the documented commands")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			msg := "needs " + tool + ", which is not installed"
			if os.Getenv("CI") != "" || os.Getenv("CLAWTAP_REQUIRE_TOOLS") == "1" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
}

// cleanCopy copies what a clone of the repository holds — its tracked
// files, as they are in the work tree — into dst: nothing built, no
// untracked file.
func cleanCopy(t *testing.T, root, dst string) {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, name)
		fi, err := os.Lstat(src)
		if err != nil {
			continue // deleted in the work tree
		}
		to := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, to); err != nil {
				t.Fatal(err)
			}
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}

// command is one command line of a document, with the comment above it.
type command struct {
	line    string
	comment string // the comment lines just above it, and its own
}

// mayFail reports whether the document says the command exits 1 on a
// finding ("exit 1 …" in its comment).
func (c command) mayFail() bool { return strings.Contains(c.comment, "exit 1") }

// fencedCommands returns the command lines of the ```sh blocks under the
// level-2 heading title of a Markdown document, in order.
func fencedCommands(t *testing.T, doc, title string) []command {
	t.Helper()
	var out []command
	in, inBlock := false, false
	comment := ""
	sc := bufio.NewScanner(strings.NewReader(doc))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = strings.TrimSpace(line[3:]) == title
			continue
		case !in:
			continue
		case !inBlock && strings.HasPrefix(line, "```sh"):
			inBlock, comment = true, ""
			continue
		case inBlock && strings.HasPrefix(line, "```"):
			inBlock = false
			continue
		case !inBlock:
			continue
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			comment = ""
		case strings.HasPrefix(trimmed, "#"):
			comment += trimmed + "\n"
		default:
			c := command{line: trimmed, comment: comment}
			if i := strings.Index(trimmed, "  #"); i >= 0 {
				c.comment += trimmed[i:]
			}
			out = append(out, c)
			comment = ""
		}
	}
	if len(out) == 0 {
		t.Fatalf("no commands under %q: the section or its ```sh blocks are gone", "## "+title)
	}
	return out
}

// shell runs a command line with bash in dir, with env, and returns its
// exit code and output.
func shell(t *testing.T, dir string, env []string, line string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = strings.NewReader("")
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return code, stdout.String(), stderr.String()
}

// env is the process environment with the given variables set (replaced,
// not appended twice). Builds are -trimpath, so that a copy of the
// repository in a new folder finds what the last one compiled in the
// build cache (a path in the build is part of its cache key otherwise).
func env(set ...string) []string {
	set = append([]string{"GOFLAGS=-trimpath"}, set...)
	out := []string{}
	skip := map[string]bool{}
	for _, kv := range set {
		skip[kv[:strings.IndexByte(kv, '=')+1]] = true
	}
	for _, kv := range os.Environ() {
		if i := strings.IndexByte(kv, '='); i >= 0 && skip[kv[:i+1]] {
			continue
		}
		out = append(out, kv)
	}
	return append(out, set...)
}

// TestREADMEWalkthrough does what the README tells a new user to do, on a
// clean copy of the repository: the set-up commands (## Install), the
// quick start (## The two commands, ## A 30-second demo), each line
// exactly as written. make install puts clawtap in GOBIN, which is on the
// PATH, as the README says it must be. A command may exit 1 only where
// the README says it does (a finding); none may exit 2 or print an error.
// The README's test command is not run here (it is what runs this test),
// but it must be the one .ci/run runs.
func TestREADMEWalkthrough(t *testing.T) {
	needs(t, "git", "make", "bash", "jq")
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	clone := filepath.Join(t.TempDir(), "clawtap")
	cleanCopy(t, root, clone)
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	e := env("GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")

	var testCmd string
	ran := 0
	for _, section := range []string{"Install", "The two commands", "A 30-second demo"} {
		for _, c := range fencedCommands(t, readme, section) {
			if strings.HasPrefix(c.line, "make test") {
				testCmd = c.line
				continue
			}
			code, stdout, stderr := shell(t, clone, e, c.line)
			ran++
			switch {
			case code != 0 && !(code == 1 && c.mayFail()):
				t.Errorf("README, %s: %s\nexit %d (the README says nothing of a failure)\n%s%s", section, c.line, code, clip(stdout), clip(stderr))
			case strings.Contains(stderr, "clawtap: error:"), strings.Contains(stderr, "clawtap: warning:"):
				t.Errorf("README, %s: %s\nit complains:\n%s", section, c.line, clip(stderr))
			default:
				t.Logf("ok (exit %d): %s", code, c.line)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(bin, "clawtap")); err != nil {
		t.Errorf("make install put no clawtap in GOBIN (%s): %v", bin, err)
	}
	if testCmd == "" {
		t.Fatal("the README names no test command (make test) under ## The two commands")
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if last := lastCommand(string(ci)); last != testCmd {
		t.Errorf(".ci/run ends with %q, not the README's test command %q", last, testCmd)
	}
	t.Logf("%d README commands ran on a clean copy", ran)
}

// lastCommand is a shell script's last command line.
func lastCommand(script string) string {
	lines := strings.Split(strings.TrimSpace(script), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return ""
}

func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…\n"
	}
	return s
}

// userRepo is a project of the kind docs/ci.md is for: captures in
// testdata/, with the goldens and expectations clawtap test --update
// wrote, made with a clawtap built from root.
func userRepo(t *testing.T, root string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "project")
	if err := os.MkdirAll(filepath.Join(dir, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"demo.jsonl.zst", "stale-terminal.jsonl.zst"} {
		b, err := os.ReadFile(filepath.Join(root, "fixtures", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "testdata", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tool := filepath.Join(t.TempDir(), "clawtap")
	build := exec.Command("go", "build", "-o", tool, "./cmd/clawtap")
	build.Dir, build.Env = root, env("CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	upd := exec.Command(tool, "test", "--update", "testdata/")
	upd.Dir = dir
	if out, err := upd.CombinedOutput(); err != nil {
		t.Fatalf("clawtap test --update: %v\n%s", err, out)
	}
	return dir
}

// yamlBlock returns the first ```yaml block under a level-2 heading.
func yamlBlock(t *testing.T, doc, title string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n## "+title+"\n")
	if !ok {
		t.Fatalf("docs/ci.md has no ## %s", title)
	}
	_, rest, ok = strings.Cut(rest, "```yaml\n")
	if !ok {
		t.Fatalf("docs/ci.md, %s: no yaml block", title)
	}
	block, _, _ := strings.Cut(rest, "```")
	return strings.Split(block, "\n")
}

// junitOK checks the JUnit report the recipe wrote: both captures, passed.
func junitOK(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "clawtap-junit.xml"))
	if err != nil {
		t.Fatalf("the recipe wrote no JUnit report: %v", err)
	}
	if !bytes.Contains(b, []byte(`tests="2"`)) || !bytes.Contains(b, []byte(`failures="0"`)) || !bytes.Contains(b, []byte(`errors="0"`)) {
		t.Errorf("JUnit report:\n%s", b)
	}
}

// TestCIRecipeGitHubActions runs docs/ci.md's GitHub Actions workflow as
// written: its checkout of clawtap (a clean copy stands in for it, at the
// path the step names), then each run step in order in the project, with
// $GITHUB_PATH kept as the runner keeps it. setup-go is not needed: Go is
// here.
func TestCIRecipeGitHubActions(t *testing.T) {
	needs(t, "git", "make", "bash")
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	project := userRepo(t, root)
	ghPath := filepath.Join(t.TempDir(), "github_path")
	if err := os.WriteFile(ghPath, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	lines := yamlBlock(t, string(doc), "GitHub Actions")
	checkedOut, runs := false, 0
	for i, line := range lines {
		l := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(l, "- uses: actions/checkout@"), strings.HasPrefix(l, "uses: actions/checkout@"):
			// A checkout of another repository names it and a path below.
			var repo, path string
			for _, w := range lines[i+1:] {
				w = strings.TrimSpace(w)
				if strings.HasPrefix(w, "- ") {
					break
				}
				if v, ok := strings.CutPrefix(w, "repository:"); ok {
					repo = strings.TrimSpace(v)
				}
				if v, ok := strings.CutPrefix(w, "path:"); ok {
					path = strings.TrimSpace(v)
				}
			}
			if repo == "" {
				continue // the project itself: here already
			}
			if repo != "clawtap/clawtap" || path == "" {
				t.Fatalf("the workflow checks out %q into %q", repo, path)
			}
			cleanCopy(t, root, filepath.Join(project, path))
			checkedOut = true
		case strings.HasPrefix(l, "run:"):
			cmd := strings.TrimSpace(strings.TrimPrefix(l, "run:"))
			if cmd == "" || cmd == "|" {
				t.Fatalf("a multi-line run step: the test reads one-line ones only: %q", l)
			}
			added, _ := os.ReadFile(ghPath)
			path := os.Getenv("PATH")
			for _, p := range strings.Fields(string(added)) {
				path = p + string(os.PathListSeparator) + path
			}
			code, stdout, stderr := shell(t, project, env("GITHUB_PATH="+ghPath, "GITHUB_ACTIONS=true", "PATH="+path), cmd)
			runs++
			if code != 0 {
				t.Fatalf("step %q: exit %d\n%s%s", cmd, code, clip(stdout), clip(stderr))
			}
		}
	}
	if !checkedOut || runs < 2 {
		t.Fatalf("the workflow has no checkout of clawtap (%v) or fewer than 2 run steps (%d)", checkedOut, runs)
	}
	junitOK(t, project)
}

// TestCIRecipeGitLab runs docs/ci.md's GitLab CI job's script as written,
// in one shell as the runner does, in the project with a clean copy of
// clawtap where its clone would go (the script clones only when that
// folder is missing). Its variables are set, with the module and build
// caches left where they are, so that nothing is downloaded.
func TestCIRecipeGitLab(t *testing.T) {
	needs(t, "git", "make", "bash")
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	project := userRepo(t, root)
	lines := yamlBlock(t, string(doc), "GitLab CI")
	var script, vars []string
	where := ""
	for _, line := range lines {
		l := strings.TrimSpace(line)
		indent := len(line) - len(strings.TrimLeft(line, " "))
		switch {
		case indent == 2 && strings.HasSuffix(l, ":"):
			where = strings.TrimSuffix(l, ":")
		case indent == 2:
			where = ""
		case where == "script" && strings.HasPrefix(l, "- "):
			script = append(script, strings.TrimPrefix(l, "- "))
		case where == "variables" && strings.Contains(l, ":"):
			k, v, _ := strings.Cut(l, ":")
			vars = append(vars, strings.TrimSpace(k)+"="+strings.TrimSpace(v))
		}
	}
	if len(script) < 3 {
		t.Fatalf("the GitLab job's script has %d lines", len(script))
	}
	// The clone's folder, as the script's first line names it.
	first := script[0]
	if !strings.Contains(first, "test -d ") {
		t.Fatalf("the script's first line does not skip the clone when it is there: %s", first)
	}
	folder := strings.Fields(first[strings.Index(first, "test -d ")+len("test -d "):])[0]
	cleanCopy(t, root, filepath.Join(project, folder))
	modcache, _ := exec.Command("go", "env", "GOMODCACHE").Output()
	gocache, _ := exec.Command("go", "env", "GOCACHE").Output()
	e := env("CI_PROJECT_DIR="+project, "GOMODCACHE="+strings.TrimSpace(string(modcache)), "GOCACHE="+strings.TrimSpace(string(gocache)))
	var sh bytes.Buffer
	fmt.Fprintln(&sh, "set -e")
	for _, v := range vars {
		k, val, _ := strings.Cut(v, "=")
		fmt.Fprintf(&sh, "export %s=%s\n", k, val)
	}
	for _, l := range script {
		fmt.Fprintln(&sh, l)
	}
	code, stdout, stderr := shell(t, project, e, sh.String())
	if code != 0 {
		t.Fatalf("the GitLab script: exit %d\n%s\n%s%s", code, sh.String(), clip(stdout), clip(stderr))
	}
	junitOK(t, project)
}

package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// suiteDir copies every bundled fixture into a fresh folder: a suite.
func suiteDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(repoRoot(t), "fixtures")
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if e.IsDir() || !strings.Contains(e.Name(), ".jsonl") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d fixtures", n)
	}
	return dir
}

// snapshot is every file of a folder with its bytes and time.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		fi, _ := d.Info()
		m[p] = fi.ModTime().String() + "\x00" + string(b)
		return nil
	})
	return m
}

func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// junitDoc is what a CI test reporter reads from JUnit XML.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Suites   []struct {
		Name  string `xml:"name,attr"`
		Tests int    `xml:"tests,attr"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Body    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// TestSuiteUpdateThenTest is the suite's life: --update writes a golden
// equal to what 'replay --golden' writes and an expectation file per
// capture; a run without it writes nothing and passes; a tampered golden
// and a tampered expectation fail it, named in text, json and JUnit; and
// -j 1 and -j 8 print the same bytes.
func TestSuiteUpdateThenTest(t *testing.T) {
	dir := suiteDir(t)
	caps, _ := filepath.Glob(filepath.Join(dir, "*.jsonl*"))
	r := runEnv(t, false, nil, "test", "--update", "-q", "--ui", "clawboo@1211c16", dir) // its guard's findings
	if r.code != 0 {
		t.Fatalf("--update: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if want := fmt.Sprintf(`"passed":0,"failed":0,"errors":0,"updated":%d}`, len(caps)); !strings.Contains(r.stdout, want) {
		t.Errorf("a capture written is counted once, as updated: want %s in\n%s", want, r.stdout)
	}
	for _, c := range caps {
		base := strings.TrimSuffix(strings.TrimSuffix(c, ".zst"), ".jsonl")
		g, err := os.ReadFile(base + ".golden")
		if err != nil {
			t.Fatalf("%s: no golden: %v", c, err)
		}
		ref := filepath.Join(t.TempDir(), "ref.golden")
		if rr := runEnv(t, false, nil, "replay", "-q", "--ui", "clawboo@1211c16", "--golden", ref, "--update", c); rr.code != 0 {
			t.Fatalf("replay --golden: %d %s", rr.code, rr.stderr)
		}
		if want, _ := os.ReadFile(ref); string(g) != string(want) {
			t.Errorf("%s: the suite's golden differs from replay --golden's", c)
		}
		if _, err := os.Stat(base + ".expect.json"); err != nil {
			t.Errorf("%s: no expectations: %v", c, err)
		}
	}
	before := snapshot(t, dir)
	for _, format := range []string{"text", "json", "junit", "table"} {
		if r := runEnv(t, false, nil, "test", "-q", "--format", format, dir); r.code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", format, r.code, r.stdout, r.stderr)
		}
	}
	if r := runEnv(t, false, nil, "test", "-q", "--update", dir); r.code != 0 || !strings.Contains(r.stdout, `"status":"pass"`) || strings.Contains(r.stdout, `"status":"updated"`) {
		t.Fatalf("--update with nothing new: exit %d\n%s", r.code, r.stdout)
	}
	if !sameFiles(before, snapshot(t, dir)) {
		t.Fatal("a run wrote files (or --update rewrote unchanged ones)")
	}

	// Tamper: one golden line, and one expected finding dropped.
	demoGolden, staleExpect := filepath.Join(dir, "demo.golden"), filepath.Join(dir, "stale-terminal.expect.json")
	f, _ := os.OpenFile(demoGolden, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("a line the replay does not print\n")
	f.Close()
	exp, _ := os.ReadFile(staleExpect)
	var kept []string
	for _, line := range strings.Split(string(exp), "\n") {
		if !strings.Contains(line, `"dropped-final"`) {
			kept = append(kept, line)
		}
	}
	tampered := strings.Replace(strings.Join(kept, "\n"), "},\n      ]", "}\n      ]", 1)
	if tampered == string(exp) {
		t.Fatal("stale-terminal's expectations had no dropped-final")
	}
	os.WriteFile(staleExpect, []byte(tampered), 0o600)

	out := map[string]string{}
	for _, format := range []string{"text", "json", "junit", "table"} {
		r1 := runEnv(t, false, nil, "test", "-q", "-j", "1", "--format", format, dir)
		r8 := runEnv(t, false, nil, "test", "-q", "-j", "8", "--format", format, dir)
		if r1.code != 1 || r8.code != 1 {
			t.Fatalf("%s: exit %d and %d, want 1\n%s", format, r1.code, r8.code, r1.stderr)
		}
		if r1.stdout != r8.stdout {
			t.Errorf("%s: -j 1 and -j 8 differ", format)
		}
		out[format] = r1.stdout
	}
	text := out["text"]
	for _, want := range []string{"FAIL    " + filepath.Join(dir, "demo.jsonl.zst"), "golden " + demoGolden + " differs", "-a line the replay does not print",
		"FAIL    " + filepath.Join(dir, "stale-terminal.jsonl.zst"), "findings differ from " + staleExpect, "unexpected: error dropped-final #44",
		"FAIL: 2 capture(s) failed"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}

	failed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(out["json"], "\n"), "\n") {
		var rec struct {
			File    string `json:"file"`
			Status  string `json:"status"`
			Summary *struct {
				Captures, Failed int
			} `json:"summary"`
			UIs []struct {
				Golden struct {
					Status, Diff string
				} `json:"golden"`
				Findings struct {
					Status     string                  `json:"status"`
					Unexpected []struct{ Rule string } `json:"unexpected"`
				} `json:"findings"`
			} `json:"uis"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("json line %q: %v", line, err)
		}
		if rec.Summary != nil {
			if rec.Summary.Captures != len(caps) || rec.Summary.Failed != 2 {
				t.Errorf("summary %+v", *rec.Summary)
			}
			continue
		}
		if rec.Status != "pass" {
			failed[filepath.Base(rec.File)] = true
		}
		switch filepath.Base(rec.File) {
		case "demo.jsonl.zst":
			if rec.UIs[0].Golden.Status != "fail" || !strings.Contains(rec.UIs[0].Golden.Diff, "-a line the replay does not print") {
				t.Errorf("demo: %+v", rec.UIs[0].Golden)
			}
		case "stale-terminal.jsonl.zst":
			if u := rec.UIs[0].Findings.Unexpected; rec.UIs[0].Findings.Status != "fail" || len(u) != 1 || u[0].Rule != "dropped-final" {
				t.Errorf("stale-terminal: %+v", rec.UIs[0].Findings)
			}
		}
	}
	if len(failed) != 2 || !failed["demo.jsonl.zst"] || !failed["stale-terminal.jsonl.zst"] {
		t.Errorf("json failures: %v", failed)
	}

	var doc junitDoc
	if err := xml.Unmarshal([]byte(out["junit"]), &doc); err != nil {
		t.Fatalf("junit does not parse: %v", err)
	}
	if doc.Tests != len(caps) || doc.Failures != 2 || doc.Errors != 0 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != len(caps) {
		t.Fatalf("junit counts: tests %d failures %d errors %d", doc.Tests, doc.Failures, doc.Errors)
	}
	for _, c := range doc.Suites[0].Cases {
		switch filepath.Base(c.Name) {
		case "demo.jsonl.zst":
			if c.Failure == nil || !strings.Contains(c.Failure.Message, demoGolden) || !strings.Contains(c.Failure.Body, "-a line the replay does not print") {
				t.Errorf("junit demo: %+v", c.Failure)
			}
		case "stale-terminal.jsonl.zst":
			if c.Failure == nil || !strings.Contains(c.Failure.Message, "1 unexpected") || !strings.Contains(c.Failure.Body, "dropped-final") {
				t.Errorf("junit stale-terminal: %+v", c.Failure)
			}
		default:
			if c.Failure != nil || c.Classname != "clawtap.clawboo@1211c16" {
				t.Errorf("junit %s: %+v", c.Name, c)
			}
		}
	}
}

// TestSuiteGitHubAnnotations: with GITHUB_ACTIONS=true every failure is an
// ::error command on stdout, on the file to fix; when stdout carries the
// json report they go to stderr, and the report stays parseable.
func TestSuiteGitHubAnnotations(t *testing.T) {
	dir := t.TempDir()
	capPath := filepath.Join(dir, "stale-terminal.jsonl.zst")
	b, _ := os.ReadFile(fixture(t, "stale-terminal.jsonl.zst"))
	os.WriteFile(capPath, b, 0o600)
	if r := runEnv(t, false, nil, "test", "--update", dir); r.code != 0 {
		t.Fatal(r.stderr)
	}
	g := filepath.Join(dir, "stale-terminal.golden")
	golden, _ := os.ReadFile(g)
	os.WriteFile(g, []byte(strings.Replace(string(golden), "\n", "\nchanged\n", 1)), 0o600)
	os.WriteFile(filepath.Join(dir, "stale-terminal.expect.json"), []byte(`{"ui": {"clawboo": {"findings": [{"rule": "stale-terminal", "runId": "nope"}]}}}`), 0o600)
	gh := map[string]string{"GITHUB_ACTIONS": "true"}
	r := runEnv(t, false, gh, "test", "--format", "text", dir)
	for _, want := range []string{"::error file=" + g + ",line=2,title=clawtap test%3A replay differs from the golden%3A ", "%0A-changed",
		"::error file=" + filepath.Join(dir, "stale-terminal.expect.json") + ",title=clawtap test%3A findings differ", "missing:    stale-terminal run nope"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("annotations lack %q:\n%s", want, r.stdout)
		}
	}
	r = runEnv(t, false, gh, "test", "--format", "json", dir)
	if r.code != 1 || strings.Contains(r.stdout, "::error") || !strings.Contains(r.stderr, "::error file=") {
		t.Fatalf("json: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if r := runEnv(t, false, nil, "test", "--format", "text", dir); strings.Contains(r.stdout+r.stderr, "::error") {
		t.Error("annotations outside GitHub Actions")
	}
}

// TestSuiteTrouble: a capture that cannot be tested is exit 2 after the
// whole report (its JUnit case an <error>, the -o file kept); a missing
// golden is a failure that says how to make one; usage errors are exit 2.
func TestSuiteTrouble(t *testing.T) {
	dir := t.TempDir()
	b, _ := os.ReadFile(fixture(t, "demo.jsonl.zst"))
	os.WriteFile(filepath.Join(dir, "demo.jsonl.zst"), b, 0o600)
	r := runEnv(t, false, nil, "test", "--format", "text", dir)
	if r.code != 1 || !strings.Contains(r.stdout, "demo.golden does not exist: create it with clawtap test --update") {
		t.Fatalf("missing golden: exit %d\n%s", r.code, r.stdout)
	}
	if r := runEnv(t, false, nil, "test", "--update", dir); r.code != 0 {
		t.Fatal(r.stderr)
	}
	os.WriteFile(filepath.Join(dir, "garbage.jsonl"), []byte("this is a README, not a capture\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "demo.expect.json"), []byte(`{"ui": {"clawboo": {"findings": [{"rule": "x", "runid": "r"}]}}}`), 0o600)
	report := filepath.Join(t.TempDir(), "report.xml")
	r = runEnv(t, false, nil, "test", "--format", "junit", "-o", report, dir)
	if r.code != 2 || !strings.Contains(r.stderr, "2 of 2 capture(s) could not be tested") {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	var doc junitDoc
	x, err := os.ReadFile(report)
	if err != nil || xml.Unmarshal(x, &doc) != nil || doc.Errors != 2 {
		t.Fatalf("report: %v errors %d\n%s", err, doc.Errors, x)
	}
	for _, c := range doc.Suites[0].Cases {
		if c.Error == nil {
			t.Errorf("%s: no error", c.Name)
		}
	}
	if !strings.Contains(string(x), "not a clawtap capture") || !strings.Contains(string(x), `unknown key &#34;runid&#34;`) {
		t.Errorf("report does not say why:\n%s", x)
	}
	// classify's output is not a capture: no golden is made from it.
	cdir := t.TempDir()
	c := run(t, "", "classify", "--format", "json", fixture(t, "demo.jsonl.zst"))
	os.WriteFile(filepath.Join(cdir, "demo-classified.jsonl"), []byte(c.stdout), 0o600)
	r = runEnv(t, false, nil, "test", "--update", "--format", "text", cdir)
	if r.code != 2 || !strings.Contains(r.stdout, "an event as 'clawtap classify' prints it") {
		t.Errorf("classify output: exit %d\n%s", r.code, r.stdout)
	}
	if m, _ := filepath.Glob(filepath.Join(cdir, "*.golden")); len(m) != 0 {
		t.Errorf("a golden was made from classify output: %v", m)
	}
	for _, args := range [][]string{{"test", "-j", "0", dir}, {"test", "--ui", "nope", dir}, {"test", filepath.Join(dir, "none")}, {"test", "-"}, {"test", "--format", "xml", dir}} {
		if r := runEnv(t, false, nil, args...); r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "clawtap: hint:") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
}

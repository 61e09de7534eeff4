package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/report"
)

// reportData splits a report page into its embedded data and the rest.
func reportData(t *testing.T, page string) (data, shell string) {
	t.Helper()
	const open = `<script type="application/json" id="clawtap-data">` + "\n"
	i := strings.Index(page, open)
	if i < 0 {
		t.Fatal("no data element in the page")
	}
	j := strings.Index(page[i:], "</script>")
	if j < 0 {
		t.Fatal("data element not closed")
	}
	data = page[i+len(open) : i+j]
	return data, page[:i+len(open)] + "<DATA>" + page[i+j:]
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:]) + " " + strconv.Itoa(len(s))
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The goldens hold the embedded data of a few fixtures (reviewable JSON,
// one element per line) and the trace; the page's static parts are checked
// by hash and length in report-assets.txt, so a change to the stylesheet
// or the script shows up as one line (rewrite with -update).
func TestReportGolden(t *testing.T) {
	dir := t.TempDir()
	var shell string
	for _, name := range []string{"stale-terminal", "reconnect", "abort"} {
		out := filepath.Join(dir, name+".html")
		r := run(t, "", "report", "--ui", "clawboo@1211c16", fixture(t, name+".jsonl.zst"), "-o", out)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", name, r.code, r.stderr)
		}
		data, sh := reportData(t, readFile(t, out))
		if !json.Valid([]byte(data)) {
			t.Fatalf("%s: embedded data is not JSON", name)
		}
		golden(t, "report-"+name+".data.json", data)
		// Around the data, pages differ only in their title.
		sh = strings.Replace(sh, "<title>clawtap report — "+name+".jsonl.zst</title>", "<title>clawtap report — NAME</title>", 1)
		if shell == "" {
			shell = sh
		} else if sh != shell {
			t.Errorf("%s: the page around the data differs from the other fixtures'", name)
		}
	}
	css, js := report.Assets()
	golden(t, "report-assets.txt", "report.css "+sum(css)+"\nreport.js "+sum(js)+"\npage shell "+sum(shell)+"\n")

	for _, name := range []string{"stale-terminal", "reconnect", "seq-gap"} {
		out := filepath.Join(dir, name+".trace.json")
		r := run(t, "", "report", "--ui", "clawboo@1211c16", "--format", "trace", fixture(t, name+".jsonl.zst"), "-o", out)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", name, r.code, r.stderr)
		}
		golden(t, "report-"+name+".trace.json", readFile(t, out))
	}
}

func TestReportDeterministicAndStdout(t *testing.T) {
	dir := t.TempDir()
	for _, format := range []string{"html", "trace"} {
		a, b := filepath.Join(dir, "a."+format), filepath.Join(dir, "b."+format)
		in := fixture(t, "exec-approval.jsonl.zst")
		if r := run(t, "", "report", "--format", format, in, "-o", a); r.code != 0 {
			t.Fatal(r.stderr)
		}
		if r := run(t, "", "report", "--format", format, in, "-o", b); r.code != 0 {
			t.Fatal(r.stderr)
		}
		if readFile(t, a) != readFile(t, b) {
			t.Errorf("%s: two runs differ", format)
		}
		// -o - writes the same bytes to stdout, and stdin works as input
		// (under the name "stdin" unless --name says otherwise).
		r := run(t, readFile(t, in), "report", "--format", format, "--name", "exec-approval.jsonl.zst", "-", "-o", "-")
		if r.code != 0 || r.stdout != readFile(t, a) {
			t.Errorf("%s: -o - from stdin differs from the file (exit %d, %s)", format, r.code, r.stderr)
		}
	}
	r := run(t, "", "report", fixture(t, "demo.jsonl.zst"), "-o", filepath.Join(dir, "d.html"))
	if !strings.Contains(r.stderr, "wrote ") || !strings.Contains(r.stderr, "1 run(s)") {
		t.Errorf("no summary on stderr: %q", r.stderr)
	}
	if r := run(t, "", "report", fixture(t, "demo.jsonl.zst"), "-o", filepath.Join(dir, "d.html")); r.code != 2 || !strings.Contains(r.stderr, "--force") {
		t.Errorf("an existing report was not refused: exit %d %q", r.code, r.stderr)
	}
	if r := run(t, "", "-q", "report", "--force", fixture(t, "demo.jsonl.zst"), "-o", filepath.Join(dir, "d.html")); r.stderr != "" {
		t.Errorf("--quiet printed %q", r.stderr)
	}
}

func TestReportMaxBytes(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "small.html")
	r := run(t, "", "report", "--max-bytes", "64KiB", fixture(t, "exec-approval.jsonl.zst"), "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	data, _ := reportData(t, readFile(t, out))
	if len(data) > 64<<10 {
		t.Errorf("data is %d bytes, over 64KiB", len(data))
	}
	if !strings.Contains(data, "--max-bytes") || !strings.Contains(r.stderr, "elided by --max-bytes") {
		t.Errorf("no elision note: %s", r.stderr)
	}
	// A timeline larger than the limit is said to be, on stderr too.
	big := filepath.Join(dir, "large.jsonl.zst")
	writeLarge(t, big, 6_000) // a timeline of about 94 kB
	r = run(t, "", "report", "--max-bytes", "64KiB", big, "-o", filepath.Join(dir, "large.html"))
	if r.code != 0 || !strings.Contains(r.stderr, "the timeline alone takes") || !strings.Contains(r.stderr, "more than --max-bytes 65.5 kB") {
		t.Errorf("exit %d, no word of the timeline over the limit: %s", r.code, r.stderr)
	}
	for _, c := range []struct {
		in   string
		want int
	}{{"20MB", 20_000_000}, {"512KiB", 512 << 10}, {"1.5mb", 1_500_000}, {"100000", 100000}, {"2M", 2_000_000}} {
		if got, err := output.ParseSize(c.in); err != nil || got != int64(c.want) {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}

func TestReportUsageErrors(t *testing.T) {
	dir := t.TempDir()
	demo := fixture(t, "demo.jsonl.zst")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"report", demo}, "no output file given"},
		{[]string{"report", demo, "-o", filepath.Join(dir, "x"), "--format", "pdf"}, `unknown --format "pdf"`},
		{[]string{"report", demo, "-o", filepath.Join(dir, "x"), "--max-bytes", "lots"}, `invalid --max-bytes "lots"`},
		{[]string{"report", demo, "-o", filepath.Join(dir, "x"), "--max-bytes", "1KB"}, "too small"},
		{[]string{"report", filepath.Join(dir, "missing.jsonl"), "-o", filepath.Join(dir, "x")}, "no such file"},
		{[]string{"report", demo, "-o", filepath.Join(dir, "no", "such", "dir", "x.html")}, "write "},
		{[]string{"report", demo, "-o", demo}, "is the input capture"},
		{[]string{"report", demo, demo, "-o", "-"}, "accepts at most 1 arg"},
	} {
		r := run(t, "", c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.msg) || !strings.Contains(r.stderr, "clawtap: error:") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.msg)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("a failed run left an output file")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("temporary files left behind: %v", ents)
	}
}

func TestReportHelpAndNoRedact(t *testing.T) {
	r := run(t, "", "report", "--help")
	for _, want := range []string{"self-contained", "--max-bytes", "--format", "clawtap report fixtures/stale-terminal.jsonl.zst -o report.html", "perfetto"} {
		if !strings.Contains(strings.ToLower(r.stdout), strings.ToLower(want)) {
			t.Errorf("help lacks %q", want)
		}
	}
	capt := `{"clawtap":1,"createdAt":"2026-11-22T03:23:55Z","source":{"mode":"record"},"redaction":{"credentials":false,"content":false}}
{"t":1,"conn":1,"mark":"open"}
{"t":2,"conn":1,"dir":"in","frame":{"type":"event","event":"tick","seq":1,"payload":{"ts":2}}}
`
	// By default its credentials are redacted as it is read, and the page
	// says so; asked for, they are kept, and the page warns.
	r = run(t, capt, "report", "-", "-o", "-")
	if r.code != 0 || !strings.Contains(r.stderr, "redacted as it is read") {
		t.Errorf("no word of the redaction on read: %d %q", r.code, r.stderr)
	}
	data, _ := reportData(t, r.stdout)
	if !strings.Contains(data, `"noRedact":false`) || !strings.Contains(data, `"redactedOnRead":true`) {
		t.Error("the page does not know the capture was redacted as it was read")
	}
	r = run(t, capt, "--show-credentials", "report", "-", "-o", "-")
	if r.code != 0 || !strings.Contains(r.stderr, "--show-credentials keeps its credentials") {
		t.Errorf("no warning for credentials kept: %d %q", r.code, r.stderr)
	}
	data, _ = reportData(t, r.stdout)
	if !strings.Contains(data, `"noRedact":true`) || strings.Contains(data, `"redactedOnRead"`) {
		t.Error("the page does not know the capture may show credentials")
	}
	if !bytes.Contains([]byte(r.stdout), []byte("<title>clawtap report — stdin</title>")) {
		t.Error("stdin should be named stdin")
	}
}

// report reads the whole capture before it writes: an output it could not
// write is refused first, before any reading.
func TestReportRefusesItsOutputFirst(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "r.html")
	if err := os.WriteFile(existing, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{existing, dir, filepath.Join(dir, "nodir", "r.html")} {
		r := run(t, "", "report", filepath.Join(dir, "no-such-capture.jsonl.zst"), "-o", out)
		if r.code != 2 || strings.Contains(r.stderr, "no-such-capture") {
			t.Errorf("-o %s: exit %d; the output should be refused before the input is read:\n%s", out, r.code, r.stderr)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep" {
		t.Errorf("the existing file changed: %q", b)
	}
}

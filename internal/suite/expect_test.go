package suite

import (
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/check"
)

func finding(rule string, sev check.Severity, i int, run string) check.Finding {
	return check.Finding{Rule: rule, Severity: sev, I: i, RunID: run, Message: rule + " at " + run}
}

func ptr[T any](v T) *T { return &v }

// TestExpectRoundTrip: --update's layout reads back as the same entries,
// sorted by record, rule and run, repeats counted, and is stable bytes.
func TestExpectRoundTrip(t *testing.T) {
	found := []check.Finding{
		finding("stale-terminal", check.Warn, 35, "r1"),
		finding("dropped-final", check.Error, 44, "r2"),
		finding("invalid-frame", check.Warn, 7, ""),
		finding("invalid-frame", check.Warn, 7, ""),
		finding("capture-truncated", check.Info, -1, ""),
	}
	e := &Expectations{UI: map[string]*UIExpect{"clawboo": {Findings: ExpectFindings(found)}}}
	b := e.AppendJSON(nil)
	want := `{
  "ui": {
    "clawboo": {
      "findings": [
        {"rule": "capture-truncated", "severity": "info", "i": -1, "runId": ""},
        {"rule": "invalid-frame", "severity": "warn", "i": 7, "runId": "", "count": 2},
        {"rule": "stale-terminal", "severity": "warn", "i": 35, "runId": "r1"},
        {"rule": "dropped-final", "severity": "error", "i": 44, "runId": "r2"}
      ]
    }
  }
}
`
	if string(b) != want {
		t.Fatalf("layout:\n%s\nwant:\n%s", b, want)
	}
	back, err := ParseExpectations(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if again := back.AppendJSON(nil); string(again) != want {
		t.Fatalf("not stable:\n%s", again)
	}
	if m := Compare(back.UI["clawboo"].Findings, found); !m.Empty() {
		t.Fatalf("its own findings mismatch: %+v", m)
	}
	empty := &Expectations{UI: map[string]*UIExpect{"clawboo": {}}}
	if got := string(empty.AppendJSON(nil)); got != "{\n  \"ui\": {\n    \"clawboo\": {\n      \"findings\": []\n    }\n  }\n}\n" {
		t.Fatalf("no findings: %q", got)
	}
}

// TestExpectLoneSurrogate: a run id holding a lone surrogate (kept in
// WTF-8 as the capture's JSON is read) is written as its \udxxx escape
// and reads back as the same bytes, so the file matches its own findings.
func TestExpectLoneSurrogate(t *testing.T) {
	found := []check.Finding{finding("lost-reply", check.Warn, 3, "run-\xed\xa0\x80-x")}
	e := &Expectations{UI: map[string]*UIExpect{"clawboo": {Findings: ExpectFindings(found)}}}
	b := e.AppendJSON(nil)
	if !strings.Contains(string(b), `"runId": "run-\ud800-x"`) {
		t.Fatalf("written as %s", b)
	}
	back, err := ParseExpectations(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if m := Compare(back.UI["clawboo"].Findings, found); !m.Empty() {
		t.Fatalf("its own findings mismatch: %+v", m)
	}
}

// TestCompare: a new finding, a lost one, a changed severity, a repeat
// beyond its count, and hand-written wildcards.
func TestCompare(t *testing.T) {
	base := ExpectFindings([]check.Finding{
		finding("stale-terminal", check.Warn, 35, "r1"),
		finding("dropped-final", check.Error, 44, "r2"),
	})
	cases := []struct {
		name                      string
		want                      []Expect
		got                       []check.Finding
		unexpected, missing, chgd int
	}{
		{"equal", base, []check.Finding{finding("dropped-final", check.Error, 44, "r2"), finding("stale-terminal", check.Warn, 35, "r1")}, 0, 0, 0},
		{"new finding", base, []check.Finding{finding("stale-terminal", check.Warn, 35, "r1"), finding("dropped-final", check.Error, 44, "r2"), finding("seq-gap", check.Error, 3, "")}, 1, 0, 0},
		{"lost finding", base, []check.Finding{finding("stale-terminal", check.Warn, 35, "r1")}, 0, 1, 0},
		{"moved record", base, []check.Finding{finding("stale-terminal", check.Warn, 35, "r1"), finding("dropped-final", check.Error, 45, "r2")}, 1, 1, 0},
		{"severity", base, []check.Finding{finding("stale-terminal", check.Error, 35, "r1"), finding("dropped-final", check.Error, 44, "r2")}, 0, 0, 1},
		{"repeat beyond count", base, []check.Finding{finding("stale-terminal", check.Warn, 35, "r1"), finding("dropped-final", check.Error, 44, "r2"), finding("dropped-final", check.Error, 44, "r2")}, 1, 0, 0},
		{"count short", []Expect{{Rule: "x", I: ptr(1), RunID: ptr(""), Count: 3}}, []check.Finding{finding("x", check.Warn, 1, "")}, 0, 1, 0},
		{"wildcard record", []Expect{{Rule: "dropped-final", RunID: ptr("r2")}}, []check.Finding{finding("dropped-final", check.Error, 90, "r2"), finding("dropped-final", check.Error, 91, "r2")}, 0, 0, 0},
		{"wildcard other run", []Expect{{Rule: "dropped-final", RunID: ptr("r2")}}, []check.Finding{finding("dropped-final", check.Error, 90, "r3")}, 1, 1, 0},
		{"wildcard severity", []Expect{{Rule: "seq-gap", Severity: ptr("warn")}}, []check.Finding{finding("seq-gap", check.Error, 3, "")}, 0, 0, 1},
		{"nothing expected", nil, nil, 0, 0, 0},
	}
	for _, c := range cases {
		m := Compare(c.want, c.got)
		if len(m.Unexpected) != c.unexpected || len(m.Missing) != c.missing || len(m.Changed) != c.chgd {
			t.Errorf("%s: unexpected %d missing %d changed %d, want %d %d %d", c.name, len(m.Unexpected), len(m.Missing), len(m.Changed), c.unexpected, c.missing, c.chgd)
		}
	}
}

// TestParseExpectationsRefuses: typos and shapes that would silently match
// more than meant are errors.
func TestParseExpectationsRefuses(t *testing.T) {
	for _, bad := range []string{
		``, `[]`, `{}`, `{"ui": null}`, `{"ui": {"clawboo": null}}`,
		`{"ui": {"clawboo": {"findings": [{"runId": "r1"}]}}}`,
		`{"ui": {"clawboo": {"findings": [{"rule": "x", "runid": "r1"}]}}}`,
		`{"ui": {"clawboo": {"findings": [{"rule": "x", "severity": "fatal"}]}}}`,
		`{"ui": {"clawboo": {"findings": [{"rule": "x", "count": 2}]}}}`,
		`{"ui": {"clawboo": {"findings": [{"rule": "x", "i": 1, "runId": "", "count": -1}]}}}`,
		`{"ui": {}} {"ui": {}}`,
		`{"ui": {"clawboo": {"findings": [{"rule": "x", "i": "7"}]}}}`,
	} {
		if _, err := ParseExpectations(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

// FuzzParseExpectations: the parser never panics, and whatever it accepts
// renders to a file that reads back as the same entries.
func FuzzParseExpectations(f *testing.F) {
	for _, s := range []string{
		`{"ui": {"clawboo": {"findings": [{"rule": "dropped-final", "severity": "error", "i": 44, "runId": "r2"}]}}}`,
		`{"ui": {"clawboo": {"findings": [{"rule": "x", "i": 1, "runId": "", "count": 3}]}, "claw3d": {"findings": []}}}`,
		`{"ui": {"clawboo": {"findings": [{"rule": "x"}]}}}`,
		`{"ui": {}}`, `{"ui": {"a\u0000b": {"findings": []}}}`, `not json`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseExpectations(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		b := e.AppendJSON(nil)
		back, err := ParseExpectations(strings.NewReader(string(b)))
		if err != nil {
			t.Fatalf("rendered file does not parse: %v\n%s", err, b)
		}
		if again := back.AppendJSON(nil); string(again) != string(b) {
			t.Fatalf("not stable:\n%s\n%s", b, again)
		}
	})
}

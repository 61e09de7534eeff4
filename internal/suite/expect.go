package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/replay"
)

// Expectations is a capture's NAME.expect.json: per UI version, the check
// findings the capture must show. The file is meant to be read in review,
// so --update writes it in a fixed layout: UIs in the order of
// models.All, one finding per line, sorted by record, rule and run. A
// section is keyed by the UI version it was made with (clawboo@1211c16);
// a name alone, as files written before clawtap modelled versions have
// it, is that UI's first modelled version (models.LookupPinned).
//
//	{
//	  "ui": {
//	    "clawboo@1211c16": {
//	      "findings": [
//	        {"rule": "stale-terminal", "severity": "warn", "i": 35, "runId": "r1"},
//	        {"rule": "dropped-final", "severity": "error", "i": 44, "runId": "r2"}
//	      ]
//	    }
//	  }
//	}
type Expectations struct {
	UI map[string]*UIExpect `json:"ui"`
}

// UIExpect is what one UI's pass must find.
type UIExpect struct {
	Findings []Expect `json:"findings"`
}

// Expect is one expected finding. Rule is required; a field left out
// matches any value, so a hand-written {"rule":"dropped-final","runId":"r2"}
// says "run r2 loses its final, at whatever record". --update writes every
// field. Count, when above 1, is how many findings share the entry's exact
// key (a rule that fires twice on one record of one run).
type Expect struct {
	Rule     string  `json:"rule"`
	Severity *string `json:"severity,omitempty"`
	I        *int    `json:"i,omitempty"`
	RunID    *string `json:"runId,omitempty"`
	Count    int     `json:"count,omitempty"`
}

// exact reports whether the entry names a finding's whole key.
func (e *Expect) exact() bool { return e.I != nil && e.RunID != nil }

// matches reports whether the finding fits the entry's key (rule, run,
// record); the severity is compared separately, so a changed severity
// reads as such rather than as one finding gone and another new.
func (e *Expect) matches(f *check.Finding) bool {
	return e.Rule == f.Rule && (e.I == nil || *e.I == f.I) && (e.RunID == nil || *e.RunID == f.RunID)
}

// String renders the entry for a failure report: rule, severity, record, run.
func (e *Expect) String() string {
	var b strings.Builder
	if e.Severity != nil {
		b.WriteString(*e.Severity + " ")
	}
	b.WriteString(e.Rule)
	if e.I != nil {
		b.WriteString(" #" + strconv.Itoa(*e.I))
	}
	if e.RunID != nil && *e.RunID != "" {
		b.WriteString(" run " + *e.RunID)
	}
	if e.Count > 1 {
		b.WriteString(" ×" + strconv.Itoa(e.Count))
	}
	return b.String()
}

// UnmarshalJSON reads the file's top level, keys matched exactly.
func (e *Expectations) UnmarshalJSON(b []byte) error {
	type plain Expectations
	return strictDecode(b, (*plain)(e), "ui")
}

// UnmarshalJSON reads a UI's section, keys matched exactly.
func (u *UIExpect) UnmarshalJSON(b []byte) error {
	type plain UIExpect
	return strictDecode(b, (*plain)(u), "findings")
}

// UnmarshalJSON reads an entry, keys matched exactly: encoding/json would
// take "runid" for runId, an entry that then matches any run.
func (e *Expect) UnmarshalJSON(b []byte) error {
	type plain Expect
	if err := strictDecode(b, (*plain)(e), "rule", "severity", "i", "runId", "count"); err != nil {
		return err
	}
	// The run id is read as a capture's strings are (pkg/jsonx): a lone
	// surrogate's escape, which --update writes for one, stays that
	// surrogate, as the finding holds it, where encoding/json reads U+FFFD.
	if e.RunID != nil {
		if raw, ok := jsonx.Get(b, "runId"); ok {
			if s, ok := jsonx.Str(raw); ok {
				*e.RunID = s
			}
		}
	}
	return nil
}

// strictDecode decodes a JSON object into v after checking that every key
// is one of keys, spelled exactly.
func strictDecode(b []byte, v any, keys ...string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if m == nil {
		return errors.New("null instead of an object")
	}
	for k := range m {
		if !slices.Contains(keys, k) {
			return fmt.Errorf("unknown key %q (known: %s)", k, strings.Join(keys, ", "))
		}
	}
	return json.Unmarshal(b, v)
}

// maxExpectBytes bounds an expectation file: it is a reviewed list of
// findings, not data.
const maxExpectBytes = 64 << 20

// ParseExpectations reads an expectation file. Unknown keys are refused,
// so a typo ("runid") is an error rather than an entry that matches more
// than meant.
func ParseExpectations(r io.Reader) (*Expectations, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxExpectBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxExpectBytes {
		return nil, fmt.Errorf("larger than %d MiB", maxExpectBytes>>20)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var e Expectations
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("not an expectation file: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("not an expectation file: more than one JSON value")
	}
	if e.UI == nil {
		return nil, errors.New(`not an expectation file: no "ui" object`)
	}
	for ui, u := range e.UI {
		if u == nil {
			return nil, fmt.Errorf("ui %q: null instead of {\"findings\": [...]}", ui)
		}
		for k := range u.Findings {
			x := &u.Findings[k]
			if x.Rule == "" {
				return nil, fmt.Errorf("ui %q: finding %d has no rule", ui, k+1)
			}
			if x.Severity != nil {
				if _, err := check.ParseSeverity(*x.Severity); err != nil {
					return nil, fmt.Errorf("ui %q: finding %d: %w", ui, k+1, err)
				}
			}
			if x.Count < 0 || x.Count > 1 && !x.exact() {
				return nil, fmt.Errorf("ui %q: finding %d: a count needs both i and runId, and must be positive", ui, k+1)
			}
		}
	}
	return &e, nil
}

// Pinned lists the UI versions the file's sections name, in the order of
// models.All; a section naming a UI or version this clawtap does not
// model is an error.
func (e *Expectations) Pinned() ([]replay.UI, error) {
	var out []replay.UI
	for _, key := range slices.Sorted(maps.Keys(e.UI)) {
		u, err := models.LookupPinned(key)
		if err != nil {
			return nil, fmt.Errorf("section %q: %w", key, err)
		}
		if !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	slices.SortStableFunc(out, models.Order)
	return out, nil
}

// section is the file's section for ui, by whichever key names it.
func (e *Expectations) section(ui replay.UI) *UIExpect {
	if u := e.UI[ui.String()]; u != nil {
		return u
	}
	for key, u := range e.UI {
		if p, err := models.LookupPinned(key); err == nil && p == ui {
			return u
		}
	}
	return nil
}

// set replaces ui's section, written under its versioned key: a key that
// named the same version otherwise (a name alone) goes.
func (e *Expectations) set(ui replay.UI, u *UIExpect) {
	for key := range e.UI {
		if p, err := models.LookupPinned(key); err == nil && p == ui {
			delete(e.UI, key)
		}
	}
	e.UI[ui.String()] = u
}

// keys lists the file's section keys in the order --update writes them:
// the UIs this clawtap models in the order of models.All, then any other
// key, sorted.
func (e *Expectations) keys() []string {
	type keyed struct {
		key string
		ui  replay.UI
		ok  bool
	}
	var ks []keyed
	for key := range e.UI {
		u, err := models.LookupPinned(key)
		ks = append(ks, keyed{key, u, err == nil})
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		switch {
		case a.ok != b.ok:
			if a.ok {
				return -1
			}
			return 1
		case a.ok && a.ui != b.ui:
			return models.Order(a.ui, b.ui)
		}
		return strings.Compare(a.key, b.key)
	})
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.key
	}
	return out
}

// ExpectFindings turns a pass's findings into the entries --update writes:
// every field set, one entry per key (Count for repeats), sorted.
func ExpectFindings(fs []check.Finding) []Expect {
	type key struct {
		i        int
		rule     string
		run, sev string
	}
	counts := make(map[key]int)
	var keys []key
	for k := range fs {
		f := &fs[k]
		kk := key{f.I, f.Rule, f.RunID, f.Severity.String()}
		if counts[kk] == 0 {
			keys = append(keys, kk)
		}
		counts[kk]++
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.i != b.i {
			return a.i - b.i
		}
		if c := strings.Compare(a.rule, b.rule); c != 0 {
			return c
		}
		if c := strings.Compare(a.run, b.run); c != 0 {
			return c
		}
		return strings.Compare(a.sev, b.sev)
	})
	out := make([]Expect, 0, len(keys))
	for _, k := range keys {
		i, run, sev := k.i, k.run, k.sev
		e := Expect{Rule: k.rule, Severity: &sev, I: &i, RunID: &run}
		if n := counts[k]; n > 1 {
			e.Count = n
		}
		out = append(out, e)
	}
	return out
}

// AppendJSON renders the file in its reviewed layout: sections in the
// order of models.All (sections for UIs this clawtap does not model are
// kept, after them), one finding per line.
func (e *Expectations) AppendJSON(dst []byte) []byte {
	dst = append(dst, "{\n  \"ui\": {"...)
	for n, ui := range e.keys() {
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, "\n    "...)
		dst = jsonx.AppendString(dst, ui)
		dst = append(dst, ": {\n      \"findings\": ["...)
		fs := e.UI[ui].Findings
		for k := range fs {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, "\n        "...)
			dst = fs[k].appendJSON(dst)
		}
		if len(fs) > 0 {
			dst = append(dst, "\n      "...)
		}
		dst = append(dst, "]\n    }"...)
	}
	if len(e.UI) > 0 {
		dst = append(dst, "\n  "...)
	}
	return append(dst, "}\n}\n"...)
}

func (e *Expect) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"rule": `...)
	dst = jsonx.AppendString(dst, e.Rule)
	if e.Severity != nil {
		dst = append(dst, `, "severity": `...)
		dst = jsonx.AppendString(dst, *e.Severity)
	}
	if e.I != nil {
		dst = append(dst, `, "i": `...)
		dst = jsonx.AppendInt(dst, int64(*e.I))
	}
	if e.RunID != nil {
		dst = append(dst, `, "runId": `...)
		dst = jsonx.AppendString(dst, *e.RunID)
	}
	if e.Count > 1 {
		dst = append(dst, `, "count": `...)
		dst = jsonx.AppendInt(dst, int64(e.Count))
	}
	return append(dst, '}')
}

// Mismatch is how a pass's findings differ from the expectations.
type Mismatch struct {
	// Unexpected are findings no entry expects.
	Unexpected []check.Finding
	// Missing are entries no finding matched (or, for a counted entry,
	// the entry with the count that was short).
	Missing []Expect
	// Changed are findings whose entry expects another severity.
	Changed []Changed
}

// Changed is a finding found with another severity than expected.
type Changed struct {
	Finding check.Finding
	Want    string
}

// Empty reports whether the findings are as expected.
func (m *Mismatch) Empty() bool {
	return len(m.Unexpected) == 0 && len(m.Missing) == 0 && len(m.Changed) == 0
}

// Compare matches findings against the entries: each finding must fit an
// entry (an exact entry first, else the first wildcard entry that fits),
// each entry must be matched, a counted entry exactly Count times, and a
// severity, when given, must agree.
func Compare(want []Expect, got []check.Finding) Mismatch {
	type key struct {
		rule, run string
		i         int
	}
	exact := make(map[key][]int) // key → indexes in want
	var wild []int
	for k := range want {
		e := &want[k]
		if e.exact() {
			kk := key{e.Rule, *e.RunID, *e.I}
			exact[kk] = append(exact[kk], k)
			continue
		}
		wild = append(wild, k)
	}
	matched := make([][]int, len(want)) // entry → the findings it took
	var m Mismatch
	for k := range got {
		f := &got[k]
		at := -1
		if cands := exact[key{f.Rule, f.RunID, f.I}]; len(cands) > 0 {
			at = cands[0]
			for _, c := range cands {
				if s := want[c].Severity; s == nil || *s == f.Severity.String() {
					at = c
					break
				}
			}
		} else {
			for _, w := range wild {
				if want[w].matches(f) {
					at = w
					break
				}
			}
		}
		if at < 0 {
			m.Unexpected = append(m.Unexpected, *f)
			continue
		}
		matched[at] = append(matched[at], k)
		if s := want[at].Severity; s != nil && *s != f.Severity.String() {
			m.Changed = append(m.Changed, Changed{Finding: *f, Want: *s})
		}
	}
	for k := range want {
		e := want[k]
		n, took := max(e.Count, 1), matched[k]
		switch {
		case len(took) == 0:
			m.Missing = append(m.Missing, e)
		case e.exact() && len(took) < n:
			e.Count = n - len(took)
			m.Missing = append(m.Missing, e)
		case e.exact() && len(took) > n:
			// More findings of one key than the count: the surplus is new.
			for _, j := range took[n:] {
				m.Unexpected = append(m.Unexpected, got[j])
			}
		}
	}
	slices.SortStableFunc(m.Unexpected, func(a, b check.Finding) int { return a.I - b.I })
	return m
}

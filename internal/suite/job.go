package suite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/redact"
	"github.com/clawtap/clawtap/pkg/replay"
)

// Defaults for Config.
const (
	// DefaultDiffLimit is how much replay output a pass keeps to diff a
	// mismatch: past it the report says where the outputs part instead.
	DefaultDiffLimit = 4 << 20
	// MaxFindings bounds the findings a pass keeps; a capture with more is
	// an error rather than an expectation file nobody reads.
	MaxFindings = 100_000
	// replayWidth is replay's default --width: goldens are what
	// 'clawtap replay --golden' writes.
	replayWidth = 120
)

// Config tunes a suite run.
type Config struct {
	// UIs are the UIs to test every capture under; nil means each
	// capture's own: the UIs its expectations name, else the default.
	UIs []replay.UI
	// Update writes goldens and expectations instead of comparing (a file
	// is rewritten only when it changes).
	Update bool
	// Jobs is the number of captures tested at once (at least 1).
	Jobs int
	// DiffLimit is DefaultDiffLimit when 0.
	DiffLimit int
	// Now times each capture for the report; nil leaves times out, so the
	// report is the same bytes on every run.
	Now func() time.Time
	// ShowCredentials keeps the credentials of captures written without
	// redaction in the goldens; by default they are redacted as read.
	ShowCredentials bool
}

func (c *Config) diffLimit() int {
	if c.DiffLimit > 0 {
		return c.DiffLimit
	}
	return DefaultDiffLimit
}

// DefaultUI is the UI a capture is tested under when its expectations
// name none; its model's golden file has no UI in its name.
func DefaultUI() replay.UI { return models.Default() }

// Status is the outcome of a test.
type Status string

// The statuses.
const (
	Pass    Status = "pass"    // as expected
	Fail    Status = "fail"    // differs from what is expected
	Missing Status = "missing" // nothing to compare with: run --update
	Updated Status = "updated" // --update wrote a new file
	Error   Status = "error"   // the capture could not be tested
)

// failed reports whether a status fails the suite.
func (s Status) failed() bool { return s == Fail || s == Missing }

// Result is what the suite found for one capture.
type Result struct {
	Capture Capture
	// Index is the capture's place in the suite (path order).
	Index int
	// Runs has one entry per UI tested, in the order of models.All.
	Runs []UIRun
	// Err is set when the capture could not be tested: it is unreadable,
	// or its expectation file is; Runs may hold the UIs done before.
	Err error
	// Expect is the expectation file's outcome under --update (Updated or
	// Pass); "" otherwise.
	Expect Status
	// Notes are what the reader stepped over (unreadable lines,
	// truncation): warnings.
	Notes []string
	// Info is what the replay left out by design (the records of other
	// clients connected at the same time as the replayed one).
	Info []string
	// RedactedOnRead says the capture was written without redaction and
	// its credentials were redacted as it was read: the run's caller says
	// so once for the whole suite.
	RedactedOnRead bool
	// Elapsed is the capture's wall time, when Config.Now is set.
	Elapsed time.Duration
}

// Status is the capture's outcome: Error, else Fail when a UI failed,
// else Updated when --update wrote anything, else Pass.
func (r *Result) Status() Status {
	if r.Err != nil {
		return Error
	}
	st := Pass
	if r.Expect == Updated {
		st = Updated
	}
	for k := range r.Runs {
		switch s := r.Runs[k].Status(); {
		case s.failed():
			return Fail
		case s == Updated:
			st = Updated
		}
	}
	return st
}

// UIRun is one UI's pass over a capture.
type UIRun struct {
	UI       string // the UI version, as --ui takes it
	Model    replay.UI
	Golden   GoldenResult
	Findings FindingsResult
}

// Status is the worst of the golden and the findings.
func (r *UIRun) Status() Status {
	g, f := r.Golden.Status, r.Findings.Status
	switch {
	case g == Fail || f == Fail:
		return Fail
	case g == Missing || f == Missing:
		return Missing
	case g == Updated || f == Updated:
		return Updated
	}
	return Pass
}

// GoldenResult compares the replay with the golden file.
type GoldenResult struct {
	Path   string
	Status Status
	// Diff is the unified diff (golden → replay) of a mismatch, clipped,
	// or where the outputs part when they are too large to diff.
	Diff string
	// Line is the golden file's first differing line (1-based).
	Line int
}

// FindingsResult compares check's findings with the expectations.
type FindingsResult struct {
	Path   string
	Status Status
	// Found is the number of findings the pass made.
	Found int
	Mismatch
}

// Test runs one capture under each of its UIs: per UI, one pass over the
// capture feeds replay's printer (compared with the golden file) and
// check's analyzer (compared with the expectations). It never panics on
// bad input: whatever stops it is Result.Err.
func Test(ctx context.Context, c Capture, cfg *Config) *Result {
	var start time.Time
	if cfg.Now != nil {
		start = cfg.Now()
	}
	res := &Result{Capture: c}
	res.Err = test(ctx, c, cfg, res)
	if cfg.Now != nil {
		res.Elapsed = cfg.Now().Sub(start)
	}
	return res
}

func test(ctx context.Context, c Capture, cfg *Config, res *Result) error {
	exp, raw, err := readExpect(&c)
	if err != nil {
		if !cfg.Update {
			return fmt.Errorf("%s: %w", c.ExpectPath(), err)
		}
		res.Notes = append(res.Notes, fmt.Sprintf("%s was unreadable (%v); --update replaces it", c.ExpectPath(), err))
		exp, raw = nil, nil
	}
	uis := cfg.UIs
	if uis == nil && exp != nil {
		if uis, err = exp.Pinned(); err != nil {
			return fmt.Errorf("%s: %w", c.ExpectPath(), err)
		}
	}
	if len(uis) == 0 {
		uis = []replay.UI{DefaultUI()}
	}
	next := &Expectations{UI: map[string]*UIExpect{}}
	if exp != nil {
		for key, u := range exp.UI {
			next.UI[key] = u
		}
	}
	for k, ui := range uis {
		run, found, err := pass(ctx, c, ui, uis, exp, cfg, res, k == 0)
		if err != nil {
			return err
		}
		res.Runs = append(res.Runs, run)
		next.set(ui, &UIExpect{Findings: ExpectFindings(found)})
	}
	if cfg.Update {
		res.Expect, err = writeExpect(&c, next, raw)
	}
	return err
}

// readExpect reads a capture's expectation file and its bytes, a regular
// file in its folder of at most maxExpectBytes (read no further); a file
// that does not exist is (nil, nil, nil).
func readExpect(c *Capture) (*Expectations, []byte, error) {
	path := c.ExpectPath()
	raw, err := output.ReadIn(c.dir(), c.in(path), path, maxExpectBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	e, err := ParseExpectations(bytes.NewReader(raw))
	return e, raw, err
}

// writeExpect writes the capture's expectations when they changed: the
// file of that name in its folder, never what a link there names.
func writeExpect(c *Capture, e *Expectations, old []byte) (Status, error) {
	path := c.ExpectPath()
	b := e.AppendJSON(nil)
	if bytes.Equal(b, old) {
		return Pass, nil
	}
	d, err := output.CreateIn(c.dir(), c.in(path), path)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := d.Write(b); err != nil {
		d.Abort()
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err := d.Commit(); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return Updated, nil
}

// pass is one read of the capture under a UI: the replay printer and the
// check analyzer observe the same pass. first says whether to note what
// the reader stepped over (once per capture).
func pass(ctx context.Context, c Capture, ui replay.UI, uis []replay.UI, exp *Expectations, cfg *Config, res *Result, first bool) (UIRun, []check.Finding, error) {
	run := UIRun{UI: ui.String(), Model: ui,
		Golden:   GoldenResult{Path: c.Golden(ui, uis)},
		Findings: FindingsResult{Path: c.ExpectPath()},
	}
	r, closeCapture, err := openCapture(&c)
	if err != nil {
		var nc *capture.NotCaptureError
		if errors.As(err, &nc) {
			return run, nil, fmt.Errorf("not a clawtap capture: %s", nc.Why)
		}
		return run, nil, err
	}
	defer closeCapture()
	if r.Stats().Empty {
		return run, nil, errors.New("empty: no records")
	}
	if !cfg.ShowCredentials && redact.OnRead(r) {
		// Said once per suite run, by the caller, not once per capture
		// and UI in the report.
		res.RedactedOnRead = true
	}
	g, note, err := newGoldenCheck(c.dir(), c.in(run.Golden.Path), run.Golden.Path, cfg.diffLimit(), cfg.Update)
	if err != nil {
		return run, nil, err
	}
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	defer g.close()
	an, err := check.New(check.Options{})
	if err != nil {
		return run, nil, err
	}
	var found []check.Finding
	an.OnFinding = func(f *check.Finding) error {
		if len(found) == MaxFindings {
			return fmt.Errorf("more than %d findings: too many to keep as expectations", MaxFindings)
		}
		found = append(found, *f)
		return nil
	}
	// The golden is what 'clawtap replay --golden' writes: text through
	// the sanitiser (output.TextWriter).
	text := output.NewTextWriter(g, false)
	pr := &output.Replay{W: text, Format: output.Text, Width: replayWidth}
	p := pipeline.New(pipeline.Options{Replay: replay.Options{UI: ui, FrameNum: 1000, FrameDen: 60}}, cancelled{ctx}, pr, an)
	if err := p.Run(pipeline.Records(r)); err != nil {
		return run, nil, err
	}
	if err := text.Flush(); err != nil {
		return run, nil, err
	}
	if first {
		if sum := r.Stats().Summary(); sum != "" {
			res.Notes = append(res.Notes, sum) // what the reader stepped over, as the other commands say it
		}
	}
	if n, conns := p.Engine().Skipped(); n > 0 {
		res.Info = append(res.Info, fmt.Sprintf("%s: the replay skipped %d record(s) of connection(s) %s, other clients open at the same time as the replayed one", ui, n, joinInts(conns)))
	}
	same, err := g.finish()
	if err != nil {
		return run, nil, err
	}
	run.Golden.Status = goldenStatus(same, g.missing, cfg.Update)
	if run.Golden.Status == Fail {
		see := "run clawtap replay --golden " + run.Golden.Path + " " + c.Path
		see += " --ui " + ui.String()
		run.Golden.Diff, run.Golden.Line = g.diff(see), g.firstLine()
	}
	run.Findings.Found = len(found)
	switch u := expectFor(exp, ui); {
	case cfg.Update:
		run.Findings.Status = Pass
		if u == nil || !slices.EqualFunc(u.Findings, ExpectFindings(found), sameExpect) {
			run.Findings.Status = Updated
		}
	case u == nil:
		run.Findings.Status = Missing
	default:
		run.Findings.Mismatch = Compare(u.Findings, found)
		run.Findings.Status = Pass
		if !run.Findings.Mismatch.Empty() {
			run.Findings.Status = Fail
		}
	}
	return run, found, nil
}

// openCapture opens a capture: one found in a folder as a regular file in
// it (OpenIn), one named on the command line as named.
func openCapture(c *Capture) (r *capture.Reader, close func(), err error) {
	if !c.Found {
		r, err = capture.Open(c.Path, capture.Options{})
		if err != nil {
			return nil, nil, err
		}
		return r, func() { r.Close() }, nil
	}
	f, err := output.OpenIn(c.dir(), c.in(c.Path), c.Path)
	if err != nil {
		return nil, nil, err
	}
	if r, err = capture.NewReader(f, capture.Options{}); err != nil {
		f.Close()
		return nil, nil, err
	}
	return r, func() { r.Close(); f.Close() }, nil
}

func expectFor(e *Expectations, ui replay.UI) *UIExpect {
	if e == nil {
		return nil
	}
	return e.section(ui)
}

func sameExpect(a, b Expect) bool {
	return string(a.appendJSON(nil)) == string(b.appendJSON(nil))
}

func goldenStatus(same, missing, update bool) Status {
	switch {
	case same:
		return Pass
	case update:
		return Updated
	case missing:
		return Missing
	}
	return Fail
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// cancelled ends a pass when the suite is stopped, checking between
// records.
type cancelled struct{ ctx context.Context }

func (cancelled) Needs() pipeline.Needs { return 0 }

func (c cancelled) Before(*pipeline.Frame) error { return c.ctx.Err() }

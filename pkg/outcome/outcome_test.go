package outcome_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/models"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/outcome"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
	rt "github.com/clawtap/clawtap/pkg/runs"
)

// track replays a fixture under ui and returns what every run left the
// user with, in the order the runs were let go.
func track(t *testing.T, fixture string, ui replay.UI) []*outcome.Run {
	t.Helper()
	r, err := capture.Open(filepath.Join("..", "..", "fixtures", fixture), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var all []*outcome.Run
	p := pipeline.New(pipeline.Options{Replay: replay.Options{UI: ui}}, runs{done: func(_ *rt.Run, o *outcome.Run) { all = append(all, o) }})
	if err := p.Run(pipeline.Records(r)); err != nil {
		t.Fatal(err)
	}
	if got := p.Outcomes().UI(); got != ui {
		t.Errorf("ledger followed %q, want %q", got, ui)
	}
	return all
}

// The real gateway's order — lifecycle end, then the chat final — closes
// the run in clawboo before its final arrives; Claw3D commits it.
func TestStreamedRunOutcome(t *testing.T) {
	boo := track(t, "streamed-run.jsonl.zst", models.MustLookup("clawboo@1211c16"))
	c3d := track(t, "streamed-run.jsonl.zst", models.MustLookup("claw3d"))
	if len(boo) != 1 || len(c3d) != 1 || boo[0].ID != c3d[0].ID {
		t.Fatalf("one run under each UI: %d, %d", len(boo), len(c3d))
	}
	b, c := boo[0], c3d[0]
	if !b.HasReply || !c.HasReply || b.Terminal != "final" || b.TerminalI != c.TerminalI {
		t.Errorf("both UIs see the same final: %v@%d vs %v@%d", b.HasReply, b.TerminalI, c.HasReply, c.TerminalI)
	}
	if !strings.HasPrefix(b.Reply, "Tide pools are rocky hollows") || c.Reply != "" {
		t.Errorf("the lost reply's text is kept, the committed one's left to the transcript: %q vs %q", b.Reply, c.Reply)
	}
	if b.Committed || b.Dropped != "guard" || b.ClosedByRun != b.ID || b.ClosedBy < 0 || b.ClosedBy >= b.TerminalI {
		t.Errorf("clawboo: the run's own lifecycle end closes it before the final: %+v", b)
	}
	if b.Bubble == "" || !b.Ghost || b.Billing != true || b.Bills != 0 {
		t.Errorf("clawboo: the bubble and the run id stay, nothing is billed: %+v", b)
	}
	if why := b.LostWhy(); !strings.Contains(why, "lifecycle end (record") {
		t.Errorf("clawboo: LostWhy should name the lifecycle end: %q", why)
	}
	if !c.Committed || c.CommitI < 0 || c.Ghost || c.Bubble != "" || c.Billing || c.Status != "idle" {
		t.Errorf("claw3d: the reply is committed and nothing is left: %+v", c)
	}
	if c.LostWhy() != "" {
		t.Errorf("claw3d: a committed reply has no LostWhy: %q", c.LostWhy())
	}
}

// A slash command's final comes without a lifecycle: both UIs commit it
// and clawboo bills the turn once.
func TestSlashCommandOutcome(t *testing.T) {
	for _, ui := range models.All() {
		runs := track(t, "slash-command.jsonl.zst", ui)
		if len(runs) != 1 || !runs[0].Committed || runs[0].Ghost {
			t.Fatalf("%s: %+v", ui, runs)
		}
		if ui == models.MustLookup("clawboo@1211c16") && (!runs[0].Billing || runs[0].Bills != 1) {
			t.Errorf("clawboo bills the turn once: %+v", runs[0])
		}
	}
}

// runs is an observer of the pass's run table, shown each run let go
// that the replay saw.
type runs struct {
	done func(*rt.Run, *outcome.Run)
}

func (runs) Needs() pipeline.Needs { return pipeline.Outcomes }

func (o runs) RunDone(r *rt.Run, out *outcome.Run) {
	if o.done != nil && out != nil {
		o.done(r, out)
	}
}

// trackLarge runs a pass with the observer o over a generated capture of
// frames frames; *pass is the pass while it runs.
func trackLarge(t *testing.T, opts pipeline.Options, o runs, frames int, pass **pipeline.Pass) {
	t.Helper()
	b, err := synth.LargeJSONL(frames, 1)
	if err != nil {
		t.Fatal(err)
	}
	r, err := capture.NewReader(bytes.NewReader(b), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	*pass = pipeline.New(opts, o)
	if err := (*pass).Run(pipeline.Records(r)); err != nil {
		t.Fatal(err)
	}
}

// Past its bound the table lets go of the oldest runs, and with them
// everything else it kept about them: memory follows the bound, not the
// capture's length.
func TestForgottenRunsLeaveNothingBehind(t *testing.T) {
	skipLarge(t)
	const bound = 16
	done, doneLost, unbilled, crowded, kept, keptLost := 0, 0, 0, 0, 0, 0
	var last *rt.Run // the run let go last; runs go in the order they were born
	misordered := 0
	var pass *pipeline.Pass
	maxLatest, maxPending, maxClosers, maxHeld := 0, 0, 0, 0
	boo := models.MustLookup("clawboo@1211c16") // it loses replies: the pending list is exercised
	trackLarge(t, pipeline.Options{MaxRuns: bound, Replay: replay.Options{UI: boo}}, runs{func(r *rt.Run, o *outcome.Run) {
		done++
		if o.LostWhy() != "" {
			doneLost++
		}
		if !o.Billing || o.UI != boo {
			unbilled++ // clawboo bills: a run let go early is judged as one kept to the end
		}
		if last != nil && (r.N <= last.N || r.FirstI <= last.FirstI) {
			misordered++
		}
		last = r
		if r.Kept {
			kept++
			if o.LostWhy() != "" {
				keptLost++
			}
			return
		}
		crowded++
		latest, pending, closers := pass.Outcomes().Held()
		maxLatest, maxPending, maxClosers = max(maxLatest, latest), max(maxPending, pending), max(maxClosers, closers)
		maxHeld = max(maxHeld, pass.Runs().Len())
	}}, 20_000, &pass)
	if kept != bound || crowded == 0 || crowded != pass.Runs().Crowded() {
		t.Fatalf("%d runs kept to the end, %d let go early (the table says %d); want %d kept and some let go", kept, crowded, pass.Runs().Crowded(), bound)
	}
	if unbilled > 0 {
		t.Errorf("%d of %d runs let go say their UI bills nothing; clawboo bills", unbilled, done)
	}
	if doneLost == keptLost {
		t.Errorf("no run let go early lost its reply: the capture no longer exercises the pending list")
	}
	if misordered > 0 {
		t.Errorf("%d runs let go out of order", misordered)
	}
	if maxHeld > bound || maxPending > bound || maxClosers > bound || maxLatest > bound {
		t.Errorf("held %d runs, %d latest, %d pending, %d closings; want at most %d each", maxHeld, maxLatest, maxPending, maxClosers, bound)
	}
	if keptLost == 0 {
		t.Error("no lost reply among the runs kept: the capture no longer exercises the pending list")
	}
	if latest, pending, closers := pass.Outcomes().Held(); latest+pending+closers != 0 {
		t.Errorf("after the end the ledger still refers to %d latest runs, %d pending, %d closings", latest, pending, closers)
	}
}

// Replies that are never committed (clawboo loses most) wait a bounded
// while: the ledger's memory and its work per appended line stay flat.
func TestWaitingRepliesAreBounded(t *testing.T) {
	skipLarge(t)
	lost, agents, maxPending, first := 0, map[string]bool{}, 0, true
	var pass *pipeline.Pass
	trackLarge(t, pipeline.Options{MaxRuns: 1 << 20, Replay: replay.Options{UI: models.MustLookup("clawboo@1211c16")}}, runs{func(_ *rt.Run, o *outcome.Run) {
		if first { // the first run let go: the end, since the table holds every run
			_, maxPending, _ = pass.Outcomes().Held()
			first = false
		}
		agents[o.AgentID] = true
		if o.LostWhy() != "" {
			lost++
		}
	}}, 150_000, &pass)
	if lost < 1000 {
		t.Fatalf("%d lost replies: too few to fill the waiting lists", lost)
	}
	if maxPending >= lost || maxPending > outcome.MaxPending*len(agents) {
		t.Errorf("%d replies waiting, want at most %d per agent (%d agents)", maxPending, outcome.MaxPending, len(agents))
	}
}

func TestNorm(t *testing.T) {
	for _, s := range []string{"", " ", "a", "a b", " a", "a ", "a  b", "a\nb", "a\tb\r\n", "héllo wörld", "a\u00a0b", "a\u2003 b", "x \u0085y", "\xff \xfe\n\xc3", "  lead\n\n trail  ", "\u3000全角\u3000", "a\x00b \v\fc"} {
		if got, want := outcome.Norm(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("Norm(%q) = %q, want %q", s, got, want)
		}
		if got, want := outcome.Normed(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("normed(%q) = %q, want %q", s, got, want)
		}
	}
}

// FuzzNorm holds norm, and the ledger's normed (in its reused buffer), to
// what they stand for on any text, UTF-8 or not.
func FuzzNorm(f *testing.F) {
	for _, s := range []string{"a  b", "\xff \u2003x", " \u0085 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := outcome.Norm(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("Norm(%q) = %q, want %q", s, got, want)
		}
		if got, want := outcome.Normed(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("normed(%q) = %q, want %q", s, got, want)
		}
	})
}

// A reply longer than the clip is matched by its start: also when the clip
// ends before a character of several bytes, short of MaxText (the /status
// reply of the e2e session, whose "·" fell there at some times of day).
func TestClippedReplyCommits(t *testing.T) {
	for _, pad := range []int{outcome.MaxText - 2, outcome.MaxText - 1, outcome.MaxText} {
		text := strings.Repeat("a", pad) + "· and the rest of a long reply"
		line := `{"t":1000,"conn":1,"dir":"in","frame":{"type":"event","event":"chat","payload":{"runId":"r1","sessionKey":"agent:main:main","seq":1,"state":"final",` +
			`"message":{"role":"assistant","content":[{"type":"text","text":"` + text + `"}]}},"seq":1}}` + "\n"
		for _, ui := range models.All() {
			r, err := capture.NewReader(strings.NewReader(line), capture.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []*outcome.Run
			p := pipeline.New(pipeline.Options{Replay: replay.Options{UI: ui}}, runs{done: func(_ *rt.Run, o *outcome.Run) { got = append(got, o) }})
			if err := p.Run(pipeline.Records(r)); err != nil {
				t.Fatal(err)
			}
			r.Close()
			if len(got) != 1 || !got[0].HasReply || !got[0].Committed {
				t.Errorf("%s, the \"·\" at byte %d: the reply is committed: %+v", ui, pad, got)
			}
		}
	}
}

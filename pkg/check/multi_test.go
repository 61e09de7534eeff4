package check

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
)

// Checking every UI version at once says what checking each alone says:
// the protocol's findings once, as the first UI's check has them, and
// each finding that depends on the UI once, with the versions whose own
// check makes it (and its message as the first of them words it).
func TestMultiIsEachUIAlone(t *testing.T) {
	uis := models.All()
	for _, f := range synth.Fixtures() {
		path := filepath.Join("..", "..", "fixtures", f.File)
		t.Run(f.Name, func(t *testing.T) {
			type key struct {
				rule, run string
				i         int
			}
			var proto []string
			alone := map[key][]string{}
			msgs := map[key]string{}
			for k, u := range uis {
				r, err := capture.Open(path, capture.Options{})
				if err != nil {
					t.Fatal(err)
				}
				a, err := New(Options{})
				if err != nil {
					t.Fatal(err)
				}
				a.names = versioned
				for _, fd := range collect(t, a, pipeline.Records(r), u) {
					if !slices.Contains(uiRules, fd.Rule) {
						if k == 0 {
							proto = append(proto, string(fd.AppendJSON(nil)))
						}
						continue
					}
					kk := key{fd.Rule, fd.RunID, fd.I}
					if fd.Hazard == HazardNotShown {
						// Every UI judges a hazard: one that does not show
						// it explains it only while none that does has.
						if _, ok := msgs[kk]; !ok {
							msgs[kk] = fd.Message
						}
						if alone[kk] == nil {
							alone[kk] = []string{}
						}
						continue
					}
					if _, ok := msgs[kk]; !ok || shownNone(alone[kk]) {
						msgs[kk] = fd.Message
					}
					alone[kk] = append(alone[kk], u.String())
				}
				r.Close()
			}

			r, err := capture.Open(path, capture.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			m, err := NewMulti(Options{}, uis)
			if err != nil {
				t.Fatal(err)
			}
			var gotProto []string
			together := map[key][]string{}
			take := sink(func(fd *Finding) error {
				if fd.UIs == nil {
					gotProto = append(gotProto, string(fd.AppendJSON(nil)))
					return nil
				}
				kk := key{fd.Rule, fd.RunID, fd.I}
				if _, dup := together[kk]; dup {
					t.Errorf("%v reported twice", kk)
				}
				together[kk] = fd.UIs
				if fd.Message != msgs[kk] {
					t.Errorf("%v: message %q, want the first UI's %q", kk, fd.Message, msgs[kk])
				}
				if len(fd.UIs)+len(fd.NotUIs) != len(uis) {
					t.Errorf("%v: %v and not %v: every UI is one or the other", kk, fd.UIs, fd.NotUIs)
				}
				return nil
			})
			if err := m.Pass(pipeline.Options{}, take).Run(pipeline.Records(r)); err != nil {
				t.Fatal(err)
			}
			if strings.Join(gotProto, "\n") != strings.Join(proto, "\n") {
				t.Errorf("protocol findings\n%s\nwant\n%s", strings.Join(gotProto, "\n"), strings.Join(proto, "\n"))
			}
			if fmt.Sprint(together) != fmt.Sprint(alone) {
				t.Errorf("by UI together %v\nalone %v", together, alone)
			}
			sum := m.Summary()
			if n := sum.Errors + sum.Warnings + sum.Infos; n != len(gotProto)+len(together) {
				t.Errorf("summary counts %d findings, %d were made", n, len(gotProto)+len(together))
			}
		})
	}
}

// sink is a FindingObserver of a pass: each finding goes to the function.
type sink func(*Finding) error

func (sink) Needs() pipeline.Needs      { return 0 }
func (s sink) Finding(f *Finding) error { return s(f) }

// shownNone: a hazard judged so far only by UIs that do not show it.
func shownNone(uis []string) bool { return uis != nil && len(uis) == 0 }

// arrivals is an observer after the check: it notes, for each finding,
// how many records it had seen when the finding came.
type arrivals struct {
	seen int
	got  []arrival
}

type arrival struct {
	seen      int
	rule, run string
	i, n      int
	uis       []string
}

func (*arrivals) Needs() pipeline.Needs         { return 0 }
func (a *arrivals) After(*pipeline.Frame) error { a.seen++; return nil }
func (a *arrivals) Finding(f *Finding) error {
	a.got = append(a.got, arrival{a.seen, f.Rule, f.RunID, f.I, f.Run, f.UIs})
	return nil
}

// An observer after InlinePass's check takes each finding at the record
// its UI's check alone makes it at, before it sees that record (the
// report pins findings there), with the run's number that check gives.
func TestMultiInlinePassFindingsArriveOnTime(t *testing.T) {
	uis := models.All()
	for _, f := range synth.Fixtures() {
		path := filepath.Join("..", "..", "fixtures", f.File)
		t.Run(f.Name, func(t *testing.T) {
			open := func() *capture.Reader {
				r, err := capture.Open(path, capture.Options{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { r.Close() })
				return r
			}
			type key struct {
				rule, run string
				i         int
			}
			alone := make([]map[key]arrival, len(uis))
			for k, u := range uis {
				a, err := New(Options{})
				if err != nil {
					t.Fatal(err)
				}
				a.names = versioned
				var hazards []bool
				a.OnFinding = func(f *Finding) error { hazards = append(hazards, f.Hazard == HazardNotShown); return a.report(f) }
				obs := &arrivals{}
				if err := pipeline.New(pipeline.Options{Replay: replay.Options{UI: u}}, a, obs).Run(pipeline.Records(open())); err != nil {
					t.Fatal(err)
				}
				alone[k] = map[key]arrival{}
				for j, g := range obs.got {
					if !hazards[j] && (k == 0 || slices.Contains(uiRules, g.rule)) {
						alone[k][key{g.rule, g.run, g.i}] = g
					}
				}
			}
			m, err := NewMulti(Options{}, uis)
			if err != nil {
				t.Fatal(err)
			}
			obs := &arrivals{}
			if err := m.InlinePass(pipeline.Options{}, obs).Run(pipeline.Records(open())); err != nil {
				t.Fatal(err)
			}
			if len(obs.got) == 0 && len(alone[0]) > 0 {
				t.Fatal("no findings after the check")
			}
			for _, g := range obs.got {
				kk := key{g.rule, g.run, g.i}
				names := g.uis
				if names == nil {
					names = []string{uis[0].String()}
				}
				for _, name := range names {
					want, ok := alone[slices.IndexFunc(uis, func(u replay.UI) bool { return u.String() == name })][kk]
					if !ok {
						t.Errorf("%v: %s alone does not make it", kk, name)
					} else if g.seen != want.seen || g.n != want.n {
						t.Errorf("%v under %s: after %d record(s), run %d; alone after %d, run %d", kk, name, g.seen, g.n, want.seen, want.n)
					}
				}
			}
		})
	}
}

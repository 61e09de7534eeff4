package stats

import (
	"encoding/json"
	"maps"
	"math/rand"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/pipeline"
)

func collect(t *testing.T, name string) *Stats {
	t.Helper()
	r, err := capture.Open(filepath.Join("..", "..", "fixtures", name), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := New()
	if err := pipeline.New(pipeline.Options{}, c).Run(pipeline.Records(r)); err != nil {
		t.Fatal(err)
	}
	return c.Result()
}

func TestToolRun(t *testing.T) {
	s := collect(t, "tool-run.jsonl.zst")
	if s.Runs.Count != 1 || s.Runs.Completed != 1 || s.Runs.Tokens.Input != 812 || s.Runs.Tokens.RunsWithUsage != 1 {
		t.Fatalf("runs %+v", s.Runs)
	}
	if len(s.Connections) != 2 || s.Connections[0].Client != "cli/cli" || s.Connections[1].Client != "openclaw-control-ui/ui" {
		t.Fatalf("connections %+v", s.Connections)
	}
	if !slices.Equal(s.Gateway.Versions, []string{"2026.9.6"}) || !slices.Equal(s.Gateway.Protocols, []int{4}) {
		t.Fatalf("gateway %+v", s.Gateway)
	}
	// The run is counted once although two connections saw it.
	if s.Deltas.Agent.Events != 5 || s.Deltas.Chat.Events != 5 || s.Frames.AgentStreams["tool"] != 2 {
		t.Fatalf("deltas %+v streams %v", s.Deltas, s.Frames.AgentStreams)
	}
	if s.Runs.FirstDeltaMs.Count != 1 || s.Runs.DurationMs.Count != 1 || s.Runs.DurationMs.P50 <= 0 {
		t.Fatalf("distributions %+v %+v", s.Runs.DurationMs, s.Runs.FirstDeltaMs)
	}
	if m := s.Methods["chat.send"]; m == nil || m.Requests != 1 || m.OK != 1 {
		t.Fatalf("methods %+v", s.Methods)
	}
}

func TestOutcomes(t *testing.T) {
	if s := collect(t, "abort.jsonl.zst"); s.Runs.Aborted != 1 || s.Runs.Count != 1 {
		t.Fatalf("abort: %+v", s.Runs)
	}
	s := collect(t, "error-run.jsonl.zst")
	if s.Runs.Failed != 1 || s.Errors.ChatErrors["rate_limit"] != 1 || s.Errors.LifecycleError != 1 {
		t.Fatalf("error-run: %+v %+v", s.Runs, s.Errors)
	}
	s = collect(t, "reconnect.jsonl.zst")
	if len(s.Connections) != 2 || s.Connections[0].CloseCode != 1012 || s.Gateway.BootIDs != 2 || s.Runs.Completed != 2 {
		t.Fatalf("reconnect: %+v %+v %+v", s.Connections, s.Gateway, s.Runs)
	}
	if s.Connections[1].OpenedMs == nil || *s.Connections[1].OpenedMs <= 0 {
		t.Fatalf("reconnect: second connection opened at %v", s.Connections[1].OpenedMs)
	}
	s = collect(t, "seq-gap.jsonl.zst")
	if s.Gaps.Gaps != 1 || s.Gaps.Missing != 5 || s.Gaps.GatewayGaps != 2 {
		t.Fatalf("seq-gap: %+v", s.Gaps)
	}
	s = collect(t, "exec-approval.jsonl.zst")
	if s.Approvals.Requested != 2 || s.Approvals.Resolved != 2 || s.Approvals.ByDecision["deny"] != 1 || s.Approvals.Unresolved != 0 {
		t.Fatalf("approvals: %+v", s.Approvals)
	}
	s = collect(t, "slash-command.jsonl.zst")
	if s.Runs.Count != 1 || s.Runs.Completed != 1 || s.Deltas.Chat.Events != 0 {
		t.Fatalf("slash-command: %+v", s.Runs)
	}
	s = collect(t, "truncated.jsonl.zst")
	if !s.Capture.Truncated || s.Runs.Unterminated != 1 {
		t.Fatalf("truncated: %+v %+v", s.Capture, s.Runs)
	}
	s = collect(t, "junk.jsonl")
	if s.Capture.Invalid == 0 || s.Errors.Invalid != s.Capture.Invalid {
		t.Fatalf("junk: %+v", s.Capture)
	}
}

func TestLargeIsConsistentAndDeterministic(t *testing.T) {
	skipLarge(t)
	one := func() []byte {
		c := New()
		p := pipeline.New(pipeline.Options{}, c)
		if err := synth.LargeEach(40_000, 5, func(rec *capture.Record) error { _, err := p.Push(rec, nil); return err }); err != nil {
			t.Fatal(err)
		}
		if err := p.Close(capture.Stats{}); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(c.Result())
		return b
	}
	a, b := one(), one()
	if string(a) != string(b) {
		t.Fatal("stats JSON differs between two runs of the same capture")
	}
	var s Stats
	json.Unmarshal(a, &s)
	r := s.Runs
	if r.Count == 0 || r.Completed+r.Aborted+r.Failed+r.Unterminated != r.Count {
		t.Fatalf("outcomes do not add up: %+v", r)
	}
	if s.Deltas.Agent.Events == 0 || s.Deltas.Chat.PerSecond <= 0 || r.DurationMs.P50 > r.DurationMs.P90 || r.DurationMs.P90 > r.DurationMs.Max {
		t.Fatalf("deltas %+v durations %+v", s.Deltas, r.DurationMs)
	}
}

func TestDistribution(t *testing.T) {
	var s sample
	for _, v := range []int64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10} {
		s.add(v)
	}
	d := s.distribution()
	if d.Count != 10 || d.P50 != 5 || d.P90 != 9 || d.P99 != 10 || d.Max != 10 || d.Mean != 5 {
		t.Fatalf("%+v", d)
	}
	if (new(sample).distribution() != Distribution{}) {
		t.Fatal("empty distribution")
	}
}

// sortedDistribution is the nearest-rank distribution of d read off d
// sorted: what a sample must give.
func sortedDistribution(d []int64) Distribution {
	if len(d) == 0 {
		return Distribution{}
	}
	d = slices.Sorted(slices.Values(d))
	var sum int64
	for _, v := range d {
		sum += v
	}
	rank := func(p int) int64 { return d[max((p*len(d)+99)/100, 1)-1] }
	return Distribution{Count: len(d), P50: rank(50), P90: rank(90), P99: rank(99), Max: d[len(d)-1], Mean: sum / int64(len(d))}
}

// A sample gives the distribution of every value added, across merges,
// whether the values repeat much, little or not at all, and keeps each
// distinct value once.
func TestSampleIsExact(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, c := range []struct {
		n, spread int
	}{{1, 10}, {pendMax - 1, 50}, {pendMax, 3}, {pendMax + 1, 1 << 20}, {5*pendMax + 17, 700}, {3 * pendMax, 1 << 40}} {
		var s sample
		var all []int64
		for range c.n {
			v := rng.Int63n(int64(c.spread))
			if rng.Intn(4) == 0 {
				v = -v // a clock that went back; the sample takes it as it is
			}
			s.add(v)
			all = append(all, v)
		}
		got, want := s.distribution(), sortedDistribution(all)
		if got != want {
			t.Errorf("%d values up to %d: got %+v, want %+v", c.n, c.spread, got, want)
		}
		if distinct := len(slices.Compact(slices.Sorted(slices.Values(all)))); len(s.vals) != distinct || !slices.IsSorted(s.vals) {
			t.Errorf("%d values up to %d: %d kept for %d distinct", c.n, c.spread, len(s.vals), distinct)
		}
		s.add(int64(c.n)) // added after a distribution is read
		if got, want := s.distribution(), sortedDistribution(append(all, int64(c.n))); got != want {
			t.Errorf("%d values up to %d, one more: got %+v, want %+v", c.n, c.spread, got, want)
		}
	}
}

func FuzzSample(f *testing.F) {
	f.Add([]byte{1, 2, 3, 3, 3, 200}, uint16(2))
	f.Fuzz(func(t *testing.T, b []byte, every uint16) {
		var s sample
		var all []int64
		for k, x := range b {
			v := int64(int8(x)) * int64(k%5+1)
			s.add(v)
			all = append(all, v)
			if every > 0 && k%int(every) == 0 {
				s.merge()
			}
		}
		if got, want := s.distribution(), sortedDistribution(all); got != want {
			t.Fatalf("got %+v, want %+v", got, want)
		}
	})
}

// A tally ends with the map countName alone would have made, whatever the
// order of names and however many there are (past maxNames, "(other)").
func TestTallyCountsAsCountName(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, distinct := range []int{1, 3, maxNames - 1, maxNames + 40} {
		want, got := map[string]int{}, map[string]int{}
		tl := tally{m: got}
		for i := 0; i < 20_000; i++ {
			name := "n" + strconv.Itoa(rng.Intn(distinct))
			if rng.Intn(3) > 0 {
				name = []string{"agent", "chat", ""}[rng.Intn(3)] // repeated names, the empty one too
			}
			countName(want, name)
			tl.add(name)
		}
		tl.flush()
		if !maps.Equal(got, want) {
			t.Fatalf("%d names: the tally's map differs from countName's (%d and %d names)", distinct, len(got), len(want))
		}
	}
}

// A usage object's counts are read as the names say, whichever spelling,
// the first spelling that holds a count winning, a repeated name's last
// value counting, and the total summed when none is given.
func TestUsageNames(t *testing.T) {
	for _, c := range []struct {
		usage        string
		in, out, tot int64
		has          bool
	}{
		{`{"input":3,"output":4}`, 3, 4, 7, true},
		{`{"promptTokens":3,"completionTokens":4,"total_tokens":10}`, 3, 4, 10, true},
		{`{"input_tokens":2,"inputTokens":5,"output_tokens":1}`, 5, 1, 6, true},
		{`{"input":"3","inputTokens":-1,"input_tokens":1e15,"promptTokens":8}`, 8, 0, 8, true},
		{`{"total":9,"totalTokens":"x","input":1,"input":2}`, 2, 0, 9, true},
		{`{"inputTokens": 4 , "outputTokens":2.5}`, 4, 2, 6, true},
		{`{"cost":1,"tokens":5}`, 0, 0, 0, false},
		{`[{"input":1}]`, 0, 0, 0, false},
		{`{"input":1,`, 1, 0, 1, true}, // what was read before the break counts, as jsonx.Get would read it
	} {
		var r run
		r.usage([]byte(c.usage))
		if r.hasUsage != c.has || r.usageIn != c.in || r.usageOut != c.out || r.usageTotal != c.tot {
			t.Errorf("%s: has %v in %d out %d total %d, want %v %d %d %d", c.usage, r.hasUsage, r.usageIn, r.usageOut, r.usageTotal, c.has, c.in, c.out, c.tot)
		}
	}
}

package report

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
)

// A report whose runs wait in the spool (all but one or three of them on
// the heap, every id hash colliding) writes the same bytes as one that
// holds them all.
func TestRunsLetGoComeBackTheSame(t *testing.T) {
	data := large(t, 30_000)
	write := func(maxLive int, weakHash bool, maxBytes int, trace bool) ([]byte, int) {
		r, err := capture.NewReader(bytes.NewReader(data), capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := NewBuilder(Options{Name: "large", MaxBytes: maxBytes, NoBodies: trace})
		b.rep.runs.max = maxLive
		if weakHash {
			b.rep.runs.hash = func(id string) uint64 { return uint64(len(id) % 3) }
		}
		rep := runBuilder(t, b, r, "")
		var out bytes.Buffer
		write := WriteHTML
		if trace {
			write = WriteTrace
		}
		if err := write(&out, rep); err != nil {
			t.Fatal(err)
		}
		if err := rep.Err(); err != nil {
			t.Fatal(err)
		}
		if maxLive < 3 && rep.runs.back == 0 {
			t.Errorf("max %d: no run came back from the spool", maxLive)
		}
		return out.Bytes(), rep.runs.len() - rep.runs.nlive
	}
	for _, c := range []struct {
		maxBytes int
		trace    bool
	}{{0, false}, {MinMaxBytes, false}, {0, true}} {
		t.Run(fmt.Sprint(c.maxBytes, c.trace), func(t *testing.T) {
			want, spilled := write(maxLiveRuns, false, c.maxBytes, c.trace)
			if spilled != 0 {
				t.Fatalf("%d runs left the heap: the capture should have fewer than %d", spilled, maxLiveRuns)
			}
			for _, maxLive := range []int{1, 3} {
				for _, weak := range []bool{false, true} {
					got, spilled := write(maxLive, weak, c.maxBytes, c.trace)
					if spilled < 100 {
						t.Fatalf("max %d: only %d runs left the heap", maxLive, spilled)
					}
					if !bytes.Equal(got, want) {
						t.Errorf("max %d, weak hash %v: the output differs from the one with every run on the heap", maxLive, weak)
					}
				}
			}
		})
	}
}

// Every field of a run goes to the spool and comes back.
func TestRunEncodingRoundTrips(t *testing.T) {
	r := Run{ID: "run-é", Lane: 3, Track: 1, Start: -5, End: 1 << 40, Last: 7, FirstI: 1, LastI: 1 << 33, TermI: -1,
		Terminal: TermLifecycleError, Terminals: 2, Frames: 1 << 30, AgentDeltas: 4, ChatDeltas: 5, Tools: 6, Approvals: 7, Late: -1,
		TranscriptElided: 9, conns: []connTerm{{1, 2}, {3, 0}},
		transcript: []spooledLine{{Kind: "assistant", T: 4, Via: "history", text: spooledText{at: span{off: 1 << 35, n: 12}, n: 10}}},
		output:     []spooledText{{at: span{off: 3, n: 4}, n: 2}, {}}, hasOutput: true, hasLife: true, laneFixed: true}
	for _, flags := range [][4]bool{{true, true, true, true}, {false, true, false, true}, {true, false, true, false}} {
		r.hasOutput, r.hasChat, r.hasLife, r.laneFixed = flags[0], flags[1], flags[2], flags[3]
		var got Run
		d := runDecoder{b: appendRun(nil, &r)}
		d.run(&got)
		if d.bad || fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", r) {
			t.Fatalf("round trip (bad %v):\n got %+v\nwant %+v", d.bad, got, r)
		}
	}
}

// A run's bytes with anything after them, or cut short, are not a run.
func TestRunDecoderRefusesTrailingBytes(t *testing.T) {
	whole := appendRun(nil, &Run{ID: "x", transcript: []spooledLine{{Kind: "assistant"}}})
	for _, b := range [][]byte{append(whole, 0), whole[:len(whole)-1]} {
		var got Run
		d := runDecoder{b: b}
		if d.run(&got); !d.bad {
			t.Errorf("%d bytes (a run takes %d) decoded as a run: %+v", len(b), len(whole), got)
		}
	}
}

// Bytes that are not a run are reported, never a panic or a huge
// allocation.
func FuzzRunDecoder(f *testing.F) {
	f.Add(appendRun(nil, &Run{ID: "r", conns: []connTerm{{1, 1}}, output: []spooledText{{}}}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Run
		d := runDecoder{b: b}
		d.run(&r)
		if !d.bad {
			if again := appendRun(nil, &r); !bytes.Equal(again, b) && len(again) > len(b) {
				t.Fatalf("a run decoded from %d bytes encodes to %d", len(b), len(again))
			}
		}
	})
}

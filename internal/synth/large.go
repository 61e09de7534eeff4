package synth

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/clawtap/clawtap/pkg/capture"
)

// Large writes a big, realistic capture to w for benchmarks: a header,
// then exactly frames frame records (requests, responses and events) plus
// the connection markers. It does not close w.
//
// The mix is dominated by agent assistant + chat delta pairs (frames
// average about 500 bytes), with run startup phases, lifecycle, tool calls,
// exec approvals, aborts and failures, from many runs of three agents
// interleaved frame by frame, plus tick, health, presence and heartbeat
// events, and a gateway restart (shutdown, close 1012, reconnect with a
// new boot id) every 250,000 frames or so. Memory stays bounded however
// many frames are asked for. The same seed gives the same bytes.
func Large(w *capture.Writer, frames int, seed int64) error {
	h := NewHeader(fmt.Sprintf("synthetic load for benchmarks: %d frames, seed %d", frames, seed))
	if err := w.WriteHeader(h); err != nil {
		return err
	}
	return LargeEach(frames, seed, w.Write)
}

// LargeJSONL is Large's capture as plain JSON Lines in memory, for tests
// that read a long session.
func LargeJSONL(frames int, seed int64) ([]byte, error) {
	var buf bytes.Buffer
	w, err := capture.NewWriter(&buf, false)
	if err != nil {
		return nil, err
	}
	if err := Large(w, frames, seed); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// LargeEach generates Large's records (without the header) and hands each
// to fn. The record and its Frame are only valid during the call. An error
// from fn stops generation and is returned.
func LargeEach(frames int, seed int64, fn func(*capture.Record) error) error {
	if frames <= 0 {
		return nil
	}
	g := &largeGen{target: frames, fn: fn}
	g.s = NewStream(seed, g.sink)
	g.run()
	if err := g.s.Err(); err != nil && !errors.Is(err, ErrStop) {
		return err
	}
	if g.err != nil {
		return g.err
	}
	// The recorder stops: its connection closes normally.
	if g.c != nil && g.c.open {
		rec := capture.Record{T: g.s.t + 1, Conn: g.c.N, Mark: capture.MarkClose, Code: 1000, Reason: "recorder stopped"}
		return fn(&rec)
	}
	return nil
}

const largeRestartEvery = 250_000

type largeGen struct {
	s      *Session
	c      *Conn
	fn     func(*capture.Record) error
	err    error
	n      int
	target int

	active   []*largeRun
	busy     [len(largeAgents)]bool
	restartN int

	nextTick, nextHealth, nextPresence, nextHeartbeat int64
	joined                                            int
}

type largeRun struct {
	r      *Run
	agent  int
	stage  int
	left   int
	tools  int
	asked  bool
	ending int // 0 finish, 1 abort, 2 fail
}

var largeAgents = [...]string{"main", "ops", "research"}

var largeSessions = [...]string{":main", ":main", ":telegram:group:-1001234567890:topic:7", ":cron:daily-digest"}

var largePrompts = [...]string{
	"Summarize the open issues.", "What changed since yesterday?", "Draft a reply to the last email.",
	"List the files in the workspace (TOOL)", "Explain the failing test.", "Plan the release checklist.",
	"Check the disk usage on the build host.", "Translate the changelog into French.",
}

// largeChunks are the pieces of reply text runs stream, built once.
var largeChunks = func() []string {
	words := strings.Fields(`the gateway streams agent events and chat deltas to every operator
connection while the run is live so a client can render the reply as it grows and then settle it
when the final arrives with the full message usage and stop reason tool calls show up as items
with a start and an end and the sender also sees arguments and results approvals wait for an
operator before the command runs heartbeats and presence keep the summary fresh and ticks arrive
every thirty seconds on one global timer a slow consumer may lose droppable frames and see a gap
in the frame sequence which it should report rather than hide replay must keep connection
boundaries because each hello restarts the count at one`)
	out := make([]string, 0, 512)
	st := uint64(0x5EED)
	for len(out) < cap(out) {
		n := 1 + int(splitmix(&st)%3)
		var b strings.Builder
		for k := 0; k < n; k++ {
			b.WriteByte(' ')
			b.WriteString(words[splitmix(&st)%uint64(len(words))])
		}
		if splitmix(&st)%9 == 0 {
			b.WriteString(".")
		}
		if splitmix(&st)%40 == 0 {
			b.WriteString("\n\n")
		}
		out = append(out, b.String())
	}
	return out
}()

func (g *largeGen) sink(rec *capture.Record) error {
	if rec.Frame != nil {
		if g.n >= g.target {
			return ErrStop
		}
		g.n++
	}
	if err := g.fn(rec); err != nil {
		g.err = err
		return err
	}
	if g.n >= g.target {
		return ErrStop
	}
	return nil
}

func (g *largeGen) open() {
	g.c = g.s.Open(ConnOptions{Caps: []string{"tool-events", "approvals"}})
}

func (g *largeGen) run() {
	s := g.s
	g.open()
	g.nextTick = s.t + 7_000
	g.nextHealth = s.t + 900
	g.nextPresence = s.t + 20_000
	g.nextHeartbeat = s.t + 12_000
	g.restartN = largeRestartEvery
	for s.err == nil {
		switch {
		case s.t >= g.nextTick:
			s.Tick()
			g.nextTick += 30_000
		case s.t >= g.nextHealth:
			s.Health()
			g.nextHealth += 60_000
		case s.t >= g.nextPresence:
			// A small burst of ui clients coming and going.
			for k := s.Between(1, 4); k > 0; k-- {
				if g.joined > 0 && s.Intn(2) == 0 {
					s.ClientLeft()
					g.joined--
				} else if g.joined < 4 {
					s.ClientJoined()
					g.joined++
				}
				s.Advance(s.Between(40, 300))
			}
			g.nextPresence = s.t + s.Between(20_000, 90_000)
		case s.t >= g.nextHeartbeat:
			s.Heartbeat([...]string{"ok-empty", "ok-token", "sent", "skipped"}[s.Intn(4)])
			g.nextHeartbeat = s.t + s.Between(15_000, 60_000)
		}
		if g.n >= g.restartN && len(g.active) == 0 {
			s.Advance(s.Between(300, 900))
			s.Shutdown()
			g.joined = 0
			s.Advance(s.Between(11_000, 16_000))
			g.open()
			g.restartN = g.n + largeRestartEvery
			continue
		}
		if g.n < g.restartN {
			for len(g.active) < 2+s.Intn(2) && g.startRun() {
			}
		}
		if len(g.active) > 0 {
			i := s.Intn(len(g.active))
			if g.step(g.active[i]) {
				g.busy[g.active[i].agent] = false
				g.active = append(g.active[:i], g.active[i+1:]...)
			}
		}
		s.Advance(s.Between(4, 45))
	}
}

// startRun starts a run on an idle agent; false if all are busy.
func (g *largeGen) startRun() bool {
	s := g.s
	a := s.Intn(len(largeAgents))
	for k := 0; k < len(largeAgents) && g.busy[a]; k++ {
		a = (a + 1) % len(largeAgents)
	}
	if g.busy[a] {
		return false
	}
	g.busy[a] = true
	key := "agent:" + largeAgents[a] + largeSessions[s.Intn(len(largeSessions))]
	var r *Run
	if s.Intn(2) == 0 {
		r = g.c.ChatSend(key, largePrompts[s.Intn(len(largePrompts))])
	} else {
		r = s.StartRun(key)
	}
	lr := &largeRun{r: r, agent: a, left: int(s.Between(20, 56))}
	switch x := s.Intn(100); {
	case x < 4:
		lr.ending = 1
	case x < 7:
		lr.ending = 2
	}
	g.active = append(g.active, lr)
	return true
}

// step advances a run by one step and reports whether it ended.
func (g *largeGen) step(lr *largeRun) bool {
	s, r := g.s, lr.r
	switch lr.stage {
	case 0:
		r.Prepare()
		lr.stage = 1
		return false
	case 1:
		if lr.left > 0 {
			lr.left--
			chunk := largeChunks[s.Intn(len(largeChunks))]
			switch x := s.Intn(1000); {
			case x < 12 && lr.tools < 3:
				lr.tools++
				r.Tool("ls", "Ls .", []byte(`{"path":"."}`), "AGENTS.md\nREADME.md\ngo.mod\nmain.go\n", x < 1)
			case x < 14 && !lr.asked:
				lr.asked = true
				a := r.RequestApproval("make clean")
				s.Advance(s.Between(800, 4000))
				by := g.c
				if r.Sender != g.c {
					by = nil
				}
				dec := "allow-once"
				if x == 13 {
					dec = "deny"
				}
				a.Resolve(by, dec, "operator", "rm -rf build/\n")
			case x < 20:
				r.Think(chunk)
			case x < 80:
				r.SayAgentOnly(chunk)
			case x < 120:
				r.Skip(1)
				r.Say(chunk)
			case x < 150:
				r.SayChatFirst(chunk)
			default:
				r.Say(chunk)
			}
			return false
		}
		switch lr.ending {
		case 1:
			by := g.c
			if r.Sender != g.c {
				by = nil
			}
			r.Abort(by)
		case 2:
			r.Fail("provider returned 500: internal error", "unknown")
		default:
			r.Finish()
		}
		return true
	}
	return true
}

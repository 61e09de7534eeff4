package serve

import (
	"errors"
	"io"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// ItemKind says what a timeline item is.
type ItemKind uint8

const (
	// ItemFrame is a recorded gateway→client event frame (or a non-JSON
	// message), streamed to every client.
	ItemFrame ItemKind = iota
	// ItemSend marks where a client sent chat.send in the capture. With
	// --on-send next-run the stream waits there for the client's chat.send.
	ItemSend
	// ItemSendResponse is a recorded response to the chat.send of the
	// ItemSend numbered Send. It is streamed only with --on-send next-run,
	// re-addressed to the client's chat.send id.
	ItemSendResponse
)

// Item is one step of the timeline a client is served. Frame is only
// valid until the timeline's next call.
type Item struct {
	Kind  ItemKind
	Index int   // the record's index in the capture
	T     int64 // recorded time, unix ms (0 when unknown)
	Frame []byte
	Text  bool // a non-JSON message, sent as recorded

	// Seq is the recorded frame seq; SeqAt is the span of its value in
	// Frame, so it can be rewritten in place.
	Seq    int64
	HasSeq bool
	SeqAt  span

	Send int // the chat.send number, for ItemSend and ItemSendResponse
	// RunID is the recorded run's id: for ItemSend the chat.send's
	// idempotencyKey, for ItemSendResponse the runId the response names.
	RunID string
}

// timeline reads one connection's items from its own reader of the
// capture, as the stream plays them: memory holds one record at a time.
//
// It is the connection's gateway→client frames in capture order (not the
// recorded challenge, hello-ok or responses) up to the connection's end
// marker; with runs also the chat.send requests of any connection inside
// its life, as run boundaries, and the responses to them. A boundary or a
// response with nothing of the connection after it is left out, so a
// stream never waits for a run it does not hold; the pre-pass says
// whether something follows.
type timeline struct {
	s    *Script
	r    *capture.Reader
	runs bool

	started bool           // the connection's first record is behind
	sends   map[reqKey]int // the boundaries so far: chat.send id → number
	nsend   int
	noMore  bool // no boundary is left: the pre-pass saw the last item
	last    int  // the connection's last item, once lastKnown
	known   bool
	seen    int // records read, to ask the pre-pass now and then
	it      Item
}

// openTimeline starts a timeline at the beginning of the capture, or, when
// from is not nil, where that reader is: anywhere before the connection's
// first record (where a client's previous connection ended, with
// --reconnects), which saves reading the capture again up to there.
func (s *Script) openTimeline(runs bool, from *capture.Reader) (*timeline, error) {
	if s.c == nil {
		return nil, errors.New("script has no capture")
	}
	r := from
	if r == nil {
		var err error
		if r, err = s.c.src.reader(nil); err != nil {
			return nil, err
		}
	}
	return &timeline{s: s, r: r, runs: runs, sends: map[reqKey]int{}}, nil
}

func (tl *timeline) close() {
	if tl.r != nil {
		tl.r.Close()
	}
}

// detach hands the reader over, positioned after the connection's end (or
// its last item), and leaves the timeline without one.
func (tl *timeline) detach() *capture.Reader {
	r := tl.r
	tl.r = nil
	return r
}

// next returns the next item, or io.EOF at the end of the connection.
func (tl *timeline) next() (*Item, error) {
	x, f := tl.s.c.x, tl.s.f
	for {
		rec, err := tl.r.Next()
		if err != nil {
			return nil, io.EOF // the reader has said why, as a warning
		}
		if rec.Malformed {
			continue
		}
		if !tl.started {
			if rec.Conn != f.conn {
				continue
			}
			tl.started = true
		}
		if !tl.known {
			if tl.seen++; tl.seen%512 == 1 {
				tl.last, tl.known = x.lastItem(f)
			}
		}
		if tl.known && rec.Index > tl.last {
			return nil, io.EOF // nothing of the connection is left to play
		}
		if rec.Conn == f.conn && (rec.Mark == capture.MarkClose || rec.Mark == capture.MarkError) {
			return nil, io.EOF
		}
		if rec.Mark != "" {
			continue
		}
		if it := tl.item(rec); it != nil {
			return it, nil
		}
	}
}

// item turns a record into an item, or nil when it is not one.
func (tl *timeline) item(rec *capture.Record) *Item {
	f := tl.s.f
	own := rec.Conn == f.conn
	if !own && !tl.runs {
		return nil // only the run boundaries come from other connections
	}
	it := &tl.it
	*it = Item{Index: rec.Index, T: rec.T}
	if rec.IsRaw {
		if !own || rec.Dir == capture.DirOut {
			return nil
		}
		it.Frame, it.Text = rec.Raw, true
		return it
	}
	if rec.Frame == nil {
		return nil
	}
	frame := jsonx.TrimSpace(rec.Frame)
	h := readHead(frame)
	switch h.typ {
	case frameReq:
		if !tl.runs || rec.Dir == capture.DirIn || !strIs(h.method, "chat.send") || tl.noMore {
			return nil
		}
		id := h.id()
		if id == "" {
			return nil
		}
		if !tl.s.c.x.itemAfter(f, rec.Index) {
			tl.noMore = true // and so for every later boundary
			return nil
		}
		params, _ := jsonx.Get(frame, "params")
		it.Kind, it.Send = ItemSend, tl.nsend
		it.RunID, _ = jsonx.GetStr(params, "idempotencyKey") // the gateway's runId
		tl.remember(reqKey{rec.Conn, id})
		return it
	case frameRes:
		if !tl.runs || rec.Dir == capture.DirOut {
			return nil
		}
		n, ok := tl.sends[reqKey{rec.Conn, h.id()}]
		if !ok || !own && !tl.s.c.x.itemAfter(f, rec.Index) {
			return nil
		}
		it.Kind, it.Send, it.Frame = ItemSendResponse, n, frame
		// The response names the run; it wins over the key sent.
		if v, ok := jsonx.GetPath(frame, "payload", "runId"); ok && jsonx.KindOf(v) == jsonx.String {
			it.RunID, _ = jsonx.Str(v)
		}
		return it
	}
	// Events, and frames of no known type the gateway sent.
	if !own || rec.Dir == capture.DirOut || h.typ == frameEvent && strIs(h.event, "connect.challenge") {
		return nil
	}
	it.Frame = frame
	it.Seq, it.HasSeq, it.SeqAt = h.seq, h.hasSeq, h.seqAt
	return it
}

// remember numbers a boundary. The map stays bounded: a boundary whose
// answer has not come after thousands of others never gets one.
func (tl *timeline) remember(k reqKey) {
	if len(tl.sends) >= maxPendingRequests {
		for old, n := range tl.sends {
			if n < tl.nsend-maxPendingRequests/2 {
				delete(tl.sends, old)
			}
		}
	}
	tl.sends[k] = tl.nsend
	tl.nsend++
}

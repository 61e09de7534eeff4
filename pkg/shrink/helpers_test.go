package shrink

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
)

// load reads a capture into memory, every record cloned.
func load(t testing.TB, path string) (*capture.Header, []capture.Record) {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return readAll(t, r)
}

func readAll(t testing.TB, r *capture.Reader) (*capture.Header, []capture.Record) {
	t.Helper()
	var recs []capture.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, *rec.Clone())
	}
	return r.Header(), recs
}

// fixture is the path of a bundled fixture.
func fixture(name string) string { return filepath.Join("..", "..", "fixtures", name) }

// encode writes a capture as the CLI does and reads it back, so a test
// sees what a user's file holds. Any reader warning is an error: the
// written capture must be valid.
func encode(h capture.Header, recs []capture.Record) (*capture.Header, []capture.Record, []byte, error) {
	var buf bytes.Buffer
	w, err := capture.NewWriter(&buf, false)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := w.WriteHeader(h); err != nil {
		return nil, nil, nil, err
	}
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			return nil, nil, nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, nil, nil, err
	}
	data := bytes.Clone(buf.Bytes())
	var warns []capture.Warning
	r, err := capture.NewReader(&buf, capture.Options{OnWarning: func(w capture.Warning) { warns = append(warns, w) }})
	if err != nil {
		return nil, nil, nil, err
	}
	var got []capture.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, nil, err
		}
		got = append(got, *rec.Clone())
	}
	if len(warns) > 0 {
		return nil, nil, nil, fmt.Errorf("the written capture reads with warnings: %v", warns)
	}
	return r.Header(), got, data, nil
}

// findings runs check (the rule alone, under ui) over recs as one pass
// and returns what it found.
func findings(h *capture.Header, recs []capture.Record, rule string, ui replay.UI) ([]check.Finding, error) {
	an, err := check.New(check.Options{Only: []string{rule}})
	if err != nil {
		return nil, err
	}
	var out []check.Finding
	an.OnFinding = func(f *check.Finding) error { out = append(out, *f); return nil }
	err = pipeline.New(pipeline.Options{Replay: replay.Options{UI: ui}}, an).Run(pipeline.Slice(h, recs))
	return out, err
}

// replays runs the records through the replay engine, as clawtap replay
// does, and returns its first error.
func replays(recs []capture.Record, ui replay.UI) error {
	if ui.IsZero() {
		ui = models.Default()
	}
	e := replay.New(replay.Options{UI: ui})
	for i := range recs {
		rec := recs[i]
		rec.Index = i
		if err := e.Record(&rec, func(*replay.Step) error { return nil }); err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
	}
	return e.Finish(func(*replay.Step) error { return nil })
}

// coherent checks the kept records (indices of recs, increasing) the way
// a reader of the protocol would, independently of the plan: every kept
// connection keeps its whole handshake, and keeps something besides its
// markers and handshake unless the input connection had nothing else.
func coherent(recs []capture.Record, kept []int) error {
	if !slices.IsSorted(kept) || len(slices.Compact(slices.Clone(kept))) != len(kept) {
		return fmt.Errorf("kept indices are not increasing: %v", kept)
	}
	handshake := make([]bool, len(recs))
	connectIDs := map[[2]string]bool{}
	for i, rec := range recs {
		handshake[i] = isHandshake(rec, connectIDs)
	}
	in := slices.Contains[[]int, int]
	type conn struct{ has, hasBody, keptAny, keptBody bool }
	conns := map[int]*conn{}
	for i, rec := range recs {
		c := conns[rec.Conn]
		if c == nil {
			c = &conn{}
			conns[rec.Conn] = c
		}
		body := !handshake[i] && rec.Mark == ""
		c.hasBody = c.hasBody || body
		if in(kept, i) {
			c.keptAny = true
			c.keptBody = c.keptBody || body
		}
	}
	for i, rec := range recs {
		if c := conns[rec.Conn]; c.keptAny && handshake[i] && !in(kept, i) {
			return fmt.Errorf("connection %d is kept without its handshake record %d", rec.Conn, i)
		}
	}
	for n, c := range conns {
		if c.keptAny && c.hasBody && !c.keptBody {
			return fmt.Errorf("connection %d is kept with nothing but markers and handshake", n)
		}
	}
	return nil
}

// isHandshake: an open or hello marker, the challenge, a connect request
// or its response (by id on the connection, or a hello-ok payload).
func isHandshake(rec capture.Record, connectIDs map[[2]string]bool) bool {
	if rec.Mark == capture.MarkOpen || rec.Mark == capture.MarkHello {
		return true
	}
	if rec.Frame == nil {
		return false
	}
	var f struct {
		Type, Event, ID, Method string
		Payload                 json.RawMessage
	}
	if json.Unmarshal(rec.Frame, &f) != nil {
		return false
	}
	key := [2]string{fmt.Sprint(rec.Conn), f.ID}
	switch f.Type {
	case "event":
		return f.Event == "connect.challenge"
	case "req":
		connectIDs[key] = f.Method == "connect"
		return connectIDs[key]
	case "res":
		var p struct{ Type string }
		_ = json.Unmarshal(f.Payload, &p)
		return connectIDs[key] || p.Type == "hello-ok"
	}
	return false
}

// testTime dates the headers tests make.
var testTime = time.Unix(1795317835, 0)

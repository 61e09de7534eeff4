package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/policy"
	"github.com/spf13/cobra"
)

func (a *app) intentsCmd() *cobra.Command {
	var skipIgnore bool
	var f filter
	cmd := &cobra.Command{
		Use:   "intents [FILE|-]",
		Short: "Derive the intents a UI would act on (the Policy stage)",
		Long: `intents runs each record through the Bridge and the Policy and prints one
line per intent: {"i":..,"t":..,"seq":..,"intent":{<EventIntent>}}. The intent
objects use the reference pipeline's EventIntent names and shapes; in a patch,
null means "clear this field" and a missing key means "leave it alone".

The input is a capture, or the NDJSON that 'clawtap classify' prints, so the
two compose with jq. A classified line needs only "kind"; "event", "agentId",
"sessionKey", "timestamp" and "payload" are used as given.`,
		Example: `  clawtap intents fixtures/demo.jsonl.zst
  clawtap intents --skip-ignore cap.jsonl.zst | jq -c .intent
  clawtap classify cap.jsonl.zst | jq -c 'select(.agentId=="main")' | clawtap intents -
  echo '{"kind":"summary-refresh","event":"heartbeat"}' | clawtap intents -`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.validate(); err != nil {
				return err
			}
			path := inputArg(args)
			if err := a.checkStdin(path); err != nil {
				return err
			}
			return a.runIntents(path, skipIgnore, &f)
		},
	}
	cmd.Flags().BoolVar(&skipIgnore, "skip-ignore", false, "hide ignore intents")
	f.register(cmd)
	return cmd
}

// eventSource yields classified events from a capture or from classify output.
type eventSource interface {
	next() (ev bridge.Event, m bridge.Meta, err error)
	finish(a *app, path string)
}

func (a *app) runIntents(path string, skipIgnore bool, f *filter) error {
	src, closeSrc, err := a.openEvents(path)
	if err != nil {
		return err
	}
	defer closeSrc()
	w, flush := a.out()
	var pol policy.Deriver
	var intents []policy.Intent
	var buf []byte
	for {
		ev, m, err := src.next()
		if err != nil {
			break
		}
		if !f.match(&ev) {
			continue
		}
		intents = pol.Append(intents[:0], &ev)
		for i := range intents {
			in := &intents[i]
			if skipIgnore && in.Kind == policy.Ignore {
				continue
			}
			buf = append(buf[:0], `{"i":`...)
			buf = jsonx.AppendInt(buf, int64(m.I))
			buf = append(buf, `,"t":`...)
			buf = jsonx.AppendInt(buf, m.T)
			if ev.HasSeq {
				buf = append(buf, `,"seq":`...)
				buf = jsonx.AppendInt(buf, ev.Seq)
			}
			buf = append(buf, `,"intent":`...)
			buf = in.AppendJSON(buf)
			buf = append(buf, '}', '\n')
			if _, err := w.Write(buf); err != nil {
				return flushErr(flush, err)
			}
		}
	}
	src.finish(a, path)
	return flush()
}

// openEvents opens path as a capture, or as classify NDJSON when its first
// line is a classified event.
func (a *app) openEvents(path string) (eventSource, func(), error) {
	var in io.Reader = a.stdin
	closeFn := func() {}
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, inputError(path, err)
		}
		in, closeFn = f, func() { f.Close() }
	}
	plain, release, err := capture.Decompress(in)
	if err != nil {
		closeFn()
		return nil, nil, inputError(path, err)
	}
	prev := closeFn
	closeFn = func() { release(); prev() }
	br := bufio.NewReaderSize(plain, 1<<16)
	if isClassifiedStream(br) {
		return &classifiedSource{br: br}, closeFn, nil
	}
	opts := capture.Options{OnWarning: func(w capture.Warning) { a.warnf("%s: %s", displayName(path), w) }}
	r, err := capture.NewReader(br, opts)
	r, err = opened(path, r, err)
	if err != nil {
		closeFn()
		return nil, nil, err
	}
	return &captureSource{r: r, cl: bridge.NewClassifier()}, closeFn, nil
}

// isClassifiedStream peeks at the first non-blank line: a JSON object with a
// "kind" and none of a capture's or a frame's keys.
func isClassifiedStream(br *bufio.Reader) bool {
	for n := 4096; ; n *= 4 {
		peek, err := br.Peek(n)
		line := peek
		if i := bytes.IndexByte(peek, '\n'); i >= 0 {
			line = peek[:i]
		} else if err == nil && n < 1<<24 {
			continue // the first line is longer than the peek; look further
		}
		line = jsonx.TrimSpace(line)
		if len(line) == 0 && len(peek) > 0 {
			// Skip leading blank lines by looking past them.
			trimmed := jsonx.TrimSpace(peek)
			if i := bytes.IndexByte(trimmed, '\n'); i >= 0 {
				line = trimmed[:i]
			} else {
				line = trimmed
			}
		}
		if jsonx.KindOf(line) != jsonx.Object {
			return false
		}
		var kind, other bool
		_ = jsonx.ObjectEach(line, func(k, v []byte) bool {
			switch string(k) {
			case "kind":
				kind = true
			case "clawtap", "frame", "mark", "raw", "type":
				other = true
			}
			return true
		})
		return kind && !other
	}
}

type captureSource struct {
	r  *capture.Reader
	cl *bridge.Classifier
}

func (s *captureSource) next() (bridge.Event, bridge.Meta, error) {
	rec, err := s.r.Next()
	if err != nil {
		return bridge.Event{}, bridge.Meta{}, err
	}
	return s.cl.Record(rec), bridge.Meta{I: rec.Index, T: rec.T, Conn: rec.Conn, Dir: rec.Dir}, nil
}

func (s *captureSource) finish(a *app, path string) { a.readSummary(path, s.r.Stats()) }

// classifiedSource reads classify's NDJSON (or hand-written lines).
type classifiedSource struct {
	br      *bufio.Reader
	line    int
	n       int
	bad     int
	scratch []byte
}

func (s *classifiedSource) next() (bridge.Event, bridge.Meta, error) {
	for {
		line, err := s.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			s.scratch = append(s.scratch[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = s.br.ReadSlice('\n')
				s.scratch = append(s.scratch, line...)
			}
			line = s.scratch
		}
		if len(line) == 0 && err != nil {
			return bridge.Event{}, bridge.Meta{}, io.EOF
		}
		s.line++
		line = jsonx.TrimSpace(line)
		if len(line) == 0 {
			if err != nil {
				return bridge.Event{}, bridge.Meta{}, io.EOF
			}
			continue
		}
		ev, m, hasI, _, perr := bridge.ParseJSON(line)
		if perr != nil {
			s.bad++
			ev = bridge.Event{Kind: bridge.Invalid, Reason: fmt.Sprintf("line %d: %v", s.line, perr)}
			m = bridge.Meta{I: s.n}
		} else if !hasI {
			m.I = s.n
		}
		s.n++
		return ev, m, nil
	}
}

func (s *classifiedSource) finish(a *app, path string) {
	if s.bad > 0 {
		a.warnf("%s: %d line(s) were not classified events; each became an ignore intent", displayName(path), s.bad)
	}
}

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/spf13/cobra"
)

func (a *app) intentsCmd() *cobra.Command {
	var out outFlags
	var skipIgnore bool
	var width int
	var f filter
	cmd := &cobra.Command{
		Use:   "intents [FILE|-]",
		Short: "Derive the intents a UI would act on (the Policy stage)",
		Long: `intents runs each record through the Bridge and the Policy and prints the
intents a UI derives from it. In json (the default when piped) each line is
{"i":..,"t":..,"seq":..,"intent":{<EventIntent>}}: the intent objects use the
reference pipeline's EventIntent names and shapes; in a patch, null means
"clear this field" and a missing key means "leave it alone". text is a line
per intent, table a row per intent (the default on a terminal).

The input is a capture, or the NDJSON that 'clawtap classify' prints, so the
two compose with jq. A classified line needs only "kind"; "event", "agentId",
"sessionKey", "timestamp" and "payload" are used as given.`,
		Example: `  clawtap intents fixtures/demo.jsonl.zst
  clawtap intents --skip-ignore --format json fixtures/streamed-run.jsonl.zst | jq -c .intent
  clawtap classify fixtures/demo.jsonl.zst | jq -c 'select(.agentId=="main")' | clawtap intents -
  echo '{"kind":"summary-refresh","event":"heartbeat"}' | clawtap intents -`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: captureArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.validate(); err != nil {
				return err
			}
			path := inputArg(args)
			if err := a.checkStdin(cmd, path); err != nil {
				return err
			}
			src, closeSrc, err := a.openEvents(path)
			if err != nil {
				return err
			}
			defer closeSrc()
			s, err := a.openSink(cmd, &out)
			if err != nil {
				return err
			}
			p := &output.Intents{W: s, Format: s.format, Style: s.style, Width: width, Match: f.match, SkipIgnore: skipIgnore}
			err = readErr(path, pipeline.New(pipeline.Options{}, p).Run(src))
			src.finish(a, path)
			return s.close(err)
		},
	}
	a.printFlags(cmd, &out, output.Table)
	cmd.Flags().BoolVar(&skipIgnore, "skip-ignore", false, "hide ignore intents")
	cmd.Flags().IntVar(&width, "width", 120, "clip text and table lines to about this many characters")
	f.register(cmd)
	return cmd
}

// eventSource yields records, classified already when the input is
// classify output.
type eventSource interface {
	pipeline.Source
	finish(a *app, path string)
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
	br := bufio.NewReaderSize(plain, 1<<16)
	if isClassifiedStream(br) {
		prev := closeFn
		return &classifiedSource{br: br}, func() { release(); prev() }, nil
	}
	// The reader reads ahead from the decoder: it frees it when done.
	opts := capture.Options{OnWarning: func(w capture.Warning) { a.warnf("%s: %s", displayName(path), w) }, Release: release}
	r, err := capture.NewReader(br, opts)
	r, err = opened(path, r, err)
	if err != nil {
		closeFn()
		return nil, nil, err
	}
	prev := closeFn
	return captureSource{pipeline.Records(r)}, func() { r.Close(); prev() }, nil
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

// captureSource is a capture, read as every command reads one.
type captureSource struct{ pipeline.AheadSource }

func (s captureSource) finish(a *app, path string) { a.readSummary(path, s.Stats()) }

// classifiedSource reads classify's NDJSON (or hand-written lines).
type classifiedSource struct {
	br      *bufio.Reader
	line    int
	n       int
	bad     int
	scratch []byte
	ev      bridge.Event
	rec     capture.Record
}

func (s *classifiedSource) Header() *capture.Header { return nil }
func (s *classifiedSource) Stats() capture.Stats    { return capture.Stats{Records: s.n} }

// Next reads the next classified line as a record that carries its event.
func (s *classifiedSource) Next() (*capture.Record, *bridge.Event, error) {
	ev, m, err := s.next()
	if err != nil {
		return nil, nil, err
	}
	s.ev = ev
	s.rec = capture.Record{Index: m.I, T: m.T, Conn: m.Conn, Dir: m.Dir}
	return &s.rec, &s.ev, nil
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

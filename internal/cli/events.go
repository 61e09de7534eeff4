package cli

import (
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/pipeline"
)

// Events is an input of records for a pass: a capture, or the NDJSON that
// 'clawtap classify' prints, whose records come classified already.
type Events struct {
	pipeline.Source
	// Classified is set for classify's NDJSON.
	Classified bool

	path    string
	env     *Env
	release func()
}

// OpenEvents opens path ("-" is stdin, compressed or not) as a capture, or
// as classify NDJSON when its first line is a classified event.
func (e *Env) OpenEvents(path string) (*Events, error) {
	br, release, closeFn, err := e.openPlain(path)
	if err != nil {
		return nil, InputError(path, err)
	}
	ev := &Events{path: path, env: e}
	if pipeline.IsClassified(br) {
		ev.Source, ev.Classified = pipeline.NewClassified(br), true
		ev.release = func() { release(); closeFn() }
		return ev, nil
	}
	// The capture reader reads ahead from the decoder: it frees the decoder
	// itself when it is done (Release), and is closed before the file.
	opts := capture.Options{OnWarning: e.CaptureWarnings(DisplayName(path), nil), Release: release}
	r, err := capture.NewReader(br, opts)
	if r, err = Opened(path, r, err); err != nil {
		closeFn()
		return nil, err
	}
	e.RedactOnRead(path, r)
	ev.Source = pipeline.Records(r)
	ev.release = func() { r.Close(); closeFn() }
	return ev, nil
}

var _ pipeline.AheadSource = (*Events)(nil)

// ClassifyAhead forwards to a capture's source (pipeline.AheadSource), so
// that the pass has the records classified on the reader's stage; classify
// NDJSON comes classified already.
func (ev *Events) ClassifyAhead() {
	if a, ok := ev.Source.(pipeline.AheadSource); ok {
		a.ClassifyAhead()
	}
}

// Finish reports on stderr what the input stepped over, once, after the
// pass.
func (ev *Events) Finish() {
	if c, ok := ev.Source.(*pipeline.Classified); ok {
		if c.Bad() > 0 {
			ev.env.Warnf("%s: %d line(s) were not classified events; each became an ignore intent", DisplayName(ev.path), c.Bad())
		}
		return
	}
	ev.env.ReadSummary(ev.path, ev.Source.Stats())
}

// Close releases the input.
func (ev *Events) Close() { ev.release() }

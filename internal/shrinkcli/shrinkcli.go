// Package shrinkcli runs 'clawtap shrink': it reads the capture, shrinks
// it with pkg/shrink while reporting progress, writes the small capture
// through the safe writer and says what was kept.
package shrinkcli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/redact"
	"github.com/clawtap/clawtap/pkg/shrink"
)

// Config is a shrink as the command line asks for it, its flags checked.
type Config struct {
	In       string     // the capture; "-" is stdin
	Out      cli.Output // the small capture
	Target   shrink.Target
	MaxTests int
}

// Run shrinks c.In to c.Out.
func Run(env *cli.Env, c Config) error {
	in := cli.DisplayName(c.In)
	// The search takes a while: an output it could not write is refused first.
	if err := env.CheckOutput(c.Out); err != nil {
		return err
	}
	src := &input{env: env, path: c.In}
	defer src.close()
	h, recs, res, err := search(env, src, c)
	var ns *shrink.NotShownError
	var ce *cli.Error
	switch {
	case errors.As(err, &ce):
		return err
	case errors.As(err, &ns):
		ui := ""
		if !c.Target.UI.IsZero() {
			ui = " --ui " + c.Target.UI.String()
		}
		return cli.Usage("run 'clawtap check --rule "+c.Target.Rule+ui+" "+in+"' to see what it reports; shrink keeps a finding, it cannot make one",
			"%s does not show %s: %v", in, c.Target, err)
	case err != nil:
		return cli.Trouble(fmt.Errorf("shrink %s: %w", in, err), "")
	}
	if err := env.WriteCapture(c.Out, shrink.Header(h, recs, c.Target, res), res.Records(recs)); err != nil {
		return err
	}
	if res.Exhausted {
		env.Warnf("--max-tests %d reached: the capture written still shows %s, but a smaller one may exist", c.MaxTests, c.Target)
	}
	msg := fmt.Sprintf("shrink: %d → %d records (%s)", res.Total, len(res.Kept), human.Count(res.Tests, "test", "tests"))
	if c.Out.Path != "-" {
		msg += " → " + c.Out.Path
	}
	env.Infof("%s", msg)
	env.Infof("shrink: %s at record %d: %s", res.Finding.Rule, res.Finding.I, res.Finding.Message)
	return nil
}

// inMemory is the most frame bytes a capture may hold for shrink to
// search it whole; a larger one is searched in a window before its
// finding (shrink.Window) of at most as many bytes. Tests lower it.
var inMemory int64 = 8 << 20

// search shrinks the capture: read as a stream to find the finding, then
// whole when it is small, else in the shortest window that shows it.
func search(env *cli.Env, src *input, c Config) (*capture.Header, []capture.Record, *shrink.Result, error) {
	at, err := shrink.Locate(src.open, c.Target)
	if err != nil {
		return nil, nil, nil, cli.ReadErr(c.In, err)
	}
	opts := shrink.Options{
		MaxTests: c.MaxTests,
		Progress: func(p shrink.Progress) {
			env.Infof("shrink: by %s: %d records (%s)", strings.TrimSuffix(p.Stage, "s"), p.Kept, human.Count(p.Tests, "test", "tests"))
		},
	}
	if at.Bytes <= inMemory {
		h, recs, err := src.readAll()
		if err != nil {
			return nil, nil, nil, err
		}
		res, err := shrink.Shrink(h, recs, c.Target, opts)
		return h, recs, res, err
	}
	h, recs, anchorI, tests, err := shrink.Window(src.open, c.Target, at, inMemory)
	var ce *cli.Error
	if err != nil && !errors.As(err, &ce) {
		err = cli.InputError(c.In, err)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if recs != nil {
		env.Infof("shrink: %d records (%s of frames): searching a window of %d of them, up to record %d, %s's", at.Records, human.Bytes(at.Bytes), len(recs), at.Finding.I, c.Target.Rule)
	} else {
		env.Warnf("shrink: %s at record %d shows in no window of at most %s of records before it: reading all %d records into memory", c.Target.Rule, at.Finding.I, human.Bytes(inMemory), at.Records)
		if h, recs, err = src.readAll(); err != nil {
			return nil, nil, nil, err
		}
		anchorI = at.Finding.I
	}
	anchor := at.Finding
	anchor.I = anchorI
	opts.Anchor = &anchor
	opts.Tested = 1 + tests // the pass that located the finding, the windows tried
	res, err := shrink.Shrink(h, recs, c.Target, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	res.Total = at.Records
	return h, recs, res, nil
}

// input is the capture, opened as often as the search reads it: the
// first time with the reader's warnings, then quietly. Stdin is copied to
// a temporary file as it is first read; the file is removed from its
// directory at once (where the system allows it), so that the copy is
// gone with the process however it ends.
type input struct {
	env    *cli.Env
	path   string
	opened bool
	spool  *os.File // stdin's copy
	named  bool     // the copy could not be removed while open
}

func (in *input) open() (pipeline.Source, func(), error) {
	if !in.opened {
		in.opened = true
		if in.path == "-" {
			f, err := os.CreateTemp("", "clawtap-shrink-*.stdin") // 0600
			if err != nil {
				return nil, nil, cli.Trouble(fmt.Errorf("shrink: a copy of stdin: %w", err), "set TMPDIR to a writable directory")
			}
			in.spool, in.named = f, os.Remove(f.Name()) != nil
			stdin := in.env.Stdin
			in.env.Stdin = io.TeeReader(stdin, f)
			defer func() { in.env.Stdin = stdin }()
		}
		r, err := in.env.OpenCapture(in.path)
		if err != nil {
			return nil, nil, err
		}
		return pipeline.Records(r), func() { in.env.ReadSummary(in.path, r.Stats()); r.Close() }, nil
	}
	var r *capture.Reader
	var err error
	if in.spool != nil {
		end, serr := in.spool.Seek(0, io.SeekEnd)
		if serr != nil {
			return nil, nil, cli.Trouble(fmt.Errorf("shrink: the copy of stdin: %w", serr), "")
		}
		r, err = capture.NewReader(io.NewSectionReader(in.spool, 0, end), capture.Options{})
	} else {
		r, err = capture.Open(in.path, capture.Options{})
	}
	if err != nil {
		return nil, nil, cli.InputError(in.path, err)
	}
	if !in.env.ShowCredentials {
		redact.OnRead(r)
	}
	return pipeline.Records(r), func() { r.Close() }, nil
}

// readAll reads the whole capture into memory.
func (in *input) readAll() (*capture.Header, []capture.Record, error) {
	src, done, err := in.open()
	if err != nil {
		return nil, nil, err
	}
	defer done()
	var recs []capture.Record
	for {
		rec, _, err := src.Next()
		if errors.Is(err, io.EOF) {
			return src.Header(), recs, nil
		}
		if err != nil {
			return nil, nil, cli.InputError(in.path, err)
		}
		recs = append(recs, *rec.Clone())
	}
}

func (in *input) close() {
	if in.spool != nil {
		in.spool.Close()
		if in.named {
			os.Remove(in.spool.Name())
		}
	}
}

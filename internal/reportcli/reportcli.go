// Package reportcli runs 'clawtap report': one pass over a capture that
// builds the report (with check's findings pinned on it), rendered as a
// self-contained HTML page or a Chrome trace, written through the safe
// writer, and a line that says what was written.
package reportcli

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/redact"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/report"
)

// Config is a report as the command line asks for it, its flags checked.
type Config struct {
	Path     string // the capture; "-" is stdin
	Out      cli.Output
	Trace    bool   // a Chrome trace instead of HTML
	MaxBytes int    // the limit on the report's embedded data
	Name     string // the capture's name in the report; "" is the input's base name
	UI       replay.UI
}

// Run writes the report of c.Path.
func Run(env *cli.Env, c Config) error {
	name := c.Name
	if name == "" {
		name = "stdin"
		if c.Path != "-" {
			name = filepath.Base(c.Path)
		}
	}
	// The pass reads the whole capture before a byte is written: refuse an
	// output it could not write first.
	if err := env.CheckOutput(c.Out); err != nil {
		return err
	}
	r, err := env.OpenCapture(c.Path)
	if err != nil {
		return err
	}
	defer r.Close()
	an, err := check.New(check.Options{})
	if err != nil {
		return err
	}
	unredacted := redact.Unredacted(r.Header())
	b := report.NewBuilder(report.Options{Name: name, MaxBytes: c.MaxBytes, Checker: report.NewCheck(an), NoBodies: c.Trace,
		RedactedOnRead: unredacted && !env.ShowCredentials, ShowsCredentials: unredacted && env.ShowCredentials})
	if unredacted && env.ShowCredentials {
		env.Warnf("%s was written without redaction and --show-credentials keeps its credentials: the report may show them (it says so in a banner)", name)
	}
	rep := b.Report()
	defer func() {
		if err := rep.Close(); err != nil {
			env.Warnf("%v", err)
		}
	}()
	if err := pipeline.New(pipeline.Options{Replay: replay.Options{UI: c.UI}}, b).Run(pipeline.Records(r)); err != nil {
		return cli.ReadErr(c.Path, err)
	}
	env.ReadSummary(c.Path, r.Stats())

	// The page (or trace) goes out a piece at a time, never held whole.
	var size int64
	written, err := env.WriteFileWith(c.Out, func(w io.Writer) error {
		cw := &countWriter{w: w}
		defer func() { size = cw.n }()
		if c.Trace {
			return report.WriteTrace(cw, rep)
		}
		return report.WriteHTML(cw, rep)
	})
	if err != nil || written == "" {
		return err
	}
	s := &rep.Summary
	env.Infof("wrote %s (%s): %d records, %d connection(s), %d run(s), %d finding(s)%s",
		written, output.FormatSize(size), s.Records, s.Connections, s.Runs, s.FindingsError+s.FindingsWarn+s.FindingsInfo, elidedNote(s, c.Trace))
	return nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// elidedNote says what --max-bytes left out, and when the timeline alone
// is larger than the limit.
func elidedNote(s *report.Summary, trace bool) string {
	if s.Skeleton > 0 && !trace {
		return fmt.Sprintf("; details of %d of %d record(s) elided, and the timeline alone takes %s, more than --max-bytes %s", s.BodiesElided, s.Records, output.FormatSize(int64(s.Skeleton)), output.FormatSize(int64(s.MaxBytes)))
	}
	switch {
	case trace && s.RowsElided > 0:
		return fmt.Sprintf("; %d delta or traffic event(s) left out by --max-bytes", s.RowsElided)
	case !trace && (s.BodiesElided > 0 || s.RowsElided > 0 || s.TimersElided > 0):
		return fmt.Sprintf("; details of %d of %d record(s) elided by --max-bytes", s.BodiesElided, s.Records)
	}
	return ""
}

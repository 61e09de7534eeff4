// Package replaycli runs 'clawtap replay': one pass over a capture that
// prints what the UI did, to the output or into a comparison with a
// golden file, and says which concurrent connections it skipped.
package replaycli

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
)

// Config is a replay as the command line asks for it, its flags checked.
type Config struct {
	Path string     // the capture; "-" is stdin
	Out  cli.Output // where the output goes, or its format with Golden
	// Golden compares the output with this file (exit 1 on a
	// difference); Update rewrites the file instead.
	Golden string
	Update bool
	// Printer says what to print; Run sets its writer, format and style.
	Printer output.Replay
	Replay  replay.Options
}

// Run replays c.Path and prints, or compares with the golden file.
func Run(env *cli.Env, c Config) error {
	r, err := env.OpenCapture(c.Path)
	if err != nil {
		return err
	}
	defer r.Close()

	// The output goes to -o, or into a buffer compared with the golden file
	// (text unless --format says otherwise, never coloured).
	var s *cli.Sink
	var golden bytes.Buffer
	pr := c.Printer
	if c.Golden != "" {
		pr.W, pr.Format, pr.Style = &golden, c.Out.Format, output.Style{}
		if pr.Format == "" {
			pr.Format = output.Text
		}
	} else {
		if s, err = env.OpenSink(c.Out); err != nil {
			return err
		}
		pr.W, pr.Format, pr.Style = s, s.Format, s.Style
	}
	p := pipeline.New(pipeline.Options{Replay: c.Replay, Until: pr.Window.To}, &pr)
	err = cli.ReadErr(c.Path, p.Run(pipeline.Records(r)))
	env.ReadSummary(c.Path, r.Stats())
	if n, conns := p.Engine().Skipped(); n > 0 {
		name := cli.DisplayName(c.Path)
		if c.Replay.Conn == 0 {
			env.Warnf("%s: skipped %d record(s) of connection(s) %s, other clients open at the same time as the replayed one; pick one with --conn N",
				name, n, joinInts(conns))
		} else {
			env.Infof("%s: replayed connection %d; skipped %d record(s) of connection(s) %s, other clients", name, c.Replay.Conn, n, joinInts(conns))
		}
	}
	if s != nil {
		return s.Close(err)
	}
	if err != nil {
		return err
	}
	return env.Golden(c.Out.Cmd, "replay", c.Golden, golden.Bytes(), c.Update)
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

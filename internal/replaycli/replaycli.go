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
	p := pipeline.New(pipeline.Options{Replay: c.Replay, Until: pr.Window.To}, &found{&pr, c})
	err = cli.ReadErr(c.Path, p.Run(pipeline.Records(r)))
	env.ReadSummary(c.Path, r.Stats())
	if n, conns := p.Engine().Skipped(); n > 0 && p.Engine().Replayed() > 0 {
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

// found refuses, before the final state is printed, a --conn that names no
// connection of the capture and an --agent the replay never met: usage
// errors (exit 2) that name what the capture has, instead of an empty
// replay. The steps printed before are none: every record was skipped, or
// filtered out.
type found struct {
	*output.Replay
	c Config
}

func (f *found) End(e *pipeline.End) error {
	eng := e.Engine
	if conn := f.c.Replay.Conn; conn != 0 && eng.Replayed() == 0 {
		_, conns := eng.Skipped()
		return cli.Usage("pick one of them with --conn N, or drop --conn", "no connection %d in %s (it has %s)", conn, cli.DisplayName(f.c.Path), orNone(joinInts(conns)))
	}
	if agent := f.c.Printer.Filter.Agent; agent != "" && eng.State().Agent(agent) == nil {
		return cli.Usage("give one of them to --agent, or drop it", "no agent %q in the replay of %s (it has %s)", agent, cli.DisplayName(f.c.Path), orNone(strings.Join(eng.State().AgentIDs(), ", ")))
	}
	return f.Replay.End(e)
}

func orNone(list string) string {
	if list == "" {
		return "none"
	}
	return list
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

package suite

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/replay"
)

// goldenCheck is where a pass's replay output goes: it is compared with
// the golden file as it is written, so a matching capture costs no memory
// however long its replay. The output is also kept, up to a limit, for the
// unified diff of a mismatch; with update it is written to a new golden
// file that replaces the old one only if they differ.
type goldenCheck struct {
	path  string // as the report names it
	dir   string // the folder it is opened in (Capture.Dir)
	name  string // its name there
	limit int

	want    *bufio.Reader // the golden file; nil when it does not exist
	file    *os.File
	missing bool

	equal   bool
	lines   int // complete lines that matched before the first difference
	n       int64
	got     []byte
	over    bool // got passed limit and was dropped
	scratch []byte

	dest *output.Dest // the new golden file, with update
}

// newGoldenCheck opens the golden file path, which is name in the folder
// dir: a regular file there, never one a link out of the folder names (a
// suite is data from strangers). With update, one that cannot be read so
// is replaced, and note says so.
func newGoldenCheck(dir, name, path string, limit int, update bool) (g *goldenCheck, note string, err error) {
	g = &goldenCheck{path: path, dir: dir, name: name, limit: limit, equal: true}
	f, err := output.OpenIn(dir, name, path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		g.missing, g.equal = true, false
	case err != nil && update:
		g.missing, g.equal = true, false
		note = fmt.Sprintf("%v; --update replaces it", err)
	case err != nil:
		return nil, "", fmt.Errorf("read golden: %w", err)
	default:
		g.file, g.want = f, bufio.NewReaderSize(f, 64<<10)
	}
	if update {
		// --update is the consent to replace the golden file: the file
		// named so in the folder, never what a link there names.
		if g.dest, err = output.CreateIn(dir, name, path); err != nil {
			g.close()
			return nil, "", fmt.Errorf("write golden: %w", err)
		}
	}
	return g, note, nil
}

// Write compares p with the next bytes of the golden file.
func (g *goldenCheck) Write(p []byte) (int, error) {
	g.n += int64(len(p))
	if !g.over {
		if len(g.got)+len(p) <= g.limit {
			g.got = append(g.got, p...)
		} else {
			g.over, g.got = true, nil
		}
	}
	if g.dest != nil {
		if _, err := g.dest.Write(p); err != nil {
			return 0, fmt.Errorf("write golden: %w", err)
		}
	}
	if g.equal {
		g.compare(p)
	}
	return len(p), nil
}

func (g *goldenCheck) compare(p []byte) {
	if cap(g.scratch) < len(p) {
		g.scratch = make([]byte, len(p))
	}
	w := g.scratch[:len(p)]
	k, _ := io.ReadFull(g.want, w)
	same := 0
	for same < k && w[same] == p[same] {
		same++
	}
	g.lines += bytes.Count(p[:same], []byte{'\n'})
	if same < len(p) {
		g.equal = false
	}
}

// finish ends the comparison (the golden file must end where the output
// does) and, with update, puts a changed golden file in place. It reports
// whether the output equals the golden file as it was.
func (g *goldenCheck) finish() (bool, error) {
	defer g.close()
	if g.equal {
		if _, err := g.want.ReadByte(); err == nil {
			g.equal = false
		}
	}
	if g.dest == nil {
		return g.equal, nil
	}
	if g.equal {
		g.dest.Abort() // unchanged: leave the file (and its time) alone
		return true, nil
	}
	if err := g.dest.Commit(); err != nil {
		return false, fmt.Errorf("write golden: %w", err)
	}
	return false, nil
}

func (g *goldenCheck) close() {
	if g.file != nil {
		g.file.Close()
		g.file = nil
	}
	if g.dest != nil {
		g.dest.Abort() // a no-op after Commit
	}
}

// diffLines bounds the diff a result keeps: a CI log and a JUnit failure
// need the first hunks, and the command to see them all.
const diffLines = 400

// diffSlots serialises the unified diffs: a diff of two large, very
// different outputs holds its edit trace in memory, and many workers must
// not hold many at once.
var diffSlots = make(chan struct{}, 1)

// diff explains a mismatch: a unified diff of the golden file against the
// replay when both are within the limit, else where they part. seeAll is
// the command that shows the whole diff.
func (g *goldenCheck) diff(seeAll string) string {
	if g.missing {
		return ""
	}
	if !g.over {
		want, err := output.ReadIn(g.dir, g.name, g.path, int64(g.limit))
		if err == nil {
			diffSlots <- struct{}{}
			d := replay.UnifiedDiff(g.path, "replay", want, g.got)
			<-diffSlots
			return clipLines(d, diffLines, seeAll)
		}
	}
	return fmt.Sprintf("the replay (%d bytes) parts from %s after line %d; too large to diff here: %s\n", g.n, g.path, g.lines, seeAll)
}

// firstLine is the golden file's line where the difference starts (1-based).
func (g *goldenCheck) firstLine() int { return g.lines + 1 }

// clipLines keeps the first n lines of s and says how many it left out.
func clipLines(s string, n int, seeAll string) string {
	cut := 0
	for k := 0; k < n; k++ {
		j := strings.IndexByte(s[cut:], '\n')
		if j < 0 {
			return s
		}
		cut += j + 1
	}
	if cut >= len(s) {
		return s
	}
	rest := strings.Count(s[cut:], "\n")
	return s[:cut] + "… " + strconv.Itoa(rest) + " more line(s); " + seeAll + "\n"
}

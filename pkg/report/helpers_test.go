package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/stats"
)

func fixturePath(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "fixtures", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixture %s missing: run `make fixtures`", name)
	}
	return p
}

// build reads a capture through a Builder.
func build(t testing.TB, r *capture.Reader, opts Options) *Report {
	t.Helper()
	return buildUI(t, r, opts, replay.UI{})
}

// buildUI reads a capture through a Builder, replaying it as ui.
func buildUI(t testing.TB, r *capture.Reader, opts Options, ui replay.UI) *Report {
	t.Helper()
	return runBuilder(t, NewBuilder(opts), r, ui)
}

// runBuilder reads a capture through b, replaying it as ui, with the
// peers clawtap report gives it: pkg/check's findings and pkg/stats'
// numbers.
func runBuilder(t testing.TB, b *Builder, r *capture.Reader, ui replay.UI) *Report {
	t.Helper()
	an, err := check.New(check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return runPass(t, pipeline.Options{Replay: replay.Options{UI: ui}}, r, an, b)
}

// runPass reads a capture through a pass of the observers, the last of
// which is a Builder; a pkg/stats collector goes before it for the
// header's numbers.
func runPass(t testing.TB, opts pipeline.Options, r *capture.Reader, observers ...pipeline.Observer) *Report {
	t.Helper()
	b := observers[len(observers)-1].(*Builder)
	st := stats.New()
	b.opts.Stats = func() ([]byte, error) { return json.Marshal(st.Result()) }
	observers = append(observers[:len(observers)-1:len(observers)-1], st, b)
	if err := pipeline.New(opts, observers...).Run(pipeline.Records(r)); err != nil {
		t.Fatal(err)
	}
	rep := b.Report()
	t.Cleanup(func() {
		if err := rep.Close(); err != nil {
			t.Error(err)
		}
	})
	return rep
}

func buildFile(t testing.TB, path string, opts Options) *Report {
	t.Helper()
	return buildFileUI(t, path, opts, replay.UI{})
}

// buildFileUI is buildFile replaying the capture as ui.
func buildFileUI(t testing.TB, path string, opts Options, ui replay.UI) *Report {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if opts.Name == "" {
		opts.Name = filepath.Base(path)
	}
	return buildUI(t, r, opts, ui)
}

func buildBytes(t testing.TB, data []byte, opts Options) *Report {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(data), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return build(t, r, opts)
}

// pageOrTrace writes rep's page, or its trace, failing the test on any
// error of the writer or the report.
func pageOrTrace(t testing.TB, rep *Report, trace bool) []byte {
	t.Helper()
	var out bytes.Buffer
	write := WriteHTML
	if trace {
		write = WriteTrace
	}
	if err := write(&out, rep); err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// dataOf extracts the embedded data element's text from a page.
func dataOf(t testing.TB, page []byte) []byte {
	t.Helper()
	const open = `<script type="application/json" id="clawtap-data">`
	i := bytes.Index(page, []byte(open))
	if i < 0 {
		t.Fatal("no data element")
	}
	rest := page[i+len(open):]
	j := bytes.Index(rest, []byte("</script>"))
	if j < 0 {
		t.Fatal("data element not closed")
	}
	return rest[:j]
}

var allFixtures = []string{
	"demo.jsonl.zst", "streamed-run.jsonl.zst", "tool-run.jsonl.zst", "abort.jsonl.zst", "error-run.jsonl.zst",
	"slash-command.jsonl.zst", "exec-approval.jsonl.zst", "presence-burst.jsonl.zst", "reconnect.jsonl.zst",
	"seq-gap.jsonl.zst", "junk.jsonl", "bare-frames.jsonl", "truncated.jsonl.zst", "stale-terminal.jsonl.zst",
	"duplicate-final.jsonl.zst",
}

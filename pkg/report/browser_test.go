//go:build browser

// Browser tests: reports opened in a real headless Chromium (Debian's
// chromium package), driven over the DevTools protocol with chromedp.
//
//	go test -tags browser -run Browser -v ./pkg/report
//
// CLAWTAP_CHROMIUM names the browser (default: chromium on the PATH);
// CLAWTAP_SHOTS names a directory for the screenshots (default: a
// temporary one). make browser-test installs the browser if it is missing.
package report

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/pipeline"
)

type browser struct {
	ctx    context.Context
	cancel func()
	dir    string
	mu     sync.Mutex
	msgs   []chromedp.ConsoleMessage
	shots  string
}

func chromium(t testing.TB) string {
	if p := os.Getenv("CLAWTAP_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium: install Debian's chromium package (make browser-test does), or set CLAWTAP_CHROMIUM")
	return ""
}

func newBrowser(t testing.TB) *browser {
	t.Helper()
	dir, err := os.MkdirTemp("", "clawtap-browser-")
	if err != nil {
		t.Fatal(err)
	}
	b := &browser{dir: dir, shots: os.Getenv("CLAWTAP_SHOTS")}
	if b.shots == "" {
		b.shots = filepath.Join(dir, "shots")
	}
	os.MkdirAll(b.shots, 0o755)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("font-render-hinting", "none"),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.WindowSize(1400, 1000),
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	b.ctx = ctx
	b.cancel = func() { cancel(); acancel() }
	t.Cleanup(func() {
		b.cancel()
		for range 50 { // the browser's children may still write for a moment
			if os.RemoveAll(dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.EmulateViewport(1400, 1000)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.msgs = append(b.msgs, m)
			b.mu.Unlock()
		}
	}()
	return b
}

// problems returns the console errors and exceptions since the last call.
func (b *browser) problems() []string {
	time.Sleep(100 * time.Millisecond) // let the console events arrive
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, m := range b.msgs {
		if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException || m.Type == chromedp.ConsoleWarning {
			out = append(out, m.String()+" @"+m.URL)
		}
	}
	b.msgs = nil
	return out
}

// open writes a page and loads it from file://, waiting for the first
// render. It returns the load time (navigation to first render, as the page
// measures it) and the wall time of the whole load.
func (b *browser) open(t testing.TB, name string, page []byte) (firstRender, wall time.Duration) {
	t.Helper()
	path := filepath.Join(b.dir, name+".html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := chromedp.Do(b.ctx, chromedp.Navigate("file://"+path)); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body && document.body.dataset.ready === "1"`)); err != nil {
		t.Fatalf("the page never rendered: %v (console: %q)", err, b.problems())
	}
	wall = time.Since(start)
	ms := b.eval(t, `window.__clawtapReport.firstRenderAt`)
	return time.Duration(ms.(float64)) * time.Millisecond, wall
}

func (b *browser) eval(t testing.TB, js string) any {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[any](js))
	if err != nil {
		t.Fatalf("eval %s: %v", js, err)
	}
	return v
}

func (b *browser) num(t testing.TB, js string) int {
	t.Helper()
	v, ok := b.eval(t, js).(float64)
	if !ok {
		t.Fatalf("eval %s: not a number", js)
	}
	return int(v)
}

func (b *browser) str(t testing.TB, js string) string {
	t.Helper()
	v, _ := b.eval(t, js).(string)
	return v
}

func (b *browser) do(t testing.TB, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

func (b *browser) shot(t testing.TB, name string, full bool) string {
	t.Helper()
	var buf []byte
	var err error
	if full {
		buf, err = chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	} else {
		buf, err = chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	}
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if len(buf) < 8 || string(buf[1:4]) != "PNG" {
		t.Fatalf("screenshot is not a PNG")
	}
	p := filepath.Join(b.shots, name+".png")
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s (%d bytes)", p, len(buf))
	return p
}

// clickRun clicks the middle of run k's bar and waits for its details.
func (b *browser) clickRun(t testing.TB, k int) {
	t.Helper()
	pt, err := chromedp.Run(b.ctx, chromedp.Evaluate[struct{ X, Y float64 }](fmt.Sprintf(`window.__clawtapReport.runPoint(%d)`, k)))
	if err != nil {
		t.Fatal(err)
	}
	b.do(t, chromedp.MouseClickXY(pt.X, pt.Y))
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!!document.querySelector(".details .transcript")`)); err != nil {
		t.Fatalf("clicking run %d at %v showed no run details: %v", k, pt, err)
	}
}

func TestBrowserFixtures(t *testing.T) {
	b := newBrowser(t)
	for _, name := range []string{"demo.jsonl.zst", "stale-terminal.jsonl.zst", "exec-approval.jsonl.zst", "reconnect.jsonl.zst",
		"seq-gap.jsonl.zst", "tool-run.jsonl.zst", "error-run.jsonl.zst", "junk.jsonl", "truncated.jsonl.zst", "bare-frames.jsonl"} {
		t.Run(name, func(t *testing.T) {
			rep := buildFile(t, fixturePath(t, name), Options{})
			base := strings.TrimSuffix(strings.TrimSuffix(name, ".zst"), ".jsonl")
			fr, wall := b.open(t, base, AppendHTML(nil, rep))
			t.Logf("first render %v (load %v)", fr, wall)

			// What the page drew is what the model holds.
			if got := b.num(t, `window.__clawtapReport.runs`); got != rep.NumRuns() {
				t.Errorf("page has %d runs, want %d", got, rep.NumRuns())
			}
			if got := b.num(t, `window.__clawtapReport.lanes`); got != len(rep.Lanes) {
				t.Errorf("page has %d lanes, want %d", got, len(rep.Lanes))
			}
			if got := b.num(t, `document.querySelectorAll("ol.findings li.finding").length`); got != rep.NumFindings() {
				t.Errorf("%d findings listed, want %d", got, rep.NumFindings())
			}
			if got := b.num(t, `document.querySelectorAll(".cards .card").length`); got < 8 {
				t.Errorf("%d header cards", got)
			}
			head := b.str(t, `document.querySelector(".cards").innerText`)
			if !strings.Contains(head, "2026.9.6") && rep.Meta.GatewayVersion != "" {
				t.Errorf("header does not show the gateway version: %q", head)
			}
			for _, f := range allFindings(t, rep) {
				if !strings.Contains(b.str(t, `document.querySelector("ol.findings").innerText`), f.Rule) {
					t.Errorf("finding %s not listed", f.Rule)
				}
			}
			if rep.Meta.Truncated && b.num(t, `document.querySelectorAll(".banner.warn").length`) == 0 {
				t.Error("no banner for a truncated capture")
			}
			b.shot(t, "report-"+base, false)

			// Click each run: its frames, intents, diff and transcript.
			for k, run := range allRuns(t, rep) {
				b.clickRun(t, k)
				if got := b.str(t, `document.querySelector(".details h2 code").textContent`); got != run.ID {
					t.Errorf("clicked run %d, details show %q", k, got)
				}
				rows := b.num(t, `document.querySelectorAll(".details table.st tr.rec").length`)
				if want := min(int(run.Frames), 400); rows != want {
					t.Errorf("run %d: %d record rows, want %d", k, rows, want)
				}
				tr := b.str(t, `document.querySelector(".details .transcript").innerText`)
				for _, l := range transcript(t, rep, k) {
					if !strings.Contains(tr, strings.TrimSpace(strings.SplitN(l.Text, "\n", 2)[0])) {
						t.Errorf("run %d: transcript line %q not shown in %q", k, l.Text, tr)
					}
				}
				for _, l := range output(t, rep, k) {
					if !strings.Contains(tr, strings.TrimSpace(strings.SplitN(l, "\n", 2)[0])) {
						t.Errorf("run %d: final text %q not shown in %q", k, l, tr)
					}
				}
				if k == 0 {
					b.shot(t, "report-"+base+"-run", true)
				}
			}

			// A click on a marker of a connection band shows that record.
			for row := range rep.Rows.All() {
				if row.Type != TypeMarker || rep.Labels[row.Label] == "mark open" {
					continue
				}
				pt, err := chromedp.Run(b.ctx, chromedp.Evaluate[struct{ X, Y float64 }](fmt.Sprintf(`window.__clawtapReport.rowPoint(%d)`, row.I)))
				if err != nil {
					t.Fatal(err)
				}
				b.do(t, chromedp.MouseClickXY(pt.X, pt.Y))
				time.Sleep(50 * time.Millisecond)
				if got := b.str(t, `(document.querySelector(".details h2")||{}).textContent||""`); got != rep.Labels[row.Label] {
					t.Errorf("clicking marker #%d (%s) showed %q", row.I, rep.Labels[row.Label], got)
				}
				if focus := b.str(t, `(document.querySelector(".details tr.focus td")||{}).textContent||""`); focus != fmt.Sprintf("#%d", row.I) {
					t.Errorf("clicking marker #%d focused %q", row.I, focus)
				}
				break
			}

			// Findings lead to the frames behind them.
			for k, f := range allFindings(t, rep) {
				if f.I < 0 {
					continue
				}
				b.eval(t, fmt.Sprintf(`document.querySelectorAll("ol.findings li.finding button")[%d].click()`, k))
				if got := b.str(t, `(document.querySelector(".details .fbox strong")||{}).textContent||""`); got != f.Rule {
					t.Errorf("finding %d: details show %q", k, got)
				}
				focus := b.str(t, `(document.querySelector(".details tr.focus td")||{}).textContent||""`)
				if focus != fmt.Sprintf("#%d", f.I) {
					t.Errorf("finding %d (%s): the focused frame is %q, want #%d", k, f.Rule, focus, f.I)
				}
			}
			if p := b.problems(); len(p) > 0 {
				t.Errorf("console errors: %q", p)
			}
		})
	}
}

// A page of every UI says which versions show each finding, and which do
// not: in the header, the FINDINGS list, the pin's tooltip and the
// finding's details.
func TestBrowserUIs(t *testing.T) {
	b := newBrowser(t)
	data, err := os.ReadFile(fixturePath(t, "streamed-run.jsonl.zst"))
	if err != nil {
		t.Fatal(err)
	}
	rep := reportAll(t, data, Options{Name: "streamed-run.jsonl.zst"})
	b.open(t, "uis", AppendHTML(nil, rep))
	if head := b.str(t, `document.querySelector("header.top .sub").textContent`); !strings.Contains(head, "findings checked under "+strings.Join(rep.Meta.UIs, ", ")) {
		t.Errorf("the header does not name the UIs: %q", head)
	}
	fs := allFindings(t, rep)
	notes := b.str(t, `Array.from(document.querySelectorAll("ol.findings li.finding .fu")).map(function (e) { return e.textContent; }).join("\n")`)
	var want []string
	for _, f := range fs {
		want = append(want, "shown by "+strings.Join(f.UIs, ", ")+"; not by "+strings.Join(f.NotUIs, ", "))
	}
	if notes != strings.Join(want, "\n") {
		t.Errorf("the list's notes:\n%s\nwant\n%s", notes, strings.Join(want, "\n"))
	}
	if !strings.Contains(notes, "shown by clawboo@1211c16; not by clawboo@59639f1, claw3d@eeb6f31, control-ui@2026.9.6") {
		t.Errorf("lost-reply's note is missing: %q", notes)
	}
	for k := range fs {
		b.eval(t, fmt.Sprintf(`document.querySelectorAll("ol.findings li.finding button")[%d].click()`, k))
		if got := b.str(t, `(document.querySelector(".details .fbox .fu")||{}).textContent||""`); got != want[k] {
			t.Errorf("finding %d's details: %q, want %q", k, got, want[k])
		}
	}
	pt, err := chromedp.Run(b.ctx, chromedp.Evaluate[struct{ X, Y float64 }](`window.__clawtapReport.findingPoint(0)`))
	if err != nil {
		t.Fatal(err)
	}
	b.do(t, chromedp.MouseEvent(chromedp.MouseMoved, pt.X, pt.Y))
	if tip := b.str(t, `document.querySelector(".tip").textContent`); !strings.Contains(tip, fs[0].Rule+" ["+want[0]+"]: ") {
		t.Errorf("the pin's tooltip: %q", tip)
	}
	b.shot(t, "report-uis", false)
	if p := b.problems(); len(p) > 0 {
		t.Errorf("console errors: %q", p)
	}
}

func TestBrowserZoomPanKeyboardSearch(t *testing.T) {
	b := newBrowser(t)
	rep := buildFile(t, fixturePath(t, "stale-terminal.jsonl.zst"), Options{})
	b.open(t, "stale", AppendHTML(nil, rep))
	view := func() [2]float64 {
		v := b.eval(t, `window.__clawtapReport.view()`).([]any)
		return [2]float64{v[0].(float64), v[1].(float64)}
	}
	before := view()
	b.do(t, chromedp.Click(chromedp.CSS(".timeline")), chromedp.KeyEvent("+"), chromedp.KeyEvent("+"))
	zoomed := view()
	if zoomed[1]-zoomed[0] >= before[1]-before[0] {
		t.Errorf("+ did not zoom in: %v → %v", before, zoomed)
	}
	b.do(t, chromedp.KeyEvent(kb.ArrowRight))
	panned := view()
	if !(panned[0] > zoomed[0]) {
		t.Errorf("→ did not pan: %v → %v", zoomed, panned)
	}
	// The mouse wheel zooms around the pointer, a drag pans.
	rect := b.eval(t, `(function(){var r=document.querySelector("canvas.tl").getBoundingClientRect();return [r.left,r.top,r.width,r.height]})()`).([]any)
	x, y := rect[0].(float64)+rect[2].(float64)*0.6, rect[1].(float64)+10
	b.do(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseWheel, x, y, func(p *input.DispatchMouseEventParams) { p.DeltaX, p.DeltaY = 0.001, 400 }))
	time.Sleep(100 * time.Millisecond)
	wheeled := view()
	if wheeled[1]-wheeled[0] <= panned[1]-panned[0] {
		t.Errorf("wheel did not zoom out: %v → %v", panned, wheeled)
	}
	b.do(t,
		chromedp.MouseEvent(chromedp.MousePressed, x, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseMoved, x-200, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseReleased, x-200, y, chromedp.ButtonLeft))
	time.Sleep(100 * time.Millisecond)
	dragged := view()
	if !(dragged[0] > wheeled[0]) || math.Abs((dragged[1]-dragged[0])-(wheeled[1]-wheeled[0])) > 1e-6 {
		t.Errorf("drag did not pan: %v → %v", wheeled, dragged)
	}
	b.do(t, chromedp.KeyEvent("0"))
	// Search: a runId prefix finds that run's frames.
	prefix := runAt(t, rep, 1).ID[:8]
	b.do(t, chromedp.Click(chromedp.CSS("input.search")), chromedp.SendKeys(chromedp.CSS("input.search"), prefix))
	time.Sleep(400 * time.Millisecond)
	if got := b.str(t, `document.querySelector(".toolbar .sinfo").textContent`); !strings.HasPrefix(got, fmt.Sprint(runAt(t, rep, 1).Frames)+" match") {
		t.Errorf("search %q: %q, want %d matches", prefix, got, runAt(t, rep, 1).Frames)
	}
	b.do(t, chromedp.KeyEvent("\r"))
	time.Sleep(100 * time.Millisecond)
	if got := b.str(t, `(document.querySelector(".details h2 code")||{}).textContent||""`); got != runAt(t, rep, 1).ID {
		t.Errorf("enter in the search box should open the first match's run, got %q", got)
	}
	b.shot(t, "report-search", false)
	if p := b.problems(); len(p) > 0 {
		t.Errorf("console errors: %q", p)
	}
}

func TestBrowserHostileCapture(t *testing.T) {
	b := newBrowser(t)
	rep := buildBytes(t, hostileCapture(false), Options{Name: "evil" + hostile})
	b.open(t, "hostile", AppendHTML(nil, rep))
	if got := b.eval(t, `typeof window.__pwned`); got != "undefined" {
		t.Fatal("capture text ran as script")
	}
	if n := b.num(t, `document.querySelectorAll("img, iframe, object, embed").length`); n != 0 {
		t.Fatalf("capture text made %d elements", n)
	}
	if n := b.num(t, `document.querySelectorAll("script").length`); n != 2 {
		t.Fatalf("%d script elements, want 2", n)
	}
	if b.num(t, `document.querySelectorAll(".banner.danger").length`) != 1 {
		t.Error("no banner for a capture recorded with --no-redact")
	}
	if got := b.str(t, `document.title`); got != "clawtap report — evil"+hostile {
		t.Errorf("title %q", got)
	}
	b.clickRun(t, 0)
	if !strings.Contains(b.str(t, `document.querySelector(".details").innerText`), hostile) {
		t.Error("the capture's text is not shown as text")
	}
	b.shot(t, "report-hostile", false)
	if p := b.problems(); len(p) > 0 {
		t.Errorf("console errors: %q", p)
	}
}

// A reopened run is a bar of its own, and says so in its details.
func TestBrowserReopenedRun(t *testing.T) {
	lines := []string{`{"t":1000,"conn":1,"mark":"open","url":"ws://x/"}`,
		chatLine(1001, "a", "delta"), chatLine(1002, "a", "final"), chatLine(1003, "b", "delta"), chatLine(1004, "b", "final"),
		chatLine(1005, "c", "delta"), chatLine(1006, "c", "final"), chatLine(1007, "a", "delta")}
	r, err := capture.NewReader(strings.NewReader(strings.Join(lines, "\n")+"\n"), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep := runPass(t, pipeline.Options{MaxRuns: 2}, r, NewBuilder(Options{Name: "reopened"}))
	b := newBrowser(t)
	b.open(t, "reopened", AppendHTML(nil, rep))
	if got := b.num(t, `window.__clawtapReport.runs`); got != 4 {
		t.Fatalf("page has %d runs, want 4", got)
	}
	b.clickRun(t, 3)
	if d := b.str(t, `document.querySelector(".details").innerText`); !strings.Contains(d, "reopened") {
		t.Errorf("the reopened run's details do not say so: %q", d)
	}
	b.clickRun(t, 0)
	if d := b.str(t, `document.querySelector(".details").innerText`); strings.Contains(d, "reopened") {
		t.Errorf("the first run's details say it was reopened: %q", d)
	}
	b.shot(t, "report-reopened", false)
	if p := b.problems(); len(p) > 0 {
		t.Errorf("console errors: %q", p)
	}
}

// TestBrowserDocsScreenshot takes the picture in docs/report.md: the
// stale-terminal fixture with its dropped-final finding selected.
func TestBrowserDocsScreenshot(t *testing.T) {
	b := newBrowser(t)
	b.do(t, chromedp.EmulateViewport(1280, 860))
	rep := buildFile(t, fixturePath(t, "stale-terminal.jsonl.zst"), Options{})
	b.open(t, "docs", AppendHTML(nil, rep))
	for k, f := range allFindings(t, rep) {
		if f.Rule == "dropped-final" {
			b.eval(t, fmt.Sprintf(`document.querySelectorAll("ol.findings li.finding button")[%d].click()`, k))
		}
	}
	b.eval(t, `document.querySelector("details.capnotes") && document.querySelector("details.capnotes").remove()`)
	time.Sleep(150 * time.Millisecond)
	b.shot(t, "docs-report", false)
	if p := b.problems(); len(p) > 0 {
		t.Errorf("console errors: %q", p)
	}
}

// largePage builds the report of a capture of n generated frames.
func largePage(tb testing.TB, n int) (*Report, []byte) {
	t0 := time.Now()
	capt := large(tb, n)
	gen := time.Since(t0)
	t0 = time.Now()
	rep := buildBytes(tb, capt, Options{Name: fmt.Sprintf("large-%d.jsonl", n)})
	page := AppendHTML(nil, rep)
	tb.Logf("%d frames: capture %.1f MB generated in %v; report %.1f MB built in %v (%d bodies kept, %d elided, %d rows)",
		n, float64(len(capt))/1e6, gen, float64(len(page))/1e6, time.Since(t0), rep.Summary.Bodies, rep.Summary.BodiesElided, rep.Rows.Len())
	return rep, page
}

// loadAndZoom opens the page, zooms and pans it, and returns the time to
// the first render (best of three loads) and the slowest redraw.
func loadAndZoom(tb testing.TB, b *browser, page []byte) (best time.Duration, worst float64) {
	best = 1 << 62
	for try := 0; try < 3; try++ { // the machine is shared: take the best of three loads
		fr, wall := b.open(tb, "large", page)
		tb.Logf("load %d: first render %v after navigation start (wall %v): file read by %d ms, script starts at %d ms, JSON parse+index %d ms",
			try+1, fr, wall, b.num(tb, `Math.round(performance.getEntriesByType("navigation")[0].responseEnd)`),
			b.num(tb, `window.__clawtapReport.scriptAt`), b.num(tb, `window.__clawtapReport.parseMs`))
		best = min(best, fr)
	}
	draws := func() {
		v := b.eval(tb, `window.__clawtapReport.lastDrawMs`).(float64)
		worst = max(worst, v)
	}
	b.do(tb, chromedp.Click(chromedp.CSS(".timeline")))
	for k := 0; k < 6; k++ {
		b.do(tb, chromedp.KeyEvent("+"))
		time.Sleep(40 * time.Millisecond)
		draws()
	}
	for k := 0; k < 6; k++ {
		b.do(tb, chromedp.KeyEvent(kb.ArrowRight))
		time.Sleep(40 * time.Millisecond)
		draws()
	}
	b.do(tb, chromedp.KeyEvent("0"))
	time.Sleep(60 * time.Millisecond)
	draws()
	return best, worst
}

// TestBrowserLarge opens the report of a 100,000-frame capture, zooms and
// pans it, and checks it shows every run. How fast is for
// BenchmarkBrowserLarge (make bench), not for a test on a shared machine.
func TestBrowserLarge(t *testing.T) {
	rep, page := largePage(t, 100_000)
	if len(page) > DefaultMaxBytes+200_000 {
		t.Errorf("page is %d bytes, over the default limit", len(page))
	}
	b := newBrowser(t)
	best, worst := loadAndZoom(t, b, page)
	t.Logf("time to first render %v (best of 3); slowest redraw while zooming and panning %.1f ms", best, worst)
	if got := b.num(t, `window.__clawtapReport.runs`); got != rep.NumRuns() {
		t.Errorf("runs %d, want %d", got, rep.NumRuns())
	}
	b.clickRun(t, rep.NumRuns()/2)
	b.shot(t, "report-large", false)
	if p := b.problems(); len(p) > 0 {
		t.Errorf("console errors: %q", p)
	}
}

// BenchmarkBrowserLarge reports the time to the first render of a
// 100,000-frame capture's report and its slowest redraw while zooming
// (targets: under 2 s and under 50 ms).
func BenchmarkBrowserLarge(bb *testing.B) {
	_, page := largePage(bb, 100_000)
	b := newBrowser(bb)
	var best time.Duration
	var worst float64
	for i := 0; i < bb.N; i++ {
		best, worst = loadAndZoom(bb, b, page)
	}
	bb.ReportMetric(float64(best.Milliseconds()), "first-render-ms")
	bb.ReportMetric(worst, "worst-redraw-ms")
}

// Command run is clawtap's end-to-end benchmark (make bench): it builds the
// real binary, generates a capture of a million realistic frames
// (synth.Large, the generator the Go benchmarks use), and times the real
// commands on it as child processes, output to /dev/null, alternating
// round by round with the floor — the zstd CLI decompressing the capture
// (when installed) and Go's zstd decoder splitting it into lines — so a
// busy machine slows the floor and the commands alike. It prints, per
// path, the median wall time, frames/s, the ratio to the floor, the peak
// RSS over every round (wait4's maxrss) and whether the target is met.
//
// bench/README.md explains how to run and read it.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/redact"
	"github.com/klauspost/compress/zstd"
)

// rssTarget is the peak RSS every read command must stay under.
const rssTarget = 50_000_000 // 50 MB, decimal as everywhere in clawtap

// path is one thing the harness times: a clawtap command or a floor.
type path struct {
	name string
	args []string // after the binary; "CAPTURE" stands for the capture
	// ratio is the command's target as a multiple of the floor (or, with
	// of set, of another path's time); 0 means no time target.
	ratio float64
	of    string
	floor bool
	// before: run by the -before binary (a twin of the path of the same
	// args, named with a "before: " prefix)
	before bool
	// exit codes that count as success (check and diff report findings
	// with exit 1).
	exits []int
}

var paths = []path{
	{name: "floor: zstd -dc", floor: true},
	{name: "floor: Go zstd + lines", floor: true},
	{name: "classify --format json", args: []string{"classify", "--format", "json", "CAPTURE"}, ratio: 3},
	{name: "intents --format json", args: []string{"intents", "--format", "json", "CAPTURE"}, ratio: 3.5},
	{name: "replay --final --format json", args: []string{"replay", "--final", "--format", "json", "CAPTURE"}, ratio: 5},
	{name: "report -o", args: []string{"report", "--force", "-o", os.DevNull, "CAPTURE"}, ratio: 1.5, of: "replay --final --format json"},
	{name: "report --format trace", args: []string{"report", "--format", "trace", "--force", "-o", os.DevNull, "CAPTURE"}},
	{name: "report --format otlp", args: []string{"report", "--format", "otlp", "--force", "-o", os.DevNull, "CAPTURE"}, ratio: 1.5, of: "report --format trace"},
	{name: "check", args: []string{"check", "--format", "json", "CAPTURE"}, exits: []int{0, 1}},
	{name: "check --ui all", args: []string{"check", "--ui", "all", "--format", "json", "CAPTURE"}, ratio: 1.5, of: "check", exits: []int{0, 1}},
	{name: "stats", args: []string{"stats", "--format", "json", "CAPTURE"}},
	{name: "diff (itself)", args: []string{"diff", "--format", "json", "CAPTURE", "CAPTURE"}, exits: []int{0, 1}},
	{name: "diff --ui clawboo,claw3d", args: []string{"diff", "--ui", "clawboo,claw3d", "--format", "json", "CAPTURE"}, exits: []int{0, 1}},
	{name: "validate", args: []string{"validate", "--format", "json", "CAPTURE"}, exits: []int{0, 1}},
	{name: "shrink --rule lost-reply", args: []string{"shrink", "--rule", "lost-reply", "--ui", "clawboo@1211c16", "--force", "-o", os.DevNull, "CAPTURE"}},
}

// sample is one timed run.
type sample struct {
	wall, cpu time.Duration
	rss       int64 // bytes
}

// result is a path's samples, summed up.
type result struct {
	Path    string  `json:"path"`
	Wall    float64 `json:"wallSeconds"` // median
	CPU     float64 `json:"cpuSeconds"`  // median user+sys
	Min     float64 `json:"minSeconds"`
	Max     float64 `json:"maxSeconds"`
	FPS     float64 `json:"framesPerSecond"`
	RSS     int64   `json:"peakRSSBytes"`
	Floor   float64 `json:"ratioToFloor"`   // to the zstd CLI when present, else to Go's decoder
	FloorGo float64 `json:"ratioToGoFloor"` // to Go's decoder
	Target  string  `json:"target"`
	Met     bool    `json:"met"`
}

func main() {
	if len(os.Args) == 5 && (os.Args[1] == "-generate" || os.Args[1] == "-generate-runs") {
		// In a child process, so the harness stays small: a child's
		// maxrss starts from its parent's at fork. -generate-runs makes
		// a capture of that many short runs (12 records each), where
		// whatever a command keeps per run shows (bench/README.md).
		n, _ := strconv.Atoi(os.Args[3])
		seed, _ := strconv.ParseInt(os.Args[4], 10, 64)
		gen := func(w *capture.Writer) error { return synth.Large(w, n, seed) }
		if os.Args[1] == "-generate-runs" {
			gen = func(w *capture.Writer) error {
				if err := w.WriteHeader(synth.NewHeader("many short runs")); err != nil {
					return err
				}
				return synth.ManyRunsEach(n, seed, w.Write)
			}
		}
		if err := generate(os.Args[2], gen); err != nil {
			fmt.Fprintln(os.Stderr, "generate:", err)
			os.Exit(2)
		}
		return
	}
	if len(os.Args) == 4 && os.Args[1] == "-read" {
		// The reading alone, serially, plain or with redaction on read:
		// what docs/redaction.md's "Speed" compares (bench/instructions.sh
		// counts its instructions).
		if err := readOnly(os.Args[2], os.Args[3]); err != nil {
			fmt.Fprintln(os.Stderr, "read:", err)
			os.Exit(2)
		}
		return
	}
	if len(os.Args) == 3 && os.Args[1] == "-floor-go" {
		if err := floorGo(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(2)
		}
		return
	}
	frames := flag.Int("frames", envInt("CLAWTAP_BENCH_FRAMES", 1_000_000), "frames in the generated capture")
	rounds := flag.Int("rounds", 5, "alternating rounds; each path's median is reported")
	bin := flag.String("bin", "", "clawtap binary to measure (default: build ./cmd/clawtap)")
	before := flag.String("before", "", "another clawtap binary (e.g. main's) to time in the same rounds, each path beside its twin")
	capPath := flag.String("capture", "", "capture to use instead of generating one (-frames must say how many frames it holds)")
	only := flag.String("only", "", "comma-separated path names (prefixes) to run, besides the floors")
	jsonOut := flag.String("json", "", "also write the results as JSON to this file")
	seed := flag.Int64("seed", 1, "generator seed")
	procs := flag.Int("gomaxprocs", 0, "run each clawtap command with GOMAXPROCS set to this (0: the machine's cores); the floors are single-threaded either way")
	flag.Parse()
	gomaxprocs = *procs
	if err := run(*frames, *rounds, *bin, *before, *capPath, *only, *jsonOut, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
}

// gomaxprocs, when set, is every clawtap command's GOMAXPROCS (-gomaxprocs).
var gomaxprocs int

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func run(frames, rounds int, bin, before, capPath, only, jsonOut string, seed int64) error {
	dir, err := os.MkdirTemp("", "clawtap-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if bin == "" {
		bin = filepath.Join(dir, "clawtap")
		// as make build does: without cgo (bench/README.md, "Memory")
		build := exec.Command("go", "build", "-o", bin, "./cmd/clawtap")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build clawtap: %w", err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if capPath == "" {
		capPath = filepath.Join(dir, "large.jsonl.zst")
		start := time.Now()
		gen := exec.Command(self, "-generate", capPath, strconv.Itoa(frames), strconv.FormatInt(seed, 10))
		gen.Stdout, gen.Stderr = os.Stderr, os.Stderr
		if err := gen.Run(); err != nil {
			return fmt.Errorf("generate capture: %w", err)
		}
		fmt.Fprintf(os.Stderr, "generated %d frames in %.1fs\n", frames, time.Since(start).Seconds())
	}
	fi, err := os.Stat(capPath)
	if err != nil {
		return err
	}
	_, zstdErr := exec.LookPath("zstd")
	todo := selectPaths(only, zstdErr == nil, before != "")

	load0 := loadavg()
	samples := make(map[string][]sample)
	for r := 0; r < rounds; r++ {
		for _, p := range todo {
			b := bin
			if p.before {
				b = before
			}
			s, err := runOne(p, b, self, capPath)
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", r+1, p.name, err)
			}
			samples[p.name] = append(samples[p.name], s)
		}
		fmt.Fprintf(os.Stderr, "round %d/%d done\n", r+1, rounds)
	}
	results := summarize(todo, samples, frames)
	procs := "GOMAXPROCS unset"
	if gomaxprocs > 0 {
		procs = fmt.Sprintf("GOMAXPROCS=%d", gomaxprocs)
	}
	fmt.Printf("clawtap bench: %d frames, capture %.1f MB zstd, %d rounds (median wall), %s, %d CPUs, %s\n",
		frames, float64(fi.Size())/1e6, rounds, runtime.Version(), runtime.NumCPU(), procs)
	fmt.Printf("load average before %s, after %s\n", load0, loadavg())
	printTable(os.Stdout, results, zstdErr == nil)
	if jsonOut != "" {
		b, _ := json.MarshalIndent(results, "", "  ")
		if err := os.WriteFile(jsonOut, append(b, '\n'), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// selectPaths keeps the floors (the zstd CLI only when installed) and the
// paths only names, each after its before-twin when asked.
func selectPaths(only string, haveZstd, twins bool) []path {
	var want []string
	if only != "" {
		want = strings.Split(only, ",")
	}
	var out []path
	for _, p := range paths {
		switch {
		case p.floor && p.name == "floor: zstd -dc" && !haveZstd:
		case p.floor:
			out = append(out, p)
		case len(want) == 0 || slices.ContainsFunc(want, func(w string) bool { return strings.HasPrefix(p.name, strings.TrimSpace(w)) }):
			if twins {
				t := p
				t.name, t.before = "before: "+p.name, true
				if t.of != "" {
					t.of = "before: " + t.of
				}
				out = append(out, t)
			}
			out = append(out, p)
		}
	}
	return out
}

func generate(path string, gen func(*capture.Writer) error) error {
	w, err := capture.Create(path)
	if err != nil {
		return err
	}
	if err := gen(w); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// runOne runs a path once as a child process, its output to /dev/null.
func runOne(p path, bin, self, capPath string) (sample, error) {
	var cmd *exec.Cmd
	switch p.name {
	case "floor: zstd -dc":
		cmd = exec.Command("zstd", "-dc", capPath)
	case "floor: Go zstd + lines":
		cmd = exec.Command(self, "-floor-go", capPath)
	default:
		if bin == "" {
			return sample{}, errors.New("no binary")
		}
		args := make([]string, len(p.args))
		for i, a := range p.args {
			if a == "CAPTURE" {
				a = capPath
			}
			args[i] = a
		}
		cmd = exec.Command(bin, args...)
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return sample{}, err
	}
	defer null.Close()
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = null, &limited{w: &stderr, n: 4096}
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	if gomaxprocs > 0 && !p.floor {
		cmd.Env = append(cmd.Env, "GOMAXPROCS="+strconv.Itoa(gomaxprocs))
	}
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return sample{}, err
	}
	if !slices.Contains(p.exits, code) && !(len(p.exits) == 0 && code == 0) {
		return sample{}, fmt.Errorf("exit %d: %s", code, strings.TrimSpace(stderr.String()))
	}
	st := cmd.ProcessState
	ru, _ := st.SysUsage().(*syscall.Rusage)
	s := sample{wall: wall, cpu: st.UserTime() + st.SystemTime()}
	if ru != nil {
		s.rss = ru.Maxrss << 10 // kilobytes on Linux
	}
	return s, nil
}

// limited keeps the first n bytes written to it.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(b []byte) (int, error) {
	if l.n > 0 {
		k := min(l.n, len(b))
		l.w.Write(b[:k])
		l.n -= k
	}
	return len(b), nil
}

// readOnly reads a capture to its end on one goroutine, as every command
// reads it (its frames' members indexed by bridge.Schema), through the
// redactor when mode is "redact", nothing else.
func readOnly(path, mode string) error {
	r, err := capture.Open(path, capture.Options{Serial: true})
	if err != nil {
		return err
	}
	defer r.Close()
	r.IndexMembers(bridge.Schema)
	switch mode {
	case "plain":
	case "redact":
		r.SetTransform(redact.New(redact.Options{}).Record)
	default:
		return fmt.Errorf("mode %q: plain or redact", mode)
	}
	n := 0
	for {
		if _, err := r.Next(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return errors.New("no records")
	}
	return nil
}

// floorGo is the Go floor: decompress with klauspost's decoder on one
// goroutine and split into lines, nothing else.
func floorGo(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := zstd.NewReader(bufio.NewReaderSize(f, 1<<16), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return err
	}
	defer zr.Close()
	br := bufio.NewReaderSize(zr, 1<<20)
	lines := 0
	for {
		_, err := br.ReadSlice('\n')
		switch {
		case err == nil:
			lines++
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			if lines == 0 {
				return errors.New("no lines")
			}
			return nil
		default:
			return err
		}
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func summarize(todo []path, samples map[string][]sample, frames int) []result {
	med := func(name string) float64 {
		var w []time.Duration
		for _, s := range samples[name] {
			w = append(w, s.wall)
		}
		if len(w) == 0 {
			return 0
		}
		return median(w).Seconds()
	}
	goFloor := med("floor: Go zstd + lines")
	floor := med("floor: zstd -dc")
	if floor == 0 {
		floor = goFloor
	}
	var out []result
	for _, p := range todo {
		ss := samples[p.name]
		var walls, cpus []time.Duration
		var rss int64
		for _, s := range ss {
			walls = append(walls, s.wall)
			cpus = append(cpus, s.cpu)
			rss = max(rss, s.rss)
		}
		r := result{Path: p.name, Wall: median(walls).Seconds(), CPU: median(cpus).Seconds(),
			Min: slices.Min(walls).Seconds(), Max: slices.Max(walls).Seconds(), RSS: rss}
		r.FPS = float64(frames) / r.Wall
		r.Floor, r.FloorGo = r.Wall/floor, r.Wall/goFloor
		if !p.floor {
			r.Met = rss <= rssTarget
			var targets []string
			switch {
			case p.ratio > 0 && p.of != "":
				targets = append(targets, fmt.Sprintf("≤ %.1f× %s", p.ratio, strings.Fields(strings.TrimPrefix(p.of, "before: "))[0]))
				if base := med(p.of); base > 0 {
					r.Met = r.Met && r.Wall <= p.ratio*base
				}
			case p.ratio > 0:
				targets = append(targets, fmt.Sprintf("≤ %g× floor", p.ratio))
				r.Met = r.Met && r.Floor <= p.ratio
			}
			targets = append(targets, fmt.Sprintf("≤ %d MB", rssTarget/1_000_000))
			r.Target = strings.Join(targets, ", ")
		}
		out = append(out, r)
	}
	return out
}

func printTable(w io.Writer, results []result, haveZstd bool) {
	floorName := "×floor"
	if !haveZstd {
		floorName = "×floor(Go)"
	}
	fmt.Fprintf(w, "%-38s %9s %8s %8s %11s %7s %9s %9s  %-26s %s\n",
		"path", "wall", "spread", "cpu", "frames/s", floorName, "×Go floor", "peak RSS", "target", "")
	for _, r := range results {
		met := ""
		if r.Target != "" {
			met = "missed"
			if r.Met {
				met = "met"
			}
		}
		fmt.Fprintf(w, "%-38s %8.2fs %8s %7.2fs %11s %6.1f× %8.1f× %6.1f MB  %-26s %s\n",
			r.Path, r.Wall, fmt.Sprintf("±%.0f%%", 100*(r.Max-r.Min)/2/r.Wall), r.CPU, thousands(r.FPS),
			r.Floor, r.FloorGo, float64(r.RSS)/1e6, r.Target, met)
	}
}

func thousands(v float64) string {
	s := strconv.FormatInt(int64(v), 10)
	var b []byte
	for i, c := range []byte(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, c)
	}
	return string(b)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

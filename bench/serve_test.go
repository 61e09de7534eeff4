//go:build linux

package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/gateway"
)

var (
	serveOnce sync.Once
	servePath string
	serveBin  string
	serveErr  error
)

// serveSetup builds the clawtap binary (or takes CLAWTAP_SERVE_BENCH_BIN,
// to measure another build, such as main's, the same way) and generates
// the capture it serves (CLAWTAP_SERVE_BENCH_FRAMES frames, default
// 2,000,000: eight connections joined by gateway restarts), once per
// process.
func serveSetup(tb testing.TB) (bin, path string) {
	serveOnce.Do(func() {
		n := 2_000_000
		if s := os.Getenv("CLAWTAP_SERVE_BENCH_FRAMES"); s != "" {
			if n, serveErr = strconv.Atoi(s); serveErr != nil {
				return
			}
		}
		dir, err := os.MkdirTemp("", "clawtap-serve-bench-")
		if err != nil {
			serveErr = err
			return
		}
		if serveBin = os.Getenv("CLAWTAP_SERVE_BENCH_BIN"); serveBin == "" {
			serveBin = filepath.Join(dir, "clawtap")
			build := exec.Command(goTool(), "build", "-o", serveBin, "github.com/clawtap/clawtap/cmd/clawtap")
			if out, err := build.CombinedOutput(); err != nil {
				serveErr = fmt.Errorf("build clawtap: %v\n%s", err, out)
				return
			}
		}
		servePath = filepath.Join(dir, "serve.jsonl.zst")
		w, err := capture.Create(servePath)
		if err != nil {
			serveErr = err
			return
		}
		if err := synth.Large(w, n, 3); err != nil {
			serveErr = err
			return
		}
		serveErr = w.Close()
	})
	if serveErr != nil {
		tb.Fatal(serveErr)
	}
	return serveBin, servePath
}

func goTool() string {
	if p := filepath.Join(os.Getenv("GOROOT"), "bin", "go"); os.Getenv("GOROOT") != "" {
		return p
	}
	return "go"
}

var serveURL = regexp.MustCompile(`serving \S+ on (ws://[0-9.:]+)/`)

// serveRun is one run of `clawtap serve --reconnects --once
// --as-fast-as-possible` with a client that follows every recorded
// restart to the end of the capture.
type serveRun struct {
	listen time.Duration // from starting the process to the address on stderr
	total  time.Duration // from starting the process to its exit
	frames int           // frames the client received after its handshakes
	conns  int           // connections the client made
	peakKB int64         // the server's peak resident set
}

func runServe(tb testing.TB, bin, path string) serveRun {
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--reconnects", "--once", "--grace", "0", "--as-fast-as-possible", path)
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	var run serveRun
	urls := make(chan string, 1)
	logDone := make(chan []string)
	go func() {
		var lines []string
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if m := serveURL.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		logDone <- lines
	}()
	var url string
	select {
	case url = <-urls:
		run.listen = time.Since(start)
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		tb.Fatalf("serve did not listen:\n%v", <-logDone)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for {
		conn, err := gateway.Dial(ctx, url, gateway.Options{})
		if err != nil {
			break // serve is gone: --once ended it after the last connection
		}
		run.conns++
		for {
			if _, err = conn.Read(); err != nil {
				break
			}
			run.frames++
		}
		conn.Close()
		if code, _ := gateway.CloseStatus(err); code != 1012 {
			break // not the recorded restart: the end of the capture
		}
	}
	if err := cmd.Wait(); err != nil {
		tb.Fatalf("serve: %v\n%v", err, <-logDone)
	}
	<-logDone
	run.total = time.Since(start)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		run.peakKB = ru.Maxrss // kilobytes on Linux
	}
	return run
}

// BenchmarkServe: `clawtap serve` on a generated capture of two million
// frames, played as fast as possible to one client that reconnects after
// each recorded restart, so every connection of the capture is served.
// It reports the time from starting the process to listening
// (ms-to-listen, target < 1000), the server's peak resident set
// (MB-peak-RSS, target <= 100) and the frames served per second.
func BenchmarkServe(b *testing.B) {
	bin, path := serveSetup(b)
	var listen, total time.Duration
	var peak int64
	frames := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := runServe(b, bin, path)
		if r.frames == 0 || r.conns < 2 {
			b.Fatalf("the client got %d frames over %d connections", r.frames, r.conns)
		}
		listen += r.listen
		total += r.total
		peak = max(peak, r.peakKB)
		frames += r.frames
		b.Logf("listening after %v, %d frames over %d connections in %v, peak RSS %.1f MB", r.listen, r.frames, r.conns, r.total, float64(r.peakKB)*1024/1e6)
	}
	b.ReportMetric(float64(listen.Milliseconds())/float64(b.N), "ms-to-listen")
	b.ReportMetric(float64(peak)*1024/1e6, "MB-peak-RSS")
	b.ReportMetric(float64(frames)/total.Seconds(), "frames/s")
	b.ReportMetric(0, "ns/op")
}

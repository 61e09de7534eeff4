package record

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/gorilla/websocket"
)

// The proxy's memory is measured in a child process (this test binary,
// running TestProxyMemoryHelper), so that the peers' own buffers, which
// live in the parent, do not count: the peak is the child's VmHWM, its
// resident set's high-water mark, which the child reads itself at the
// end. (The child's rusage maxrss would not do: on Linux it starts from
// the parent's high-water mark, the address space the child was cloned
// from before exec.)

func TestProxyMemoryHelper(t *testing.T) {
	upstream := os.Getenv("CLAWTAP_PROXY_MEM_UPSTREAM")
	if upstream == "" {
		t.Skip("helper process only")
	}
	buffer, _ := strconv.ParseInt(os.Getenv("CLAWTAP_PROXY_MEM_BUFFER"), 10, 64)
	w, err := capture.Create(os.Getenv("CLAWTAP_PROXY_MEM_OUT"))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(ln.Addr().String())
	rec := &Recorder{Capture: w}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rec.Proxy(ctx, Proxy{Listener: ln, Upstream: upstream, Buffer: buffer}) }()
	_, _ = io.Copy(io.Discard, os.Stdin) // the parent closes stdin when the peers are done
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rec.Stats())
	fmt.Println(string(b))
	hwm, err := highWaterMiB()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("VmHWM", hwm)
}

// highWaterMiB is this process's peak resident set size, in MiB.
func highWaterMiB() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" && f[2] == "kB" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/self/status")
}

// memRun relays n messages of size bytes each way through a proxy child
// with the given buffer, at the same time, and returns the child's peak
// RSS in MiB and its final stats.
func memRun(t *testing.T, buffer int64, n, size int) (int64, Stats) {
	t.Helper()
	msg := func(i int, fill byte) []byte {
		b := jsonOfSize(size, fill)
		copy(b[9:], fmt.Sprintf("%08d", i))
		return b
	}
	upErr := make(chan error, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		wrote := make(chan struct{})
		go func() {
			defer close(wrote)
			for i := range n {
				if c.WriteMessage(websocket.TextMessage, msg(i, 'i')) != nil {
					return
				}
			}
		}()
		err = readSized(c, n, size)
		<-wrote // closing before every message is sent would cut the client's stream
		upErr <- err
	}))
	defer up.Close()

	out := filepath.Join(t.TempDir(), "mem.jsonl.zst")
	cmd := exec.Command(os.Args[0], "-test.run=^TestProxyMemoryHelper$")
	cmd.Env = append(os.Environ(), "CLAWTAP_PROXY_MEM_UPSTREAM=ws"+strings.TrimPrefix(up.URL, "http"),
		"CLAWTAP_PROXY_MEM_BUFFER="+strconv.FormatInt(buffer, 10), "CLAWTAP_PROXY_MEM_OUT="+out)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		t.Fatal("the helper printed no address")
	}
	c, _, err := websocket.DefaultDialer.Dial("ws://"+lines.Text(), nil)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for i := range n {
			if c.WriteMessage(websocket.TextMessage, msg(i, 'o')) != nil {
				return
			}
		}
	}()
	if err := readSized(c, n, size); err != nil {
		t.Fatalf("client: %v", err)
	}
	if err := <-upErr; err != nil {
		t.Fatalf("gateway: %v", err)
	}
	c.Close()
	stdin.Close()
	var st Stats
	peak := int64(-1)
	for lines.Scan() {
		l := lines.Text()
		if strings.HasPrefix(l, "{") {
			_ = json.Unmarshal([]byte(l), &st)
		}
		if v, ok := strings.CutPrefix(l, "VmHWM "); ok {
			peak, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper: %v", err)
	}
	if peak < 0 {
		t.Fatal("the helper reported no peak")
	}
	return peak, st
}

// readSized reads n messages and checks each is size bytes.
func readSized(c *websocket.Conn, n, size int) error {
	for i := range n {
		_, r, err := c.NextReader()
		if err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
		got, err := io.Copy(io.Discard, r)
		if err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
		if got != int64(size) {
			return fmt.Errorf("message %d has %d bytes, want %d", i, got, size)
		}
	}
	return nil
}

// TestProxyMemoryIsBounded: eight 60 MB messages each way at once. With
// the default 64 MiB buffer each is held whole and recorded; with an 8 MiB
// buffer each is streamed and recorded as an oversize marker. Either way
// the peak stays bounded by the buffer, not by what the peers send.
func TestProxyMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("short: relays a gigabyte")
	}
	if _, err := highWaterMiB(); err != nil {
		t.Skipf("no peak RSS to read on this system: %v", err)
	}
	n, size := 8, 60_000_000
	scale, factor := int64(1), int64(1)
	if raceEnabled { // ten times slower and two to three times the memory: a tenth of it all
		size, scale, factor = size/10, 10, 3
	}
	cases := []struct {
		name     string
		buffer   int64
		oversize int
	}{
		{"held whole (default buffer)", DefaultProxyBuffer / scale, 0},
		{"streamed (8 MiB buffer)", 8 << 20 / scale, 2 * n},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			peak, st := memRun(t, c.buffer, n, size)
			t.Logf("%d × %d bytes each way, buffer %d: peak RSS %d MiB, %v; stats %+v", n, size, c.buffer, peak, time.Since(start).Round(time.Millisecond), st)
			wantFrames := int64(2 * n)
			if c.oversize > 0 {
				wantFrames = 0
			}
			if st.Oversize != c.oversize || st.Frames != wantFrames {
				t.Errorf("oversize %d frames %d, want %d and %d", st.Oversize, st.Frames, c.oversize, wantFrames)
			}
			// Per direction: the buffer, and the half-size one it grew
			// from while both were live; then the program, the zstd
			// window and the garbage collector's slack.
			bound := ((4*c.buffer)>>20 + 64) * factor
			if peak > bound {
				t.Errorf("peak RSS %d MiB, want at most %d MiB", peak, bound)
			}
		})
	}
}

//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clawtap/clawtap/internal/fakemodel"
	"github.com/clawtap/clawtap/pkg/gateway"
)

// h is the shared harness: one fake model, one gateway (restarted by the
// restart test), the clawtap binary. Set up in TestMain.
var h *harness

type harness struct {
	root       string // this run's directory: state, home, tmp, logs, captures
	cache      string
	node       string
	openclaw   string // openclaw.mjs
	clawtap    string // built binary
	token      string
	model      *fakemodel.Server
	modelURL   string
	modelHTTP  *http.Server
	port       int
	url        string // ws://127.0.0.1:port
	gw         *proc
	gwStarts   []time.Duration
	mu         sync.Mutex
	procs      []*proc // everything started, for cleanup
	startedAll time.Time
}

// proc is a child process in its own process group.
type proc struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	err     error
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// signal sends sig to the whole process group.
func (p *proc) signal(sig syscall.Signal) {
	if p.cmd.Process != nil && !p.exited() {
		_ = syscall.Kill(-p.cmd.Process.Pid, sig)
	}
}

// stop sends SIGTERM to the group, waits up to grace, then SIGKILLs it.
func (p *proc) stop(grace time.Duration) {
	if p.cmd.Process == nil {
		return
	}
	if !p.exited() {
		p.signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(grace):
		}
	}
	// Whatever is left of the group (children of a killed leader too).
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
	}
}

func (p *proc) exitCode() int {
	<-p.done
	if p.cmd.ProcessState == nil {
		return -1
	}
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return p.cmd.ProcessState.ExitCode()
}

func (p *proc) log() string {
	b, _ := os.ReadFile(p.logPath)
	return string(b)
}

// start runs a command in its own process group, output to a log file.
// Pdeathsig kills it if the test binary dies without cleaning up.
func (hh *harness) start(name string, env []string, args ...string) (*proc, error) {
	logPath := filepath.Join(hh.root, "logs", name+".log")
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, err
	}
	p := &proc{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	hh.mu.Lock()
	hh.procs = append(hh.procs, p)
	hh.mu.Unlock()
	return p, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// repoRoot is the module root (this package is e2e/ in it).
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// readEnvFile reads KEY=VALUE lines.
func readEnvFile(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), "="); ok {
			out[k] = v
		}
	}
	return out, nil
}

// setup installs (if needed) and starts everything.
func setup() (*harness, error) {
	hh := &harness{startedAll: time.Now(), token: "e2e-" + randHex(16)}
	hh.cache = os.Getenv("CLAWTAP_E2E_CACHE")
	if hh.cache == "" {
		home, _ := os.UserHomeDir()
		hh.cache = filepath.Join(home, ".cache", "clawtap-e2e")
	}
	// The setup script is idempotent and quick when everything is cached.
	t0 := time.Now()
	setupCmd := exec.Command("bash", filepath.Join(repoRoot(), "scripts", "e2e-setup.sh"))
	setupCmd.Env = append(os.Environ(), "CLAWTAP_E2E_CACHE="+hh.cache)
	setupCmd.Stderr = os.Stderr
	if out, err := setupCmd.Output(); err != nil {
		return nil, fmt.Errorf("scripts/e2e-setup.sh: %v\n%s", err, out)
	}
	fmt.Fprintf(os.Stderr, "e2e: setup checked in %v\n", time.Since(t0).Round(time.Millisecond))
	env, err := readEnvFile(filepath.Join(hh.cache, "env"))
	if err != nil {
		return nil, err
	}
	hh.node, hh.openclaw = env["NODE"], env["OPENCLAW_MJS"]
	if hh.node == "" || hh.openclaw == "" {
		return nil, fmt.Errorf("%s/env lacks NODE or OPENCLAW_MJS", hh.cache)
	}

	hh.root, err = os.MkdirTemp("", "clawtap-e2e-")
	if err != nil {
		return nil, err
	}
	for _, d := range []string{"state", "home", "logs", "caps", "ids"} {
		if err := os.MkdirAll(filepath.Join(hh.root, d), 0o700); err != nil {
			return nil, err
		}
	}

	// The clawtap binary under test, built as make build builds it.
	hh.clawtap = filepath.Join(hh.root, "clawtap")
	build := exec.Command("go", "build", "-o", hh.clawtap, "./cmd/clawtap")
	build.Dir = repoRoot()
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build: %v\n%s", err, out)
	}

	// The fake model, in this process, on loopback.
	hh.model = &fakemodel.Server{}
	mln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	hh.modelURL = "http://" + mln.Addr().String() + "/v1"
	hh.modelHTTP = &http.Server{Handler: hh.model}
	go hh.modelHTTP.Serve(mln)

	if hh.port, err = freePort(); err != nil {
		return nil, err
	}
	hh.url = fmt.Sprintf("ws://127.0.0.1:%d", hh.port)
	if err := hh.writeConfig(); err != nil {
		return nil, err
	}
	if err := hh.startGateway(); err != nil {
		return hh, err
	}
	return hh, nil
}

func (hh *harness) writeConfig() error {
	cfg := map[string]any{
		"gateway": map[string]any{"mode": "local", "port": hh.port, "bind": "loopback",
			"auth": map[string]any{"mode": "token", "token": hh.token}},
		"logging": map[string]any{"file": filepath.Join(hh.root, "logs", "gateway-file.log")},
		"agents": map[string]any{"defaults": map[string]any{
			"model":     map[string]any{"primary": "fake/fake-model"},
			"heartbeat": map[string]any{"every": "0m"}}},
		"models": map[string]any{"mode": "merge", "catalogRefresh": map[string]any{"enabled": false},
			"providers": map[string]any{"fake": map[string]any{
				"baseUrl": hh.modelURL, "apiKey": "sk-local", "api": "openai-completions", "timeoutSeconds": 60,
				"models": []any{map[string]any{"id": "fake-model", "name": "Fake Model", "reasoning": false,
					"input": []string{"text"}, "cost": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
					"contextWindow": 120000, "maxTokens": 4096}}}}},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	return os.WriteFile(filepath.Join(hh.root, "state", "openclaw.json"), b, 0o600)
}

// baseEnv is the environment without anything that could point a child at
// another gateway or leak the developer's credentials.
func baseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "OPENCLAW_") || strings.HasPrefix(kv, "CLAWTAP_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)
var readyLine = regexp.MustCompile(`\[gateway\] ready\s*$`)

func (hh *harness) startGateway() error {
	tmp := filepath.Join(hh.cache, "tmp") // persistent: Node's compile cache makes later starts faster
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return err
	}
	env := append(baseEnv(),
		"HOME="+filepath.Join(hh.root, "home"),
		"OPENCLAW_STATE_DIR="+filepath.Join(hh.root, "state"),
		"OPENCLAW_CONFIG_PATH="+filepath.Join(hh.root, "state", "openclaw.json"),
		"TMPDIR="+tmp,
		"OPENCLAW_DISABLE_BONJOUR=1", "OPENCLAW_NO_RESPAWN=1", "OPENCLAW_SKIP_CHANNELS=1", "OPENCLAW_EXEC_SHELL_SNAPSHOT=0",
		"PATH="+filepath.Dir(hh.node)+string(os.PathListSeparator)+os.Getenv("PATH"),
	)
	t0 := time.Now()
	p, err := hh.start(fmt.Sprintf("gateway-%d", len(hh.gwStarts)+1), env,
		hh.node, hh.openclaw, "gateway", "run", "--bind", "loopback", "--port", fmt.Sprint(hh.port), "--token", hh.token)
	if err != nil {
		return err
	}
	hh.gw = p
	deadline := time.Now().Add(180 * time.Second)
	for time.Now().Before(deadline) {
		if p.exited() {
			return fmt.Errorf("gateway exited early (%v); log:\n%s", p.err, tail(p.log(), 40))
		}
		if hh.gatewayReady(p) {
			d := time.Since(t0)
			hh.gwStarts = append(hh.gwStarts, d)
			fmt.Fprintf(os.Stderr, "e2e: gateway ready in %v (pid %d, port %d)\n", d.Round(100*time.Millisecond), p.cmd.Process.Pid, hh.port)
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("gateway not ready after 180 s; log:\n%s", tail(p.log(), 40))
}

// gatewayReady: the exact "[gateway] ready" line (colours stripped; not
// "spawn broker ready") and the port accepting connections.
func (hh *harness) gatewayReady(p *proc) bool {
	f, err := os.Open(p.logPath)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	found := false
	for sc.Scan() {
		if readyLine.MatchString(ansi.ReplaceAllString(sc.Text(), "")) {
			found = true
			break
		}
	}
	if !found {
		return false
	}
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", hh.port), time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(ansi.ReplaceAllString(s, ""), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// teardown stops everything this run started, by process group, newest
// first, and the fake model.
func (hh *harness) teardown() {
	hh.mu.Lock()
	procs := append([]*proc(nil), hh.procs...)
	hh.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].stop(20 * time.Second)
	}
	if hh.modelHTTP != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = hh.modelHTTP.Shutdown(ctx)
		cancel()
		hh.modelHTTP.Close()
	}
	if hh.root != "" && os.Getenv("CLAWTAP_E2E_KEEP") == "" {
		_ = os.RemoveAll(hh.root)
	} else if hh.root != "" {
		fmt.Fprintf(os.Stderr, "e2e: kept %s\n", hh.root)
	}
}

func TestMain(m *testing.M) {
	var err error
	h, err = setup()
	code := 1
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: setup failed: %v\n", err)
	} else {
		code = m.Run()
	}
	if h != nil {
		h.teardown()
		var starts []string
		for _, d := range h.gwStarts {
			starts = append(starts, d.Round(100*time.Millisecond).String())
		}
		fmt.Fprintf(os.Stderr, "e2e: total %v; gateway starts: %s\n", time.Since(h.startedAll).Round(100*time.Millisecond), strings.Join(starts, ", "))
	}
	os.Exit(code)
}

// ---------- recorder processes ----------

// record starts `clawtap record ARGS` with the gateway token in the
// environment (unless env says otherwise).
func (hh *harness) record(t *testing.T, name string, extraEnv []string, args ...string) *proc {
	t.Helper()
	env := append(baseEnv(), extraEnv...)
	p, err := hh.start(name, env, append([]string{hh.clawtap, "record"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.stop(10 * time.Second) })
	return p
}

// proxy starts `clawtap record --listen` on a free loopback port in front
// of the gateway, writing to path, and waits until it listens; it returns
// the recorder and the address clients connect to.
func (hh *harness) proxy(t *testing.T, name, path string) (*proc, string) {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	listen := fmt.Sprintf("127.0.0.1:%d", port)
	rec := hh.record(t, name, nil, "--listen", listen, "--upstream", hh.url, "-o", path)
	eventually(t, 15*time.Second, "the proxy to listen", func() bool {
		c, err := net.Dial("tcp", listen)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return rec, listen
}

func (hh *harness) capPath(name string) string { return filepath.Join(hh.root, "caps", name) }

// waitExit waits for a process to exit and returns its exit code.
func waitExit(t *testing.T, p *proc, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.exitCode()
	case <-time.After(d):
		t.Fatalf("%s did not exit within %v; log:\n%s", p.name, d, tail(p.log(), 30))
	}
	return -1
}

// eventually polls cond until it holds or d passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// ---------- driving the gateway ----------

const mainSession = "agent:main:main"

// driver connects a second, active client with pkg/gateway.
func (hh *harness) driver(t *testing.T, url, name string) *gateway.Client {
	t.Helper()
	store := &gateway.Store{Dir: filepath.Join(hh.root, "ids", name)}
	id, err := store.Identity()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := gateway.Dial(ctx, url, gateway.Options{
		Token: hh.token, Identity: id, Store: store, ClientVersion: "e2e", DisplayName: "clawtap e2e driver",
		Scopes: []string{"operator.read", "operator.write"},
	})
	if err != nil {
		t.Fatalf("driver %s: %v", name, err)
	}
	cl := gateway.NewClient(conn)
	t.Cleanup(func() { _ = cl.Close() })
	return cl
}

type chatPayload struct {
	RunID      string `json:"runId"`
	SessionKey string `json:"sessionKey"`
	State      string `json:"state"`
	Message    *struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"message"`
}

func (p chatPayload) text() string {
	if p.Message == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range p.Message.Content {
		if c.Type == "text" || c.Type == "" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

func chatOf(m gateway.Message) (chatPayload, bool) {
	var p chatPayload
	if m.Type != "event" || m.Event != "chat" || json.Unmarshal(m.Payload, &p) != nil {
		return p, false
	}
	return p, true
}

func isTerminal(state string) bool { return state == "final" || state == "aborted" || state == "error" }

// waitDeltas waits until the driver has seen n chat deltas of run.
func waitDeltas(t *testing.T, cl *gateway.Client, run string, n int) {
	t.Helper()
	eventually(t, 60*time.Second, fmt.Sprintf("%d deltas of run %s", n, run), func() bool {
		seen := 0
		for _, m := range cl.Messages() {
			if p, ok := chatOf(m); ok && p.RunID == run && p.State == "delta" {
				seen++
			}
		}
		return seen >= n
	})
}

// recordQuiet starts a recorder named name on the gateway once a new
// driver sees no run streaming, so that the capture's runs are the test's
// own: another test's run on the same agent would take part in clawboo's
// guard (a late terminal of it closes the live run).
func (hh *harness) recordQuiet(t *testing.T, name, path string) (*gateway.Client, *proc) {
	t.Helper()
	cl := hh.driver(t, hh.url, "driver-"+name)
	waitIdle(t, cl, 2*time.Second, 2*time.Minute)
	rec := hh.record(t, "record-"+name, []string{"OPENCLAW_GATEWAY_TOKEN=" + hh.token},
		"--url", hh.url, "-o", path, "--identity-dir", filepath.Join(hh.root, "ids", "recorder-"+name))
	waitHello(t, rec, path, 0, 30*time.Second)
	return cl, rec
}

// waitIdle waits until the gateway streams no run, as a driver sees it:
// every run it saw chat events of has ended, and no chat or agent event
// came for quiet. A run another test left behind must not stream into the
// next test's capture: the gateway resumes a turn that its SIGKILL cut
// short under a new run id once it is back (gateway-protocol.md, what
// real gateways were seen doing), minutes of it for a slow reply.
func waitIdle(t *testing.T, cl *gateway.Client, quiet, limit time.Duration) {
	t.Helper()
	seen, last := 0, time.Now()
	logged := map[string]bool{}
	eventually(t, limit, "the gateway to stream no run", func() bool {
		live := map[string]bool{}
		n := 0
		for _, m := range cl.Messages() {
			if m.Type != "event" || m.Event != "chat" && m.Event != "agent" {
				continue
			}
			n++
			if p, ok := chatOf(m); ok && p.RunID != "" {
				live[p.RunID] = !isTerminal(p.State)
			}
		}
		if n != seen {
			seen, last = n, time.Now()
		}
		for run, l := range live {
			if l {
				if !logged[run] {
					logged[run] = true
					t.Logf("waiting for run %s to end before going on", run)
				}
				return false
			}
		}
		return time.Since(last) >= quiet
	})
}

// send starts a chat run and returns its runId.
func send(t *testing.T, ctx context.Context, cl *gateway.Client, session, message string) string {
	t.Helper()
	res, err := cl.Call(ctx, "chat.send", map[string]any{"sessionKey": session, "message": message, "idempotencyKey": "e2e-" + randHex(8)})
	if err != nil {
		t.Fatalf("chat.send %q: %v", message, err)
	}
	if !res.OK {
		t.Fatalf("chat.send %q: %v", message, res.Err())
	}
	var p struct {
		RunID string `json:"runId"`
	}
	_ = json.Unmarshal(res.Payload, &p)
	if p.RunID == "" {
		t.Fatalf("chat.send %q: no runId in %s", message, res.Payload)
	}
	return p.RunID
}

// waitChat waits for a chat event of run in one of the states.
func waitChat(t *testing.T, ctx context.Context, cl *gateway.Client, run string, states ...string) chatPayload {
	t.Helper()
	m, err := cl.Wait(ctx, func(m gateway.Message) bool {
		p, ok := chatOf(m)
		if !ok || p.RunID != run {
			return false
		}
		for _, s := range states {
			if p.State == s {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("waiting for chat %v of run %s: %v", states, run, err)
	}
	p, _ := chatOf(m)
	return p
}

// ---------- running clawtap commands ----------

func (hh *harness) clawtapRun(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(hh.clawtap, args...)
	cmd.Env = baseEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

var _ = io.Discard

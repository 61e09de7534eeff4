package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestProcessHelper runs clawtap as its process does (processMain), for
// the tests that signal it.
func TestProcessHelper(t *testing.T) {
	args := os.Getenv("CLAWTAP_PROCESS_HELPER_ARGS")
	if args == "" {
		t.Skip("helper process only")
	}
	os.Exit(processMain(strings.Split(args, "\x1f")))
}

// startProcess starts clawtap as a process on args, its stdin a pipe the
// test holds open (a capture that never ends); it returns the process and
// that pipe's writing end.
func startProcess(t *testing.T, args ...string) (*exec.Cmd, *os.File, *lockedBuffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestProcessHelper$")
	cmd.Env = append(os.Environ(), "CLAWTAP_PROCESS_HELPER_ARGS="+strings.Join(args, "\x1f"))
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stdin, cmd.Stderr = pr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr.Close()
	t.Cleanup(func() {
		pw.Close()
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd, pw, &stderr
}

// stopsWithin sends sig once and says how the process ended, failing the
// test when it has not within d.
func stopsWithin(t *testing.T, cmd *exec.Cmd, sig syscall.Signal, d time.Duration, stderr *lockedBuffer) *os.ProcessState {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	_ = cmd.Process.Signal(sig)
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("still running %v after %s\n%s", d, sig, stderr)
		return nil
	}
}

// TestTestStopsOnFirstSignal: clawtap test on a capture that never ends
// (a FIFO named on the command line) stops on the first SIGTERM or SIGINT,
// with 130.
func TestTestStopsOnFirstSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "hang.jsonl")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
			// A writer that never writes: the capture's reader waits.
			w, err := os.OpenFile(fifo, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			cmd, _, stderr := startProcess(t, "test", "--format", "json", "-j", "2", fifo)
			// The signal goes once the command reads the capture (its
			// handlers are in place by then), not after a guessed wait.
			waitFor(t, func() bool { return hasOpen(cmd.Process.Pid, fifo) })
			st := stopsWithin(t, cmd, sig, 3*time.Second, stderr)
			if st.ExitCode() != 130 || !strings.Contains(stderr.String(), "interrupted") {
				t.Fatalf("exit %v\n%s", st, stderr)
			}
		})
	}
}

// TestInterruptedCommandLeavesNothing: a command that reads a capture
// still coming stops at once on SIGINT or SIGTERM, ended by that signal as
// before, and leaves no temporary file beside its -o.
func TestInterruptedCommandLeavesNothing(t *testing.T) {
	cases := []struct {
		sig  syscall.Signal
		args []string
	}{
		{syscall.SIGINT, []string{"replay", "--format", "json", "-"}},
		{syscall.SIGTERM, []string{"check", "--format", "json", "-"}},
		{syscall.SIGINT, []string{"redact", "-"}},
		{syscall.SIGTERM, []string{"stats", "--format", "text", "-"}},
	}
	for _, c := range cases {
		t.Run(c.args[0], func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			cmd, pw, stderr := startProcess(t, append(c.args, "-o", out)...)
			// A capture's lines, then nothing more for now.
			b, err := os.ReadFile(filepath.Join(repoRoot(t), "fixtures", "bare-frames.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			pw.Write(b)
			waitFor(t, func() bool { ents, _ := os.ReadDir(dir); return len(ents) > 0 })
			time.Sleep(200 * time.Millisecond)
			st := stopsWithin(t, cmd, c.sig, 3*time.Second, stderr)
			if ws, ok := st.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != c.sig {
				t.Errorf("ended %v, not by %s\n%s", st, c.sig, stderr)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("left %s behind", ents[0].Name())
			}
		})
	}
}

// hasOpen reports whether process pid has path open (Linux: /proc).
func hasOpen(pid int, path string) bool {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && target == path {
			return true
		}
	}
	return false
}

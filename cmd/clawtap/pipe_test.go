package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawtap/clawtap/internal/synth"
	"github.com/clawtap/clawtap/pkg/capture"
)

// TestMainHelperProcess runs clawtap in a child process, for tests that
// need a real process: its stdout a pipe the test closes.
func TestMainHelperProcess(t *testing.T) {
	args := os.Getenv("CLAWTAP_MAIN_HELPER_ARGS")
	if args == "" {
		t.Skip("helper process only")
	}
	os.Exit(Main(strings.Split(args, "\x1f"), os.Stdin, os.Stdout, os.Stderr))
}

// writeLarge writes a synth.Large capture of n frames to path.
func writeLarge(t *testing.T, path string, n int) {
	t.Helper()
	w, err := capture.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := synth.Large(w, n, 1); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestClosedPipeEndsQuietly: `clawtap CMD … | head -1` — every command
// whose reader leaves early ends quietly, as jq and ripgrep do: a SIGPIPE
// must not kill it, a write error must not be reported.
func TestClosedPipeEndsQuietly(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.jsonl.zst")
	// 1,000 frames: the commands whose output streams (classify, intents,
	// replay, report, redact, import) write from 400 KB to 1.4 MB of it,
	// several times what a pipe holds; the others write a few KB whatever
	// the capture's size, so they meet the closed pipe in
	// TestPipeClosedBeforeOutput. Each runs under the race detector in a
	// process of its own, where every frame costs.
	writeLarge(t, big, 1_000)
	for _, args := range [][]string{
		{"classify", big}, {"intents", big}, {"gaps", big}, {"check", big}, {"stats", big},
		{"replay", "--all", big}, {"diff", big, fixture(t, "demo.jsonl.zst")}, {"validate", big},
		{"diff", "--ui", "clawboo,claw3d", big}, {"test", "--ui", "all", big},
		{"report", big, "-o", "-"}, {"redact", big, "-o", "-"}, {"import", big, "-o", "-"},
	} {
		t.Run(args[0], func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestMainHelperProcess$")
			cmd.Env = append(os.Environ(), "CLAWTAP_MAIN_HELPER_ARGS="+strings.Join(append(args, "--format", "json"), "\x1f"))
			if args[0] == "report" || args[0] == "redact" || args[0] == "import" {
				cmd.Env[len(cmd.Env)-1] = "CLAWTAP_MAIN_HELPER_ARGS=" + strings.Join(args, "\x1f")
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
				t.Fatalf("no first line: %v (%s)", err, stderr.String())
			}
			stdout.Close() // as head -1 exits
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				// 0, or 1 when the command found something before its reader left
				// (diff, check); never 2, never a signal, never an error message.
				code := cmd.ProcessState.ExitCode()
				if code != 0 && code != 1 || strings.Contains(stderr.String(), "error") {
					t.Errorf("%v: %v (%s)\n%s", args, err, cmd.ProcessState, stderr.String())
				}
			case <-time.After(60 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("%v did not end after its reader left", args)
			}
		})
	}
}

// TestPipeClosedBeforeOutput: `clawtap CMD … | true` — the reader is gone
// before the command writes its first byte, so even the commands whose
// whole output fits in a pipe meet the closed pipe: every one ends
// quietly, in every format, with the status of what it found (0 or 1),
// never killed by SIGPIPE, never with an error message.
func TestPipeClosedBeforeOutput(t *testing.T) {
	if testing.Short() {
		// Forty-five child processes and nothing in this one for the race
		// detector to see: make unit's long stage runs it, without it.
		t.Skip("child processes only: run without -short")
	}
	demo := fixture(t, "demo.jsonl.zst")
	for _, args := range [][]string{
		{"classify", demo}, {"intents", demo}, {"gaps", demo}, {"check", demo}, {"stats", demo},
		{"replay", demo}, {"diff", demo, fixture(t, "streamed-run.jsonl.zst")}, {"validate", demo},
		{"diff", "--ui", "clawboo,claw3d", demo}, {"test", "--ui", "all", demo},
		{"report", demo, "-o", "-"}, {"redact", demo, "-o", "-"}, {"import", demo, "-o", "-"},
		{"reshape", "--gateway", "2026.9.7", demo, "-o", "-"}, {"shrink", "--rule", "lost-reply", "--ui", "clawboo@1211c16", demo, "-o", "-"},
	} {
		formats := []string{"json", "text", "table"}
		if slices.Contains(args, "-o") {
			formats = []string{""}
		}
		for _, format := range formats {
			t.Run(args[0]+"/"+format, func(t *testing.T) {
				full := args
				if format != "" {
					full = append(append([]string{}, args...), "--format", format)
				}
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				r.Close() // the reader has left already
				cmd := exec.Command(os.Args[0], "-test.run=^TestMainHelperProcess$")
				cmd.Env = append(os.Environ(), "CLAWTAP_MAIN_HELPER_ARGS="+strings.Join(full, "\x1f"))
				var stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = w, &stderr
				err = cmd.Run()
				w.Close()
				code := cmd.ProcessState.ExitCode()
				if code != 0 && code != 1 || strings.Contains(stderr.String(), "error") {
					t.Errorf("%v: %v (%s)\n%s", full, err, cmd.ProcessState, stderr.String())
				}
			})
		}
	}
}

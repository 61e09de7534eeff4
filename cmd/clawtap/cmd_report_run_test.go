package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/pkg/report"
)

func TestRunReport(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	e := cli.NewEnv(strings.NewReader(""), &bytes.Buffer{}, &stderr)
	html := filepath.Join(dir, "r.html")
	if err := runReport(e, reportOptions{path: "../../fixtures/demo.jsonl.zst", output: cli.Output{Path: html}, limit: 20e6}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(html); !bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) || !strings.Contains(stderr.String(), "wrote "+html+" (") {
		t.Errorf("html %.40q, stderr %s", b, stderr.String())
	}
	trace := filepath.Join(dir, "t.json")
	if err := runReport(e, reportOptions{path: "../../fixtures/demo.jsonl.zst", output: cli.Output{Path: trace}, trace: true, limit: 20e6, name: "demo"}); err != nil {
		t.Fatal(err)
	}
	var v struct{ TraceEvents []any }
	if b, _ := os.ReadFile(trace); json.Unmarshal(b, &v) != nil || len(v.TraceEvents) == 0 {
		t.Errorf("trace %.60q", b)
	}
}

func TestElidedNote(t *testing.T) {
	if got := elidedNote(&report.Summary{Records: 9, BodiesElided: 3}, false); got != "; details of 3 of 9 record(s) elided by --max-bytes" {
		t.Errorf("%q", got)
	}
	if got := elidedNote(&report.Summary{RowsElided: 2}, true); got != "; 2 delta or traffic event(s) left out by --max-bytes" {
		t.Errorf("%q", got)
	}
	if got := elidedNote(&report.Summary{BodiesElided: 3}, true); got != "" {
		t.Errorf("%q", got)
	}
}

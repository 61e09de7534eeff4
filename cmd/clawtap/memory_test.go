package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// memorySettings reads the GC's percent and the soft memory limit without
// changing them.
func memorySettings() (gcPercent, limit int64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
}

// sampling is stdin that notes the memory settings the first time the
// command reads it.
type sampling struct {
	r                *bytes.Reader
	read             bool
	gcPercent, limit int64
}

func (s *sampling) Read(p []byte) (int, error) {
	if !s.read {
		s.read = true
		s.gcPercent, s.limit = memorySettings()
	}
	return s.r.Read(p)
}

// A report run in-process reads its capture under report's memory limit
// and heap growth, and leaves the process's as they were: the tests that
// run after it in the same binary get no 36 MiB limit.
func TestReportRestoresMemorySettings(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(87))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	data, err := os.ReadFile(fixture(t, "demo.jsonl.zst"))
	if err != nil {
		t.Fatal(err)
	}
	in := &sampling{r: bytes.NewReader(data)}
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"report", "-", "-o", filepath.Join(t.TempDir(), "r.html")}, in, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !in.read || in.gcPercent != 100 || in.limit != 36<<20 {
		t.Errorf("while report read its capture: GOGC=%d, limit %d; want 100 and %d", in.gcPercent, in.limit, 36<<20)
	}
	if p, l := memorySettings(); p != 87 || l != math.MaxInt64 {
		t.Errorf("after report: GOGC=%d, limit %d; want 87 and none (%d), as before", p, l, int64(math.MaxInt64))
	}
}

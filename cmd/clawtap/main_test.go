package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// update rewrites golden files: go test ./cmd/clawtap -update (review the diff).
var update = flag.Bool("update", false, "rewrite golden files")

// result is what one in-process run of clawtap produced.
type result struct {
	code           int
	stdout, stderr string
}

// run executes clawtap in-process with stdin as given, as a pipe (not a
// terminal) unless tty is set.
func run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(stdin), &out, &errb)
	return result{code, out.String(), errb.String()}
}

// repoRoot is the repository's top directory, for fixtures.
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, _ := os.Getwd()
	return filepath.Join(wd, "..", "..")
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(repoRoot(t), "fixtures", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixture %s missing: run `make fixtures`", name)
	}
	return p
}

// golden compares got with testdata/golden/<name>, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	// Paths of fixtures differ between checkouts: goldens hold them relative.
	if root, err := filepath.Abs(repoRoot(t)); err == nil {
		got = strings.ReplaceAll(got, root+string(filepath.Separator), "")
	}
	path := filepath.Join("testdata", "golden", name)
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run go test ./cmd/clawtap -update to create it)", name, err)
	}
	if string(want) != got {
		t.Errorf("output differs from %s (run with -update after reviewing):\n%s", path, firstDiff(string(want), got))
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl
		}
	}
	return "(identical lines, different bytes)"
}

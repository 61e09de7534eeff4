package suite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoldenCheck: equal output passes without keeping more than the
// limit; a difference within the limit is a unified diff; past it, the
// report says after which line the outputs part and how to see it all; a
// golden longer than the output differs.
func TestGoldenCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.golden")
	write := func(s string) { os.WriteFile(path, []byte(s), 0o600) }
	feed := func(limit int, chunks ...string) (*goldenCheck, bool) {
		g, _, err := newGoldenCheck(dir, "x.golden", path, limit, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			g.Write([]byte(c))
		}
		same, err := g.finish()
		if err != nil {
			t.Fatal(err)
		}
		return g, same
	}
	write("a\nb\nc\n")
	if _, same := feed(1, "a\n", "b\nc", "\n"); !same {
		t.Error("equal output in chunks differs")
	}
	if _, same := feed(100, "a\nb\n"); same {
		t.Error("a shorter output is equal")
	}
	g, same := feed(100, "a\nb\nX\n")
	if same || g.firstLine() != 3 || !strings.Contains(g.diff("run it"), "-c\n+X\n") {
		t.Errorf("small mismatch: line %d diff %q", g.firstLine(), g.diff("run it"))
	}
	g, same = feed(3, "a\nb\n", "X\n")
	if d := g.diff("run it"); same || !strings.Contains(d, "after line 2") || !strings.Contains(d, "run it") {
		t.Errorf("large mismatch: %q", d)
	}
	os.Remove(path)
	if g, same := feed(100, "a\n"); same || !g.missing {
		t.Error("a missing golden")
	}
}

// TestUnknownUI: expectations for a UI this clawtap does not model make the
// capture an error, not a silent pass.
func TestUnknownUI(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "demo.jsonl.zst"))
	if err != nil {
		t.Fatal(err)
	}
	c := Capture{Path: filepath.Join(dir, "demo.jsonl.zst"), Base: filepath.Join(dir, "demo")}
	os.WriteFile(c.Path, b, 0o600)
	os.WriteFile(c.ExpectPath(), []byte(`{"ui": {"nope": {"findings": []}}}`), 0o600)
	r := Test(context.Background(), c, &Config{})
	if r.Status() != Error || !strings.Contains(r.Err.Error(), `UI "nope"`) {
		t.Fatalf("%s %v", r.Status(), r.Err)
	}
}

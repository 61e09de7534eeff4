package suite

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/replay"
)

func touch(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func paths(caps []Capture) []string {
	var out []string
	for _, c := range caps {
		out = append(out, c.Path)
	}
	return out
}

// TestDiscover: folders recursively (dot folders skipped, only capture
// names), files whatever their name, globs, sorted and without duplicates.
func TestDiscover(t *testing.T) {
	d := t.TempDir()
	j := func(p ...string) string { return filepath.Join(append([]string{d}, p...)...) }
	touch(t, j("b.jsonl.zst"), j("a.jsonl"), j("sub", "c.jsonl.zst"), j(".git", "x.jsonl"), j("sub", ".hidden", "y.jsonl"),
		j("a.golden"), j("a.expect.json"), j("notes.md"), j("other.ndjson"))
	caps, err := Discover([]string{d, j("b.jsonl.zst"), j("other.ndjson")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{j("a.jsonl"), j("b.jsonl.zst"), j("other.ndjson"), j("sub", "c.jsonl.zst")}
	if got := paths(caps); !slices.Equal(got, want) {
		t.Fatalf("found %v\nwant %v", got, want)
	}
	boo, c3d := models.Default(), models.MustLookup("claw3d")
	if caps[0].Golden(boo, []replay.UI{boo}) != j("a.golden") || caps[1].Golden(c3d, []replay.UI{boo, c3d}) != j("b.claw3d.golden") ||
		caps[1].ExpectPath() != j("b.expect.json") || caps[2].Base != j("other") {
		t.Fatalf("names: %+v", caps)
	}
	caps, err = Discover([]string{j("*.jsonl*")})
	if err != nil || !slices.Equal(paths(caps), []string{j("a.jsonl"), j("b.jsonl.zst")}) {
		t.Fatalf("glob: %v %v", paths(caps), err)
	}
	// A glob over a suite takes its captures, not their goldens and
	// expectations; a glob that matches only those is an error.
	caps, err = Discover([]string{j("a*")})
	if err != nil || !slices.Equal(paths(caps), []string{j("a.jsonl")}) {
		t.Fatalf("glob over goldens: %v %v", paths(caps), err)
	}
	if _, err := Discover([]string{j("*.golden")}); err == nil || !strings.Contains(err.Error(), "no capture") {
		t.Errorf("a glob of goldens only: %v", err)
	}
	// ** is refused with the folder to name instead, not read as *.
	if _, err := Discover([]string{j("**", "*.jsonl.zst")}); err == nil || !strings.Contains(err.Error(), "clawtap test "+d) {
		t.Errorf("**: %v", err)
	}
	if err := os.Mkdir(j("empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{{j("nope")}, {j("*.nothing")}, {j("empty")}, {"-"}} {
		if _, err := Discover(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	touch(t, j("a.jsonl.zst"))
	if _, err := Discover([]string{d}); err == nil || !strings.Contains(err.Error(), "share the golden") {
		t.Errorf("a.jsonl and a.jsonl.zst: %v", err)
	}
}
